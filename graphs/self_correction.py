"""Unfactored self-correction: the baseline Factored Verification is compared against.

    check_input -> give_feedback -> revise -> finish

The paper's baseline (George & Stuhlmüller 2023, appendix prompts): the model reads the
sources and the whole answer, writes one harsh feedback on its factual accuracy, then
revises the answer with that feedback. No claims, no probabilities, one revision. Measure
both this and Factored Verification's revision with the same detector (hallucinations per
answer before and after) to see whether factoring the critique helps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.factored_verification import VerifyInput
from veriloop.graphs.registry import method_id, studio_name
from veriloop.models import get_models
from veriloop.nodes.claims import Source, require_sources
from veriloop.nodes.generation import generate_turn
from veriloop.prompts import render
from veriloop.state import OutputState, TracedState
from veriloop.trace import Candidate, LoopStop, StopReason, build_trace

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class SelfCorrectionContext(MethodSettings):
    """Only prompts; the baseline has no thresholds."""


@dataclass
class SelfCorrectionOutput(OutputState):
    """The shared output plus the original answer and the feedback."""

    question: str = ""
    original_answer: str | None = None
    feedback: str | None = None


@dataclass
class State(SelfCorrectionOutput, TracedState):
    """Working state."""

    sources: list[Source] = field(default_factory=list)
    context_units: list[dict[str, Any]] | None = None
    retrieved: list[dict[str, Any]] | None = None
    error: str | None = None


def _document(sources: list[Source]) -> str:
    return "\n".join(f"[{s['id']}] {s['text']}" for s in sources)


def check_input(state: State) -> dict[str, Any]:
    """Collect the sources; reject a missing answer or missing sources clearly."""
    if not state.answer or not state.answer.strip():
        raise InvalidInputError("there is no answer to correct: pass {'answer': ..., 'sources'}")
    sources = require_sources(state)
    return {"sources": sources, "original_answer": state.answer}


def give_feedback(state: State, runtime: Runtime[SelfCorrectionContext]) -> dict[str, Any]:
    """Write one unfactored feedback on the whole answer's factual accuracy."""
    context = SelfCorrectionContext.of(runtime)
    prompt = render(
        "self_correction_feedback",
        context.prompt_overrides,
        document=_document(state.sources),
        question=state.question or "(not given)",
        answer=state.answer or "",
    )
    generated = generate_turn(
        get_models(context), [], prompt, purpose="feedback", echo_guard=[prompt], seed=context.seed
    )
    return {"feedback": generated.text or None, "error": generated.error, "calls": [generated.call]}


def revise(state: State, runtime: Runtime[SelfCorrectionContext]) -> dict[str, Any]:
    """Revise the answer with the feedback (kept unchanged when there is none)."""
    context = SelfCorrectionContext.of(runtime)
    if not state.feedback:
        return {}
    prompt = render(
        "self_correction_revise",
        context.prompt_overrides,
        question=state.question or "(not given)",
        answer=state.answer or "",
        feedback=state.feedback,
    )
    generated = generate_turn(
        get_models(context), [], prompt, purpose="revision", echo_guard=[prompt], seed=context.seed
    )
    update: dict[str, Any] = {"calls": [generated.call], "error": generated.error}
    if generated.text:
        update["answer"] = generated.text
    return update


def finish(state: State, runtime: Runtime[SelfCorrectionContext]) -> dict[str, Any]:
    """Build the trace: the original and the revised answer as candidates."""
    context = SelfCorrectionContext.of(runtime)
    revised = state.answer != state.original_answer
    reason: StopReason = "single_pass"
    detail = (
        "revised once with unfactored feedback"
        if revised
        else (f"answer kept unchanged: {state.error or 'no usable feedback or revision'}")
    )
    candidates = [
        Candidate(
            stage="answer",
            round=0,
            iteration=i,
            text=text or "",
            scores={},
            thresholds={},
            passed=True,
            error=None,
        )
        for i, text in enumerate(
            [state.original_answer, state.answer] if revised else [state.answer]
        )
    ]
    settings = context.trace_settings(get_models(context).describe())
    stop = LoopStop(
        loop="revision", round=0, reason=reason, chosen_iteration=len(candidates) - 1, detail=detail
    )
    trace = build_trace(
        METHOD, settings, candidates, [stop], state.calls, [s["id"] for s in state.sources]
    )
    return {
        "answer": state.answer,
        "original_answer": state.original_answer,
        "feedback": state.feedback,
        "knowledge": _document(state.sources),
        "stop_reason": reason,
        "trace": trace,
    }


def build_graph() -> StateGraph[State, SelfCorrectionContext, VerifyInput, SelfCorrectionOutput]:
    """Return the self-correction baseline graph builder."""
    builder = StateGraph(
        State,
        context_schema=SelfCorrectionContext,
        input_schema=VerifyInput,
        output_schema=SelfCorrectionOutput,
    )
    builder.add_node("check_input", check_input)
    builder.add_node("give_feedback", give_feedback)
    builder.add_node("revise", revise)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_input")
    builder.add_edge("check_input", "give_feedback")
    builder.add_edge("give_feedback", "revise")
    builder.add_edge("revise", "finish")
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
