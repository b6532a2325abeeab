"""Direct-answer baseline: ask the same model the question once, no loops.

The comparison point for every mitigation method (the paper's "directly generated"
answers). Same model, same sampling settings, same output and trace shape, so a benchmark
compares like with like. A multiple-choice item is answered with one option label,
constrained to the labels, and (for MC2) every option's log-prob is scored.

    check_question -> answer_directly -> finish
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veriloop.graphs.registry import method_id, studio_name
from veriloop.models import ChatTurn, get_models
from veriloop.models.structured import ask_structured
from veriloop.nodes.choice import ChoiceSettings, choice_reply_model, question_text, score_options
from veriloop.nodes.generation import generate_turn
from veriloop.nodes.input import check_input
from veriloop.prompts import render
from veriloop.state import InputState, OutputState, TracedState
from veriloop.trace import LoopStop, StopReason, build_trace, single_pass_answer

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class DirectContext(ChoiceSettings):
    """Model settings plus prompt overrides; the baseline has no thresholds or loops."""


@dataclass
class State(OutputState, TracedState):
    """Working state."""

    options: dict[str, str] | None = None


def check_question(state: State, runtime: Runtime[DirectContext]) -> dict[str, Any]:
    """Reject an unusable question or option set before any model is loaded."""
    return check_input(state, DirectContext.of(runtime), method="direct", choices=True)


def answer_directly(state: State, runtime: Runtime[DirectContext]) -> dict[str, Any]:
    """Ask the model the question once (a multiple-choice item: pick one label)."""
    context = DirectContext.of(runtime)
    if state.options:
        return _choose_directly(state, context)
    user_text = render("direct_answer", context.prompt_overrides, question=state.question)
    generated = generate_turn(
        get_models(context),
        [],
        user_text,
        purpose="answer",
        echo_guard=[user_text.replace(state.question, "")],
        restated=[state.question],
        seed=context.seed,
    )
    candidate = single_pass_answer(generated.text, generated.error, passed=generated.error is None)
    return {"candidates": [candidate], "calls": [generated.call]}


def _choose_directly(state: State, context: DirectContext) -> dict[str, Any]:
    models = get_models(context)
    options = state.options or {}
    overrides = context.prompt_overrides
    prompt = render(
        "direct_choice",
        overrides,
        question=question_text(state.question, options, overrides),
        reply_format=render("reply_format_choice", overrides),
    )
    reply = ask_structured(
        models,
        [ChatTurn(role="user", content=prompt)],
        choice_reply_model(options),
        purpose="answer",
    )
    calls = list(reply.calls)
    choice = None if reply.value is None else str(reply.value.model_dump()["answer"])
    update: dict[str, Any] = {"choice": choice}
    error = reply.error if reply.value is None else None
    if choice and context.score_options:
        scores, score_calls, score_error = score_options(models, prompt + "\nAnswer: ", options)
        calls.extend(score_calls)
        update["option_scores"] = scores
        error = error or score_error
    candidate = single_pass_answer(
        f"{choice}. {options[choice]}" if choice else "", error, passed=choice is not None
    )
    update.update(candidates=[candidate], calls=calls)
    return update


def finish(state: State, runtime: Runtime[DirectContext]) -> dict[str, Any]:
    """Return the answer (None if unusable) with its trace."""
    context = DirectContext.of(runtime)
    candidate = state.candidates[-1]
    reason: StopReason = "single_pass" if candidate["text"] else "no_usable_output"
    stop = LoopStop(
        loop="direct",
        round=0,
        reason=reason,
        chosen_iteration=0,
        detail=candidate["error"] or "one generation, no loop",
    )
    settings = context.trace_settings(get_models(context).describe())
    trace = build_trace(METHOD, settings, state.candidates, [stop], state.calls)
    return {"answer": candidate["text"] or None, "stop_reason": reason, "trace": trace}


def build_graph() -> StateGraph[State, DirectContext, InputState, OutputState]:
    """Return the direct-answer baseline graph builder."""
    builder = StateGraph(
        State, context_schema=DirectContext, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("check_question", check_question)
    builder.add_node("answer_directly", answer_directly)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_question")
    builder.add_edge("check_question", "answer_directly")
    builder.add_edge("answer_directly", "finish")
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
