"""Learn to Refuse (L2R; Cao, EMNLP 2024): answer only from a curated knowledge base.

    check_question -> retrieve -> [router after_retrieval]
        gate passed (or consult_model_when_hard_refused) -> answer_from_knowledge
            -> [router after_answer] -> judge_options (switch, MC items) -> finish
        hard refusal                                      -> refuse_hard -> finish

- retrieve: top-k entries by squared L2 distance d on unit vectors (2 - 2 cos).
- Hard refusal: the question is answerable iff min_i d_i / (c_i + 1e-9) < alpha, with c_i
  the entries' confidence. When it fires the model is not called (the reference still
  calls it and combines both verdicts; `consult_model_when_hard_refused` restores that).
- Soft refusal: the main QA agent sees only the retrieved knowledge and must reply with
  JSON {evidence, reason, CAN_ANSWER, answer}, constrained by a grammar on the embedded
  model and parsed leniently elsewhere; CAN_ANSWER false is a refusal. The `no_reasoning`
  ablation drops evidence and reason.
- Per-option judgement (`judge_options`, multiple-choice items, off by default): the
  reference scores MC2 by having the model judge every option true or false; here one
  structured call returns a true/false per option label (a batched version of the
  reference's one call per option), which `metrics.mc2_per_option` scores.
- Output: the answer or the refusal (which gate, why), the evidence and reasoning, and the
  retrieved entries with ids, distances and confidences; the trace's evidence ids are the
  entries the answer rests on.

There is no loop: one retrieval, at most one model call (plus one re-ask when its JSON is
unusable), so there is no counter or cap to set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict, Field, create_model
from typing_extensions import deprecated

from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.sources import format_hits, open_knowledge_base, retrieve
from veriloop.knowledge.store import Hit
from veriloop.models import ChatTurn, get_models
from veriloop.models.structured import ask_structured
from veriloop.nodes.choice import ChoiceSettings, answer_type, question_text, score_options
from veriloop.nodes.input import check_input
from veriloop.prompts import render
from veriloop.state import InputState, OutputState, TracedState
from veriloop.trace import Candidate, LoopStop, Refusal, StopReason, build_trace

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class LearnToRefuseContext(ChoiceSettings):
    """Knowledge base, refusal threshold and switches (reference defaults)."""

    kb_dir: str = field(
        default="",
        metadata={"description": "Knowledge-base directory (`veriloop kb create DIR`)."},
    )
    top_k: int = field(
        default=4, metadata={"ge": 1, "description": "Entries retrieved per question."}
    )
    alpha: float = field(
        default=0.75,
        metadata={
            "ge": 0.0,
            "description": "Hard-refusal threshold on min d/(c+1e-9): answerable iff below. "
            "0.75 is the reference's TruthfulQA value (0.6 for MedQA), set for "
            "all-mpnet-base-v2; calibrate it for other embeddings.",
        },
    )
    consult_model_when_hard_refused: bool = field(
        default=False,
        metadata={
            "description": "Call the model even when the hard gate refuses (the reference's "
            "behaviour; the final verdict is still a refusal). Off: no call is spent."
        },
    )
    no_reasoning: bool = field(
        default=False,
        metadata={"description": "Ablation: drop the evidence and reason steps of the reply."},
    )
    judge_options: bool = field(
        default=False,
        metadata={
            "description": "Multiple-choice items: after answering, judge every option true "
            "or false from the knowledge (one extra call; the reference's per-option MC2)."
        },
    )


@dataclass
class State(OutputState, TracedState):
    """Working state."""

    options: dict[str, str] | None = None
    retrieved: list[Hit] = field(default_factory=list)
    """The top-k entries with ids, distances, confidences and refusal scores."""
    hard_score: float | None = None
    """min d/(c+eps) over the retrieved entries (None: nothing was retrieved)."""
    hard_refused: bool = False
    consult_model: bool = False
    """Whether the main QA agent is called (hard gate passed, or configured to)."""
    evidence: str | None = None
    reasoning: str | None = None
    can_answer: bool | None = None
    """The main QA agent's verdict (None: not called, or its reply was unusable)."""
    reply_error: str | None = None
    judge_wanted: bool = False
    """Whether the per-option judge runs (answered MC item with judge_options on)."""
    option_judgements: dict[str, bool] | None = None


@dataclass
class L2ROutput(OutputState):
    """The shared output plus what L2R shows behind every answer or refusal."""

    evidence: str | None = None
    reasoning: str | None = None
    retrieved: list[Hit] = field(default_factory=list)
    option_judgements: dict[str, bool] | None = None
    """Multiple-choice items with judge_options: option label -> judged true."""


