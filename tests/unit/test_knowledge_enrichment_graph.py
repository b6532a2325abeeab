"""Knowledge-enrichment graph on fakes: batches, repeats, resume after a crash, stalls."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from veriloop.errors import InvalidInputError
from veriloop.graphs.knowledge_enrichment import (
    KnowledgeEnrichmentContext,
    State,
    after_batch,
    build_graph,
)
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models

Make = Callable[..., tuple[str, Models]]


class Agents:
    """Scripted agents: question batches in order; answers and facts derived from veriloop.prompts."""

    def __init__(self, batches: list[list[str]], fail_on_call: int | None = None) -> None:
        self.batches: Iterator[list[str]] = iter(batches)
        self.calls = 0
        self.fail_on_call = fail_on_call

    def __call__(self, messages: list[BaseMessage]) -> str:
        self.calls += 1
        if self.fail_on_call is not None and self.calls == self.fail_on_call:
            raise RuntimeError("power cut")
        prompt = str(messages[2].content)  # after the demonstration exchange
        if prompt.startswith("Write "):
            return json.dumps({"questions": next(self.batches, [])})
        if prompt.startswith("Answer the question"):
            question = prompt.split("Question: ")[1].split("\n")[0]
            if "broken" in question:
                return "no json here"
            return json.dumps({"answer": f"answer to {question}", "confidence": 0.6})
        question = prompt.split("Question: ")[1].split("\n")[0]
        return json.dumps({"knowledge": f"It is known that {question.rstrip('?')}."})


def setup(fake_backend: Make, tmp_path: Path, agents: Agents) -> tuple[str, Models, Path]:
    backend, models = fake_backend([agents] * 200)
    kb_dir = tmp_path / "kb"
    KnowledgeBase.create(kb_dir, models.embedder)
    return backend, models, kb_dir


def enrich(backend: str, kb_dir: Path, topic: str, target: int, **settings: Any) -> dict[str, Any]:
    context = KnowledgeEnrichmentContext(backend=backend, kb_dir=str(kb_dir), **settings)
    return (
        build_graph()
        .compile()
        .invoke(
            {"topic": topic, "target_facts": target, "seed_questions": ["What is a virus?"]},
            context=context,
        )
    )


def test_batches_fill_the_base_to_the_target_with_provenance(
    fake_backend: Make, tmp_path: Path
) -> None:
    agents = Agents([["Is flu viral?", "Do colds spread?"], ["Is measles viral?", "extra?"]])
    backend, _, kb_dir = setup(fake_backend, tmp_path, agents)
    result = enrich(backend, kb_dir, "infections", 3, batch_size=2)
    assert result["stop_reason"] == "met" and result["facts_on_topic"] == 3
    base = KnowledgeBase.open(kb_dir)
    assert [e.knowledge for e in base.entries] == [
        "It is known that Is flu viral.",
        "It is known that Do colds spread.",
        "It is known that Is measles viral.",
    ]
    entry = base.entries[0]
    assert entry.confidence == 0.6 and entry.source == "enrichment:infections"
    assert entry.metadata["question"] == "Is flu viral?"
    assert entry.metadata["answer"] == "answer to Is flu viral?"
    assert result["trace"]["evidence_ids"] == ["K-1", "K-2", "K-3"]


def test_questions_the_base_already_covers_are_not_asked_again(
    fake_backend: Make, tmp_path: Path
) -> None:
    agents = Agents([["Is flu viral?", "Is mumps viral?"]])
    backend, models, kb_dir = setup(fake_backend, tmp_path, agents)
    with KnowledgeBase.editing(kb_dir) as base:
        base.add(
            [
                new_entry(
                    "Flu is viral.",
                    0.9,
                    "enrichment:infections",
                    metadata={"question": "Is flu viral?"},
                )
            ],
            models.embedder,
        )
    result = enrich(backend, kb_dir, "infections", 2, batch_size=2)
    assert [e["metadata"]["question"] for e in result["added"]] == ["Is mumps viral?"]
    first_prompt = models.chat_model.conversations[0][2].content  # type: ignore[attr-defined]
    assert "Do not repeat any of these questions:\n- Is flu viral?" in first_prompt
    assert "Write 1 new" in first_prompt  # one fact still wanted


def test_an_interrupted_run_continues_where_it_stopped(fake_backend: Make, tmp_path: Path) -> None:
    # calls: batch 1 = questions + 2 answers + 2 facts (5); batch 2 questions = 6; crash at 7
    crashing = Agents([["Q one?", "Q two?"], ["Q three?", "Q four?"]], fail_on_call=7)
    backend, models, kb_dir = setup(fake_backend, tmp_path, crashing)
    with pytest.raises(RuntimeError, match="power cut"):
        enrich(backend, kb_dir, "numbers", 4, batch_size=2)
    assert len(KnowledgeBase.open(kb_dir)) == 2  # batch 1 was written, batch 2 was not
    resumed = Agents([["Q one?", "Q three?", "Q four?"]])
    backend2, models2 = fake_backend([resumed] * 50)
    models2.embedder.vectors = models.embedder.vectors  # type: ignore[attr-defined]
    result = enrich(backend2, kb_dir, "numbers", 4, batch_size=2)
    assert result["stop_reason"] == "met" and result["facts_on_topic"] == 4
    questions = [e.metadata["question"] for e in KnowledgeBase.open(kb_dir).entries]
    assert questions == ["Q one?", "Q two?", "Q three?", "Q four?"]
    seeds = [o.get("seed") for o in models2.chat_model.options]  # type: ignore[attr-defined]
    first_seeds = [o.get("seed") for o in models.chat_model.options]  # type: ignore[attr-defined]
    assert seeds[0] != first_seeds[0]  # a resumed batch is sampled afresh, not replayed


def test_a_stalled_question_agent_stops_the_loop(fake_backend: Make, tmp_path: Path) -> None:
    agents = Agents([["What is a virus?"], ["What is a virus?"], ["never reached?"]])
    backend, _, kb_dir = setup(fake_backend, tmp_path, agents)
    result = enrich(backend, kb_dir, "viruses", 5, max_empty_batches=2)
    assert result["stop_reason"] == "cap_reached"
    assert "2 batches in a row added nothing" in result["trace"]["stops"][0]["detail"]
    assert result["added"] == []


def test_batch_cap_bounds_the_loop(fake_backend: Make, tmp_path: Path) -> None:
    agents = Agents([["A?"], ["B?"], ["C?"]])
    backend, _, kb_dir = setup(fake_backend, tmp_path, agents)
    result = enrich(backend, kb_dir, "letters", 10, batch_size=1, max_batches=2)
    assert result["stop_reason"] == "cap_reached" and len(result["added"]) == 2
    assert "2 of 2 batches used" in result["trace"]["stops"][0]["detail"]


def test_an_unusable_answer_drops_only_its_pair(fake_backend: Make, tmp_path: Path) -> None:
    agents = Agents([["Is this broken?", "Is this fine?"]])
    backend, _, kb_dir = setup(fake_backend, tmp_path, agents)
    result = enrich(backend, kb_dir, "misc", 2, batch_size=2, max_batches=1)
    assert [e["metadata"]["question"] for e in result["added"]] == ["Is this fine?"]
    failed = [c for c in result["trace"]["candidates"] if c["stage"] == "answer" and c["error"]]
    assert len(failed) == 1 and "attempt 2" in failed[0]["error"]


def test_a_satisfied_topic_costs_no_model_call(fake_backend: Make, tmp_path: Path) -> None:
    agents = Agents([])
    backend, models, kb_dir = setup(fake_backend, tmp_path, agents)
    with KnowledgeBase.editing(kb_dir) as base:
        base.add([new_entry("x is y.", 1.0, "enrichment:misc")], models.embedder)
    result = enrich(backend, kb_dir, "misc", 1)
    assert result["stop_reason"] == "met" and agents.calls == 0


def test_empty_topic_is_rejected(fake_backend: Make, tmp_path: Path) -> None:
    backend, _, kb_dir = setup(fake_backend, tmp_path, Agents([]))
    with pytest.raises(InvalidInputError, match="topic is empty"):
        enrich(backend, kb_dir, "  ", 1)


def test_router_counts_and_caps() -> None:
    caps = Runtime(context=KnowledgeEnrichmentContext(max_batches=3, max_empty_batches=2))
    state = State(topic="t", target_facts=3, facts_on_topic=1, batch=1)
    assert after_batch(state, caps) == "generate_questions"
    state.facts_on_topic = 3
    assert after_batch(state, caps) == "finish"  # target reached
    state.facts_on_topic, state.batch = 1, 3
    assert after_batch(state, caps) == "finish"  # batch cap
    assert after_batch(state, Runtime()) == "generate_questions"  # default cap is 10
    state.batch, state.empty_batches = 1, 2
    assert after_batch(state, caps) == "finish"  # stalled
