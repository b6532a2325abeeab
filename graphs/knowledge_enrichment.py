"""Automatic knowledge enrichment (L2R's AKE): grow a knowledge base from the model itself.

    check_request -> generate_questions -> answer_questions -> questions_to_knowledge
                  -> write_to_base -> [router after_batch]
                       more facts wanted and batches left -> generate_questions
                       target reached, cap reached, or stalled -> finish

- Question-generation agent: a batch of new factual questions on the topic, seeded with
  example questions and told which questions the base already covers (no repeats).
- Answer agent: must answer each question, with its confidence in [0, 1].
- QA-to-knowledge agent: one declarative fact per pair, keeping the answer's confidence.
- Every batch is written to the base (atomically) before the next starts, with provenance
  (`source = "enrichment:<topic>"`, the question, the answer). A run that is interrupted
  and started again with the same topic reads what the base already holds for the topic,
  counts it toward the target, and avoids its questions: it continues where it stopped,
  from the base alone, with no side files. Batch seeds include the count of questions
  already asked, so a resumed run does not replay a cached batch.

Loops: the batch loop has its own counter (`batch`) and cap (`max_batches`), and stops
early after `max_empty_batches` batches in a row that add nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import deprecated

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.sources import open_knowledge_base
from veriloop.knowledge.store import KnowledgeBase, normalised_text
from veriloop.models import ChatTurn, get_models
from veriloop.models.structured import ask_structured
from veriloop.prompts import demonstration_turns, render
from veriloop.state import TracedState
from veriloop.trace import Candidate, LoopStop, ModelCall, StopReason, Trace, build_trace

METHOD = method_id(__file__)
AVOID_SHOWN = 20
"""How many already-covered questions the question agent is shown (newest first)."""


@dataclass(kw_only=True)
class KnowledgeEnrichmentContext(MethodSettings):
    """Knowledge base and batch loop settings."""

    kb_dir: str = field(
        default="",
        metadata={"description": "Knowledge-base directory the new facts are written to."},
    )
    batch_size: int = field(
        default=5, metadata={"ge": 1, "description": "Questions generated per batch."}
    )
    max_batches: int = field(
        default=10, metadata={"ge": 1, "description": "Cap on batches per run (the loop's cap)."}
    )
    max_empty_batches: int = field(
        default=2,
        metadata={
            "ge": 1,
            "description": "Stop after this many batches in a row that add no fact.",
        },
    )


@dataclass
class EnrichmentInput:
    """What to enrich the base with."""

    topic: str
    target_facts: int = 10
    """Facts on this topic the base should hold at the end (earlier runs count)."""
    seed_questions: list[str] = field(default_factory=list)
    """Example questions that steer the question agent (the reference's seed questions)."""


@dataclass
class EnrichmentOutput:
    """What a run added, and why it stopped."""

    topic: str
    added: list[dict[str, Any]] = field(default_factory=list)
    """The entries added in this run (ids, facts, confidences, provenance)."""
    duplicates: int = 0
    facts_on_topic: int = 0
    """Facts the base holds on this topic after the run (this run and earlier ones)."""
    stop_reason: StopReason | None = None
    trace: Trace | None = None


@dataclass
class State(EnrichmentOutput, EnrichmentInput, TracedState):
    """Working state."""

    asked: list[str] = field(default_factory=list)
    """Questions the base already covers for this topic (earlier runs and this one)."""
    batch: int = 0
    """Batch loop counter."""
    empty_batches: int = 0
    """Batches in a row that added nothing."""
    pending_questions: list[str] = field(default_factory=list)
    qa_pairs: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)


class GeneratedQuestions(BaseModel):
    """The question agent's reply."""

    model_config = ConfigDict(extra="ignore")
    questions: list[str] = Field(default_factory=list, max_length=20)


class ConfidentAnswer(BaseModel):
    """The answer agent's reply."""

    model_config = ConfigDict(extra="ignore")
    answer: str
    confidence: float = Field(ge=0.0, le=1.0)


class Knowledge(BaseModel):
    """The QA-to-knowledge agent's reply."""

    model_config = ConfigDict(extra="ignore")
    knowledge: str


def topic_source(topic: str) -> str:
    """Return the `source` enriched facts on `topic` carry."""
    return f"enrichment:{' '.join(topic.split())}"


# ------------------------------------------------------------------------------ nodes


def check_request(state: State, runtime: Runtime[KnowledgeEnrichmentContext]) -> dict[str, Any]:
    """Validate the request and read what the base already holds for this topic."""
    context = KnowledgeEnrichmentContext.of(runtime)
    topic = " ".join(str(state.topic or "").split())
    if not topic:
        raise InvalidInputError("the topic is empty; name what the new facts should be about")
    if state.target_facts < 1:
        raise InvalidInputError(f"target_facts must be at least 1, got {state.target_facts}")
    base = open_knowledge_base(context.kb_dir, get_models(context))
    source = topic_source(topic)
    held = [entry for entry in base.entries if entry.source == source]
    asked = [str(entry.metadata.get("question", "")) for entry in held]
    return {
        "topic": topic,
        "asked": [question for question in asked if question],
        "facts_on_topic": len(held),
        "seed_questions": [q.strip() for q in state.seed_questions if q and q.strip()],
    }


