"""Closing a generate -> score -> refine loop: which candidate to keep, and why it stopped.

Every loop in veriloop ends the same way: the last candidate if it met its threshold,
otherwise (cap reached) the best-scoring candidate of the loop, recorded with a `LoopStop`
so the trace says which rule fired.
"""

from __future__ import annotations

import math

from veriloop.trace import Candidate, LoopStop, StopReason, best_candidate


def format_score(value: float | None) -> str:
    """Render a score for feedback prompts and tables; a failed score reads '-inf'."""
    if value is None or math.isinf(value):
        return "-inf"
    return f"{value:.2f}"


def passes(value: float | None, threshold: float) -> bool:
    """Return whether a score meets its threshold (a failed score never does)."""
    return value is not None and value >= threshold


def close_loop(
    candidates: list[Candidate],
    *,
    loop: str,
    round_index: int,
    score_name: str,
    single_pass: bool,
) -> tuple[Candidate | None, LoopStop]:
    """Choose the loop's result among its candidates and record why the loop stopped.

    Args:
        candidates: The candidates this loop produced in this round, in order.
        loop: The loop's name in the trace.
        round_index: The outer round.
        score_name: The score the loop is held to.
        single_pass: The loop ran once by design (the no-refinement ablation).
    """
    if not candidates:
        return None, LoopStop(
            loop=loop,
            round=round_index,
            reason="no_usable_output",
            chosen_iteration=None,
            detail="the loop produced no candidate",
        )
    last = candidates[-1]
    if single_pass:
        chosen, reason, detail = last, "single_pass", "no refinement (ablation): kept the only"
    elif last["passed"]:
        chosen, reason = last, "met"
        detail = (
            f"{score_name} {format_score(last['scores'].get(score_name))} met "
            f"{last['thresholds'][score_name]}"
        )
    else:
        best = best_candidate(candidates, score_name)
        assert best is not None
        chosen, reason = best, "cap_reached"
        detail = (
            f"{len(candidates)} attempt(s) without meeting {last['thresholds'][score_name]}; "
            f"kept the best {score_name} ({format_score(best['scores'].get(score_name))})"
        )
    if not chosen["text"]:
        usable = [c for c in candidates if c["text"]]
        if not usable:
            return chosen, LoopStop(
                loop=loop,
                round=round_index,
                reason="no_usable_output",
                chosen_iteration=chosen["iteration"],
                detail="no attempt produced usable text",
            )
        fallback = best_candidate(usable, score_name)
        assert fallback is not None
        chosen = fallback
        detail += "; the chosen attempt was unusable, kept the best usable one"
    stop_reason: StopReason = reason  # type: ignore[assignment]
    return chosen, LoopStop(
        loop=loop,
        round=round_index,
        reason=stop_reason,
        chosen_iteration=chosen["iteration"],
        detail=detail,
    )
