"""One claim check: claims against their sources, judged in one batch, one result shape.

Everything in veriloop that asks "is this sentence backed by that source?" asks it here: the
grounded default's sentence check (`nodes.grounding.check_sentences`, and through it the
guard), Factored Verification's claim-support verifiers (`graphs.factored_verification`,
and through it `veriloop verify`, its batch mode, `veriloop.check` and `assert_grounded`).
The judge owns its thresholds (`nodes.judges.registry.support_judge`), so a verdict here is
the judge's decision, never a caller's; a fix to this function is a fix to all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from typing_extensions import TypedDict

from veriloop.nodes.judges.protocol import (
    ClaimVerdict,
    SupportJudge,
    SupportQuery,
    claim_verdict,
)
from veriloop.trace import ModelCall


class ClaimCheck(TypedDict):
    """One claim judged against its sources: the shape JSON, traces and reports share."""

    claim: str
    verdict: ClaimVerdict | None
    """supported / contradicted / unsupported; None when the claim could not be judged."""
    p_supported: float | None
    """The judge's P(supported) against the source the verdict rests on."""
    p_contradicted: float | None
    """P(the source denies the claim), from a three-way judge; None from the others."""
    mismatches: list[dict[str, Any]]
    """Deterministic conflicts (number, negation, contrast, entity ...), both spans named."""
    source_index: int | None
    """Which of the claim's sources the verdict rests on (None: none could be judged)."""
    span: str
    """The part of that source the judge read."""
    evidence_sentence: str
    """The sentence of `span` closest to the claim: what the source says ('' if none)."""
    scores: dict[str, float]
    """The judge's raw scores behind `p_supported` (coverage, class probabilities ...)."""
    error: str | None
    """Why the claim could not be judged; None when it was."""


def check_claims(
    judge: SupportJudge,
    claims: Sequence[str],
    sources: Sequence[str] | Sequence[Sequence[str]],
    question: str | Sequence[str] = "",
) -> tuple[list[ClaimCheck], list[ModelCall]]:
    """Judge every claim against its sources in one batch and return one check per claim.

    Args:
        judge: A judge from `support_judge` (its thresholds decide the verdicts).
        claims: The claims, in order.
        sources: One list of source texts for every claim, or one list per claim.
        question: The question the claims answer (one, or one per claim); the judge may
            read it beside a bare answer, never as part of a statement.

    Raises:
        InvalidInputError: A claim is empty or has no non-empty source (the judge's check).
        ValueError: Per-claim sources or questions do not match the claims in number.
    """
    if not claims:
        return [], []
    per_claim = bool(sources) and not isinstance(sources[0], str)
    texts: list[Sequence[str]] = (
        [list(s) for s in sources] if per_claim else [list(sources)] * len(claims)  # type: ignore[arg-type]
    )
    questions = [question] * len(claims) if isinstance(question, str) else list(question)
    if len(texts) != len(claims) or len(questions) != len(claims):
        raise ValueError(
            f"{len(claims)} claims but {len(texts)} source lists and {len(questions)} questions"
        )
    queries = [
        SupportQuery(claim, list(evidence), asked)
        for claim, evidence, asked in zip(claims, texts, questions, strict=True)
    ]
    verdicts, calls = judge.judge(queries)
    checks: list[ClaimCheck] = []
    for claim, verdict in zip(claims, verdicts, strict=True):
        p = verdict["probability"]
        checks.append(
            ClaimCheck(
                claim=claim,
                verdict=claim_verdict(verdict) if p is not None else None,
                p_supported=p,
                p_contradicted=verdict.get("p_contradicted"),
                mismatches=list(verdict.get("mismatches", [])),
                source_index=verdict["evidence_index"] if p is not None else None,
                span=verdict["evidence_span"],
                evidence_sentence=verdict.get("evidence_sentence", ""),
                scores=dict(verdict["scores"]),
                error=verdict["error"],
            )
        )
    return checks, calls
