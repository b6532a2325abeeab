"""Hybrid retrieval over a corpus index: semantic + lexical paragraphs, triplets, web.

    paragraphs: semantic top-n (FAISS) and lexical top-n (BM25) -> fused -> top_paragraphs
    triplets:   subgraph around the question's entities, ranked by cosine -> top_triplets
    web:        an optional `WebSearch` tool (off unless one is given) -> top_web

Fusion and re-ranking: no cross-encoder re-ranker ships with its weights on PyPI (FlashRank
and the sentence-transformers cross-encoders download theirs from a model hub at first use,
which this tool must not need), so by default the two paragraph rankings are fused with
reciprocal-rank fusion (Cormack et al. 2009): score = sum over rankings of
weight / (rrf_k + rank), rrf_k 60, lexical weight `lexical_weight` (semantic weight 1).
Given a local cross-encoder (`CrossEncoderReranker`, any object with `predict(pairs)`),
the fused candidates are re-scored by it instead.

Every unit has a stable id: `PID-n` (chunk row + 1 in the index), `TID-n` (triplet row + 1)
and `WID-n` (rank among this question's web results). The retriever never calls the chat
model; extracting triplets from retrieved paragraphs on the fly is a graph node's job.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt
from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import CorpusIndex, embed_texts
from veriloop.knowledge.triplets import triplet_text
from veriloop.models.embeddings import Embedder

UnitKind = Literal["paragraph", "triplet", "web"]
ContextMode = Literal["paragraphs", "triplets", "both"]
RRF_K = 60


class ContextUnit(TypedDict):
    """One retrieved piece of context with its id, as the prompts show it."""

    id: str
    kind: UnitKind
    text: str
    source: str
    """Document id, triplet source, or URL."""
    score: float
    """Fused (or re-ranker) score for paragraphs, cosine for triplets, rank score for web."""
    ranks: dict[str, int]
    """Retriever -> 1-based rank in that retriever's list."""


class WebResult(TypedDict):
    """One web search result."""

    url: str
    title: str
    text: str


class WebSearch(Protocol):
    """A web search tool. Off by default; veriloop never calls one unless it is given."""

    name: str

    def search(self, query: str, k: int) -> list[WebResult]:
        """Return up to `k` results for `query`."""
        ...


class LangChainWebSearch:
    """Adapt a LangChain search tool (e.g. DuckDuckGoSearchResults) to `WebSearch`.

    The tool is invoked with the query; a list of dicts (`link`/`url`, `title`,
    `snippet`/`content`) or a plain string (one result) is accepted.
    """

    def __init__(self, tool: Any, *, name: str | None = None) -> None:
        """Wrap `tool` (anything with `invoke(str)`)."""
        self.tool = tool
        self.name = name or f"langchain:{getattr(tool, 'name', type(tool).__name__)}"

    def search(self, query: str, k: int) -> list[WebResult]:
        """Invoke the tool and normalise its results."""
        raw = self.tool.invoke(query)
        rows = raw if isinstance(raw, list) else [raw]
        results: list[WebResult] = []
        for row in rows[:k]:
            if isinstance(row, dict):
                text = str(row.get("snippet") or row.get("content") or row.get("text") or "")
                url = str(row.get("link") or row.get("url") or "")
                results.append(WebResult(url=url, title=str(row.get("title") or ""), text=text))
            elif str(row).strip():
                results.append(WebResult(url="", title="", text=str(row)))
        return [r for r in results if r["text"].strip()]


_WEB_TOOLS: dict[str, Callable[[], WebSearch]] = {}


def register_web_search(name: str, factory: Callable[[], WebSearch]) -> None:
    """Make a web search tool available by name (Context `web_search`, CLI `--web NAME`)."""
    _WEB_TOOLS[name] = factory


