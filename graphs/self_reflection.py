"""Self-Reflection (Ji et al., 2023): knowledge -> answer -> entailment loops.

    check_question --(grounded)--> retrieve_sources
         |                              |
    generate_knowledge <---------------------------+----------------+
         |                                          | refine        |
    score_knowledge --(factuality < t_f, tries < cap)+               |
         | met / cap (best factuality)                               |
    select_knowledge                                                 |
         |                                                           |
    generate_answer <-------------------------+                      |
         |                                     | refine              |
    score_answer --(consistency < t_c, tries < cap)                  |
         | met / cap (best consistency)                              | restart
    select_answer                                                    | (fresh
         |                                                           |  conversation)
    score_entailment --(cosine(q, a) < t_e, rounds < cap)--> restart -+
         | met / cap (best entailment)
    finish --> answer + trace

Knowledge and answer refinements append feedback to the same conversation; a restart
starts a fresh one with a new sampling seed. Every loop has its own counter
(`knowledge_loop_step`, `answer_loop_step`, `round`) and cap (Context), and ends with the
documented fallback: the best candidate by that loop's score. Details and choices:
../shared/METHODS.md section 1; scorers: `veriloop.nodes.scorers`.

Grounded Self-Reflection (`grounded=true`; ours, not the paper's): retrieve_sources first
finds the passages relevant to the question, and every round's first knowledge
generation copies from them (`nodes/self_reflection/sources.py`). Feedback is the paper's.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.sources import SourcePassage
from veriloop.models import ChatTurn, get_models
from veriloop.nodes import scorers
from veriloop.nodes.generation import generate_turn
from veriloop.nodes.input import check_input
from veriloop.nodes.self_reflection.loops import close_loop
from veriloop.nodes.self_reflection.rounds import (
    Feedback,
    Turn,
    answer_turn,
    chosen,
    close_rounds,
    knowledge_turn,
    loop_candidate,
    this_round,
    weights_problem,
)
from veriloop.nodes.self_reflection.sources import GroundedSettings, shown_sources
from veriloop.state import InputState, OutputState, TracedState
from veriloop.trace import LoopStop, build_trace

METHOD = method_id(__file__)


# ── Settings ────────────────────────────────────────────────────────────────────────────
@dataclass(kw_only=True)
class SelfReflectionContext(MethodSettings, GroundedSettings):
    """Thresholds, loop caps and ablations; defaults are the paper's (appendix B)."""

    threshold_factuality: float = field(
        default=-1.0,
        metadata={
            "le": 0.0,
            "description": "Knowledge passes when its mean token log-prob is >= this.",
        },
    )
    threshold_consistency: float = field(
        default=-5.0,
        metadata={"le": 0.0, "description": "Answer passes when its consistency score is >= this."},
    )
    threshold_entailment: float = field(
        default=0.8,
        metadata={
            "ge": -1.0,
            "le": 1.0,
            "description": "Round passes when cosine(question, answer) is >= this.",
        },
    )
    max_knowledge_loops: int = field(
        default=3,
        metadata={"ge": 1, "description": "Knowledge generations per round (1 + refinements)."},
    )
    max_answer_loops: int = field(
        default=3,
        metadata={"ge": 1, "description": "Answer generations per round (1 + refinements)."},
    )
    max_rounds: int = field(
        default=3,
        metadata={
            "ge": 1,
            "description": "Outer (entailment) rounds in all, the paper's 'max number of the "
            "main loop': at most max_rounds - 1 restarts.",
        },
    )
    factuality_demos: int = field(
        default=1,
        metadata={
            "ge": 0,
            "le": 3,
            "description": "Demonstrations in the factuality scorer prompt (0-3).",
        },
    )
    consistency_weights: list[float] = field(
        default_factory=lambda: [0.5, 0.5],
        metadata={
            "check": weights_problem,
            "description": "Weights of the forward and backward infilling evaluators.",
        },
    )
    no_refinement: bool = field(
        default=False,
        metadata={
            "description": "Ablation: generate knowledge and answer once; scores are still "
            "computed and recorded, but never trigger refinement or restarts."
        },
    )
    no_aspect: bool = field(
        default=False,
        metadata={"description": "Ablation: feedback is only 'Please refine the knowledge.'"},
    )
    no_number: bool = field(
        default=False,
        metadata={"description": "Ablation: feedback names the aspect but not the score."},
    )

    def __post_init__(self) -> None:
        """Apply environment overrides, then reject settings no run could use."""
        super().__post_init__()
        if self.no_aspect and self.no_number:
            raise InvalidInputError("choose one feedback ablation: no_aspect or no_number")

    def feedback_variant(self) -> str:
        """Return the suffix of the feedback templates this ablation uses."""
        return "_no_aspect" if self.no_aspect else "_no_number" if self.no_number else ""

    def trace_settings(self, models: dict[str, str]) -> dict[str, Any]:
        """Return the traced settings plus how each score is normalised."""
        settings = super().trace_settings(models)
        settings["normalisation"] = {
            "factuality": "mean log-prob per knowledge token (reference code), not the sum",
            "consistency": "weighted mean of forward/backward mean token log-probs",
            "entailment": "cosine of sentence embeddings of question and answer",
        }
        return settings


