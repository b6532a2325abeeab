"""Grounding metrics for retrieval methods: faithfulness, the Auto-Grader, decision accuracy.

- Faithfulness (after RAGAS, as Muneeswaran et al. use it): the answer's claims (its
  sentences, citation markers removed) that the retrieved context supports, over all its
  claims. A claim is supported when the claim-support judge (`nodes.judges`; the report
  uses the trained one) gives P(supported) >= 0.5 against its most supportive context
  unit, read after the question. A claim the judge could not score is *undetermined* and
  an answer with no
  claims (refused, empty) is undetermined as a whole; both are counted and shown on their
  own, never folded into 0 or NaN. The context is what the run retrieved; a run that
  retrieves nothing (the direct baseline) is judged against the context the corpus
  retriever returns for the question (the paper's "None" row is scored the same way).
- Auto-Grader: an LLM judge with the paper's 1-5 rubric and a CORRECT / INCORRECT verdict
  against the reference answer (`prompts/grader.txt`), grammar-constrained. Its model is
  configured apart from the generator (`veriloop report --grader-...`); an unusable reply
  is undetermined.
- Decision accuracy (items with a yes/no/maybe gold label, PubMedQA): the first of "yes",
  "no", "maybe" in the answer's first sentence against the gold label; an answer with none
  counts wrong and is counted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from veriloop.knowledge.hybrid import ContextUnit, format_units
from veriloop.models import ChatTurn, Models
from veriloop.models.structured import ask_structured
from veriloop.nodes.citations import strip_citations
from veriloop.nodes.judges import SupportJudge, SupportQuery, claim_verdict
from veriloop.prompts import render
from veriloop.text import split_sentences

DECISIONS = ("yes", "no", "maybe")
SUPPORTED_AT = 0.5
"""P(supported) from which a claim counts as supported."""


def answer_claims(answer: str | None) -> list[str]:
    """Return the answer's claims: its sentences with citation markers removed."""
    if not answer:
        return []
    text = strip_citations(answer)
    return [s for s in split_sentences(text) if re.search(r"\w{2,}", s)]


def faithfulness(
    judge: SupportJudge,
    claims: Sequence[str],
    context: Sequence[str],
    *,
    question: str = "",
    threshold: float = SUPPORTED_AT,
) -> dict[str, Any]:
    """Judge each claim against the context texts (one batch); return the counts and share.

    A claim is supported when the support judge's P(supported) against its most supportive
    context text is at least `threshold`; a claim the judge could not score is undetermined.

    With a judge that tells contradiction apart (the three-way judge), `contradicted`
    counts the unsupported claims the context denies: a subset of `unsupported`, so
    `unsupported` keeps its meaning (not supported) beside older runs.

    Returns:
        {"claims", "supported", "unsupported", "contradicted", "undetermined",
        "faithfulness", "checks"} (checks: one per claim, with its verdict, probabilities and
        the reference sentence it was read against), with faithfulness None when there
        are no claims or no context (undetermined answer).
    """
    counts: dict[str, Any] = {
        "claims": len(claims),
        "supported": 0,
        "unsupported": 0,
        "contradicted": 0,
        "undetermined": 0,
    }
    texts = [text for text in context if text.strip()]
    if not claims or not texts:
        counts["undetermined"] = len(claims)
        counts["faithfulness"] = None
        return counts
    verdicts, _ = judge.judge([SupportQuery(claim, texts, question) for claim in claims])
    checks = []
    for claim, verdict in zip(claims, verdicts, strict=True):
        probability = verdict["probability"]
        said: str | None
        if probability is None:
            counts["undetermined"] += 1
            said = None
        elif probability >= threshold and claim_verdict(verdict) != "contradicted":
            counts["supported"] += 1
            said = "supported"
        else:
            counts["unsupported"] += 1
            counts["contradicted"] += claim_verdict(verdict) == "contradicted"
            said = "contradicted" if claim_verdict(verdict) == "contradicted" else "unsupported"
        checks.append(
            {
                "claim": claim,
                "verdict": said,
                "p_supported": probability,
                "p_contradicted": verdict.get("p_contradicted"),
                "evidence_index": verdict["evidence_index"],
                "evidence_sentence": verdict.get("evidence_sentence", ""),
                "mismatches": verdict.get("mismatches", []),
            }
        )
    counts["faithfulness"] = counts["supported"] / len(claims)
    counts["checks"] = checks
    return counts


def first_decision(answer: str | None) -> str | None:
    """Return the first yes/no/maybe in the answer's first sentence (None if absent)."""
    sentences = split_sentences(answer or "")
    if not sentences:
        return None
    match = re.search(r"\b(yes|no|maybe)\b", sentences[0].casefold())
    return match.group(1) if match else None


class GraderReply(BaseModel):
    """The Auto-Grader's structured reply."""

    model_config = ConfigDict(extra="ignore")
    justification: str = Field(max_length=300)
    grade: Literal[1, 2, 3, 4, 5]
    verdict: Literal["CORRECT", "INCORRECT"]


def auto_grade(
    grader: Models, question: str, reference: str, answer: str, context: list[ContextUnit]
) -> dict[str, Any]:
    """Grade one answer; return {"grade", "correct", "justification", "error"}."""
    prompt = render(
        "grader",
        None,
        context=format_units(context),
        question=question,
        reference=reference,
        answer=answer,
    )
    reply = ask_structured(
        grader, [ChatTurn(role="user", content=prompt)], GraderReply, purpose="auto_grader"
    )
    if reply.value is None:
        return {"grade": None, "correct": None, "justification": None, "error": reply.error}
    return {
        "grade": reply.value.grade,
        "correct": reply.value.verdict == "CORRECT",
        "justification": reply.value.justification,
        "error": None,
    }