def get_web_search(name: str) -> WebSearch:
    """Return a new instance of the web tool registered as `name`.

    Raises:
        InvalidInputError: No tool has that name.
    """
    factory = _WEB_TOOLS.get(name)
    if factory is None:
        known = ", ".join(sorted(_WEB_TOOLS)) or "none registered"
        raise InvalidInputError(
            f"no web search tool named {name!r} ({known}); register one with "
            "veriloop.knowledge.hybrid.register_web_search(name, factory)"
        )
    return factory()


class Reranker(Protocol):
    """Re-scores (query, passage) pairs; higher is more relevant."""

    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Return one relevance score per passage."""
        ...


class CrossEncoderReranker:
    """A cross-encoder re-ranker: any model with `predict(list[(query, passage)])`.

    `CrossEncoderReranker.from_path(DIR)` loads a sentence-transformers CrossEncoder from a
    local directory (nothing is downloaded).
    """

    def __init__(self, model: Any, *, name: str) -> None:
        """Wrap `model`, which scores a list of (query, passage) pairs."""
        self.model = model
        self.name = name

    @classmethod
    def from_path(cls, path: str) -> CrossEncoderReranker:
        """Load a sentence-transformers CrossEncoder from a local directory."""
        from sentence_transformers import CrossEncoder

        return cls(CrossEncoder(path, device="cpu", local_files_only=True), name=f"ce:{path}")

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Return the model's score for each passage."""
        values = self.model.predict([(query, passage) for passage in passages])
        return [float(v) for v in np.asarray(values).reshape(-1)]


@dataclass(frozen=True)
class RetrievalSettings:
    """How many units each retriever contributes and how they are fused."""

    mode: ContextMode = "paragraphs"
    use_semantic: bool = True
    use_lexical: bool = True
    candidates: int = 20
    """Paragraphs each of semantic and lexical search returns before fusion."""
    top_paragraphs: int = 4
    top_triplets: int = 8
    top_web: int = 3
    hops: int = 1
    lexical_weight: float = 1.0
    rrf_k: int = RRF_K


@dataclass
class Retrieval:
    """What one question retrieved."""

    units: list[ContextUnit]
    seed_entities: list[str] = field(default_factory=list)
    triplet_rows: list[int] = field(default_factory=list)
    """Rows of the subgraph the triplets were ranked from (for drawing)."""
    reranker: str = "rrf"


def reciprocal_rank_fusion(
    rankings: dict[str, list[int]], weights: dict[str, float], rrf_k: int = RRF_K
) -> list[tuple[int, float, dict[str, int]]]:
    """Fuse ranked row lists: score = sum of weight / (rrf_k + rank); best first.

    Ties are broken by the row number, so the order is deterministic.
    """
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, rows in rankings.items():
        for rank, row in enumerate(rows, start=1):
            scores[row] = scores.get(row, 0.0) + weights.get(name, 1.0) / (rrf_k + rank)
            ranks.setdefault(row, {})[name] = rank
    order = sorted(scores, key=lambda row: (-scores[row], row))
    return [(row, scores[row], ranks[row]) for row in order]


