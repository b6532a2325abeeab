"""M-Eval's stances: +1 / 0 / −1 for each (claim, article) pair, four ways.

- `judge_stances`: a claim-support judge of the registry (the default, the three-way
  judge: +1 supported, −1 contradicted, 0 not in the abstract; each stance keeps
  P(supported), P(contradicted) and the sentence it rests on);
- `support_stances`: the support-only cross-encoder, −1 from a low P on an on-topic
  article (claim-article cosine >= `relevant_at`);
- `nli_stances`: the MiniLM NLI head;
- `chat_stances`: the chat model (an unusable reply is a stance of None with its reason).

The main claim (index 0) already starts with the question; the others are read after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from veriloop.models import ChatTurn, Models
from veriloop.models.structured import ask_structured
from veriloop.nodes.judges import SupportQuery, claim_verdict, support_judge
from veriloop.nodes.m_eval.records import ArticleRecord, Stance
from veriloop.prompts import render
from veriloop.trace import ModelCall

STANCES = {"supports": 1, "contradicts": -1, "neither": 0}
THREE_WAY_STANCE = {"supported": 1, "contradicted": -1, "unsupported": 0}

Pairs = Sequence[tuple[int, ArticleRecord]]
"""(claim index, article) pairs, every claim against every article."""


class StanceReply(BaseModel):
    """The chat model's stance reply."""

    model_config = ConfigDict(extra="ignore")
    stance: Literal["supports", "contradicts", "neither"]


def _abstract(record: ArticleRecord) -> str:
    return str(record["article"]["abstract"] or record["article"]["title"] or "-")


def _question_for(claim: int, question: str) -> str:
    return "" if claim == 0 else question


def judge_stances(
    judge_name: str,
    models: Models,
    claims: Sequence[str],
    question: str,
    pairs: Pairs,
    *,
    supported_at: float | None = None,
    contradicted_at: float | None = None,
) -> list[Stance]:
    """Label every pair with a registry judge (nodes/judges/registry.py).

    Args:
        judge_name: The judge's registry name.
        models: The models of the run.
        claims: The claims' texts (index 0: the main claim).
        question: The question the answer replied to.
        pairs: The (claim index, article) pairs to label.
        supported_at: The judge's support threshold (None: its own decision).
        contradicted_at: The judge's contradiction threshold (None: its own decision).
    """
    if not pairs:
        return []
    judge = support_judge(
        judge_name, models, supported_at=supported_at, contradicted_at=contradicted_at
    )
    queries = [
        SupportQuery(claims[c], [_abstract(r)], _question_for(c, question)) for c, r in pairs
    ]
    verdicts, _ = judge.judge(queries)
    return [
        Stance(
            claim=c,
            article=record["id"],
            stance=None
            if verdict["error"] is not None
            else THREE_WAY_STANCE[claim_verdict(verdict) or "unsupported"],
            error=verdict["error"],
            probability=verdict["probability"],
            p_contradicted=verdict.get("p_contradicted"),
            evidence_sentence=verdict.get("evidence_sentence", ""),
        )
        for (c, record), verdict in zip(pairs, verdicts, strict=True)
    ]


def support_stances(
    models: Models,
    claims: Sequence[str],
    question: str,
    pairs: Pairs,
    *,
    supported_at: float | None,
    contradicts_below: float,
    relevant_at: float,
) -> list[Stance]:
    """Label every pair with the support cross-encoder and the on-topic gate for −1.

    Args:
        models: The models of the run (the embedder measures relevance).
        claims: The claims' texts (index 0: the main claim).
        question: The question the answer replied to.
        pairs: The (claim index, article) pairs to label.
        supported_at: P(supported) for +1 (None: 0.5).
        contradicts_below: P below which an on-topic article is −1.
        relevant_at: Claim-article cosine from which an article is on topic.
    """
    from veriloop.nodes.judges import CrossEncoderJudge, SupportStances

    judge = SupportStances(
        CrossEncoderJudge(),
        supports_at=0.5 if supported_at is None else supported_at,
        contradicts_below=contradicts_below,
        models=models,
        relevant_at=relevant_at,
    )
    abstracts = [_abstract(r) for _, r in pairs]
    texts = [claims[c] for c, _ in pairs]
    verdicts, _ = judge.verdicts(abstracts, texts, [_question_for(c, question) for c, _ in pairs])
    relevances = judge.relevances(abstracts, texts)
    return [
        Stance(
            claim=c,
            article=record["id"],
            stance=judge.stance(verdict["probability"], relevance),
            error=verdict["error"],
            probability=verdict["probability"],
            relevance=relevance,
        )
        for (c, record), verdict, relevance in zip(pairs, verdicts, relevances, strict=True)
    ]


def nli_stances(models: Models, claims: Sequence[str], pairs: Pairs) -> list[Stance]:
    """Label every pair with the MiniLM NLI head (abstract as premise, claim as hypothesis)."""
    from veriloop.nodes.judges.nli import EmbeddingNLI

    if not pairs:
        return []
    verdicts = EmbeddingNLI(models).judge_pairs(
        [r["article"]["abstract"] for _, r in pairs], [claims[c] for c, _ in pairs]
    )
    return [
        Stance(claim=c, article=r["id"], stance=int(v), error=None)
        for (c, r), v in zip(pairs, verdicts, strict=True)
    ]


def chat_stances(
    models: Models, claims: Sequence[str], pairs: Pairs, prompt_overrides: dict[str, str]
) -> tuple[list[Stance], list[ModelCall]]:
    """Label every pair by asking the chat model (prompt `m_eval_stance`).

    Returns:
        The stances (None with the reason where a reply was unusable) and the model calls.
    """
    stances: list[Stance] = []
    calls: list[ModelCall] = []
    for c, record in pairs:
        prompt = render(
            "m_eval_stance",
            prompt_overrides,
            title=record["article"]["title"] or "(none)",
            abstract=record["article"]["abstract"],
            claim=claims[c],
        )
        reply = ask_structured(
            models, [ChatTurn(role="user", content=prompt)], StanceReply, purpose="stance"
        )
        calls.extend(reply.calls)
        value = None if reply.value is None else STANCES[reply.value.stance]
        stances.append(
            Stance(
                claim=c,
                article=record["id"],
                stance=value,
                error=None if reply.value else reply.error,
            )
        )
    return stances, calls
