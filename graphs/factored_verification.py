"""Factored Verification (George & Stuhlmüller 2023): claims, checked one by one, revised.

    check_input -> decompose -> [route_claims] --Send per claim--> verify_claim -> combine
        -> [after_combine]
            hallucinated and revisions < max_revisions -> critique -> revise -> decompose
            otherwise                                  -> finish

- Input: an answer to check and its sources, or any veriloop graph's output (its
  `context_units`, `retrieved` entries or `knowledge` become the sources), so the graph
  chains after any method.
- decompose: the model lists the answer's claims (the paper's prompt, grammar-constrained
  JSON), or `sentences_as_claims` takes its sentences (a sentence's bracketed citations
  then pick the sources it is checked against, as the paper does for cited summaries).
  Ours, because SmolLM2-135M decomposes badly: a listed claim whose content words the
  answer and question mostly lack (`claims_drawn_from`: an echo of the instructions, or an
  invention) is discarded, and recorded in `discarded_claims`; when no claim is left (the
  model can return `{"claims": []}` for a plain two-sentence answer) or the reply is
  unusable, the answer's sentences are checked instead (without a question only those of at
  least `MIN_STATEMENT_WORDS` words, so "Hmm." stays unchecked). With a question, a claim
  shorter than that (a bare name) is read as the answer to it, as in `sentences_as_claims`.
  `claims_from` says where each round's claims came from.
- verify_claim (one `Send` per claim, run concurrently): P(supported) from the
  `verifier`. Default `trained`: a claim-support judge (`nodes.judges`; the MiniLM
  cross-encoder, or `likelihood`: how much the source raises the scorer's likelihood of the
  claim), which names the source text the verdict rests on; ours, because SmolLM2-135M's
  Yes/No is at chance (docs/benchmarks/support_judges.md). `yesno` is the paper's: the
  probability of " Yes" + " yes" after its few-shot prompt, from the scorer's token
  log-probs, divided by P(Yes) + P(No) (`normalise_yes_no`, ours: SmolLM2-135M puts ~1e-5 on
  " Yes" after "Supported:", so raw products underflow towards 0; off = the paper's raw
  P(Yes)); `cot` (or `auto` on a backend without log-probs) answers with reasoning and
  Yes/No, read as 1/0. In `sentences_as_claims` mode with a question, each claim reads
  'Answer to "<question>": <sentence>', so a bare answer ("Paris") is checkable.
- combine: P(answer) = product of the claim probabilities; hallucinated iff P(answer) < θ
  (`threshold`; the paper fits θ on a training split: `veriloop.nodes.claims.fit_threshold`). A
  claim whose check failed is left out of the product and counted.
- critique (unsupported claims only: P < `supported_at`) -> revise (all critiques in one
  feedback turn) -> decompose again: the mitigation loop, counter `revisions`, cap
  `max_revisions` (0: detection only).
- Output: the (revised) answer, the original answer, every claim check of every round, the
  critiques, P(answer) per round and the verdict: supported, hallucinated, or undetermined
  (no claims could be extracted or checked - never reported as supported).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send
from typing_extensions import TypedDict, deprecated

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.registry import method_id, studio_name
from veriloop.models import get_models
from veriloop.nodes.claim_tasks import (
    ClaimTask,
    CritiqueRecord,
    RoundCheck,
    answer_finding,
    is_judge_verifier,
    judge_tasks,
)
from veriloop.nodes.claims import (
    Source,
    claim_document,
    claim_sources,
    require_sources,
    statement_claims,
)
from veriloop.nodes.factored_verification.chat_agents import (
    ClaimsFrom,
    chat_verify,
    critiques,
    decomposed_claims,
)
from veriloop.nodes.factored_verification.revision import (
    Verdict,
    final_verdict,
    revision_feedback,
)
from veriloop.nodes.generation import generate_turn
from veriloop.nodes.judges import DecisionSettings, JudgeName, support_judge
from veriloop.nodes.scorers import require_token_scores
from veriloop.prompts import render
from veriloop.state import OutputState, TracedState
from veriloop.trace import Candidate, LoopStop, ModelCall, build_trace

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class FactoredVerificationContext(MethodSettings, DecisionSettings):
    """Claim extraction, verification mode, thresholds and the revision cap."""

    RENAMED: ClassVar[dict[str, str]] = {"claim_threshold": "supported_at"}

    sentences_as_claims: bool = field(
        default=False,
        metadata={
            "description": "Use the answer's sentences as claims (no decomposition call). "
            "Better on the embedded SmolLM2-135M: HaluEval QA detection 96.0% vs 87.0% with "
            "its own decomposition (docs/results/README.md)."
        },
    )
    verifier: JudgeName | Literal["cot", "auto"] = field(
        default="three_way",
        metadata={
            "description": "How each claim is judged: a claim-support judge of "
            "nodes/judges/registry.py ('three_way', the default: the MiniLM three-way judge "
            "with the deterministic number, negation, contrast and entity checks beside it; "
            "a contradicted claim makes the answer hallucinated; 'trained', 'likelihood', "
            "'three_way_model', 'gated', 'head': see the registry; docs/benchmarks/"
            "support_judges.md measures them), or the paper's verifiers run on the chat "
            "model: 'yesno' (P(Yes) from the scorer's log-probs after the paper's prompt), "
            "'cot' (reasoning then Yes/No as 1/0), 'auto' (yesno when the backend has "
            "log-probs, else cot)."
        },
    )
    normalise_yes_no: bool = field(
        default=True,
        metadata={
            "description": "P(claim) = P(Yes) / (P(Yes) + P(No)) (ours; a small model puts "
            "little mass on either). False: the paper's raw P(Yes)."
        },
    )
    threshold: float = field(
        default=0.5,
        metadata={
            "ge": 0.0,
            "le": 1.0,
            "description": "θ: the answer is hallucinated iff P(answer) < θ. 0.5 is an "
            "uncalibrated default; fit θ on a training split (nodes.claims.fit_threshold).",
        },
    )
    max_claims: int = field(
        default=8, metadata={"ge": 1, "description": "Claims checked per answer."}
    )
    max_revisions: int = field(
        default=1,
        metadata={"ge": 0, "description": "Critique-and-revise rounds at most (0: detect only)."},
    )
    max_answer_chars: int = field(
        default=8000,
        metadata={
            "ge": 1,
            "description": "Longest answer the chat model is given whole (to list its claims "
            "or revise it); the embedded model's 4,096-token window holds about 8,000 "
            "characters with the prompt. Not applied when no chat call reads the answer "
            "(sentences_as_claims with max_revisions=0).",
        },
    )


@dataclass
class VerifyInput:
    """What the graph checks: an answer and its sources, or another graph's output."""

    question: str = ""
    answer: str | None = None
    sources: list[Source | str] | None = None
    """Source documents; a plain list of strings is accepted too."""
    context_units: list[dict[str, Any]] | None = None
    """Chained after fe/rag: their retrieved context units."""
    retrieved: list[dict[str, Any]] | None = None
    """Chained after l2r/rag: the knowledge-base entries they retrieved."""
    knowledge: str | None = None
    """Chained after any graph: its knowledge text, used as one source."""


