"""Factual Evidence's answer: its valid citations, the rationale as output, the stop reason.

An answer keeps the citations whose ids were in its context (inline ones first, then the
ones the one-step ablation listed); any other id is an invalid citation, reported, never
kept. The rationale is output statement by statement with its label and whether the answer
used it. The loop's stop says which rule fired: refused, no usable output, single pass
(an ablation or an unusable verifier), cap reached (statements still INCORRECT, left out of
the answer) or met (every statement verified CORRECT).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from veriloop.nodes.citations import cited_ids, split_citations
from veriloop.nodes.factual_evidence.rationale import (
    RationaleItem,
    RationaleVersion,
    StatementLabel,
)
from veriloop.trace import LoopStop, Refusal, StopReason


def answer_with_citations(
    answer: str | None, listed: list[str], valid_ids: list[str], error: str | None
) -> dict[str, Any]:
    """Keep the answer's valid citations (inline first, then listed ones); flag the rest.

    Args:
        answer: The answer text (None: the reply was unusable).
        listed: Citations the reply listed apart from the text (the one-step ablation).
        valid_ids: The ids of the context units the answer may cite.
        error: Why the reply was unusable, when it was.

    Returns:
        The state update: answer, citations, invalid_citations and error.
    """
    if answer is None:
        return {"error": f"the answer reply was unusable: {error}"}
    text, cited, invalid = split_citations(answer, set(valid_ids))
    citations = cited + [i for i in listed if i in valid_ids and i not in cited]
    if not text:
        return {"error": "the answer was empty", "invalid_citations": invalid}
    return {"answer": text, "citations": citations, "invalid_citations": invalid, "error": None}


def rationale_items(
    statements: dict[str, str], labels: dict[str, StatementLabel] | None, used_ids: list[str]
) -> list[RationaleItem]:
    """Return the final rationale: each statement with its label and whether it was used."""
    labels = labels or {}
    return [
        RationaleItem(
            id=unit_id,
            statement=statement,
            label=labels[unit_id]["label"] if unit_id in labels else None,
            justification=labels[unit_id]["justification"] if unit_id in labels else None,
            used_in_answer=unit_id in used_ids,
        )
        for unit_id, statement in statements.items()
    ]


def invalid_citations(
    versions: Iterable[RationaleVersion], known: set[str], invalid: list[str]
) -> list[str]:
    """Add to the answer's invalid citations every unknown id a rationale version cited."""
    found = list(invalid)
    for version in versions:
        for statement in version["statements"].values():
            found += [i for i in cited_ids(statement) if i not in known and i not in found]
    return found


def rationale_stop(
    *,
    refusal: Refusal | None,
    answer: str | None,
    error: str | None,
    verified: bool,
    verification_error: str | None,
    still_incorrect: int,
    refinements: int,
    chosen_iteration: int | None,
) -> LoopStop:
    """Say why the rationale loop stopped.

    Args:
        refusal: The refusal, when the graph refused.
        answer: The answer (empty or None: no usable output).
        error: Why there is no answer, when there is none.
        verified: Whether the answer's statements went through the verifier (False in the
            ablations or when the verifier's reply was unusable).
        verification_error: Why verification was skipped or failed, when it was.
        still_incorrect: Statements still labelled INCORRECT at the end.
        refinements: Refinement rounds run.
        chosen_iteration: The rationale version kept (None: no rationale).
    """
    reason: StopReason
    if refusal is not None:
        reason, detail = "refused", refusal["detail"]
    elif not answer:
        reason, detail = "no_usable_output", error or "no answer"
    elif not verified:
        reason = "single_pass"
        detail = verification_error or "answered without verification (ablation)"
    elif still_incorrect:
        reason = "cap_reached"
        detail = (
            f"{still_incorrect} statement(s) still INCORRECT after {refinements} "
            "refinement(s); they were left out of the answer"
        )
    else:
        reason = "met"
        detail = f"every statement verified CORRECT after {refinements} refinement(s)"
    return LoopStop(
        loop="rationale",
        round=0,
        reason=reason,
        chosen_iteration=chosen_iteration,
        detail=detail,
    )
