"""`veriloop index`: build a corpus index; and how a cited (Factual Evidence) answer prints.

veriloop index docs/ --out corpus/
veriloop index --dataset pubmedqa --data-dir ../shared/data/pubmedqa --split all --out pq/
veriloop index docs/ --out corpus/ --triplets facts.tsv     # a prebuilt knowledge graph
veriloop index docs/ --out corpus/ --extract-triplets       # the chat model builds it
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

from veriloop.cli.common import (
    build_context,
    err,
    fail,
    out,
)
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, VeriloopError
from veriloop.knowledge.corpus import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    CorpusWarning,
    Document,
    check_corpus_source,
    chunk_documents,
    read_folder,
)
from veriloop.knowledge.index import INDEX_KINDS, IndexSpec


def _documents(
    folder: Path | None, dataset: str | None, data_dir: Path | None, split: str | None
) -> list[Document]:
    check_corpus_source(str(folder) if folder else None, dataset)
    if folder is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CorpusWarning)  # printed below instead
            report = read_folder(folder)
        for path, reason in report.skipped:
            err.print(f"[yellow]warning:[/yellow] skipped {path}: {reason}")
        return report.documents
    if data_dir is None:
        raise InvalidInputError("--dataset needs --data-dir (the folder with the dataset's files)")
    from veriloop.evaluation.adapters import documents_from_items
    from veriloop.evaluation.datasets import load_dataset

    return documents_from_items(load_dataset(str(dataset), data_dir, split), str(dataset))


def index_command(
    folder: Annotated[
        Path | None, typer.Argument(help="Folder of .txt, .md and .jsonl documents.")
    ] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="Index directory to write.")] = Path(
        "corpus"
    ),
    dataset: Annotated[
        str | None, typer.Option(help="Index a dataset's documents instead (e.g. pubmedqa).")
    ] = None,
    data_dir: Annotated[Path | None, typer.Option(help="The dataset's folder.")] = None,
    split: Annotated[str | None, typer.Option(help="Dataset split (pubmedqa: all).")] = None,
    chunk_size: Annotated[
        int, typer.Option(min=50, help="Characters per chunk.")
    ] = DEFAULT_CHUNK_SIZE,
    chunk_overlap: Annotated[
        int, typer.Option(help="Characters shared by neighbouring chunks.")
    ] = DEFAULT_CHUNK_OVERLAP,
    index: Annotated[str, typer.Option(help=f"FAISS index: {', '.join(INDEX_KINDS)}.")] = "flat",
    triplets: Annotated[
        Path | None,
        typer.Option(help="Triplet file (TSV subject/relation/object[/source] or JSONL)."),
    ] = None,
    extract_triplets: Annotated[
        bool,
        typer.Option(
            "--extract-triplets",
            help="Extract triplets from every chunk with the chat model (one call per chunk).",
        ),
    ] = False,
    backend: Annotated[str | None, typer.Option(help="Model backend.")] = None,
    settings: Annotated[
        list[str] | None, typer.Option("--set", help="Model setting, e.g. embedding_model=PATH.")
    ] = None,
) -> None:
    """Build (or rebuild) a corpus index for Factual Evidence: chunks, BM25, vectors, triplets."""
    from tqdm import tqdm

    from veriloop.knowledge.corpus_index import CorpusIndex, check_index_target
    from veriloop.knowledge.triplets import read_triplet_file

    try:
        if index not in INDEX_KINDS:
            raise InvalidInputError(f"--index {index!r}: choose one of {', '.join(INDEX_KINDS)}")
        check_index_target(out_dir.expanduser())  # before any reading or embedding
        documents = _documents(folder, dataset, data_dir, split)
        chunks = chunk_documents(documents, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        context = build_context(ModelSettings, settings or [], backend=backend)
        rows: list[dict[str, str]] = read_triplet_file(triplets) if triplets else []
        if extract_triplets:
            from veriloop.models import get_models
            from veriloop.nodes.triplet_extraction import extract_triplets as extract

            models = get_models(context)
            failures = 0
            for chunk in tqdm(chunks, desc="extracting triplets", unit="chunk"):
                found, _, error = extract(models, chunk["text"], chunk["id"])
                rows.extend(found)
                failures += error is not None
            if failures:
                err.print(f"[yellow]warning:[/yellow] {failures} chunk(s) gave no usable triplets")
            embedder: Any = models.embedder
        else:
            from veriloop.models.backends import get_embedder

            embedder = get_embedder(context)
        bar = tqdm(total=len(chunks), desc="embedding chunks", unit="chunk")

        def progress(done: int, total: int) -> None:
            bar.update(done - bar.n)

        built = CorpusIndex.build(
            out_dir,
            chunks,
            embedder,
            spec=IndexSpec(kind=index),
            triplet_rows=rows,
            settings={
                "chunk_size": chunk_size,
                "chunk_overlap": chunk_overlap,
                "source": str(folder) if folder else f"dataset:{dataset}:{split or 'default'}",
                "splitter": "langchain RecursiveCharacterTextSplitter",
            },
            progress=progress,
        )
        bar.close()
    except VeriloopError as exc:
        raise fail(exc) from None
    manifest = built.manifest
    out.print(
        f"indexed {manifest['documents']} documents as {manifest['chunks']} chunks and "
        f"{manifest['triplets']} triplets ({manifest['entities']} entities) into {out_dir} "
        f"({built.version_name})"
    )
