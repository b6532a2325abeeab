"""The structured knowledge base: facts with confidence, embedded into FAISS, on disk.

`KnowledgeBase` holds a base in memory: it adds facts (skipping near-duplicates), updates,
deletes and searches them, and saves every change as a new version that replaces the old
one atomically. The files of a version, and reading and publishing them, are
`knowledge/store_files.py`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.knowledge.entries import Entry, NewEntry, check_confidence, clean_knowledge, now
from veriloop.knowledge.index import IndexSpec, build_index, search
from veriloop.knowledge.store_files import KnowledgeBaseError, StoredBase, read_base, write_base
from veriloop.knowledge.versioned import describe_kind, live_kind, live_version, writer_lock
from veriloop.models.embeddings import Embedder

CONFIDENCE_EPSILON = 1e-9
DUPLICATE_DISTANCE = 0.01
"""Squared-L2 distance (cos >= 0.995) under which a new fact is a near-duplicate."""
EMBED_BATCH = 256


class Hit(TypedDict):
    """One retrieved entry with its distance and L2R refusal score."""

    id: str
    knowledge: str
    confidence: float
    source: str
    distance: float
    """Squared L2 distance between unit vectors (2 - 2 cos), in [0, 4]."""
    refusal_score: float
    """distance / (confidence + 1e-9): L2R's hard-refusal statistic (lower = closer)."""
    rank: int


@dataclass
class AddReport:
    """What an `add` did: entries added, and facts skipped as duplicates of which id."""

    added: list[Entry] = field(default_factory=list)
    duplicates: list[tuple[NewEntry, str]] = field(default_factory=list)


def normalised_text(text: str) -> str:
    """Return text lower-cased with punctuation and spacing removed (duplicate key)."""
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


