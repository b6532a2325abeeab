"""Plain retrieval-augmented generation: the baseline for the retrieval methods.

    check_question -> retrieve -> answer_with_knowledge -> finish

Two sources, one graph:
- `kb_dir`: the same knowledge base, embeddings, top-k and model as Learn-to-Refuse,
  without the refusal gates or the evidence/reason steps: it always answers from whatever
  it retrieved. Comparing L2R with it separates what refusing buys from what retrieval buys.
- `corpus_dir`: the same hybrid retriever as Factual Evidence (`top_k` fused paragraphs),
  answered in one call with the same answer style and bracketed ids, without rationale,
  verification or refinement: the paper's RAG row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.hybrid import ContextUnit, RetrievalSettings, format_units
from veriloop.knowledge.sources import (
    SourceSettings,
    format_hits,
    open_knowledge_base,
    open_retriever,
    retrieve,
    retrieve_context,
)
from veriloop.knowledge.store import Hit
from veriloop.models import ChatTurn, get_models
from veriloop.models.structured import ask_structured
from veriloop.nodes.choice import ChoiceSettings, choice_reply_model, question_text, score_options
from veriloop.nodes.citations import cited_ids
from veriloop.nodes.generation import generate_turn
from veriloop.nodes.input import check_input
from veriloop.prompts import render
from veriloop.state import InputState, OutputState, TracedState
from veriloop.trace import LoopStop, StopReason, build_trace, single_pass_answer

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class RAGContext(ChoiceSettings, SourceSettings):
    """Knowledge base and retrieval depth; no thresholds."""

    top_k: int = field(
        default=4,
        metadata={"ge": 1, "description": "Entries (or paragraphs) retrieved per question."},
    )


@dataclass
class State(OutputState, TracedState):
    """Working state."""

    options: dict[str, str] | None = None
    retrieved: list[Hit] = field(default_factory=list)
    context_units: list[ContextUnit] = field(default_factory=list)
    error: str | None = None


@dataclass
class RAGOutput(OutputState):
    """The shared output plus the retrieved entries (or corpus context units)."""

    retrieved: list[Hit] = field(default_factory=list)
    context_units: list[ContextUnit] = field(default_factory=list)


def check_question(state: State, runtime: Runtime[RAGContext]) -> dict[str, Any]:
    """Reject an unusable question or option set before anything is loaded."""
    return check_input(state, RAGContext.of(runtime), method="RAG", choices=True)


def retrieve_knowledge(state: State, runtime: Runtime[RAGContext]) -> dict[str, Any]:
    """Retrieve the top-k entries, or the top-k fused corpus paragraphs (no gate)."""
    context = RAGContext.of(runtime)
    models = get_models(context)
    if context.corpus_dir:
        retriever = open_retriever(context.corpus_dir, models)
        settings = RetrievalSettings(mode="paragraphs", top_paragraphs=context.top_k)
        result, call = retrieve_context(models, retriever, state.question, settings)
        return {"context_units": result.units, "calls": [call]}
    base = open_knowledge_base(context.kb_dir, models)
    hits, call = retrieve(models, base, state.question, context.top_k)
    return {"retrieved": hits, "calls": [call]}


def answer_with_knowledge(state: State, runtime: Runtime[RAGContext]) -> dict[str, Any]:
    """Answer from the retrieved knowledge (a paragraph, or an option label)."""
    context = RAGContext.of(runtime)
    models = get_models(context)
    overrides = context.prompt_overrides
    reply_format = "reply_format_choice" if state.options else "reply_format_paragraph"
    if state.context_units:
        knowledge = format_units(state.context_units)
        reply_format = "reply_format_cited"
    else:
        knowledge = format_hits(state.retrieved)
    prompt = render(
        "rag_answer",
        overrides,
        knowledge=knowledge,
        question=question_text(state.question, state.options, overrides),
        reply_format=render(
            reply_format,
            overrides,
            **(
                {"answer_style": render("factual_evidence_answer_style", overrides)}
                if state.context_units
                else {}
            ),
        ),
    )
    update: dict[str, Any] = {}
    if state.options:
        reply = ask_structured(
            models,
            [ChatTurn(role="user", content=prompt)],
            choice_reply_model(state.options),
            purpose="answer",
        )
        calls = list(reply.calls)
        choice = None if reply.value is None else str(reply.value.model_dump()["answer"])
        text = f"{choice}. {state.options[choice]}" if choice else ""
        error = reply.error if reply.value is None else None
        if choice and context.score_options:
            option_scores, score_calls, score_error = score_options(
                models, prompt + "\nAnswer: ", state.options
            )
            calls.extend(score_calls)
            update["option_scores"] = option_scores
            error = error or score_error
        update.update(choice=choice)
    else:
        generated = generate_turn(
            models,
            [],
            prompt,
            purpose="answer",
            echo_guard=[prompt.replace(state.question, "")],
            restated=[state.question],
            seed=context.seed,
        )
        calls, text, error = [generated.call], generated.text, generated.error
    candidate = single_pass_answer(text, error)
    update.update(answer=text or None, error=error, candidates=[candidate], calls=calls)
    return update


def finish(state: State, runtime: Runtime[RAGContext]) -> dict[str, Any]:
    """Return the answer with the retrieved entries and the trace."""
    context = RAGContext.of(runtime)
    reason: StopReason = "single_pass" if state.answer else "no_usable_output"
    stop = LoopStop(
        loop="rag",
        round=0,
        reason=reason,
        chosen_iteration=0 if state.answer else None,
        detail=state.error or "one retrieval, one generation",
    )
    settings = context.trace_settings(get_models(context).describe())
    if state.context_units:
        known = {unit["id"] for unit in state.context_units}
        evidence_ids = [i for i in cited_ids(state.answer or "") if i in known]
    else:
        evidence_ids = [hit["id"] for hit in state.retrieved] if state.answer else []
    trace = build_trace(METHOD, settings, state.candidates, [stop], state.calls, evidence_ids)
    if state.context_units:
        knowledge: str | None = format_units(state.context_units)
    else:
        knowledge = format_hits(state.retrieved) if state.retrieved else None
    return {
        "context_units": state.context_units,
        "knowledge": knowledge,
        "stop_reason": reason,
        "trace": trace,
    }


def build_graph() -> StateGraph[State, RAGContext, InputState, RAGOutput]:
    """Return the plain-RAG baseline graph builder."""
    builder = StateGraph(
        State, context_schema=RAGContext, input_schema=InputState, output_schema=RAGOutput
    )
    builder.add_sequence(
        [
            ("check_question", check_question),
            ("retrieve", retrieve_knowledge),
            ("answer_with_knowledge", answer_with_knowledge),
            ("finish", finish),
        ]
    )
    builder.add_edge(START, "check_question")
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
