"""M-Eval (Sun et al. 2025): validate a medical RAG answer against multiple weighted evidence.

    check_input -> extract_claims -> gather_evidence -> assess_reliability -> judge_stances
        -> weigh_claims -> finish

- extract_claims: the answer's sentences, the top `claims_per_answer` (4) by cosine with the
  question, plus a main claim = the question + the answer's first sentence (its choice).
- gather_evidence: the articles the answer cited (given evidence G) and, unless
  `no_extra_evidence`, the top `extra_candidates` (15) BM25 articles of a local PubMed-style
  corpus (title + abstract + MeSH) for the question, of which the `extra_evidence` (9) most
  reliable are kept (E).
- assess_reliability: per article, evidence level from its publication type (default 3
  when it has none), recency bonus (newest +1.0, +0.8, ... over G ∪ E; none without a
  year), and −0.3 per quality aspect the model finds lacking (`quality_penalties`; an
  unusable reply costs nothing and is recorded). `random_reliability` (ablation) draws
  reliabilities uniformly from [1, 8] instead (seeded).
- judge_stances: +1 / 0 / −1 per (claim, article): the three-way judge (default,
  `stance_judge="three_way"`: +1 supported, −1 contradicted, 0 not in the abstract; each
  stance keeps P(supported), P(contradicted) and the sentence it rests on), the support-only
  judge (`stance_judge="support"`: +1 at P(supported) >= `supported_at`, −1 below
  `stance_contradicts_below` on an on-topic article (claim-article cosine >=
  `stance_relevant_at`), 0 otherwise; each stance keeps its probability), the MiniLM NLI
  head (`"nli"`) or the chat model (`"llm"`); an unusable reply is recorded, excluded from
  the statistics and counted.
- weigh_claims: per claim, DerSimonian–Laird on the stances with variances 1/reliability
  (Q, τ², I², random-effects mean; `nodes/m_eval/heterogeneity.py`) and the reliability-weighted
  score M(c) = Σ stance·reliability; a claim is correct if M(c) > 0, incorrect if < 0,
  undetermined when no article took a side. `no_heterogeneity` (ablation): incorrect as
  soon as any article contradicts. The answer is incorrect if any claim is, correct if at
  least one claim is and none is incorrect, undetermined otherwise.
- finish: the label, every claim's statistics, every article's reliability parts, and the
  evidence report: for each cited article, whether it agreed with the final claim labels,
  misled (took the side the labels rejected) or was irrelevant (no side).

There is no loop: each step runs once per answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.articles import article_from_dict, article_to_dict, open_article_index
from veriloop.models import get_models
from veriloop.nodes.judges import JUDGES, DecisionSettings, JudgeName
from veriloop.nodes.m_eval.quality import lacking_aspects
from veriloop.nodes.m_eval.records import (
    ArticleRecord,
    ArticleVerdict,
    ClaimResult,
    Label,
    Stance,
    answer_label,
    claim_result,
    evidence_report,
)
from veriloop.nodes.m_eval.reliability import recency_bonuses, reliability_parts
from veriloop.nodes.m_eval.stances import chat_stances, nli_stances, support_stances
from veriloop.nodes.m_eval.stances import judge_stances as judge_stances_with
from veriloop.state import OutputState, TracedState
from veriloop.text import split_sentences
from veriloop.trace import Candidate, LoopStop, ModelCall, build_trace

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class MEvalContext(MethodSettings, DecisionSettings):
    """Evidence sources, sizes, judges and the paper's three ablations."""

    RENAMED: ClassVar[dict[str, str]] = {"stance_supports_at": "supported_at"}

    evidence_corpus: str = field(
        default="",
        metadata={"description": "PubMed XML or JSON-lines file searched for extra evidence."},
    )
    claims_per_answer: int = field(
        default=4,
        metadata={"ge": 0, "description": "Answer sentences kept as claims (plus the main)."},
    )
    extra_candidates: int = field(
        default=15, metadata={"ge": 0, "description": "BM25 articles retrieved for extra evidence."}
    )
    extra_evidence: int = field(
        default=9, metadata={"ge": 0, "description": "Most reliable retrieved articles kept."}
    )
    stance_judge: JudgeName | Literal["support", "nli", "llm"] = field(
        default="three_way",
        metadata={
            "description": "A claim-support judge of nodes/judges/registry.py ('three_way', "
            "the default: the three-way judge with the mismatch checks: +1 supported, −1 "
            "contradicted, 0 not in the abstract; a support-only judge gives +1 or 0), or "
            "'support': the support cross-encoder with −1 from a low P on an on-topic "
            "abstract; 'nli': the MiniLM NLI head; 'llm': the chat model."
        },
    )
    stance_contradicts_below: float = field(
        default=0.1,
        metadata={
            "ge": 0,
            "le": 1,
            "description": "support judge: P below it is −1 (on-topic articles only).",
        },
    )
    stance_relevant_at: float = field(
        default=0.5,
        metadata={
            "ge": -1,
            "le": 1,
            "description": "support judge: claim-article cosine from which an article is on "
            "topic (off-topic ones are neutral, never −1).",
        },
    )
    quality_penalties: bool = field(
        default=True,
        metadata={"description": "Ask the chat model for the four quality aspects (−0.3 each)."},
    )
    random_reliability: bool = field(
        default=False, metadata={"description": "Ablation: random reliabilities in [1, 8]."}
    )
    no_heterogeneity: bool = field(
        default=False,
        metadata={"description": "Ablation: a claim is wrong as soon as any article contradicts."},
    )
    no_extra_evidence: bool = field(
        default=False, metadata={"description": "Ablation: only the cited articles."}
    )