class DiscardedClaim(TypedDict):
    """A decomposed claim that was not drawn from the answer, so was not checked."""

    round: int
    claim: str
    coverage: float | None
    """The share of its content words the answer and question hold (None: it has none)."""


@dataclass
class FVOutput(OutputState):
    """The shared output plus the verification's findings."""

    question: str = ""
    original_answer: str | None = None
    claims: list[RoundCheck] = field(default_factory=list)
    """Every claim check of every round (round 0 checks the original answer)."""
    critiques: list[CritiqueRecord] = field(default_factory=list)
    answer_probabilities: list[float | None] = field(default_factory=list)
    """P(answer) per round."""
    hallucinated: bool | None = None
    verdict: Verdict | None = None
    revisions: int = 0
    discarded_claims: list[DiscardedClaim] = field(default_factory=list)
    """Decomposed claims left unchecked: not drawn from the answer (`claims_drawn_from`)."""
    claims_from: list[ClaimsFrom] = field(default_factory=list)
    """Per round, where its claims came from: the decomposer, the answer's sentences
    (`sentences_as_claims`), its sentences because the decomposer listed none
    (`sentence_fallback`), or nowhere (`none`: the answer held no checkable statement)."""


@dataclass
class State(FVOutput, TracedState):
    """Working state."""

    sources: list[Source] = field(default_factory=list)
    context_units: list[dict[str, Any]] | None = None
    retrieved: list[dict[str, Any]] | None = None
    round: int = 0
    current_claims: list[str] = field(default_factory=list)
    claim_checks: Annotated[list[RoundCheck], operator.add] = field(default_factory=list)
    critique_records: Annotated[list[CritiqueRecord], operator.add] = field(default_factory=list)
    round_probabilities: Annotated[list[float | None], operator.add] = field(default_factory=list)
    round_claims_from: Annotated[list[ClaimsFrom], operator.add] = field(default_factory=list)
    discarded: Annotated[list[DiscardedClaim], operator.add] = field(default_factory=list)


def _round_checks(state: State) -> list[RoundCheck]:
    return sorted(
        (c for c in state.claim_checks if c["round"] == state.round), key=lambda c: c["index"]
    )


# -------------------------------------------------------------------- nodes


