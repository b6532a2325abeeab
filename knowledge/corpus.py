"""Corpus ingestion: documents from a folder or a dataset, split into paragraph chunks.

Sources:
- a folder (searched recursively) of `.txt`, `.md` / `.markdown` and `.jsonl` files. A text
  or Markdown file is one document (its path relative to the folder is its id); a JSON-lines
  file holds one document per line, `{"text": ..., "id": ..., "title": ...}` (`text`
  required). A binary or undecodable file, or a file of another type, is skipped with a
  warning naming it; a malformed JSON line is an error naming the file and line.
- a dataset: `veriloop.evaluation.adapters.documents_from_items` turns each item's documents
  into one document whose id is the item id (PubMedQA: the abstract of each question).

Chunking: LangChain's `RecursiveCharacterTextSplitter` with `chunk_size` 1000 characters
and `chunk_overlap` 150 (splits on paragraph breaks, then lines, then sentences' spaces,
so a chunk is a paragraph where the text allows). Each chunk gets the stable id `PID-n`
(n = its row in the index, from 1) and remembers its document id and start offset.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError, VeriloopError

TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
JSONL_SUFFIXES = {".jsonl"}
BINARY_SNIFF_BYTES = 8192
MAX_FILE_BYTES = 20_000_000
"""A plain-folder file larger than this is skipped with a warning: indexing 20 MB of text
embeds about 25,000 chunks (minutes on 2 cores); split a larger file to index it."""
DEFAULT_CHUNK_SIZE = 1000
DEFAULT_CHUNK_OVERLAP = 150


class CorpusError(VeriloopError):
    """A corpus source is empty, missing or malformed; the message says where."""


class CorpusWarning(UserWarning):
    """A corpus file was skipped (binary, undecodable or of an unknown type)."""


@dataclass(frozen=True)
class Document:
    """One source document before chunking."""

    doc_id: str
    text: str
    title: str = ""
    source: str = ""
    """Where it came from: a file path, or `dataset:NAME`."""


class Chunk(TypedDict):
    """One indexed paragraph chunk."""

    id: str
    """Stable id `PID-n`."""
    doc_id: str
    title: str
    source: str
    start: int
    """Character offset of the chunk in its document."""
    text: str


@dataclass
class FolderReport:
    """What reading a folder found and skipped."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) for every file that was not read."""


def _decode(path: Path) -> tuple[str | None, str]:
    """Return the file's text, or None and why it cannot be read as text."""
    try:
        data = path.read_bytes()
    except OSError as error:
        return None, f"cannot be read ({error.strerror or error}); check its permissions"
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None, "binary or not UTF-8 text"
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError:
        return None, "binary or not UTF-8 text"


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None  # reading it will say why


def _jsonl_documents(path: Path, text: str, relative: str) -> list[Document]:
    documents = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise CorpusError(f'{path}:{number}: expected an object with a "text" string')
        if not row["text"].strip():
            raise CorpusError(f"{path}:{number}: the text is empty")
        doc_id = str(row.get("id") or f"{relative}:{number}")
        documents.append(
            Document(doc_id, row["text"], str(row.get("title") or ""), f"{relative}:{number}")
        )
    return documents


def read_folder(folder: Path) -> FolderReport:
    """Read every usable document under `folder`, warning about each skipped file.

    Raises:
        CorpusError: The folder does not exist, or a JSON-lines row is malformed.
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise CorpusError(f"corpus folder {folder} does not exist or is not a folder")
    report = FolderReport()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = str(path.relative_to(folder))
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        suffix = path.suffix.lower()
        if suffix not in TEXT_SUFFIXES | JSONL_SUFFIXES:
            reason = f"unsupported file type {suffix or '(none)'}; use .txt, .md or .jsonl"
        elif (size := _size(path)) is not None and size > MAX_FILE_BYTES:
            reason = (
                f"{size / 1e6:.0f} MB is over the {MAX_FILE_BYTES / 1e6:.0f} MB a plain-folder "
                "file may hold; split it into smaller files to index it"
            )
        else:
            text, reason = _decode(path)
            if text is not None and suffix in JSONL_SUFFIXES:
                report.documents.extend(_jsonl_documents(path, text, relative))
                continue
            if text is not None and not text.strip():
                reason = "empty"
            elif text is not None:
                title = path.stem
                if suffix != ".txt":
                    heading = next((ln for ln in text.splitlines() if ln.startswith("# ")), "")
                    title = heading[2:].strip() or title
                report.documents.append(Document(relative, text, title, relative))
                continue
        report.skipped.append((relative, reason))
        warnings.warn(f"skipped {path}: {reason}", CorpusWarning, stacklevel=2)
    return report


def chunk_documents(
    documents: Sequence[Document],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    first_number: int = 1,
) -> list[Chunk]:
    """Split documents into chunks with ids `PID-<first_number>`, `PID-<first_number+1>`, ...

    Raises:
        InvalidInputError: The sizes are inconsistent.
        CorpusError: There is nothing to chunk.
    """
    if chunk_size < 50 or not 0 <= chunk_overlap < chunk_size:
        raise InvalidInputError(
            f"chunk_size must be >= 50 and 0 <= chunk_overlap < chunk_size "
            f"(got {chunk_size}, {chunk_overlap})"
        )
    if not documents:
        raise CorpusError(
            "the corpus is empty: no usable documents were found; add .txt, .md or .jsonl "
            "files, or index a dataset with --dataset"
        )
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
    )
    chunks: list[Chunk] = []
    for document in documents:
        pieces: list[Any] = splitter.create_documents([document.text])
        for piece in pieces:
            text = " ".join(piece.page_content.split())
            if not text:
                continue
            chunks.append(
                Chunk(
                    id=f"PID-{first_number + len(chunks)}",
                    doc_id=document.doc_id,
                    title=document.title,
                    source=document.source,
                    start=int(piece.metadata.get("start_index", 0)),
                    text=text,
                )
            )
    if not chunks:
        raise CorpusError("the corpus documents hold no text to index")
    return chunks


def check_corpus_source(folder: str | None, dataset: str | None) -> None:
    """Require exactly one corpus source.

    Raises:
        InvalidInputError: Neither or both were given.
    """
    if bool(folder) == bool(dataset):
        raise InvalidInputError(
            "give exactly one corpus source: a folder of .txt/.md/.jsonl files, or "
            "--dataset NAME --data-dir DIR"
        )
