"""Factored Verification's claim tasks and their checks, for the graph and the batch engine.

A claim task is one claim with the sources it is checked against (the payload a `Send`
gives `verify_claim`; the batch engine makes many at once). A claim-support judge checks
them through the one claim check (`nodes.judges.claim_check`, `judge_tasks`); the paper's
chat-model verifiers make their checks in the same shape (`chat_check`). One round's
checks make the answer's finding (`answer_finding`), and a contradicted claim's critique
quotes its source (`source_quote`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NotRequired

from typing_extensions import TypedDict

from veriloop.nodes.claims import answer_probability, answer_to, bare_claim
from veriloop.nodes.judges import JUDGES, ClaimVerdict, SupportJudge
from veriloop.nodes.judges.claim_check import ClaimCheck, check_claims
from veriloop.trace import ModelCall


class ClaimTask(TypedDict):
    """The payload `Send` gives one verify_claim run."""

    round: int
    index: int
    claim: str
    document: str
    evidence: list[str]
    """The texts of the claim's sources (cited, else all), for the support judges."""
    question: str
    evidence_ids: NotRequired[list[str]]
    """The ids of those sources, in the same order."""


class RoundCheck(ClaimCheck):
    """One claim's check in one round: the shared claim check, where it sits, how it was made.

    The shared fields (`nodes.judges.claim_check.ClaimCheck`) are the grounded check's too.
    """

    round: int
    index: int
    method: str
    """The judge's name (`nodes.judges.JUDGES`), or `logprob` / `cot` (the chat model)."""
    supported: bool | None
    evidence: str
    """The source text (or span) the verdict rests on; '' when none was judged."""
    source_id: NotRequired[str | None]
    """The id of the source the verdict rests on (the claim-support judges)."""


class CritiqueRecord(TypedDict):
    """A claim-wise critique of an unsupported claim."""

    round: int
    claim: str
    critique: str | None
    revised_claim: str | None
    error: str | None


def is_judge_verifier(verifier: str) -> bool:
    """Tell whether `verifier` is a claim-support judge (`JUDGES`), not a chat verifier.

    `yesno` is the paper's verifier here: its prompt on the chat model, claim by claim.
    """
    return verifier in JUDGES and verifier != "yesno"


def judge_tasks(
    tasks: Sequence[ClaimTask], judge: SupportJudge, method: str
) -> tuple[list[RoundCheck], list[ModelCall]]:
    """Judge claim tasks with a claim-support judge in one batch (`check_claims`).

    A claim that restates the question's answer-to prefix is read without it (the judge
    reads the question beside a bare answer). `method` is the judge's registry name.
    """
    claims = []
    for task in tasks:
        claim = bare_claim(task["claim"])
        prefix = answer_to(task["question"])
        if task["question"] and claim.startswith(prefix):  # the judge reads the question
            claim = claim[len(prefix) :]
        claims.append(claim)
    checks, calls = check_claims(
        judge, claims, [t["evidence"] for t in tasks], [t["question"] for t in tasks]
    )
    out: list[RoundCheck] = []
    for task, check in zip(tasks, checks, strict=True):
        index = check["source_index"]
        ids = task.get("evidence_ids") or []
        out.append(
            RoundCheck(
                claim=task["claim"],
                verdict=check["verdict"],
                p_supported=check["p_supported"],
                p_contradicted=check["p_contradicted"],
                mismatches=check["mismatches"],
                source_index=index,
                span=check["span"],
                evidence_sentence=check["evidence_sentence"],
                scores=check["scores"],
                error=check["error"],
                round=task["round"],
                index=task["index"],
                method=method,
                supported=None if check["verdict"] is None else check["verdict"] == "supported",
                evidence=check["span"],
                source_id=ids[index] if index is not None and index < len(ids) else None,
            )
        )
    return out, calls


def chat_check(
    task: ClaimTask,
    method: Literal["logprob", "cot"],
    p: float | None,
    supported_at: float,
    *,
    error: str | None = None,
    scores: dict[str, float] | None = None,
) -> RoundCheck:
    """Return a chat-model verifier's check in the shared shape (it reads the whole document).

    The claim is supported at P >= `supported_at`; the chat verifiers cannot say
    contradicted.
    """
    said: ClaimVerdict | None = (
        None if p is None else "supported" if p >= supported_at else "unsupported"
    )
    return RoundCheck(
        claim=task["claim"],
        verdict=said,
        p_supported=p,
        p_contradicted=None,
        mismatches=[],
        source_index=None,
        span=task["document"] if p is not None else "",
        evidence_sentence="",
        scores=scores or {},
        error=error,
        round=task["round"],
        index=task["index"],
        method=method,
        supported=None if said is None else said == "supported",
        evidence=task["document"] if p is not None else "",
    )


def answer_finding(
    checks: Sequence[RoundCheck], threshold: float
) -> tuple[float | None, int, bool | None]:
    """Return (P(answer), contradicted claims, hallucinated) from one round's claim checks.

    P(answer) is the product of the usable claim probabilities (a failed check is left
    out); the answer is hallucinated iff P(answer) < `threshold` or a source denies a
    claim; None when no claim could be checked.
    """
    usable = [c["p_supported"] for c in checks if c["p_supported"] is not None]
    p_answer = answer_probability(usable)
    contradicted = sum(c.get("verdict") == "contradicted" for c in checks)
    hallucinated = None if p_answer is None else p_answer < threshold or contradicted > 0
    return p_answer, contradicted, hallucinated


def source_quote(round_number: int, check: RoundCheck) -> CritiqueRecord:
    """Return the critique of a contradicted claim: what the source says, quoted.

    The revision copies the source's sentence instead of the claim (a small model copies
    well and recalls badly); a mismatch found by the deterministic checks is named.
    """
    sentence = check.get("evidence_sentence", "")
    named = "; ".join(m["reason"] for m in check.get("mismatches", []))
    return CritiqueRecord(
        round=round_number,
        claim=check["claim"],
        critique=f'The source says otherwise: "{sentence}"' + (f" ({named})." if named else ""),
        revised_claim=sentence,
        error=None,
    )
