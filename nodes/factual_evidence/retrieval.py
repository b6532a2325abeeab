"""Factual Evidence's retrieval: hybrid context units, with triplets made on the fly.

A corpus indexed without triplets (`veriloop index` without extraction) can still run the
triplet modes: its paragraphs are retrieved and the chat model extracts triplets from
them for this question only (`triplets_from_paragraphs`); mode "triplets" then keeps the
triplets (and web units), mode "both" the paragraphs too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from veriloop.knowledge.hybrid import ContextMode, ContextUnit, HybridRetriever, RetrievalSettings
from veriloop.knowledge.sources import retrieve_context
from veriloop.models import Models
from veriloop.nodes.triplet_extraction import triplets_from_paragraphs
from veriloop.trace import ModelCall


@dataclass(kw_only=True)
class HybridRetrievalSettings:
    """Factual Evidence's corpus and hybrid retrieval (Context mixin)."""

    corpus_dir: str = field(
        default="",
        metadata={"description": "Corpus index directory (`veriloop index FOLDER --out DIR`)."},
    )
    context_mode: ContextMode = field(
        default="paragraphs",
        metadata={"description": "Context units: 'paragraphs', 'triplets' or 'both'."},
    )
    top_paragraphs: int = field(default=4, metadata={"ge": 1, "description": "Paragraphs kept."})
    top_triplets: int = field(default=8, metadata={"ge": 0, "description": "Triplets kept."})
    lexical_weight: float = field(
        default=1.0, metadata={"ge": 0.0, "description": "BM25's weight in reciprocal-rank fusion."}
    )
    web_search: str = field(
        default="",
        metadata={"description": "Registered web search tool name; empty = no web (default)."},
    )
    reranker_model: str = field(
        default="",
        metadata={"description": "Local cross-encoder directory; empty = reciprocal-rank fusion."},
    )


def retrieve_units(
    models: Models,
    retriever: HybridRetriever,
    question: str,
    settings: RetrievalSettings,
    *,
    web_search: str = "",
    top_triplets: int,
    overrides: dict[str, str],
) -> tuple[list[ContextUnit], list[str], list[ModelCall]]:
    """Retrieve the context units; extract triplets on the fly if the mode needs them.

    Args:
        models: The models of the run.
        retriever: The opened corpus index.
        question: The question.
        settings: The retrieval settings (mode, depths).
        web_search: The web search backend's name ("" for none).
        top_triplets: Triplets kept when they are extracted on the fly.
        overrides: The Context's prompt overrides.

    Returns:
        The units, the graph's seed entities and the model calls.
    """
    wants_triplets = settings.mode in ("triplets", "both")
    on_the_fly = wants_triplets and not retriever.index.graph.triplets
    asked = replace(settings, mode="paragraphs") if on_the_fly else settings
    result, call = retrieve_context(models, retriever, question, asked, web_search)
    calls = [call]
    units = result.units
    if on_the_fly:
        paragraphs = [u for u in units if u["kind"] == "paragraph"]
        triplet_units, extraction_calls = triplets_from_paragraphs(
            models, question, paragraphs, top_triplets, overrides
        )
        calls.extend(extraction_calls)
        others = [u for u in units if u["kind"] == "web"]
        units = (paragraphs if settings.mode == "both" else []) + triplet_units + others
    return units, result.seed_entities, calls