class HybridRetriever:
    """Semantic, lexical, triplet and (optional) web retrieval over one corpus index."""

    def __init__(
        self,
        index: CorpusIndex,
        *,
        web: WebSearch | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        """Use `index`; `web` and `reranker` are optional (None: no web, RRF)."""
        self.index = index
        self.web = web
        self.reranker = reranker
        self._entity_vectors: npt.NDArray[np.float32] | None = None

    def entity_vectors(self, embedder: Embedder) -> npt.NDArray[np.float32]:
        """Return (and cache) unit vectors of the graph's entity names."""
        if self._entity_vectors is None:
            names = self.index.graph.entities()
            self._entity_vectors = embed_texts(embedder, names, dim=self.index.dim)
        return self._entity_vectors

    def paragraphs(
        self, query: str, query_vector: npt.NDArray[np.float32], settings: RetrievalSettings
    ) -> list[ContextUnit]:
        """Return the fused top paragraphs for `query`."""
        rankings: dict[str, list[int]] = {}
        if settings.use_semantic:
            hits = self.index.search_semantic(query_vector, settings.candidates)
            rankings["semantic"] = [row for row, _ in hits]
        if settings.use_lexical:
            rankings["lexical"] = [
                row for row, _ in self.index.search_lexical(query, settings.candidates)
            ]
        fused = reciprocal_rank_fusion(
            rankings, {"semantic": 1.0, "lexical": settings.lexical_weight}, settings.rrf_k
        )
        if self.reranker is not None and fused:
            texts = [self.index.chunks[row]["text"] for row, _, _ in fused]
            scores = self.reranker.score(query, texts)
            fused = sorted(
                ((row, score, ranks) for (row, _, ranks), score in zip(fused, scores, strict=True)),
                key=lambda entry: (-entry[1], entry[0]),
            )
        units = []
        for row, score, ranks in fused[: settings.top_paragraphs]:
            chunk = self.index.chunks[row]
            units.append(
                ContextUnit(
                    id=chunk["id"],
                    kind="paragraph",
                    text=chunk["text"],
                    source=chunk["doc_id"],
                    score=round(score, 6),
                    ranks=ranks,
                )
            )
        return units

    def triplets(
        self,
        query: str,
        query_vector: npt.NDArray[np.float32],
        settings: RetrievalSettings,
        embedder: Embedder | None,
    ) -> tuple[list[ContextUnit], list[str], list[int]]:
        """Return the top triplets of the question's subgraph, its seeds and its rows."""
        vectors = self.entity_vectors(embedder) if embedder is not None else None
        ranked, seeds, rows = self.index.search_triplets(
            query, query_vector, settings.top_triplets, hops=settings.hops, entity_vectors=vectors
        )
        units = []
        for rank, (row, cosine) in enumerate(ranked, start=1):
            triplet = self.index.graph.triplets[row]
            units.append(
                ContextUnit(
                    id=triplet["id"],
                    kind="triplet",
                    text=triplet_text(triplet),
                    source=triplet["source"],
                    score=round(cosine, 6),
                    ranks={"triplet": rank},
                )
            )
        return units, seeds, rows

    def web_units(
        self, query: str, settings: RetrievalSettings, web: WebSearch | None = None
    ) -> list[ContextUnit]:
        """Return web results as units `WID-n` (none unless a web tool was given)."""
        tool = web or self.web
        if tool is None or settings.top_web < 1:
            return []
        units = []
        for rank, result in enumerate(tool.search(query, settings.top_web), start=1):
            units.append(
                ContextUnit(
                    id=f"WID-{rank}",
                    kind="web",
                    text=" ".join(result["text"].split())[:1000],
                    source=result["url"],
                    score=round(1.0 / (RRF_K + rank), 6),
                    ranks={"web": rank},
                )
            )
        return units

    def retrieve(
        self,
        query: str,
        query_vector: npt.NDArray[np.float32],
        settings: RetrievalSettings,
        embedder: Embedder | None = None,
        web: WebSearch | None = None,
    ) -> Retrieval:
        """Retrieve the context for `query` as `settings.mode` asks (plus web, if given)."""
        units: list[ContextUnit] = []
        seeds: list[str] = []
        rows: list[int] = []
        if settings.mode in ("paragraphs", "both"):
            units.extend(self.paragraphs(query, query_vector, settings))
        if settings.mode in ("triplets", "both"):
            triplet_units, seeds, rows = self.triplets(query, query_vector, settings, embedder)
            units.extend(triplet_units)
        units.extend(self.web_units(query, settings, web))
        reranker = self.reranker.name if self.reranker is not None else "rrf"
        return Retrieval(units, seeds, rows, reranker)


def fence(text: str) -> str:
    """Defuse prompt-marker lookalikes (`#### ... ####`) inside retrieved text."""
    return re.sub(r"#{3,}", "#", text)


def format_units(units: Sequence[ContextUnit]) -> str:
    """Render units one per line as `[PID-3] text` (fenced), for prompts."""
    if not units:
        return "(no context was retrieved)"
    return "\n".join(f"[{unit['id']}] {fence(unit['text'])}" for unit in units)
