"""The corpus index on disk: paragraph chunks for semantic and lexical search, plus triplets.

A corpus index is a versioned directory (`knowledge/versioned.py`), like the knowledge base:

    DIR/CURRENT
    DIR/v000001/manifest.json        format, embedding model, dimension, counts, chunking
    DIR/v000001/chunks.jsonl         one Chunk per line (id PID-n = row + 1)
    DIR/v000001/vectors.npy          unit vectors of the chunks (numpy, no pickle)
    DIR/v000001/index.faiss          FAISS index over those rows (flat or HNSW)
    DIR/v000001/bm25/                the bm25s lexical index (sparse arrays + JSON vocab)
    DIR/v000001/triplets.jsonl       the triplet graph's facts (id TID-n = row + 1), if any
    DIR/v000001/triplet_vectors.npy  unit vectors of "subject relation object"

Semantic search: cosine of unit MiniLM vectors (FAISS squared L2, reported as cosine
1 - d/2). Lexical search: BM25 (bm25s, Okapi, k1 1.5, b 0.75) over lower-cased tokens,
English stop words removed and Snowball-stemmed (PyStemmer), so "causes" matches "cause".
Triplet search: `knowledge/triplets.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import bm25s
import numpy as np
import numpy.typing as npt
import Stemmer

from veriloop.errors import VeriloopError
from veriloop.knowledge.corpus import Chunk
from veriloop.knowledge.index import IndexSpec, build_index, search
from veriloop.knowledge.ranking import rank_rows
from veriloop.knowledge.triplets import (
    Triplet,
    TripletGraph,
    triplet_text,
    triplets_from_jsonl,
    triplets_to_jsonl,
)
from veriloop.knowledge.versioned import (
    CORPUS_INDEX_KIND,
    check_live_kind,
    describe_kind,
    fsync_file,
    live_kind,
    live_version,
    publish_rows,
    read_live,
    read_rows,
    version_name,
    write_file,
    writer_lock,
)
from veriloop.models.embeddings import Embedder

FORMAT_VERSION = 1
EMBED_BATCH = 128

Progress = Callable[[int, int], None]
"""Called as progress(done, total) while chunks are embedded."""


class CorpusIndexError(VeriloopError):
    """A corpus index is missing, damaged, or was built with other embeddings."""


@cache
def snowball() -> Any:
    """Return the one English Snowball stemmer every lexical match shares."""
    return Stemmer.Stemmer("english")


def check_index_target(directory: Path) -> None:
    """Refuse to build an index at `directory` unless it is new, empty or a corpus index.

    Raises:
        CorpusIndexError: It is a file, holds a knowledge base (which a build would replace
            and delete), or holds other files.
    """
    if directory.exists() and not directory.is_dir():
        raise CorpusIndexError(f"{directory} is a file; choose a new or empty folder for --out")
    if not directory.exists():
        return
    kind = live_kind(directory)
    if kind is None:
        if any(p for p in directory.iterdir() if p.name != ".lock"):
            raise CorpusIndexError(
                f"{directory} exists, is not empty and is not a corpus index; choose a new "
                "or empty folder"
            )
    elif kind != CORPUS_INDEX_KIND:
        raise CorpusIndexError(
            f"{directory} holds {describe_kind(kind)}, not a corpus index; building an index "
            "there would replace it. Choose another folder for --out"
        )


def lexical_tokens(
    texts: Sequence[str], stopwords: Literal["en", "en_plus"] = "en"
) -> list[list[str]]:
    """Tokenise for BM25: lower-case words, English stop words out, Snowball stems.

    `stopwords`: bm25s's list: "en" (33 words, the index's), "en_plus" (179, also "most",
    "many", "these": for telling content words apart).
    """
    tokens: list[list[str]] = bm25s.tokenize(
        list(texts), stopwords=stopwords, stemmer=snowball(), return_ids=False, show_progress=False
    )
    return tokens


def bm25_search(bm25: bm25s.BM25, size: int, query: str, k: int) -> list[tuple[int, float]]:
    """Return up to `k` (row, BM25 score) pairs with a positive score, best first.

    `size` is how many documents `bm25` indexes; a query with no indexed word, an empty
    index or k < 1 returns nothing.
    """
    tokens = [t for t in lexical_tokens([query])[0] if t in bm25.vocab_dict]
    if not tokens or k < 1 or size < 1:
        return []
    rows, scores = bm25.retrieve([tokens], k=min(k, size), show_progress=False, n_threads=1)
    return [
        (int(row), float(score)) for row, score in zip(rows[0], scores[0], strict=True) if score > 0
    ]


def embed_texts(
    embedder: Embedder, texts: Sequence[str], progress: Progress | None = None, *, dim: int = 0
) -> npt.NDArray[np.float32]:
    """Embed texts in batches into unit vectors (rows in order; `dim` columns when empty)."""
    parts = []
    for start in range(0, len(texts), EMBED_BATCH):
        parts.append(embedder.embed(list(texts[start : start + EMBED_BATCH])))
        if progress:
            progress(min(start + EMBED_BATCH, len(texts)), len(texts))
    if not parts:
        return np.zeros((0, dim), dtype=np.float32)
    return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)


@dataclass
class CorpusIndex:
    """Chunks with their vector and BM25 indexes, and the triplet graph, as loaded."""

    directory: Path
    version: int
    embedding_model: str
    dim: int
    spec: IndexSpec
    chunks: list[Chunk]
    vectors: npt.NDArray[np.float32]
    faiss_index: Any
    bm25: Any
    graph: TripletGraph
    triplet_vectors: npt.NDArray[np.float32]
    manifest: dict[str, Any]

    # ----------------------------------------------------------------- building

    @classmethod
    def build(
        cls,
        directory: Path,
        chunks: list[Chunk],
        embedder: Embedder,
        *,
        spec: IndexSpec | None = None,
        triplet_rows: Sequence[dict[str, str]] = (),
        settings: dict[str, Any] | None = None,
        progress: Progress | None = None,
    ) -> CorpusIndex:
        """Embed and index `chunks` (and triplets) and publish them as a new version.

        Rebuilding an existing index replaces it atomically: readers see the old version
        until the new one is complete.

        Raises:
            CorpusIndexError: The directory holds something that is not a corpus index.
        """
        directory = Path(directory).expanduser()
        check_index_target(directory)
        if not chunks:
            raise CorpusIndexError("there are no chunks to index: the corpus is empty")
        spec = spec or IndexSpec()
        vectors = embed_texts(embedder, [c["text"] for c in chunks], progress)
        faiss_index = build_index(vectors, spec)
        bm25 = bm25s.BM25()
        bm25.index(lexical_tokens([c["text"] for c in chunks]), show_progress=False)
        graph = TripletGraph()
        graph.add_many(triplet_rows)
        triplet_vectors = embed_texts(
            embedder, [triplet_text(t) for t in graph.triplets], dim=int(vectors.shape[1])
        )
        with writer_lock(directory):
            check_index_target(directory)  # again under the lock: nothing changed meanwhile
            live = live_version(directory)
            version = int(live[1:]) + 1 if live else 1
            manifest = {
                "format": FORMAT_VERSION,
                "kind": CORPUS_INDEX_KIND,
                "embedding_model": embedder.name,
                "dim": int(vectors.shape[1]),
                "index": spec.to_json(),
                "chunks": len(chunks),
                "documents": len({c["doc_id"] for c in chunks}),
                "triplets": len(graph.triplets),
                "entities": graph.graph.number_of_nodes(),
                "settings": settings or {},
                "version": version,
            }

            def write_more(staging: Path) -> None:
                bm25.save(str(staging / "bm25"))
                for path in (staging / "bm25").iterdir():
                    fsync_file(path)
                write_file(
                    staging / "triplets.jsonl", lambda h: h.write(triplets_to_jsonl(graph.triplets))
                )
                write_file(
                    staging / "triplet_vectors.npy",
                    lambda h: np.save(h, triplet_vectors, allow_pickle=False),
                    "wb",
                )

            publish_rows(
                directory,
                version,
                rows_file="chunks.jsonl",
                rows=chunks,
                vectors=vectors,
                index=faiss_index,
                manifest=manifest,
                more=write_more,
            )
        return cls(
            directory,
            version,
            embedder.name,
            int(manifest["dim"]),
            spec,
            chunks,
            vectors,
            faiss_index,
            bm25,
            graph,
            triplet_vectors,
            manifest,
        )

    # ------------------------------------------------------------------ loading

    @classmethod
    def open(cls, directory: Path, embedder: Embedder | None = None) -> CorpusIndex:
        """Load the live version of the index at `directory`.

        Raises:
            CorpusIndexError: It is not a corpus index, it is damaged, or `embedder` differs
                from the one that built it.
        """
        directory = Path(directory).expanduser()
        check_live_kind(
            directory,
            CORPUS_INDEX_KIND,
            CorpusIndexError,
            missing=f"{directory} is not a corpus index (no CURRENT file); build one with "
            "`veriloop index FOLDER --out DIR` or `veriloop index --dataset NAME ...`",
            other="not a corpus index; build one with `veriloop index FOLDER --out DIR`",
        )

        def load(live: str) -> dict[str, Any]:
            root = directory / live
            manifest = json.loads((root / "manifest.json").read_text())
            if not isinstance(manifest, dict) or manifest.get("kind") != CORPUS_INDEX_KIND:
                raise ValueError("manifest.json does not describe a corpus index")
            spec = IndexSpec.from_json(manifest["index"])
            chunks: list[Chunk]
            chunks, vectors, faiss_index = read_rows(root, "chunks.jsonl", spec)
            bm25 = bm25s.BM25.load(str(root / "bm25"))
            triplets: list[Triplet] = triplets_from_jsonl(
                (root / "triplets.jsonl").read_text(encoding="utf-8")
            )
            triplet_vectors = np.load(root / "triplet_vectors.npy", allow_pickle=False)
            return {
                "live": live,
                "manifest": manifest,
                "chunks": chunks,
                "vectors": vectors,
                "spec": spec,
                "faiss_index": faiss_index,
                "bm25": bm25,
                "triplets": triplets,
                "triplet_vectors": triplet_vectors,
            }

        try:
            loaded = read_live(directory, load)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CorpusIndexError(
                f"corpus index {directory} ({live_version(directory)}) is damaged: {exc}; "
                "rebuild it"
            ) from exc
        live, manifest = loaded["live"], loaded["manifest"]
        chunks, vectors, faiss_index = loaded["chunks"], loaded["vectors"], loaded["faiss_index"]
        if not (len(chunks) == len(vectors) == faiss_index.ntotal == manifest["chunks"]):
            raise CorpusIndexError(
                f"corpus index {directory} ({live}) is damaged: {len(chunks)} chunks, "
                f"{len(vectors)} vectors, {faiss_index.ntotal} indexed; rebuild it"
            )
        if embedder is not None and embedder.name != manifest["embedding_model"]:
            raise CorpusIndexError(
                f"corpus index {directory} was built with embeddings "
                f"{manifest['embedding_model']!r}, not {embedder.name!r}; use the same "
                "embedding_model or rebuild the index"
            )
        return cls(
            directory,
            int(live[1:]),
            manifest["embedding_model"],
            int(manifest["dim"]),
            loaded["spec"],
            chunks,
            vectors,
            faiss_index,
            loaded["bm25"],
            TripletGraph.from_triplets(loaded["triplets"]),
            loaded["triplet_vectors"],
            manifest,
        )

    @property
    def version_name(self) -> str:
        """Return the directory name of the loaded version."""
        return version_name(self.version)

    # ---------------------------------------------------------------- searching

    def search_semantic(
        self, query_vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[int, float]]:
        """Return up to `k` (row, cosine) pairs, nearest first."""
        if not self.chunks:
            return []
        distances, rows = search(self.faiss_index, query_vector.reshape(1, -1), k)
        return [
            (int(row), float(1.0 - distance / 2.0))
            for distance, row in zip(distances[0], rows[0], strict=True)
            if row >= 0
        ]

    def search_lexical(self, query: str, k: int) -> list[tuple[int, float]]:
        """Return up to `k` (row, BM25 score) pairs with a positive score, best first."""
        return bm25_search(self.bm25, len(self.chunks), query, k)

    def search_triplets(
        self,
        query: str,
        query_vector: npt.NDArray[np.float32],
        k: int,
        *,
        hops: int = 1,
        max_seeds: int = 5,
        min_entity_similarity: float = 0.6,
        entity_vectors: npt.NDArray[np.float32] | None = None,
    ) -> tuple[list[tuple[int, float]], list[str], list[int]]:
        """Return the top-`k` (triplet row, cosine), the seed entities and the subgraph rows."""
        if not self.graph.triplets:
            return [], [], []
        seeds = self.graph.mentioned_entities(query)[:max_seeds]
        if entity_vectors is not None and len(seeds) < max_seeds:
            names = self.graph.entities()
            cosines = entity_vectors @ query_vector
            for row in np.argsort(-cosines)[: max_seeds * 2]:
                if len(seeds) >= max_seeds or cosines[row] < min_entity_similarity:
                    break
                if names[row] not in seeds:
                    seeds.append(names[row])
        rows = self.graph.neighbourhood_rows(seeds, hops)
        return rank_rows(rows, self.triplet_vectors, query_vector, k), seeds, rows