@dataclass
class EvidenceInput:
    """An answer and the articles it cited, or another graph's output."""

    question: str = ""
    answer: str | None = None
    articles: list[dict[str, Any]] | None = None
    """Cited articles: pmid/id, title, abstract (or text), year, publication_types, mesh."""
    context_units: list[dict[str, Any]] | None = None
    """Chained after fe/rag: the retrieved units become cited articles (no type or year)."""


@dataclass
class MEvalOutput(OutputState):
    """The shared output plus the label, the claims, the evidence and the report."""

    question: str = ""
    label: Label | None = None
    claims: list[ClaimResult] = field(default_factory=list)
    evidence: list[ArticleRecord] = field(default_factory=list)
    stances: list[Stance] = field(default_factory=list)
    unusable_stances: int = 0
    evidence_report: list[ArticleVerdict] = field(default_factory=list)


@dataclass
class State(MEvalOutput, TracedState):
    """Working state."""

    articles: list[dict[str, Any]] | None = None
    context_units: list[dict[str, Any]] | None = None
    claim_texts: list[str] = field(default_factory=list)
    given: list[dict[str, Any]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)


# -------------------------------------------------------------------- nodes


def check_input(state: State) -> dict[str, Any]:
    """Collect the cited articles; reject a missing answer or question."""
    if not state.answer or not state.answer.strip():
        raise InvalidInputError("there is no answer to validate: pass {'question', 'answer'}")
    if not state.question.strip():
        raise InvalidInputError("M-Eval needs the question: the main claim is question + answer")
    raw = state.articles or [
        {"id": u["id"], "abstract": u["text"]} for u in (state.context_units or [])
    ]
    given = [article_to_dict(article_from_dict(a, n)) for n, a in enumerate(raw, start=1)]
    return {"given": given}


