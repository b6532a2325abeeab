"""Grounded Self-Reflection (ours, not the paper's): its settings and its retrieval.

With `grounded=true`, the passages most relevant to the question are retrieved before the
loops (the bundled MedQuAD answers, or the user's `kb_dir` / `corpus_dir`, as in the
grounded default) and every round's first knowledge generation copies from them. Passages
whose MiniLM cosine to the question is below `grounded_relevant_at` are not shown; with
none left, the loops run closed-book and the trace's retrieval record says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veriloop.knowledge.sources import SourcePassage, SourceSettings
from veriloop.models import Models
from veriloop.nodes.grounding import retrieve_ranked
from veriloop.trace import Candidate, ModelCall


@dataclass(kw_only=True)
class GroundedSettings(SourceSettings):
    """Grounded Self-Reflection's switch, source and gate (Context mixin)."""

    grounded: bool = field(
        default=False,
        metadata={
            "description": "Ours: seed each round's knowledge with retrieved passages "
            "(MedQuAD, or kb_dir / corpus_dir) instead of the model's recall."
        },
    )
    grounded_top_k: int = field(
        default=3, metadata={"ge": 1, "description": "Grounded only: passages shown."}
    )
    grounded_relevant_at: float = field(
        default=0.5,
        metadata={
            "ge": -1.0,
            "le": 1.0,
            "description": "Grounded only: a passage is shown when its question cosine is >= this.",
        },
    )


def shown_sources(
    models: Models, question: str, settings: GroundedSettings
) -> tuple[list[SourcePassage], Candidate, list[ModelCall]]:
    """Retrieve, re-rank and keep the passages relevant to the question.

    Returns:
        The passages shown to the knowledge generator, the retrieval's record (what was
        shown, from how many found; it passes when any was shown) and the model calls.
    """
    got = retrieve_ranked(
        models,
        question,
        kb_dir=settings.kb_dir,
        corpus_dir=settings.corpus_dir,
        candidates=10 * settings.grounded_top_k,
        keep=settings.grounded_top_k,
    )
    shown = [p for p in got.ranked if p["relevance"] >= settings.grounded_relevant_at]
    listed = ", ".join(f"{p['id']} ({p['relevance']:.2f})" for p in shown)
    record = Candidate(
        stage="retrieval",
        round=0,
        iteration=0,
        text=f"{len(shown)} of {got.found} passages from {got.source} shown: "
        + (listed or "none (closed-book)"),
        scores={"best_relevance": got.best_relevance},
        thresholds={"best_relevance": settings.grounded_relevant_at},
        passed=bool(shown),
        error=None,
    )
    return shown, record, got.calls