# ── State ───────────────────────────────────────────────────────────────────────────────
@dataclass
class State(OutputState, TracedState):
    """Working state of one run."""

    options: dict[str, str] | None = None
    """Present only to reject multiple-choice items with a clear message."""
    round: int = 0
    """Outer (entailment) loop counter: the current round, 0-based."""
    knowledge_loop_step: int = 0
    """Knowledge loop counter: generations so far in this round."""
    answer_loop_step: int = 0
    """Answer loop counter: generations so far in this round."""
    knowledge_conversation: list[ChatTurn] = field(default_factory=list)
    answer_conversation: list[ChatTurn] = field(default_factory=list)
    draft: str = ""
    """The latest generation, waiting to be scored."""
    draft_error: str | None = None
    stops: Annotated[list[LoopStop], operator.add] = field(default_factory=list)
    sources: list[SourcePassage] = field(default_factory=list)
    """Grounded only: the retrieved passages the knowledge generator is shown."""


# ── Nodes ───────────────────────────────────────────────────────────────────────────────
def check_question(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Reject an unusable question, then a backend without token scores, before generating.

    Multiple-choice items are rejected too (Self-Reflection answers open questions).
    """
    context = SelfReflectionContext.of(runtime)
    checked = check_input(state, context, method="Self-Reflection", choices=False)
    scorers.require_token_scores(
        get_models(context),
        method="Self-Reflection",
        why="factuality and consistency are mean token log-probs",
    )
    return checked


def retrieve_sources(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Grounded only: retrieve, re-rank and keep the passages relevant to the question."""
    context = SelfReflectionContext.of(runtime)
    shown, record, calls = shown_sources(get_models(context), state.question, context)
    return {"sources": shown, "candidates": [record], "calls": calls}


def generate_knowledge(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Generate background knowledge (from the sources when grounded), or refine it."""
    context = SelfReflectionContext.of(runtime)
    step = state.knowledge_loop_step
    turn = knowledge_turn(
        state.question,
        state.sources,
        state.knowledge_conversation,
        None if step == 0 else this_round(state.candidates, "knowledge", state.round)[-1],
        Feedback(
            context.threshold_factuality, context.feedback_variant(), context.prompt_overrides
        ),
    )
    return _generated(state, context, "knowledge", turn)


def _generated(
    state: State, context: SelfReflectionContext, loop: Literal["knowledge", "answer"], turn: Turn
) -> dict[str, Any]:
    """Generate a loop's next draft from `turn` and count the attempt."""
    generated = generate_turn(
        get_models(context),
        turn.conversation,
        turn.user_text,
        purpose=loop,
        echo_guard=[turn.guard],
        restated=[state.question],
        seed=context.seed + state.round,
    )
    return {
        f"{loop}_conversation": generated.conversation,
        "draft": generated.text,
        "draft_error": generated.error,
        f"{loop}_loop_step": getattr(state, f"{loop}_loop_step") + 1,
        "calls": [generated.call],
    }


def score_knowledge(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Score the draft knowledge's factuality and record it as a candidate."""
    context = SelfReflectionContext.of(runtime)
    if state.draft_error:
        outcome = scorers.ScoreOutcome(None, state.draft_error)
    else:
        outcome = scorers.factuality(
            get_models(context),
            state.question,
            state.draft,
            demo_count=context.factuality_demos,
            overrides=context.prompt_overrides,
        )
    return _scored(
        state,
        "knowledge",
        state.knowledge_loop_step - 1,
        "factuality",
        context.threshold_factuality,
        outcome,
    )


def _scored(
    state: State,
    loop: Literal["knowledge", "answer"],
    step: int,
    score: str,
    threshold: float,
    outcome: scorers.ScoreOutcome,
) -> dict[str, Any]:
    """Return a loop's scored draft as a candidate, with the scorer's calls."""
    candidate = loop_candidate(
        loop,
        state.round,
        step,
        state.draft,
        {score: outcome.value},
        {score: threshold},
        outcome.error,
    )
    return {"candidates": [candidate], "calls": outcome.calls}


def _closed(
    state: State, loop: Literal["knowledge", "answer"], score: str, single_pass: bool
) -> tuple[Any, LoopStop]:
    """Close a loop of this round: its passing or best candidate, and why it stopped."""
    return close_loop(
        this_round(state.candidates, loop, state.round),
        loop=loop,
        round_index=state.round,
        score_name=score,
        single_pass=single_pass,
    )


def select_knowledge(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Close the knowledge loop: keep the passing or best knowledge, start the answer loop."""
    context = SelfReflectionContext.of(runtime)
    kept, stop = _closed(state, "knowledge", "factuality", context.no_refinement)
    return {
        "knowledge": kept["text"] if kept else "",
        "stops": [stop],
        "answer_loop_step": 0,
        "answer_conversation": [],
    }


def generate_answer(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Answer from the selected knowledge, or refine the answer in the same conversation."""
    context = SelfReflectionContext.of(runtime)
    step = state.answer_loop_step
    turn = answer_turn(
        state.question,
        state.knowledge or "",
        state.answer_conversation,
        None if step == 0 else this_round(state.candidates, "answer", state.round)[-1],
        Feedback(
            context.threshold_consistency, context.feedback_variant(), context.prompt_overrides
        ),
    )
    return _generated(state, context, "answer", turn)


def score_answer(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Score the draft answer's consistency with the knowledge and record it."""
    context = SelfReflectionContext.of(runtime)
    if state.draft_error:
        outcome = scorers.ScoreOutcome(None, state.draft_error)
    elif not state.knowledge:
        outcome = scorers.ScoreOutcome(None, "no usable knowledge to be consistent with")
    else:
        outcome = scorers.consistency(
            get_models(context),
            state.knowledge,
            state.draft,
            weights=context.consistency_weights,
            overrides=context.prompt_overrides,
        )
    return _scored(
        state,
        "answer",
        state.answer_loop_step - 1,
        "consistency",
        context.threshold_consistency,
        outcome,
    )


def select_answer(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Close the answer loop: keep the passing or best answer of this round."""
    context = SelfReflectionContext.of(runtime)
    kept, stop = _closed(state, "answer", "consistency", context.no_refinement)
    return {"answer": kept["text"] if kept else "", "stops": [stop]}


def score_entailment(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Score the round's answer against the question; record the round's result."""
    context = SelfReflectionContext.of(runtime)
    answer = state.answer or ""
    outcome = scorers.entailment(get_models(context), state.question, answer)
    chosen_knowledge = chosen(state.candidates, state.stops, "knowledge", state.round)
    chosen_answer = chosen(state.candidates, state.stops, "answer", state.round)
    scores: dict[str, float | None] = {
        "factuality": chosen_knowledge["scores"]["factuality"] if chosen_knowledge else None,
        "consistency": chosen_answer["scores"]["consistency"] if chosen_answer else None,
        "entailment": outcome.value,
    }
    round_result = loop_candidate(
        "round",
        state.round,
        state.round,
        answer,
        scores,
        {"entailment": context.threshold_entailment},
        outcome.error,
    )
    return {"candidates": [round_result], "calls": outcome.calls}


def restart(state: State) -> dict[str, Any]:
    """Start a new round from the knowledge loop, in a fresh conversation."""
    return {
        "round": state.round + 1,
        "knowledge_loop_step": 0,
        "answer_loop_step": 0,
        "knowledge_conversation": [],
        "answer_conversation": [],
        "draft": "",
        "draft_error": None,
    }


def finish(state: State, runtime: Runtime[SelfReflectionContext]) -> dict[str, Any]:
    """Close the outer loop: keep the passing or best-entailed round and build the trace."""
    context = SelfReflectionContext.of(runtime)
    best, kept, stop = close_rounds(
        state.candidates, state.stops, state.round, single_pass=context.no_refinement
    )
    stops = [*state.stops, stop]
    settings = context.trace_settings(get_models(context).describe())
    trace = build_trace(METHOD, settings, state.candidates, stops, state.calls)
    return {
        "answer": best["text"] if best else None,
        "knowledge": kept["text"] if kept else None,
        "stop_reason": stop["reason"],
        "stops": [stop],
        "trace": trace,
    }


# ── Routers (pure: state and settings in, next node out) ────────────────────────────────
def route_knowledge(
    state: State, runtime: Runtime[SelfReflectionContext]
) -> Literal["generate_knowledge", "select_knowledge"]:
    """Refine the knowledge while it is below threshold and attempts remain."""
    context = SelfReflectionContext.of(runtime)
    if context.no_refinement or state.candidates[-1]["passed"]:
        return "select_knowledge"
    if state.knowledge_loop_step >= context.max_knowledge_loops:
        return "select_knowledge"
    return "generate_knowledge"


def route_answer(
    state: State, runtime: Runtime[SelfReflectionContext]
) -> Literal["generate_answer", "select_answer"]:
    """Refine the answer while it is below threshold and attempts remain."""
    context = SelfReflectionContext.of(runtime)
    if context.no_refinement or state.candidates[-1]["passed"]:
        return "select_answer"
    if state.answer_loop_step >= context.max_answer_loops:
        return "select_answer"
    return "generate_answer"


def route_entailment(
    state: State, runtime: Runtime[SelfReflectionContext]
) -> Literal["restart", "finish"]:
    """Restart from the knowledge loop while the answer does not entail the question."""
    context = SelfReflectionContext.of(runtime)
    if context.no_refinement or state.candidates[-1]["passed"]:
        return "finish"
    if state.round + 1 >= context.max_rounds:
        return "finish"
    return "restart"


# ── Graph ───────────────────────────────────────────────────────────────────────────────
def after_check(
    state: State, runtime: Runtime[SelfReflectionContext]
) -> Literal["retrieve_sources", "generate_knowledge"]:
    """Retrieve sources first when grounded; otherwise start the knowledge loop."""
    return (
        "retrieve_sources" if SelfReflectionContext.of(runtime).grounded else "generate_knowledge"
    )


def build_graph() -> StateGraph[State, SelfReflectionContext, InputState, OutputState]:
    """Return the Self-Reflection graph builder (compile it with or without a checkpointer)."""
    builder = StateGraph(
        State,
        context_schema=SelfReflectionContext,
        input_schema=InputState,
        output_schema=OutputState,
    )
    builder.add_node("check_question", check_question)
    builder.add_node("retrieve_sources", retrieve_sources)
    builder.add_node("generate_knowledge", generate_knowledge)
    builder.add_node("score_knowledge", score_knowledge)
    builder.add_node("select_knowledge", select_knowledge)
    builder.add_node("generate_answer", generate_answer)
    builder.add_node("score_answer", score_answer)
    builder.add_node("select_answer", select_answer)
    builder.add_node("score_entailment", score_entailment)
    builder.add_node("restart", restart)
    builder.add_node("finish", finish)

    builder.add_edge(START, "check_question")
    builder.add_conditional_edges("check_question", after_check)
    builder.add_edge("retrieve_sources", "generate_knowledge")
    builder.add_edge("generate_knowledge", "score_knowledge")
    builder.add_conditional_edges("score_knowledge", route_knowledge)
    builder.add_edge("select_knowledge", "generate_answer")
    builder.add_edge("generate_answer", "score_answer")
    builder.add_conditional_edges("score_answer", route_answer)
    builder.add_edge("select_answer", "score_entailment")
    builder.add_conditional_edges("score_entailment", route_entailment)
    builder.add_edge("restart", "generate_knowledge")
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