def extract_claims(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Keep the answer sentences closest to the question, plus the main claim."""
    context = MEvalContext.of(runtime)
    answer = state.answer or ""
    sentences = split_sentences(answer)
    main = f"{state.question.strip()} {sentences[0] if sentences else answer.strip()}"
    update: dict[str, Any] = {}
    chosen: list[str] = []
    if sentences and context.claims_per_answer:
        vectors, call = get_models(context).embed([state.question, *sentences], purpose="claims")
        order = sorted(range(len(sentences)), key=lambda i: -float(vectors[1 + i] @ vectors[0]))
        chosen = [sentences[i] for i in sorted(order[: context.claims_per_answer])]
        update["calls"] = [call]
    update["claim_texts"] = [main, *chosen]
    return update


def gather_evidence(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Retrieve extra evidence with BM25 (unless the ablation turns it off)."""
    context = MEvalContext.of(runtime)
    if context.no_extra_evidence or context.extra_evidence == 0:
        return {"extra": []}
    index = open_article_index(context.evidence_corpus)
    cited = {a["pmid"] for a in state.given}
    found = index.search(" ".join(state.claim_texts), context.extra_candidates)
    return {"extra": [article_to_dict(a) for a, _ in found if a.pmid not in cited]}


def assess_reliability(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Score every article's reliability; keep the most reliable extra articles."""
    context = MEvalContext.of(runtime)
    models = get_models(context)
    articles: list[tuple[Literal["given", "extra"], dict[str, Any]]] = [
        *(("given", a) for a in state.given),
        *(("extra", a) for a in state.extra),
    ]
    bonuses = recency_bonuses([a["year"] for _, a in articles])
    rng = random.Random(context.seed)
    calls: list[ModelCall] = []
    records: list[ArticleRecord] = []
    for (role, article), bonus in zip(articles, bonuses, strict=True):
        flagged: list[str] = []
        error = None
        if context.quality_penalties and not context.random_reliability:
            flagged, error, quality_calls = lacking_aspects(
                models, article, context.prompt_overrides
            )
            calls.extend(quality_calls)
        parts = reliability_parts(article["publication_types"], bonus, flagged)
        if context.random_reliability:
            parts["reliability"] = round(rng.uniform(1.0, 8.0), 6)
            parts["level_from"] = "random (ablation)"
        records.append(
            ArticleRecord(
                id=article["pmid"],
                role=role,
                article=article,
                reliability=parts,
                quality_error=error,
            )
        )
    given = [r for r in records if r["role"] == "given"]
    extra = sorted(
        (r for r in records if r["role"] == "extra"),
        key=lambda r: -r["reliability"]["reliability"],
    )[: context.extra_evidence]
    return {"evidence": given + extra, "calls": calls}


def judge_stances(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Label every (claim, article) pair +1 / 0 / −1."""
    context = MEvalContext.of(runtime)
    models = get_models(context)
    claims, question = state.claim_texts, state.question
    pairs = [(c, r) for c in range(len(claims)) for r in state.evidence]
    calls: list[ModelCall] = []
    if context.stance_judge in JUDGES:
        stances = judge_stances_with(
            context.stance_judge,
            models,
            claims,
            question,
            pairs,
            supported_at=context.supported_at,
            contradicted_at=context.contradicted_at,
        )
    elif context.stance_judge == "support":
        stances = support_stances(
            models,
            claims,
            question,
            pairs,
            supported_at=context.supported_at,
            contradicts_below=context.stance_contradicts_below,
            relevant_at=context.stance_relevant_at,
        )
    elif context.stance_judge == "nli":
        stances = nli_stances(models, claims, pairs)
    else:
        stances, calls = chat_stances(models, claims, pairs, context.prompt_overrides)
    return {
        "stances": stances,
        "unusable_stances": sum(s["stance"] is None for s in stances),
        "calls": calls,
    }


def weigh_claims(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Heterogeneity statistics and M(c) per claim; the answer's label."""
    context = MEvalContext.of(runtime)
    reliability = {r["id"]: r["reliability"]["reliability"] for r in state.evidence}
    results = [
        claim_result(
            index, claim, state.stances, reliability, no_heterogeneity=context.no_heterogeneity
        )
        for index, claim in enumerate(state.claim_texts)
    ]
    return {"claims": results, "label": answer_label(results)}


def finish(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Write the evidence report on the cited articles and the trace."""
    context = MEvalContext.of(runtime)
    report = evidence_report(state.evidence, state.stances, state.claims)
    candidate = Candidate(
        stage="answer",
        round=0,
        iteration=0,
        text=state.answer or "",
        scores={f"M(c{r['index']})": r["score"] for r in state.claims},
        thresholds={f"M(c{r['index']})": 0.0 for r in state.claims},
        passed=state.label == "correct",
        error=None if state.label != "undetermined" else "no article took a side on any claim",
    )
    stop = LoopStop(
        loop="validation",
        round=0,
        reason="single_pass" if state.label != "undetermined" else "no_usable_output",
        chosen_iteration=0,
        detail=f"answer labelled {state.label}; {state.unusable_stances} unusable stance(s)",
    )
    settings = context.trace_settings(get_models(context).describe())
    trace = build_trace(
        METHOD, settings, [candidate], [stop], state.calls, [r["id"] for r in state.evidence]
    )
    return {
        "evidence_report": report,
        "stop_reason": stop["reason"],
        "knowledge": "\n".join(f"[{r['id']}] {r['article']['abstract']}" for r in state.evidence),
        "label": state.label,
        "claims": state.claims,
        "evidence": state.evidence,
        "stances": state.stances,
        "unusable_stances": state.unusable_stances,
        "trace": trace,
    }


def build_graph() -> StateGraph[State, MEvalContext, EvidenceInput, MEvalOutput]:
    """Return the M-Eval graph builder."""
    builder = StateGraph(
        State, context_schema=MEvalContext, input_schema=EvidenceInput, output_schema=MEvalOutput
    )
    builder.add_node("check_input", check_input)
    builder.add_node("extract_claims", extract_claims)
    builder.add_node("gather_evidence", gather_evidence)
    builder.add_node("assess_reliability", assess_reliability)
    builder.add_node("judge_stances", judge_stances)
    builder.add_node("weigh_claims", weigh_claims)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_input")
    builder.add_edge("check_input", "extract_claims")
    builder.add_edge("extract_claims", "gather_evidence")
    builder.add_edge("gather_evidence", "assess_reliability")
    builder.add_edge("assess_reliability", "judge_stances")
    builder.add_edge("judge_stances", "weigh_claims")
    builder.add_edge("weigh_claims", "finish")
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