def generate_questions(
    state: State, runtime: Runtime[KnowledgeEnrichmentContext]
) -> dict[str, Any]:
    """Ask the question agent for a batch of new questions; drop repeats and echoes.

    A question is dropped when the base already covers it, it repeats a seed question,
    or it copies the demonstration's example (a 135M model does all three).
    """
    context = KnowledgeEnrichmentContext.of(runtime)
    models = get_models(context)
    wanted = min(context.batch_size, state.target_facts - state.facts_on_topic)
    avoid = list(reversed(state.asked))[:AVOID_SHOWN]
    prompt = render(
        "knowledge_enrichment_questions",
        context.prompt_overrides,
        count=wanted,
        topic=state.topic,
        seeds="\n".join(f"- {q}" for q in state.seed_questions[:10]) or "(none)",
        avoid="\n".join(f"- {q}" for q in avoid) or "(none yet)",
    )
    demo = demonstration_turns("knowledge_enrichment_questions_demo", context.prompt_overrides)
    reply = ask_structured(
        models,
        [*demo, ChatTurn(role="user", content=prompt)],
        GeneratedQuestions,
        purpose="question_generation",
        seed=context.seed + state.batch + len(state.asked),
    )
    demo_strings = re.findall(r'"([^"]+)"', " ".join(turn["content"] for turn in demo))
    seen = {normalised_text(q) for q in [*state.asked, *state.seed_questions, *demo_strings]}
    fresh: list[str] = []
    for question in reply.value.questions if reply.value else []:
        cleaned = " ".join(question.split())
        key = normalised_text(cleaned)
        if cleaned and key and key not in seen:
            seen.add(key)
            fresh.append(cleaned)
    candidate = Candidate(
        stage="questions",
        round=state.batch,
        iteration=0,
        text="\n".join(fresh),
        scores={"new_questions": float(len(fresh))},
        thresholds={},
        passed=bool(fresh),
        error=reply.error if reply.value is None else None,
    )
    return {
        "pending_questions": fresh[:wanted],
        "candidates": [candidate],
        "calls": reply.calls,
    }


def answer_questions(state: State, runtime: Runtime[KnowledgeEnrichmentContext]) -> dict[str, Any]:
    """Have the answer agent answer every new question, with a confidence."""
    context = KnowledgeEnrichmentContext.of(runtime)
    models = get_models(context)
    pairs: list[dict[str, Any]] = []
    calls: list[ModelCall] = []
    candidates: list[Candidate] = []
    for number, question in enumerate(state.pending_questions):
        prompt = render("knowledge_enrichment_answer", context.prompt_overrides, question=question)
        demo = demonstration_turns("knowledge_enrichment_answer_demo", context.prompt_overrides)
        reply = ask_structured(
            models,
            [*demo, ChatTurn(role="user", content=prompt)],
            ConfidentAnswer,
            purpose="answer",
        )
        calls.extend(reply.calls)
        usable = reply.value is not None and bool(reply.value.answer.strip())
        if reply.value is not None and usable:
            pairs.append(
                {
                    "question": question,
                    "answer": " ".join(reply.value.answer.split()),
                    "confidence": reply.value.confidence,
                }
            )
        candidates.append(
            Candidate(
                stage="answer",
                round=state.batch,
                iteration=number,
                text=reply.value.answer if reply.value else "",
                scores={"confidence": reply.value.confidence if reply.value else None},
                thresholds={},
                passed=usable,
                error=None if usable else (reply.error or "empty answer"),
            )
        )
    return {"qa_pairs": pairs, "calls": calls, "candidates": candidates}


def questions_to_knowledge(
    state: State, runtime: Runtime[KnowledgeEnrichmentContext]
) -> dict[str, Any]:
    """Turn each question-answer pair into one declarative fact, keeping its confidence."""
    context = KnowledgeEnrichmentContext.of(runtime)
    models = get_models(context)
    facts: list[dict[str, Any]] = []
    calls: list[ModelCall] = []
    candidates: list[Candidate] = []
    for number, pair in enumerate(state.qa_pairs):
        prompt = render(
            "knowledge_enrichment_qa_to_knowledge",
            context.prompt_overrides,
            question=pair["question"],
            answer=pair["answer"],
        )
        demo = demonstration_turns(
            "knowledge_enrichment_qa_to_knowledge_demo", context.prompt_overrides
        )
        reply = ask_structured(
            models,
            [*demo, ChatTurn(role="user", content=prompt)],
            Knowledge,
            purpose="qa_to_knowledge",
        )
        calls.extend(reply.calls)
        text = " ".join(reply.value.knowledge.split()) if reply.value else ""
        if text:
            facts.append({**pair, "knowledge": text})
        candidates.append(
            Candidate(
                stage="knowledge",
                round=state.batch,
                iteration=number,
                text=text,
                scores={"confidence": pair["confidence"]},
                thresholds={},
                passed=bool(text),
                error=None if text else (reply.error or "empty fact"),
            )
        )
    return {"facts": facts, "calls": calls, "candidates": candidates}


