"""The claim-support protocol every judge speaks: queries, verdicts, the three classes.

A `SupportJudge` takes `SupportQuery`s (a claim, one or more evidence texts, the question)
and returns one `SupportVerdict` per query: P(supported), the evidence it rests on, the
scores behind it and, from a three-way judge, the contradiction side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Protocol

from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.trace import ModelCall

ENTAILED, NEITHER, CONTRADICTED = 0, 1, 2
THREE_WAY: tuple[str, str, str] = ("entailed", "neither", "contradicted")
"""The three-way judge's classes, in the order of its logits."""

ClaimVerdict = Literal["supported", "contradicted", "unsupported"]
"""What a claim is, read against its evidence: backed, denied, or not in it."""


@dataclass(frozen=True)
class SupportQuery:
    """One claim to check against one or more evidence texts."""

    claim: str
    evidence: Sequence[str]
    question: str = ""
    """The question the claim answers, if any (it conditions both likelihoods)."""


class SupportVerdict(TypedDict):
    """A judge's answer for one query, with what it rests on."""

    probability: float | None
    """P(supported); None when the judge could not score the query (see `error`)."""
    evidence_index: int | None
    """Which evidence text the verdict rests on (the most supportive one)."""
    evidence_span: str
    """The text (or sentence) of that evidence the judge read."""
    scores: dict[str, float]
    """The raw scores behind the probability (e.g. conditional, prior, mean_gain)."""
    error: str | None
    verdict: NotRequired[ClaimVerdict]
    """supported / contradicted / unsupported, from a judge that tells the last two apart
    (the three-way judge); absent from a support-only judge (read it with `claim_verdict`)."""
    p_contradicted: NotRequired[float | None]
    """P(the evidence denies the claim), from a three-way judge."""
    p_neither: NotRequired[float | None]
    """P(the evidence neither backs nor denies it), from a three-way judge."""
    evidence_sentence: NotRequired[str]
    """The sentence of `evidence_span` closest to the claim (what a person should read)."""
    mismatches: NotRequired[list[dict[str, Any]]]
    """Deterministic conflicts found (`nodes.mismatch.Mismatch.to_json`), each naming both
    spans; any makes the verdict contradicted."""


Judged = tuple[list[SupportVerdict], list[ModelCall]]
"""One verdict per query, in order, and the model calls made."""


class SupportJudge(Protocol):
    """Anything that estimates P(claim supported | evidence) for a batch of queries."""

    name: str

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query (in order) and the model calls made."""
        ...


def claim_verdict(verdict: SupportVerdict, supported_at: float = 0.5) -> ClaimVerdict | None:
    """Return what the verdict says of the claim: its own three-way verdict when it has one.

    A support-only judge's verdict is `supported` at P >= `supported_at`, else
    `unsupported` (it cannot say contradicted); None for an unusable verdict.
    """
    if verdict.get("verdict") is not None:
        return verdict["verdict"]
    probability = verdict["probability"]
    if probability is None:
        return None
    return "supported" if probability >= supported_at else "unsupported"


def unusable(error: str) -> SupportVerdict:
    """Return the verdict of a query the judge could not score."""
    return SupportVerdict(
        probability=None, evidence_index=None, evidence_span="", scores={}, error=error
    )


def check_queries(queries: Sequence[SupportQuery]) -> None:
    """Refuse queries without a claim or without evidence, naming the first bad one.

    Raises:
        InvalidInputError: A query has an empty claim or no non-empty evidence text.
    """
    for number, query in enumerate(queries, start=1):
        if not query.claim.strip():
            raise InvalidInputError(f"support query {number}: the claim is empty")
        if isinstance(query.evidence, str) or not any(text.strip() for text in query.evidence):
            raise InvalidInputError(
                f"support query {number}: give the evidence as a list of non-empty texts"
            )
