"""A plain folder of documents used as a corpus: indexed into the cache on first use.

`--corpus DIR` (and `corpus_dir`) may name a corpus index (`veriloop index`) or a plain
folder of .txt, .md and .jsonl documents. A folder is indexed once, with the default chunking
and a flat FAISS index, into `<index cache>/folder-<fingerprint>`; the fingerprint covers
the folder's path, every file's relative path, size and modification time, the chunking
and the embedding model, so an edited, added or removed file means a new index on the next
question, and an unchanged folder is reopened at once.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from veriloop.knowledge.corpus import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    chunk_documents,
    read_folder,
)
from veriloop.knowledge.corpus_index import FORMAT_VERSION, CorpusIndex, CorpusIndexError
from veriloop.knowledge.index import IndexSpec
from veriloop.knowledge.medquad import index_cache_root
from veriloop.knowledge.versioned import live_version
from veriloop.models.embeddings import Embedder


def folder_fingerprint(folder: Path, embedding_model: str) -> str:
    """Return a digest of what an index of `folder` depends on (files, chunking, embedder)."""
    folder = Path(folder).expanduser().resolve()
    digest = hashlib.sha256()
    digest.update(
        f"{folder}\0{FORMAT_VERSION}\0{DEFAULT_CHUNK_SIZE}\0{DEFAULT_CHUNK_OVERLAP}\0"
        f"{embedding_model}\0".encode()
    )
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        stat = path.stat()
        # ctime and inode too: an edit that keeps the size and restores the mtime (`touch
        # -d`, `rsync -t`, a file swapped in by `mv`) still changes them.
        digest.update(
            f"{relative}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ctime_ns}\0"
            f"{stat.st_ino}\0".encode()
        )
    return digest.hexdigest()[:16]


def is_plain_folder(directory: Path) -> bool:
    """Return whether `directory` is a folder that is not a (versioned) index or base."""
    directory = Path(directory).expanduser()
    return directory.is_dir() and live_version(directory) is None


def folder_index(folder: Path, embedder: Embedder, cache_root: Path | None = None) -> Path:
    """Return the corpus index of a plain folder, building it into the cache if needed.

    Raises:
        CorpusIndexError: The folder holds no usable document.
        CorpusError: A JSON-lines document file is malformed.
    """
    folder = Path(folder).expanduser().resolve()
    target = (cache_root or index_cache_root()) / (
        f"folder-{folder_fingerprint(folder, embedder.name)}"
    )
    if live_version(target) is not None:
        return target
    report = read_folder(folder)
    if not report.documents:
        skipped = "; ".join(f"{path}: {reason}" for path, reason in report.skipped[:3])
        raise CorpusIndexError(
            f"{folder} holds no usable document (.txt, .md or .jsonl)"
            + (f"; skipped {skipped}" if skipped else "")
            + ". Point --corpus at a folder of documents or at a `veriloop index` directory"
        )
    chunks = chunk_documents(report.documents)
    CorpusIndex.build(
        target,
        chunks,
        embedder,
        spec=IndexSpec(kind="flat"),
        settings={
            "chunk_size": DEFAULT_CHUNK_SIZE,
            "chunk_overlap": DEFAULT_CHUNK_OVERLAP,
            "source": str(folder),
        },
    )
    return target