def check_input(state: State, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """Collect the sources; reject a missing answer, sources, or unscorable verifier.

    A log-prob verifier (`yesno`, `likelihood`) on a backend without token scores stops
    here; `auto` falls back to chain-of-thought instead.
    """
    if state.answer is None:
        raise InvalidInputError(
            "there is no answer to verify: pass {'answer': ..., 'sources': [...]}, or chain "
            "after a graph that produced an answer"
        )
    sources = require_sources(state)
    context = FactoredVerificationContext.of(runtime)
    chat_reads_answer = not context.sentences_as_claims or context.max_revisions > 0
    if chat_reads_answer and len(state.answer) > context.max_answer_chars:
        raise InvalidInputError(
            f"the answer is {len(state.answer):,} characters, more than max_answer_chars = "
            f"{context.max_answer_chars:,} (the chat model reads it whole); check it sentence "
            "by sentence with --set sentences_as_claims=true --set max_revisions=0 (or in bulk: "
            "veriloop verify rows.jsonl --out DIR), or raise max_answer_chars for a model with "
            "a longer context"
        )
    if context.verifier in ("yesno", "likelihood"):
        require_token_scores(
            get_models(context),
            method=f"Factored Verification with verifier={context.verifier}",
            why="P(supported) is read from token log-probs; verifier=auto or cot does without",
        )
    return {
        "sources": sources,
        "original_answer": state.answer,
    }


def decompose(state: State, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """List the answer's claims (model decomposition, or its sentences)."""
    context = FactoredVerificationContext.of(runtime)
    answer = state.answer or ""
    if not answer.strip():
        return {"current_claims": [], "round_claims_from": ["none"]}
    if context.sentences_as_claims:
        claims = statement_claims(answer, state.question, context.max_claims, min_words=1)
        return {"current_claims": claims, "round_claims_from": ["sentences" if claims else "none"]}
    claims, claims_from, dropped, calls = decomposed_claims(
        get_models(context), state.question, answer, context.max_claims, context.prompt_overrides
    )
    return {
        "current_claims": claims[: context.max_claims],
        "round_claims_from": [claims_from],
        "discarded": [
            DiscardedClaim(round=state.round, claim=claim, coverage=coverage)
            for claim, coverage in dropped
        ],
        "calls": calls,
    }


def threshold(context: FactoredVerificationContext) -> float:
    """Return the P(claim) a chat-model verifier's claim needs (`supported_at` or 0.5)."""
    return 0.5 if context.supported_at is None else context.supported_at


def judge_claims(
    tasks: Sequence[ClaimTask], context: FactoredVerificationContext
) -> tuple[list[RoundCheck], list[ModelCall]]:
    """Judge claims with the context's claim-support judge in one batch (`judge_tasks`).

    One call per claim in the graph (`verify_claim`); the batch checker
    (`veriloop.verify.run`) passes many rows' claims at once.
    """
    judge = support_judge(
        context.verifier,
        get_models(context),
        supported_at=context.supported_at,
        contradicted_at=context.contradicted_at,
    )
    return judge_tasks(tasks, judge, context.verifier)


def judge_claim(task: ClaimTask, context: FactoredVerificationContext) -> dict[str, Any]:
    """P(claim supported) from a claim-support judge, with the source it rests on."""
    checks, calls = judge_claims([task], context)
    return {"claim_checks": checks, "calls": calls}


def verify_claim(task: ClaimTask, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """Estimate P(claim supported | its sources)."""
    context = FactoredVerificationContext.of(runtime)
    if is_judge_verifier(context.verifier):
        return judge_claim(task, context)
    check, calls = chat_verify(
        task,
        get_models(context),
        context.verifier,  # type: ignore[arg-type]  # a judge verifier returned above
        supported_at=threshold(context),
        normalise_yes_no=context.normalise_yes_no,
        overrides=context.prompt_overrides,
    )
    return {"claim_checks": [check], "calls": calls}


def combine(state: State, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """P(answer) = product of this round's claim probabilities; compare with θ."""
    context = FactoredVerificationContext.of(runtime)
    checks = _round_checks(state)
    p_answer, contradicted, hallucinated = answer_finding(checks, context.threshold)
    usable = [c for c in checks if c["p_supported"] is not None]
    candidate = Candidate(
        stage="answer",
        round=state.round,
        iteration=state.revisions,
        text=state.answer or "",
        scores={"p_answer": p_answer, "contradicted_claims": contradicted},
        thresholds={"p_answer": context.threshold, "contradicted_claims": 0},
        passed=hallucinated is False,
        error=None if usable else "no claim could be extracted or checked",
    )
    return {
        "hallucinated": hallucinated,
        "round_probabilities": [None if p_answer is None else round(p_answer, 6)],
        "candidates": [candidate],
    }


def critique(state: State, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """Write a claim-wise critique of every unsupported claim of this round."""
    context = FactoredVerificationContext.of(runtime)
    records, calls = critiques(
        get_models(context),
        state.round,
        _round_checks(state),
        state.sources,
        context.prompt_overrides,
    )
    return {"critique_records": records, "calls": calls}


def revise(state: State, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """Revise the answer with all critiques of this round in one feedback turn."""
    context = FactoredVerificationContext.of(runtime)
    feedback = revision_feedback([r for r in state.critique_records if r["round"] == state.round])
    update: dict[str, Any] = {"round": state.round + 1, "revisions": state.revisions + 1}
    if not feedback:  # every critique failed: nothing to revise with; re-verify as is
        return update
    prompt = render(
        "factored_verification_revise",
        context.prompt_overrides,
        question=state.question or "(not given)",
        answer=state.answer or "",
        feedback=feedback,
    )
    generated = generate_turn(
        get_models(context), [], prompt, purpose="revision", echo_guard=[prompt], seed=context.seed
    )
    update["calls"] = [generated.call]
    if generated.text:
        update["answer"] = generated.text
    return update


def finish(state: State, runtime: Runtime[FactoredVerificationContext]) -> dict[str, Any]:
    """Set the verdict and stop reason and build the trace."""
    context = FactoredVerificationContext.of(runtime)
    verdict, stop_reason, detail = final_verdict(
        state.hallucinated,
        revisions=state.revisions,
        max_revisions=context.max_revisions,
        threshold=context.threshold,
        contradicted=sum(c.get("verdict") == "contradicted" for c in _round_checks(state)),
    )
    stop = LoopStop(
        loop="revision", round=state.round, reason=stop_reason, chosen_iteration=None, detail=detail
    )
    settings = context.trace_settings(get_models(context).describe())
    trace = build_trace(
        METHOD, settings, state.candidates, [stop], state.calls, [s["id"] for s in state.sources]
    )
    return {
        "answer": state.answer,
        "knowledge": "\n".join(f"[{s['id']}] {s['text']}" for s in state.sources),
        "stop_reason": stop_reason,
        "claims": list(state.claim_checks),
        "critiques": list(state.critique_records),
        "answer_probabilities": list(state.round_probabilities),
        "verdict": verdict,
        "hallucinated": state.hallucinated,
        "revisions": state.revisions,
        "original_answer": state.original_answer,
        "claims_from": list(state.round_claims_from),
        "discarded_claims": list(state.discarded),
        "trace": trace,
    }


# ------------------------------------------------------------------ routers


def route_claims(state: State) -> list[Send] | Literal["combine"]:
    """Fan out one verify_claim per claim (concurrently); no claims go straight to combine."""
    if not state.current_claims:
        return "combine"
    return [
        Send(
            "verify_claim",
            ClaimTask(
                round=state.round,
                index=index,
                claim=claim,
                document=claim_document(claim, state.sources),
                evidence=[source["text"] for source in claim_sources(claim, state.sources)],
                question=state.question,
                evidence_ids=[source["id"] for source in claim_sources(claim, state.sources)],
            ),
        )
        for index, claim in enumerate(state.current_claims)
    ]


def after_combine(
    state: State, runtime: Runtime[FactoredVerificationContext]
) -> Literal["critique", "finish"]:
    """Critique and revise while the answer is judged hallucinated and the cap allows."""
    if (
        state.hallucinated
        and state.revisions < FactoredVerificationContext.of(runtime).max_revisions
    ):
        return "critique"
    return "finish"


# -------------------------------------------------------------------- graph


def build_graph() -> StateGraph[State, FactoredVerificationContext, VerifyInput, FVOutput]:
    """Return the Factored Verification graph builder."""
    builder = StateGraph(
        State,
        context_schema=FactoredVerificationContext,
        input_schema=VerifyInput,
        output_schema=FVOutput,
    )
    builder.add_node("check_input", check_input)
    builder.add_node("decompose", decompose)
    builder.add_node("verify_claim", verify_claim, input_schema=ClaimTask)  # type: ignore[arg-type, call-overload, unused-ignore]
    builder.add_node("combine", combine)
    builder.add_node("critique", critique)
    builder.add_node("revise", revise)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_input")
    builder.add_edge("check_input", "decompose")
    builder.add_conditional_edges("decompose", route_claims, ["verify_claim", "combine"])
    builder.add_edge("verify_claim", "combine")
    builder.add_conditional_edges("combine", after_combine)
    builder.add_edge("critique", "revise")
    builder.add_edge("revise", "decompose")
    builder.add_edge("finish", END)
    return builder


@deprecated("FVContext is now called FactoredVerificationContext")
class FVContext(FactoredVerificationContext):
    """The old name of `FactoredVerificationContext` (deprecated; it warns when built)."""


graph = build_graph().compile(name=studio_name(__file__))