def reply_model(options: dict[str, str] | None, *, with_reasoning: bool) -> type[BaseModel]:
    """Return the main QA agent's reply schema (answer constrained to labels for MC items)."""
    fields: dict[str, Any] = {}
    if with_reasoning:  # required, so a grammar makes the model write them first
        fields["evidence"] = (str, Field(...))
        fields["reason"] = (str, Field(...))
    fields["can_answer"] = (bool, Field(alias="CAN_ANSWER"))
    fields["answer"] = (answer_type(options, nullable=True), Field(...))
    model: type[BaseModel] = create_model(
        "MainQAReply", __config__=ConfigDict(extra="ignore", populate_by_name=True), **fields
    )
    return model


# ------------------------------------------------------------------------------ nodes


def check_question(state: State, runtime: Runtime[LearnToRefuseContext]) -> dict[str, Any]:
    """Reject an unusable question or option set before anything is loaded."""
    return check_input(
        state, LearnToRefuseContext.of(runtime), method="Learn to Refuse", choices=True
    )


def retrieve_knowledge(state: State, runtime: Runtime[LearnToRefuseContext]) -> dict[str, Any]:
    """Retrieve the top-k entries and apply the hard-refusal gate."""
    context = LearnToRefuseContext.of(runtime)
    models = get_models(context)
    base = open_knowledge_base(context.kb_dir, models)
    hits, call = retrieve(models, base, state.question, context.top_k)
    score = min((hit["refusal_score"] for hit in hits), default=None)
    refused = score is None or not score < context.alpha
    candidate = Candidate(
        stage="retrieval",
        round=0,
        iteration=0,
        text=format_hits(hits),
        scores={"min_d_over_c": None if score is None else round(score, 6)},
        thresholds={"min_d_over_c": context.alpha},
        passed=not refused,
        error=None if hits else "the knowledge base is empty",
    )
    return {
        "retrieved": hits,
        "hard_score": score,
        "hard_refused": refused,
        "consult_model": (not refused) or context.consult_model_when_hard_refused,
        "candidates": [candidate],
        "calls": [call],
    }


def answer_from_knowledge(state: State, runtime: Runtime[LearnToRefuseContext]) -> dict[str, Any]:
    """Ask the main QA agent to answer from the retrieved knowledge only, or refuse."""
    context = LearnToRefuseContext.of(runtime)
    models = get_models(context)
    template = (
        "learn_to_refuse_main_qa_no_reasoning"
        if context.no_reasoning
        else "learn_to_refuse_main_qa"
    )
    hint = (
        "the letter of the correct candidate answer"
        if state.options
        else "your final answer to the question"
    )
    prompt = render(
        template,
        context.prompt_overrides,
        knowledge=format_hits(state.retrieved),
        question=question_text(state.question, state.options, context.prompt_overrides),
        answer_hint=hint,
    )
    schema = reply_model(state.options, with_reasoning=not context.no_reasoning)
    reply = ask_structured(
        models, [ChatTurn(role="user", content=prompt)], schema, purpose="main_qa"
    )
    calls = list(reply.calls)
    update: dict[str, Any] = {"reply_error": reply.error}
    can_answer: bool | None = None
    answer: str | None = None
    if reply.value is not None:
        data = reply.value.model_dump()
        can_answer = bool(data["can_answer"])
        raw_answer = data.get("answer")
        answer = str(raw_answer).strip() if raw_answer not in (None, "") else None
        update.update(
            evidence=data.get("evidence") or None,
            reasoning=data.get("reason") or None,
        )
    choice = answer if (can_answer and answer and state.options) else None
    if choice is not None and state.options:
        answer = f"{choice}. {state.options[choice]}"
    answered = bool(can_answer and answer) and not state.hard_refused
    if answered and state.options and context.score_options:
        option_scores, score_calls, error = score_options(
            models, prompt + "\nAnswer: ", state.options
        )
        calls.extend(score_calls)
        update["option_scores"] = option_scores
        if error:
            update["reply_error"] = error
    update.update(
        can_answer=can_answer,
        answer=answer if can_answer else None,
        choice=choice,
        judge_wanted=answered and bool(state.options) and context.judge_options,
        calls=calls,
        candidates=[
            Candidate(
                stage="answer",
                round=0,
                iteration=0,
                text=answer or (_refusal_text(update) if can_answer is False else ""),
                scores={"can_answer": None if can_answer is None else float(can_answer)},
                thresholds={},
                passed=bool(can_answer and answer),
                error=reply.error if reply.value is None else None,
            )
        ],
    )
    return update


