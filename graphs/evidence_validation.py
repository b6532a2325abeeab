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
  (Q, τ², I², random-effects mean; `nodes/heterogeneity.py`) and the reliability-weighted
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
from typing import Any, ClassVar, Literal, NotRequired

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.articles import article_from_dict, article_to_dict, open_article_index
from veriloop.models import ChatTurn, get_models
from veriloop.models.structured import ask_structured
from veriloop.nodes.heterogeneity import (
    dersimonian_laird,
    reliability_variances,
    weighted_claim_score,
)
from veriloop.nodes.judges import JUDGES, JudgeName, SupportQuery, claim_verdict, support_judge
from veriloop.nodes.reliability import (
    QUALITY_ASPECTS,
    ReliabilityParts,
    recency_bonuses,
    reliability_parts,
)
from veriloop.prompts import render
from veriloop.state import OutputState, TracedState
from veriloop.text import split_sentences
from veriloop.trace import Candidate, LoopStop, ModelCall, build_trace

METHOD = method_id(__file__)
Label = Literal["correct", "incorrect", "undetermined"]
STANCES = {"supports": 1, "contradicts": -1, "neither": 0}


@dataclass(kw_only=True)
class MEvalContext(MethodSettings):
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
    supported_at: float | None = field(
        default=None,
        metadata={
            "ge": 0,
            "le": 1,
            "description": "P(supported) an article needs to support a claim (+1). Unset: a "
            "three-way judge's fitted decision, 0.5 for the others. Was stance_supports_at "
            "(still accepted, with a warning).",
        },
    )
    contradicted_at: float | None = field(
        default=None,
        metadata={
            "ge": 0,
            "le": 1,
            "description": "P(contradicted) a three-way judge needs to call an article "
            "against a claim (−1). Unset: the fitted decision.",
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


class _Quality(BaseModel):
    model_config = ConfigDict(extra="ignore")
    random_selection: bool
    complete_data: bool
    unbiased_conclusions: bool
    blinding: bool


class _StanceReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    stance: Literal["supports", "contradicts", "neither"]


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
            prompt = render(
                "meval_quality",
                context.prompt_overrides,
                title=article["title"] or "(none)",
                publication_types=", ".join(article["publication_types"]) or "(unknown)",
                abstract=article["abstract"],
            )
            reply = ask_structured(
                models, [ChatTurn(role="user", content=prompt)], _Quality, purpose="quality"
            )
            calls.extend(reply.calls)
            if reply.value is None:
                error = reply.error
            else:
                flagged = [a for a in QUALITY_ASPECTS if not getattr(reply.value, a)]
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
    pairs = [(c, r) for c in range(len(state.claim_texts)) for r in state.evidence]
    stances: list[Stance] = []
    calls: list[ModelCall] = []
    if context.stance_judge in JUDGES:
        stances = _judge_stances(state, context, pairs)
    elif context.stance_judge == "support":
        stances = _support_stances(state, context, pairs)
    elif context.stance_judge == "nli":
        from veriloop.nodes.judges.nli import EmbeddingNLI

        judge = EmbeddingNLI(models)
        verdicts = (
            judge.judge_pairs(
                [r["article"]["abstract"] for _, r in pairs],
                [state.claim_texts[c] for c, _ in pairs],
            )
            if pairs
            else []
        )
        stances = [
            Stance(claim=c, article=r["id"], stance=int(v), error=None)
            for (c, r), v in zip(pairs, verdicts, strict=True)
        ]
    else:
        for c, record in pairs:
            prompt = render(
                "meval_stance",
                context.prompt_overrides,
                title=record["article"]["title"] or "(none)",
                abstract=record["article"]["abstract"],
                claim=state.claim_texts[c],
            )
            reply = ask_structured(
                models, [ChatTurn(role="user", content=prompt)], _StanceReply, purpose="stance"
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
    return {
        "stances": stances,
        "unusable_stances": sum(s["stance"] is None for s in stances),
        "calls": calls,
    }


THREE_WAY_STANCE = {"supported": 1, "contradicted": -1, "unsupported": 0}


def _stance_queries(state: State, pairs: list[tuple[int, ArticleRecord]]) -> list[SupportQuery]:
    # the main claim (0) already starts with the question; the others are read after it
    return [
        SupportQuery(
            state.claim_texts[c],
            [r["article"]["abstract"] or r["article"]["title"] or "-"],
            "" if c == 0 else state.question,
        )
        for c, r in pairs
    ]


def _judge_stances(
    state: State, context: MEvalContext, pairs: list[tuple[int, ArticleRecord]]
) -> list[Stance]:
    if not pairs:
        return []
    judge = support_judge(
        context.stance_judge,
        get_models(context),
        supported_at=context.supported_at,
        contradicted_at=context.contradicted_at,
    )
    verdicts, _ = judge.judge(_stance_queries(state, pairs))
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


def _support_stances(
    state: State, context: MEvalContext, pairs: list[tuple[int, ArticleRecord]]
) -> list[Stance]:
    from veriloop.nodes.judges import CrossEncoderJudge, SupportStances

    judge = SupportStances(
        CrossEncoderJudge(),
        supports_at=0.5 if context.supported_at is None else context.supported_at,
        contradicts_below=context.stance_contradicts_below,
        models=get_models(context),
        relevant_at=context.stance_relevant_at,
    )
    abstracts = [r["article"]["abstract"] or r["article"]["title"] or "-" for _, r in pairs]
    claims = [state.claim_texts[c] for c, _ in pairs]
    # the main claim (0) already starts with the question; the others are read after it
    questions = ["" if c == 0 else state.question for c, _ in pairs]
    verdicts, _ = judge.verdicts(abstracts, claims, questions)
    relevances = judge.relevances(abstracts, claims)
    stances = [
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
    return stances


def weigh_claims(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Heterogeneity statistics and M(c) per claim; the answer's label."""
    context = MEvalContext.of(runtime)
    reliability = {r["id"]: r["reliability"]["reliability"] for r in state.evidence}
    results: list[ClaimResult] = []
    for index, claim in enumerate(state.claim_texts):
        usable = [s for s in state.stances if s["claim"] == index and s["stance"] is not None]
        ys = [int(s["stance"]) for s in usable]  # type: ignore[arg-type]
        rs = [reliability[s["article"]] for s in usable]
        score = weighted_claim_score(ys, rs)
        stats = dersimonian_laird(ys, reliability_variances(rs)) if ys else None
        supporting, contradicting = ys.count(1), ys.count(-1)
        label: Label
        if context.no_heterogeneity:
            label = "incorrect" if contradicting else "correct" if supporting else "undetermined"
        else:
            label = "correct" if score > 0 else "incorrect" if score < 0 else "undetermined"
        results.append(
            ClaimResult(
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
        )
    labels = [r["label"] for r in results]
    answer_label: Label = (
        "incorrect"
        if "incorrect" in labels
        else "correct"
        if "correct" in labels
        else "undetermined"
    )
    return {"claims": results, "label": answer_label}


def finish(state: State, runtime: Runtime[MEvalContext]) -> dict[str, Any]:
    """Write the evidence report on the cited articles and the trace."""
    context = MEvalContext.of(runtime)
    labels = {r["index"]: r["label"] for r in state.claims}
    report: list[ArticleVerdict] = []
    for record in (r for r in state.evidence if r["role"] == "given"):
        agreed = misled = 0
        for stance in (s for s in state.stances if s["article"] == record["id"]):
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
    for name, node in (
        ("check_input", check_input),
        ("extract_claims", extract_claims),
        ("gather_evidence", gather_evidence),
        ("assess_reliability", assess_reliability),
        ("judge_stances", judge_stances),
        ("weigh_claims", weigh_claims),
        ("finish", finish),
    ):
        builder.add_node(name, node)
    order = [
        "check_input",
        "extract_claims",
        "gather_evidence",
        "assess_reliability",
        "judge_stances",
        "weigh_claims",
        "finish",
    ]
    builder.add_edge(START, order[0])
    for first, second in zip(order, order[1:], strict=False):
        builder.add_edge(first, second)
    builder.add_edge(order[-1], END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
