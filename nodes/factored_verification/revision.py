"""Factored Verification's revision feedback and final verdict.

The revision turn holds every critique of the round at once, each with the revised claim
the critic proposed (unless "N/A"). The verdict: undetermined when no claim could be
extracted or checked (never reported as supported), supported when P(answer) >= θ and no
claim is contradicted, hallucinated otherwise; the stop reason says whether the revision
loop met θ, ran out of revisions (cap_reached) or ran once (single_pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veriloop.nodes.claim_tasks import CritiqueRecord
from veriloop.nodes.claims import bare_claim
from veriloop.trace import StopReason

Verdict = Literal["supported", "hallucinated", "undetermined"]


def revision_feedback(records: Sequence[CritiqueRecord]) -> str:
    """Return one feedback turn from the round's critiques ("" when none is usable)."""
    return "\n".join(
        f'- For the sentence "{bare_claim(r["claim"])}" in the answer: {r["critique"]}'
        + (
            f" A supported version: {r['revised_claim']}"
            if r["revised_claim"] and r["revised_claim"] != "N/A"
            else ""
        )
        for r in records
        if r["critique"]
    )


def final_verdict(
    hallucinated: bool | None,
    *,
    revisions: int,
    max_revisions: int,
    threshold: float,
    contradicted: int,
) -> tuple[Verdict, StopReason, str]:
    """Return the answer's verdict, why the revision loop stopped, and a sentence saying so.

    Args:
        hallucinated: The last round's finding (None: nothing could be checked).
        revisions: Revisions made.
        max_revisions: The cap (0: detection only).
        threshold: θ, the P(answer) a supported answer needs.
        contradicted: Claims of the last round the sources contradict.
    """
    if hallucinated is None:
        detail = "no claim could be extracted or checked; the answer is not declared supported"
        return "undetermined", "no_usable_output", detail
    if not hallucinated:
        detail = f"P(answer) >= θ={threshold} after {revisions} revision(s)"
        return "supported", "met" if revisions else "single_pass", detail
    why = (
        f"{contradicted} claim(s) contradicted by the sources"
        if contradicted
        else f"P(answer) < θ={threshold}"
    )
    reason: StopReason = "cap_reached" if max_revisions else "single_pass"
    return "hallucinated", reason, f"{why} after {revisions} revision(s)"