class KnowledgeBase:
    """Facts with confidence and their vectors, searchable with FAISS, saved atomically."""

    def __init__(
        self,
        directory: Path,
        *,
        embedding_model: str,
        dim: int,
        index_spec: IndexSpec,
        entries: list[Entry] | None = None,
        vectors: npt.NDArray[np.float32] | None = None,
        next_id: int = 1,
        version: int = 0,
        created: str | None = None,
        index: Any = None,
    ) -> None:
        """Hold a base in memory (use `create` or `open` rather than this)."""
        self.directory = Path(directory)
        self.embedding_model = embedding_model
        self.dim = dim
        self.index_spec = index_spec
        self.entries: list[Entry] = list(entries or [])
        self.vectors = vectors if vectors is not None else np.zeros((0, dim), dtype=np.float32)
        self.next_id = next_id
        self.version = version
        self.created = created or now()
        self._index = index if index is not None else build_index(self.vectors, index_spec)
        self._rows = {entry.id: row for row, entry in enumerate(self.entries)}
        self._texts = {normalised_text(entry.knowledge): entry.id for entry in self.entries}
        self._dirty = False

    # ----------------------------------------------------------------- lifecycle

    @classmethod
    def create(
        cls, directory: Path, embedder: Embedder, index_spec: IndexSpec | None = None
    ) -> KnowledgeBase:
        """Create an empty base at `directory` for `embedder`'s vectors and save it.

        Raises:
            KnowledgeBaseError: `directory` already holds a base or other files.
        """
        directory = Path(directory)
        if directory.exists() and not directory.is_dir():
            raise KnowledgeBaseError(f"{directory} is a file; choose a new or empty folder")
        if live_version(directory) is not None:
            raise KnowledgeBaseError(
                f"{directory} already holds {describe_kind(live_kind(directory))}; "
                "choose another folder"
            )
        if directory.exists() and any(p for p in directory.iterdir() if p.name not in {".lock"}):
            raise KnowledgeBaseError(
                f"{directory} exists and is not empty; choose a new or empty folder"
            )
        dim = int(embedder.embed(["dimension probe"]).shape[1])
        base = cls(
            directory, embedding_model=embedder.name, dim=dim, index_spec=index_spec or IndexSpec()
        )
        base.save()
        return base

    @classmethod
    def open(cls, directory: Path, embedder: Embedder | None = None) -> KnowledgeBase:
        """Load the base at `directory`; check it matches `embedder` when one is given.

        Raises:
            KnowledgeBaseError: Not a base, damaged, or written with other embeddings.
        """
        directory = Path(directory)
        stored = read_base(directory, embedder)
        return cls(
            directory,
            embedding_model=stored.embedding_model,
            dim=stored.dim,
            index_spec=stored.index_spec,
            entries=stored.entries,
            vectors=stored.vectors,
            next_id=stored.next_id,
            version=stored.version,
            created=stored.created,
            index=stored.index,
        )

    @classmethod
    @contextlib.contextmanager
    def editing(cls, directory: Path, embedder: Embedder | None = None) -> Iterator[KnowledgeBase]:
        """Open a base under its writer lock and save it on a clean exit.

        Any exception inside the block leaves the base on disk exactly as it was.
        """
        directory = Path(directory)
        if not (directory / "CURRENT").is_file():
            cls.open(directory)  # raises the "not a knowledge base" message
        with writer_lock(directory):
            base = cls.open(directory, embedder)
            before = base.version
            yield base
            if base.version == before and base._dirty:
                base._save_locked()

    def save(self) -> None:
        """Write the base as a new version and switch to it atomically.

        Raises:
            KnowledgeBaseError: Another writer saved a newer version since this was opened.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        with writer_lock(self.directory):
            self._save_locked()

    def _save_locked(self) -> None:
        stored = StoredBase(
            embedding_model=self.embedding_model,
            dim=self.dim,
            index_spec=self.index_spec,
            entries=self.entries,
            vectors=self.vectors,
            next_id=self.next_id,
            version=self.version,
            created=self.created,
            index=self._index,
        )
        self.version = write_base(self.directory, stored)
        self._dirty = False

    # ------------------------------------------------------------------- editing

    def __len__(self) -> int:
        """Return the number of entries."""
        return len(self.entries)

    def get(self, entry_id: str) -> Entry:
        """Return the entry with `entry_id`.

        Raises:
            InvalidInputError: No such id.
        """
        row = self._rows.get(entry_id)
        if row is None:
            raise InvalidInputError(f"no entry {entry_id!r} in {self.directory}")
        return self.entries[row]

    def _check_embedder(self, embedder: Embedder) -> None:
        if embedder.name != self.embedding_model:
            raise KnowledgeBaseError(
                f"{self.directory} holds {self.embedding_model!r} vectors; cannot add "
                f"{embedder.name!r} vectors to it"
            )

    def _embed(
        self,
        embedder: Embedder,
        texts: Sequence[str],
        progress: Callable[[int], None] | None = None,
    ) -> npt.NDArray[np.float32]:
        self._check_embedder(embedder)
        chunks = []
        for start in range(0, len(texts), EMBED_BATCH):
            batch = list(texts[start : start + EMBED_BATCH])
            chunks.append(np.asarray(embedder.embed(batch), dtype=np.float32))
            if progress is not None:
                progress(len(batch))
        if not chunks:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.vstack(chunks)
        if vectors.shape[1] != self.dim:
            raise KnowledgeBaseError(
                f"{embedder.name!r} gives {vectors.shape[1]}-dimensional vectors; "
                f"{self.directory} holds {self.dim}-dimensional ones"
            )
        return vectors

    def add(
        self,
        facts: Sequence[NewEntry],
        embedder: Embedder,
        *,
        vectors: npt.NDArray[np.float32] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> AddReport:
        """Embed and add facts; skip (and report) duplicates of entries or of each other.

        A duplicate is a fact whose normalised text equals an entry's, or whose vector lies
        within `DUPLICATE_DISTANCE` of one. Changes are in memory until `save` (or the end
        of an `editing` block).
        """
        report = AddReport()
        if not facts:
            return report
        matrix = (
            vectors
            if vectors is not None
            else self._embed(embedder, [f.knowledge for f in facts], progress)
        )
        near: list[tuple[float, int]] = [(np.inf, -1)] * len(facts)
        if len(self.entries):
            distances, rows = search(self._index, matrix, 1)
            near = [(float(d[0]), int(r[0])) for d, r in zip(distances, rows, strict=True)]
        kept_rows: list[int] = []
        kept_texts: dict[str, str] = {}
        stamp = now()
        new_entries: list[Entry] = []
        for position, fact in enumerate(facts):
            key = normalised_text(fact.knowledge)
            duplicate_of = self._texts.get(key) or kept_texts.get(key)
            distance, row = near[position]
            if duplicate_of is None and row >= 0 and distance <= DUPLICATE_DISTANCE:
                duplicate_of = self.entries[row].id
            if duplicate_of is None and kept_rows:
                batch = matrix[kept_rows]
                gaps = np.sum((batch - matrix[position]) ** 2, axis=1)
                closest = int(np.argmin(gaps))
                if gaps[closest] <= DUPLICATE_DISTANCE:
                    duplicate_of = new_entries[closest].id
            if duplicate_of is not None:
                report.duplicates.append((fact, duplicate_of))
                continue
            entry = Entry(
                id=f"K-{self.next_id}",
                knowledge=fact.knowledge,
                confidence=fact.confidence,
                source=fact.source,
                created=stamp,
                metadata=dict(fact.metadata),
            )
            self.next_id += 1
            kept_rows.append(position)
            kept_texts[key] = entry.id
            new_entries.append(entry)
        if new_entries:
            block = np.ascontiguousarray(matrix[kept_rows], dtype=np.float32)
            start = len(self.entries)
            self.entries.extend(new_entries)
            self.vectors = np.vstack([self.vectors, block])
            self._index.add(block)
            for offset, entry in enumerate(new_entries):
                self._rows[entry.id] = start + offset
                self._texts[normalised_text(entry.knowledge)] = entry.id
            self._dirty = True
        report.added = new_entries
        return report

    def update(
        self,
        entry_id: str,
        embedder: Embedder,
        *,
        knowledge: str | None = None,
        confidence: float | None = None,
    ) -> Entry:
        """Change an entry's text (re-embedded) and/or confidence; keep its id.

        Raises:
            InvalidInputError: Unknown id, empty text, or confidence outside [0, 1].
        """
        old = self.get(entry_id)
        row = self._rows[entry_id]
        changed = old
        if confidence is not None:
            changed = replace(changed, confidence=check_confidence(confidence, entry_id))
        if knowledge is not None:
            text = clean_knowledge(knowledge, entry_id)
            changed = replace(changed, knowledge=text)
            self.vectors[row] = self._embed(embedder, [text])[0]
            del self._texts[normalised_text(old.knowledge)]
            self._texts[normalised_text(text)] = entry_id
            self._index = build_index(self.vectors, self.index_spec)
        self.entries[row] = changed
        self._dirty = True
        return changed

    def delete(self, entry_ids: Sequence[str]) -> list[Entry]:
        """Remove entries by id and rebuild the index; return what was removed.

        Raises:
            InvalidInputError: An id is unknown (nothing is removed).
        """
        removed = [self.get(entry_id) for entry_id in entry_ids]
        drop = {self._rows[entry.id] for entry in removed}
        keep = [row for row in range(len(self.entries)) if row not in drop]
        self.entries = [self.entries[row] for row in keep]
        self.vectors = np.ascontiguousarray(self.vectors[keep], dtype=np.float32)
        self._index = build_index(self.vectors, self.index_spec)
        self._rows = {entry.id: row for row, entry in enumerate(self.entries)}
        self._texts = {normalised_text(entry.knowledge): entry.id for entry in self.entries}
        self._dirty = True
        return removed

    # ------------------------------------------------------------------- search

    def search_vectors(self, queries: npt.NDArray[np.float32], k: int) -> list[list[Hit]]:
        """Return the `k` nearest entries per query vector, nearest first."""
        if not self.entries:
            return [[] for _ in range(len(queries))]
        distances, rows = search(self._index, queries, min(k, len(self.entries)))
        results = []
        for distance_row, index_row in zip(distances, rows, strict=True):
            hits: list[Hit] = []
            for distance, row in zip(distance_row, index_row, strict=True):
                if row < 0:
                    continue
                entry = self.entries[int(row)]
                value = max(float(distance), 0.0)
                hits.append(
                    Hit(
                        id=entry.id,
                        knowledge=entry.knowledge,
                        confidence=entry.confidence,
                        source=entry.source,
                        distance=round(value, 6),
                        refusal_score=value / (entry.confidence + CONFIDENCE_EPSILON),
                        rank=len(hits) + 1,
                    )
                )
            results.append(hits)
        return results

    def search(self, text: str, embedder: Embedder, k: int = 4) -> list[Hit]:
        """Return the `k` entries nearest to `text`."""
        return self.search_vectors(self._embed(embedder, [text]), k)[0]

    def find_text(self, fragment: str) -> list[Entry]:
        """Return entries whose text contains `fragment` (case-insensitive)."""
        needle = fragment.casefold()
        return [entry for entry in self.entries if needle in entry.knowledge.casefold()]

    def stats(self) -> dict[str, Any]:
        """Summarise the base: size, embeddings, index, confidence and sources."""
        confidences = [entry.confidence for entry in self.entries]
        sources: dict[str, int] = {}
        for entry in self.entries:
            sources[entry.source] = sources.get(entry.source, 0) + 1
        return {
            "directory": str(self.directory),
            "entries": len(self.entries),
            "embedding_model": self.embedding_model,
            "dim": self.dim,
            "index": self.index_spec.to_json(),
            "version": self.version,
            "created": self.created,
            "confidence_mean": float(np.mean(confidences)) if confidences else None,
            "confidence_min": min(confidences) if confidences else None,
            "confidence_max": max(confidences) if confidences else None,
            "sources": dict(sorted(sources.items(), key=lambda kv: -kv[1])),
        }


__all__ = [
    "AddReport",
    "Hit",
    "KnowledgeBase",
    "KnowledgeBaseError",
    "normalised_text",
]