def judge_options(state: State, runtime: Runtime[LearnToRefuseContext]) -> dict[str, Any]:
    """Judge every option true or false from the retrieved knowledge (one call)."""
    context = LearnToRefuseContext.of(runtime)
    models = get_models(context)
    options = state.options or {}
    prompt = render(
        "learn_to_refuse_option_judge",
        context.prompt_overrides,
        knowledge=format_hits(state.retrieved),
        question=question_text(state.question, options, context.prompt_overrides),
    )
    fields: dict[str, Any] = {label: (bool, Field(...)) for label in options}
    schema: type[BaseModel] = create_model(
        "OptionJudgements", __config__=ConfigDict(extra="ignore"), **fields
    )
    reply = ask_structured(
        models, [ChatTurn(role="user", content=prompt)], schema, purpose="option_judge"
    )
    judgements = (
        None if reply.value is None else {k: bool(v) for k, v in reply.value.model_dump().items()}
    )
    candidate = Candidate(
        stage="option_judge",
        round=0,
        iteration=0,
        text=", ".join(f"{k}={'T' if v else 'F'}" for k, v in (judgements or {}).items()),
        scores={"judged_true": None if judgements is None else float(sum(judgements.values()))},
        thresholds={},
        passed=judgements is not None,
        error=reply.error if reply.value is None else None,
    )
    return {"option_judgements": judgements, "candidates": [candidate], "calls": reply.calls}


def _refusal_text(update: dict[str, Any]) -> str:
    return f"(refused) {update.get('reasoning') or update.get('evidence') or ''}".strip()


def refuse_hard(state: State, runtime: Runtime[LearnToRefuseContext]) -> dict[str, Any]:
    """Refuse without calling the model: no retrieved entry is close and confident enough."""
    return {}


def finish(state: State, runtime: Runtime[LearnToRefuseContext]) -> dict[str, Any]:
    """Return the answer or the refusal, with the evidence behind it and the trace."""
    context = LearnToRefuseContext.of(runtime)
    refusal: Refusal | None = None
    reason: StopReason
    if state.hard_refused:
        detail = (
            "the knowledge base is empty"
            if state.hard_score is None
            else f"min d/(c+eps) = {state.hard_score:.3f} is not below alpha = {context.alpha}"
        )
        if state.consult_model:
            detail += f"; the model was consulted anyway (CAN_ANSWER = {state.can_answer})"
        refusal = Refusal(kind="hard", detail=detail)
        reason = "refused"
    elif state.can_answer is False:
        refusal = Refusal(
            kind="soft",
            detail=state.reasoning or "the model judged the knowledge insufficient",
        )
        reason = "refused"
    elif state.answer:
        reason = "single_pass"
    else:
        reason = "no_usable_output"
    problem = state.reply_error or (
        "the model set CAN_ANSWER but gave no answer" if reason == "no_usable_output" else None
    )
    answered = reason == "single_pass"
    stop = LoopStop(
        loop="l2r",
        round=0,
        reason=reason,
        chosen_iteration=0 if answered else None,
        detail=refusal["detail"] if refusal else (problem or "answered from the base"),
    )
    settings = context.trace_settings(get_models(context).describe())
    evidence_ids = [hit["id"] for hit in state.retrieved] if answered else []
    trace = build_trace(METHOD, settings, state.candidates, [stop], state.calls, evidence_ids)
    return {
        "answer": state.answer if answered else None,
        "choice": state.choice if answered else None,
        "option_scores": state.option_scores if answered else None,
        "option_judgements": state.option_judgements if answered else None,
        "knowledge": format_hits(state.retrieved) if state.retrieved else None,
        "stop_reason": reason,
        "refusal": refusal,
        "trace": trace,
    }


# ----------------------------------------------------------------------------- router


def after_answer(state: State) -> Literal["judge_options", "finish"]:
    """Judge the options only for an answered multiple-choice item when asked to."""
    return "judge_options" if state.judge_wanted else "finish"


def after_retrieval(state: State) -> Literal["answer_from_knowledge", "refuse_hard"]:
    """Call the main QA agent unless the hard gate refused (and consulting is off)."""
    return "answer_from_knowledge" if state.consult_model else "refuse_hard"


# ------------------------------------------------------------------------------ graph


def build_graph() -> StateGraph[State, LearnToRefuseContext, InputState, L2ROutput]:
    """Return the L2R question-answering graph builder."""
    builder = StateGraph(
        State, context_schema=LearnToRefuseContext, input_schema=InputState, output_schema=L2ROutput
    )
    builder.add_node("check_question", check_question)
    builder.add_node("retrieve", retrieve_knowledge)
    builder.add_node("answer_from_knowledge", answer_from_knowledge)
    builder.add_node("judge_options", judge_options)
    builder.add_node("refuse_hard", refuse_hard)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_question")
    builder.add_edge("check_question", "retrieve")
    builder.add_conditional_edges("retrieve", after_retrieval)
    builder.add_conditional_edges("answer_from_knowledge", after_answer)
    builder.add_edge("judge_options", "finish")
    builder.add_edge("refuse_hard", "finish")
    builder.add_edge("finish", END)
    return builder


@deprecated("L2RContext is now called LearnToRefuseContext")
class L2RContext(LearnToRefuseContext):
    """The old name of `LearnToRefuseContext` (deprecated; it warns when built)."""


graph = build_graph().compile(name=studio_name(__file__))
