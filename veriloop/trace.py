"""The one trace shape every graph's output carries.

Records are TypedDicts (plain JSON once serialised) so they pass unchanged through
checkpointers, LangGraph Server, Studio and `--json` output. A trace lets a reader trust or
distrust an answer: each candidate with its scores and the threshold it was held to, why
each loop stopped, the evidence it rests on and what the models cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

from typing_extensions import TypedDict

StopReason = Literal["met", "cap_reached", "single_pass", "refused", "no_usable_output"]
"""met: the threshold was reached; cap_reached: the loop ran out of attempts and kept its
best candidate; single_pass: ablation without refinement; refused: the method declined to
answer; no_usable_output: no attempt produced usable text."""


class Refusal(TypedDict):
    """Why a method declined to answer."""

    kind: Literal["hard", "soft"]
    """hard: the method's own gate (e.g. retrieval distance) refused before or regardless
    of the model; soft: the model judged the question unanswerable from what it was given."""
    detail: str


class Candidate(TypedDict):
    """One generated knowledge text, answer, rationale or claim, with its scores."""

    stage: str
    """Which agent produced it: 'knowledge', 'answer', ..."""
    round: int
    """Outer-loop round (0-based); a restart starts a new round."""
    iteration: int
    """Attempt within its loop in that round (0 = first generation)."""
    text: str
    scores: dict[str, float | None]
    """Score name -> value; None means the scorer failed or the reply was unusable."""
    thresholds: dict[str, float]
    """Score name -> the threshold the value was held to."""
    passed: bool
    error: str | None
    """Why the reply or its scoring could not be used, when that happened."""


def single_pass_answer(text: str, error: str | None, *, passed: bool | None = None) -> Candidate:
    """Return a one-shot answer as a candidate: no scores, no thresholds.

    Args:
        text: The answer ("" when the reply was unusable).
        error: Why the reply could not be used, when that happened.
        passed: Whether it counts as an answer (default: it has text).
    """
    return Candidate(
        stage="answer",
        round=0,
        iteration=0,
        text=text,
        scores={},
        thresholds={},
        passed=bool(text) if passed is None else passed,
        error=error,
    )


class LoopStop(TypedDict):
    """Why one loop stopped, and which candidate it kept."""

    loop: str
    round: int
    reason: StopReason
    chosen_iteration: int | None
    detail: str


class ModelCall(TypedDict):
    """Accounting of one model call."""

    kind: Literal["chat", "score", "embed"]
    purpose: str
    model: str
    tokens_in: int
    tokens_out: int
    seconds: float
    cached: bool
    error: str | None


class UsageSummary(TypedDict):
    """Totals over a run's model calls."""

    calls: int
    chat_calls: int
    score_calls: int
    embed_calls: int
    cached_calls: int
    tokens_in: int
    tokens_out: int
    model_seconds: float
    failed_calls: int


class Trace(TypedDict):
    """Everything a reader needs to judge one output."""

    method: str
    settings: dict[str, Any]
    """Thresholds, caps, ablations, normalisation and the models that scored."""
    candidates: list[Candidate]
    stops: list[LoopStop]
    stop_reason: StopReason
    evidence_ids: list[str]
    usage: UsageSummary
    calls: list[ModelCall]


def summarise_usage(calls: Iterable[ModelCall]) -> UsageSummary:
    """Add up model calls into totals."""
    summary = UsageSummary(
        calls=0,
        chat_calls=0,
        score_calls=0,
        embed_calls=0,
        cached_calls=0,
        tokens_in=0,
        tokens_out=0,
        model_seconds=0.0,
        failed_calls=0,
    )
    for call in calls:
        summary["calls"] += 1
        key = f"{call['kind']}_calls"
        summary[key] += 1  # type: ignore[literal-required]
        summary["cached_calls"] += int(call["cached"])
        summary["tokens_in"] += call["tokens_in"]
        summary["tokens_out"] += call["tokens_out"]
        summary["model_seconds"] += call["seconds"]
        summary["failed_calls"] += int(call["error"] is not None)
    summary["model_seconds"] = round(summary["model_seconds"], 4)
    return summary


def build_trace(
    method: str,
    settings: dict[str, Any],
    candidates: list[Candidate],
    stops: list[LoopStop],
    calls: list[ModelCall],
    evidence_ids: Iterable[str] = (),
) -> Trace:
    """Assemble a run's trace; its stop reason is the last (outermost) loop's."""
    return Trace(
        method=method,
        settings=settings,
        candidates=candidates,
        stops=stops,
        stop_reason=stops[-1]["reason"],
        evidence_ids=list(evidence_ids),
        usage=summarise_usage(calls),
        calls=calls,
    )


def best_candidate(candidates: Iterable[Candidate], score_name: str) -> Candidate | None:
    """Return the candidate with the highest score; failed scores rank lowest.

    Ties keep the earliest candidate, so a fallback is deterministic.
    """
    best: Candidate | None = None
    best_value = -math.inf
    for candidate in candidates:
        value = candidate["scores"].get(score_name)
        ranked = -math.inf if value is None else value
        if best is None or ranked > best_value:
            best, best_value = candidate, ranked
    return best
