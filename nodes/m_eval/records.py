"""M-Eval's records and the pure steps that turn stances into labels and a report.

A claim's label comes from M(c) = Σ stance · reliability (`heterogeneity`): correct if
M(c) > 0, incorrect if < 0, undetermined when no article took a side; the ablation
`no_heterogeneity` calls a claim incorrect as soon as one article contradicts it. The
answer is incorrect if any claim is, correct if at least one is and none is incorrect.
The evidence report says, for each cited article, whether it agreed with the final claim
labels, misled (took the side they rejected) or was irrelevant (took no side).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from veriloop.nodes.m_eval.heterogeneity import (
    dersimonian_laird,
    reliability_variances,
    weighted_claim_score,
)
from veriloop.nodes.m_eval.reliability import ReliabilityParts

Label = Literal["correct", "incorrect", "undetermined"]


class ArticleRecord(TypedDict):
    """An evidence article with its role and reliability."""

    id: str
    role: Literal["given", "extra"]
    article: dict[str, Any]
    reliability: ReliabilityParts
    quality_error: str | None


class Stance(TypedDict):
    """One (claim, article) judgement."""

    claim: int
    article: str
    stance: int | None
    error: str | None
    probability: NotRequired[float | None]
    """P(supported) when the support judge gave the stance."""
    p_contradicted: NotRequired[float | None]
    """P(contradicted) when the three-way judge gave the stance."""
    evidence_sentence: NotRequired[str]
    """The abstract's sentence the three-way stance rests on."""
    relevance: NotRequired[float | None]
    """Claim-article cosine (the support judge's gate for −1)."""


class ClaimResult(TypedDict):
    """One claim's evidence statistics and label."""

    index: int
    claim: str
    main: bool
    label: Label
    score: float
    """M(c) = Σ stance · reliability."""
    q: float | None
    tau2: float | None
    i2: float | None
    random_mean: float | None
    supporting: int
    contradicting: int


class ArticleVerdict(TypedDict):
    """The evidence report's verdict on one cited article."""

    id: str
    verdict: Literal["agreed", "misled", "irrelevant"]
    detail: str


def claim_result(
    index: int,
    claim: str,
    stances: Sequence[Stance],
    reliability: dict[str, float],
    *,
    no_heterogeneity: bool = False,
) -> ClaimResult:
    """Weigh one claim's usable stances by their articles' reliability and label it.

    Args:
        index: The claim's position (0 is the main claim).
        claim: The claim's text.
        stances: Every stance; those on other claims or without a value are skipped.
        reliability: Each article id's reliability r_i.
        no_heterogeneity: The ablation: incorrect as soon as one article contradicts.
    """
    usable = [s for s in stances if s["claim"] == index and s["stance"] is not None]
    ys = [int(s["stance"]) for s in usable]  # type: ignore[arg-type]
    rs = [reliability[s["article"]] for s in usable]
    score = weighted_claim_score(ys, rs)
    stats = dersimonian_laird(ys, reliability_variances(rs)) if ys else None
    supporting, contradicting = ys.count(1), ys.count(-1)
    label: Label
    if no_heterogeneity:
        label = "incorrect" if contradicting else "correct" if supporting else "undetermined"
    else:
        label = "correct" if score > 0 else "incorrect" if score < 0 else "undetermined"
    return ClaimResult(
        index=index,
        claim=claim,
        main=index == 0,
        label=label,
        score=round(score, 6),
        q=None if stats is None else round(stats.q, 6),
        tau2=None if stats is None else round(stats.tau2, 6),
        i2=None if stats is None else round(stats.i2, 6),
        random_mean=None if stats is None else round(stats.random_mean, 6),
        supporting=supporting,
        contradicting=contradicting,
    )


def answer_label(results: Sequence[ClaimResult]) -> Label:
    """Label the answer: incorrect if any claim is, correct if one is, else undetermined."""
    labels = [r["label"] for r in results]
    if "incorrect" in labels:
        return "incorrect"
    return "correct" if "correct" in labels else "undetermined"


def evidence_report(
    evidence: Sequence[ArticleRecord], stances: Sequence[Stance], claims: Sequence[ClaimResult]
) -> list[ArticleVerdict]:
    """Say, for each cited article, whether it agreed with the final labels, misled or neither.

    Args:
        evidence: Every article weighed (only the cited ones, role "given", are reported).
        stances: Every (claim, article) stance.
        claims: The claims' final labels.
    """
    labels = {r["index"]: r["label"] for r in claims}
    report: list[ArticleVerdict] = []
    for record in (r for r in evidence if r["role"] == "given"):
        agreed = misled = 0
        for stance in (s for s in stances if s["article"] == record["id"]):
            if not stance["stance"] or labels.get(stance["claim"]) == "undetermined":
                continue
            sided_with = "correct" if stance["stance"] > 0 else "incorrect"
            if sided_with == labels.get(stance["claim"]):
                agreed += 1
            else:
                misled += 1
        verdict: Literal["agreed", "misled", "irrelevant"] = (
            "misled" if misled else "agreed" if agreed else "irrelevant"
        )
        report.append(
            ArticleVerdict(
                id=record["id"],
                verdict=verdict,
                detail=f"sided with the final claim label {agreed} time(s), against it {misled}",
            )
        )
    return report