def write_to_base(state: State, runtime: Runtime[KnowledgeEnrichmentContext]) -> dict[str, Any]:
    """Add the batch's facts to the base with provenance, atomically; count the batch."""
    context = KnowledgeEnrichmentContext.of(runtime)
    models = get_models(context)
    source = topic_source(state.topic)
    entries = [
        new_entry(
            fact["knowledge"],
            fact["confidence"],
            source,
            where=f"enrichment batch {state.batch + 1}",
            metadata={
                "question": fact["question"],
                "answer": fact["answer"],
                "agent": METHOD,
                "batch": state.batch,
            },
        )
        for fact in state.facts
    ]
    added: list[dict[str, Any]] = []
    duplicates = 0
    if entries:
        with KnowledgeBase.editing(open_knowledge_base(context.kb_dir, models).directory) as base:
            report = base.add(entries, models.embedder)
        added = [entry.to_json() for entry in report.added]
        duplicates = len(report.duplicates)
    return {
        "added": [*state.added, *added],
        "duplicates": state.duplicates + duplicates,
        "facts_on_topic": state.facts_on_topic + len(added),
        "asked": [*state.asked, *state.pending_questions],
        "batch": state.batch + 1,
        "empty_batches": 0 if added else state.empty_batches + 1,
        "pending_questions": [],
        "qa_pairs": [],
        "facts": [],
    }


def finish(state: State, runtime: Runtime[KnowledgeEnrichmentContext]) -> dict[str, Any]:
    """Report what was added and why the batch loop stopped."""
    context = KnowledgeEnrichmentContext.of(runtime)
    met = state.facts_on_topic >= state.target_facts
    reason: StopReason = "met" if met else "cap_reached"
    if met:
        detail = f"the base holds {state.facts_on_topic} facts on the topic (target reached)"
    elif state.empty_batches >= context.max_empty_batches:
        detail = f"{state.empty_batches} batches in a row added nothing new"
    else:
        detail = f"{state.batch} of {context.max_batches} batches used"
    stop = LoopStop(loop="batch", round=0, reason=reason, chosen_iteration=None, detail=detail)
    settings = context.trace_settings(get_models(context).describe())
    ids = [entry["id"] for entry in state.added]
    trace = build_trace(METHOD, settings, state.candidates, [stop], state.calls, ids)
    return {"stop_reason": reason, "trace": trace}


# ----------------------------------------------------------------------------- routers


def after_check(state: State) -> Literal["generate_questions", "finish"]:
    """Skip generation when the base already holds the target on this topic."""
    return "finish" if state.facts_on_topic >= state.target_facts else "generate_questions"


def after_batch(
    state: State, runtime: Runtime[KnowledgeEnrichmentContext]
) -> Literal["generate_questions", "finish"]:
    """Loop until the target is reached, the batch cap is hit, or batches stall."""
    context = KnowledgeEnrichmentContext.of(runtime)
    if state.facts_on_topic >= state.target_facts:
        return "finish"
    if state.batch >= context.max_batches or state.empty_batches >= context.max_empty_batches:
        return "finish"
    return "generate_questions"


# ------------------------------------------------------------------------------ graph


def build_graph() -> StateGraph[
    State, KnowledgeEnrichmentContext, EnrichmentInput, EnrichmentOutput
]:
    """Return the knowledge-enrichment graph builder."""
    builder = StateGraph(
        State,
        context_schema=KnowledgeEnrichmentContext,
        input_schema=EnrichmentInput,
        output_schema=EnrichmentOutput,
    )
    builder.add_node("check_request", check_request)
    builder.add_node("generate_questions", generate_questions)
    builder.add_node("answer_questions", answer_questions)
    builder.add_node("questions_to_knowledge", questions_to_knowledge)
    builder.add_node("write_to_base", write_to_base)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_request")
    builder.add_conditional_edges("check_request", after_check)
    builder.add_edge("generate_questions", "answer_questions")
    builder.add_edge("answer_questions", "questions_to_knowledge")
    builder.add_edge("questions_to_knowledge", "write_to_base")
    builder.add_conditional_edges("write_to_base", after_batch)
    builder.add_edge("finish", END)
    return builder


@deprecated("EnrichmentContext is now called KnowledgeEnrichmentContext")
class EnrichmentContext(KnowledgeEnrichmentContext):
    """The old name of `KnowledgeEnrichmentContext` (deprecated; it warns when built)."""


graph = build_graph().compile(name=studio_name(__file__))
