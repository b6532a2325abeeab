"""A knowledge base's files: reading its live version and publishing the next one.

A base is a directory:

    DIR/CURRENT              the name of the live version, e.g. "v000004"
    DIR/v000004/manifest.json  format, embedding model, dimension, index spec, counts
    DIR/v000004/entries.jsonl  one Entry per line, in row order
    DIR/v000004/vectors.npy    unit vectors, one row per entry (numpy, no pickle)
    DIR/v000004/index.faiss    the FAISS index over those rows
    DIR/.lock                  taken while a writer saves

Every save writes a complete new version directory, fsyncs it, and then switches `CURRENT`
with an atomic rename, so a reader (or a crash) only ever sees the old base or the new one,
never half of an import. Old versions are removed after the switch. Opening a base written
with another embedding model or dimension, or one whose files disagree, fails with a
message that says so. `KnowledgeBase` (`knowledge/store.py`) holds a base in memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veriloop.errors import VeriloopError
from veriloop.knowledge.entries import Entry, now
from veriloop.knowledge.index import IndexSpec
from veriloop.knowledge.versioned import (
    KNOWLEDGE_BASE_KIND,
    check_live_kind,
    live_version,
    publish_rows,
    read_live,
    read_rows,
    version_name,
)
from veriloop.models.embeddings import Embedder

FORMAT_VERSION = 1


class KnowledgeBaseError(VeriloopError):
    """A knowledge-base directory is missing, damaged, or made for other embeddings."""


@dataclass(frozen=True)
class StoredBase:
    """A knowledge base as one version on disk holds it."""

    embedding_model: str
    dim: int
    index_spec: IndexSpec
    entries: list[Entry]
    vectors: npt.NDArray[np.float32]
    next_id: int
    version: int
    created: str | None
    index: Any
    """The FAISS index over `vectors`."""


def read_base(directory: Path, embedder: Embedder | None = None) -> StoredBase:
    """Read the live version of the base at `directory`; check it matches `embedder`.

    Raises:
        KnowledgeBaseError: Not a base, damaged, or written with other embeddings.
    """
    check_live_kind(
        directory,
        KNOWLEDGE_BASE_KIND,
        KnowledgeBaseError,
        missing=f"{directory} is not a veriloop knowledge base (no CURRENT file); create one "
        f"with `veriloop kb create {directory}`",
        other="not a knowledge base; give a folder made with `veriloop kb create`",
    )

    def load(name: str) -> tuple[dict[str, Any], IndexSpec, list[Entry], Any, Any]:
        folder = directory / name
        manifest = json.loads((folder / "manifest.json").read_text())
        if not isinstance(manifest, dict):
            raise ValueError("manifest.json is not a JSON object")
        if manifest.get("format") != FORMAT_VERSION:
            raise KnowledgeBaseError(
                f"{directory}: format {manifest.get('format')!r} is not {FORMAT_VERSION}"
            )
        for key in ("dim", "count", "next_id", "version", "embedding_model", "index"):
            if key not in manifest:
                raise KeyError(f"manifest.json has no {key!r}")
        spec = IndexSpec.from_json(manifest["index"])
        rows, vectors, index = read_rows(folder, "entries.jsonl", spec)
        return manifest, spec, [Entry(**row) for row in rows], vectors, index

    try:
        manifest, spec, entries, vectors, index = read_live(directory, load)
        dim = int(manifest["dim"])
    except KnowledgeBaseError:
        raise
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, AttributeError) as exc:
        raise KnowledgeBaseError(
            f"{directory} is damaged ({type(exc).__name__}: {exc}); restore it from a "
            "backup or an export, or rebuild it"
        ) from exc
    consistent = (
        len(entries) == manifest.get("count")
        and vectors.shape == (len(entries), dim)
        and index.ntotal == len(entries)
        and index.d == dim
    )
    if not consistent:
        raise KnowledgeBaseError(
            f"{directory} is damaged: {len(entries)} entries, vectors {vectors.shape}, "
            f"index of {index.ntotal} x {index.d}, manifest count {manifest.get('count')} "
            f"and dimension {dim} disagree; restore it from an export or rebuild it"
        )
    if embedder is not None and embedder.name != manifest["embedding_model"]:
        raise KnowledgeBaseError(
            f"{directory} was built with embeddings {manifest['embedding_model']!r}, not "
            f"{embedder.name!r}; use the same embedding_model setting, or export it and "
            "import the export into a new base"
        )
    return StoredBase(
        embedding_model=manifest["embedding_model"],
        dim=dim,
        index_spec=spec,
        entries=entries,
        vectors=vectors.astype(np.float32, copy=False),
        next_id=int(manifest["next_id"]),
        version=int(manifest["version"]),
        created=manifest.get("created"),
        index=index,
    )


def write_base(directory: Path, base: StoredBase) -> int:
    """Publish `base` as the version after `base.version`; return the new version.

    The caller holds the writer lock.

    Raises:
        KnowledgeBaseError: Another writer saved a newer version since `base` was opened.
    """
    live = live_version(directory)
    if live is not None and live != version_name(base.version):
        raise KnowledgeBaseError(
            f"{directory} was changed by another writer (now {live}, opened "
            f"{version_name(base.version)}); reopen it and apply the change again"
        )
    version = base.version + 1
    manifest = {
        "format": FORMAT_VERSION,
        "kind": KNOWLEDGE_BASE_KIND,
        "embedding_model": base.embedding_model,
        "dim": base.dim,
        "index": base.index_spec.to_json(),
        "count": len(base.entries),
        "next_id": base.next_id,
        "version": version,
        "created": base.created,
        "updated": now(),
    }
    publish_rows(
        directory,
        version,
        rows_file="entries.jsonl",
        rows=(entry.to_json() for entry in base.entries),
        vectors=base.vectors,
        index=base.index,
        manifest=manifest,
    )
    return version


__all__ = ["FORMAT_VERSION", "KnowledgeBaseError", "StoredBase", "read_base", "write_base"]
