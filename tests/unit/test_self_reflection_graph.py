"""Self-Reflection on scripted models: each loop's stop at threshold and at cap, restarts,
ablations, bad model output and the trace. Scores are scripted per text, so every
expectation below is computed by hand from the script."""

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from veriloop.errors import InvalidInputError
from veriloop.graphs import self_reflection as sr
from veriloop.graphs.self_reflection import SelfReflectionContext, build_graph
from veriloop.trace import Candidate

Q = "Is Noonan syndrome inherited?"


def scores_by_text(table: dict[str, float | None], default: float = -0.5):
    """Score rule: the mean log-prob scripted for a target text (consistency: per target)."""

    def rule(prompt: str, target: str) -> float | None:
        return table.get(target, default)

    return rule


def run(name: str, **settings: Any) -> dict[str, Any]:
    graph = build_graph().compile()
    return graph.invoke({"question": Q}, context=SelfReflectionContext(backend=name, **settings))


def stages(result: dict[str, Any], stage: str) -> list[Candidate]:
    return [c for c in result["trace"]["candidates"] if c["stage"] == stage]


def stop(result: dict[str, Any], loop: str, round_index: int = 0) -> dict[str, Any]:
    return next(
        s for s in result["trace"]["stops"] if s["loop"] == loop and s["round"] == round_index
    )


def vectors_for(answers_passing: dict[str, bool]) -> dict[str, list[float]]:
    """Embeddings making cosine(Q, answer) 1.0 for passing answers and 0.0 otherwise."""
    vectors = {Q: [1.0, 0.0]}
    for answer, ok in answers_passing.items():
        vectors[answer] = [1.0, 0.0] if ok else [0.0, 1.0]
    return vectors


def test_knowledge_loop_stops_when_factuality_meets_threshold(fake_backend):
    name, models = fake_backend(
        ["K1", "K2", "A1"],
        score_rule=scores_by_text({"K1": -2.0, "K2": -0.5}),
        vectors=vectors_for({"A1": True}),
        dim=2,
    )
    result = run(name)
    assert [c["text"] for c in stages(result, "knowledge")] == ["K1", "K2"]
    assert stop(result, "knowledge")["reason"] == "met"
    assert result["knowledge"] == "K2" and result["answer"] == "A1"
    assert result["stop_reason"] == "met"
    # Refinement happened in the same conversation, with score and threshold in the feedback.
    second = models.chat_model.conversations[1]  # type: ignore[attr-defined]
    assert [m.type for m in second] == ["human", "ai", "human"]
    assert second[1].content == "K1"
    assert "The factuality score for the knowledge is -2.00 (less than -1.0)" in second[2].content


def test_knowledge_loop_cap_keeps_the_best_candidate(fake_backend):
    name, models = fake_backend(
        ["K1", "K2", "K3", "A1"],
        score_rule=scores_by_text({"K1": -3.0, "K2": -1.5, "K3": -2.0}),
        vectors=vectors_for({"A1": True}),
        dim=2,
    )
    result = run(name)
    assert len(stages(result, "knowledge")) == 3
    knowledge_stop = stop(result, "knowledge")
    assert knowledge_stop["reason"] == "cap_reached" and knowledge_stop["chosen_iteration"] == 1
    assert result["knowledge"] == "K2"
    # The answer prompt quotes the chosen knowledge.
    answer_prompt = models.chat_model.conversations[3][0].content  # type: ignore[attr-defined]
    assert answer_prompt.startswith('Refer to the knowledge: "K2" and answer the question:')
    assert result["answer"] == "A1"


def test_answer_loop_threshold_and_cap(fake_backend):
    # Consistency = mean of forward (target = answer) and backward (target = knowledge).
    # Knowledge scores -0.5 both as knowledge and backward target.
    name, models = fake_backend(
        ["K1", "A1", "A2", "A3"],
        score_rule=scores_by_text({"K1": -0.5, "A1": -12.0, "A2": -9.0, "A3": -10.0}),
        vectors=vectors_for({"A1": True, "A2": True, "A3": True}),
        dim=2,
    )
    result = run(name)
    answers = stages(result, "answer")

    assert [round(a["scores"]["consistency"], 2) for a in answers] == [-6.25, -4.75]
    assert stop(result, "answer")["reason"] == "met" and result["answer"] == "A2"
    feedback = models.chat_model.conversations[2][-1].content  # type: ignore[attr-defined]
    assert "consistency score for the response is -6.25 (less than -5.0)" in feedback

    name, _ = fake_backend(
        ["K1", "A1", "A2", "A3"],
        score_rule=scores_by_text({"K1": -0.5, "A1": -12.0, "A2": -11.0, "A3": -13.0}),
        vectors=vectors_for({"A1": True, "A2": True, "A3": True}),
        dim=2,
    )
    result = run(name)
    assert len(stages(result, "answer")) == 3
    assert stop(result, "answer")["reason"] == "cap_reached"
    assert result["answer"] == "A2"  # best consistency: (-11 - 0.5) / 2


def test_entailment_restart_uses_a_fresh_conversation_and_new_seed(fake_backend):
    name, models = fake_backend(
        ["K1", "A1", "K2", "A2"],
        score_rule=scores_by_text({}),
        vectors=vectors_for({"A1": False, "A2": True}),
        dim=2,
    )
    result = run(name)
    rounds = stages(result, "round")
    assert [r["scores"]["entailment"] for r in rounds] == pytest.approx([0.0, 1.0])
    assert result["answer"] == "A2" and result["stop_reason"] == "met"
    third_call = models.chat_model.conversations[2]  # type: ignore[attr-defined]
    assert len(third_call) == 1 and "Provide background knowledge" in third_call[0].content
    seeds = [options["seed"] for options in models.chat_model.options]  # type: ignore[attr-defined]
    assert seeds == [0, 0, 1, 1]


def test_entailment_cap_keeps_the_best_round(fake_backend):
    vectors = {Q: [1.0, 0.0], "A1": [0.2, 1.0], "A2": [0.6, 1.0], "A3": [0.1, 1.0]}
    name, _ = fake_backend(
        ["K1", "A1", "K2", "A2", "K3", "A3"],
        score_rule=scores_by_text({}),
        vectors=vectors,
        dim=2,
    )
    result = run(name)
    assert len(stages(result, "round")) == 3
    assert result["stop_reason"] == "cap_reached"
    assert result["answer"] == "A2" and result["knowledge"] == "K2"


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({}, "The factuality score for the knowledge is -2.00 (less than -1.0), which means"),
        ({"no_number": True}, "The knowledge is not strongly supported by empirical evidence."),
        ({"no_aspect": True}, "Please refine the knowledge."),
    ],
)
def test_feedback_ablations(fake_backend, setting, expected):
    name, models = fake_backend(
        ["K1", "K2", "A1"],
        score_rule=scores_by_text({"K1": -2.0}),
        vectors=vectors_for({"A1": True}),
        dim=2,
    )
    run(name, **setting)
    feedback = models.chat_model.conversations[1][-1].content  # type: ignore[attr-defined]
    assert feedback.startswith(expected)
    if setting:
        assert "-2.00" not in feedback


def test_no_refinement_generates_once_but_records_scores(fake_backend):
    name, models = fake_backend(
        ["K1", "A1"],
        score_rule=scores_by_text({"K1": -9.0, "A1": -9.0}),
        vectors=vectors_for({"A1": False}),
        dim=2,
    )
    result = run(name, no_refinement=True)
    assert len(models.chat_model.conversations) == 2  # type: ignore[attr-defined]
    assert result["stop_reason"] == "single_pass"
    assert stages(result, "knowledge")[0]["scores"]["factuality"] == -9.0
    assert result["answer"] == "A1"


def test_unusable_reply_is_recorded_and_refined(fake_backend):
    echo = 'Provide background knowledge to answer the given question: "' + Q + '"'
    name, _ = fake_backend(
        [echo, "K2", "A1"],
        score_rule=scores_by_text({"K2": -0.5}),
        vectors=vectors_for({"A1": True}),
        dim=2,
    )
    result = run(name)
    first = stages(result, "knowledge")[0]
    assert first["text"] == "" and first["scores"]["factuality"] is None
    assert "empty" in (first["error"] or "")
    assert result["knowledge"] == "K2"


def test_scorer_failure_counts_as_minus_infinity(fake_backend):
    name, models = fake_backend(
        ["K1", "K2", "A1"],
        score_rule=scores_by_text({"K1": None, "K2": -0.5}),
        vectors=vectors_for({"A1": True}),
        dim=2,
    )
    result = run(name)
    assert stages(result, "knowledge")[0]["scores"]["factuality"] is None
    feedback = models.chat_model.conversations[1][-1].content  # type: ignore[attr-defined]
    assert "is -inf (less than -1.0)" in feedback
    assert result["knowledge"] == "K2"


def test_nothing_usable_gives_no_answer_and_says_so(fake_backend):
    name, _ = fake_backend([""] * 12, score_rule=scores_by_text({}), dim=2)
    result = run(name, max_rounds=2)
    assert result["answer"] is None
    assert result["stop_reason"] == "no_usable_output"


def test_invalid_question_raises_before_any_model_call(fake_backend):
    name, models = fake_backend([])
    graph = build_graph().compile()
    with pytest.raises(InvalidInputError, match="empty"):
        graph.invoke({"question": "   "}, context=SelfReflectionContext(backend=name))
    assert models.chat_model.conversations == []  # type: ignore[attr-defined]


def test_trace_accounts_for_every_call_and_checkpoints(fake_backend):
    name, _ = fake_backend(
        ["K1", "A1"], score_rule=scores_by_text({}), vectors=vectors_for({"A1": True}), dim=2
    )
    graph = build_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    result = graph.invoke({"question": Q}, config, context=SelfReflectionContext(backend=name))
    usage = result["trace"]["usage"]
    # 2 chats; 1 factuality + 2 consistency scores; 1 embedding.
    assert (usage["chat_calls"], usage["score_calls"], usage["embed_calls"]) == (2, 3, 1)
    assert usage["tokens_out"] == 2  # one word per scripted reply
    assert result["trace"]["settings"]["threshold_factuality"] == -1.0
    assert result["trace"]["settings"]["models"]["chat"] == "fake-chat"
    saved = graph.get_state(config).values
    assert saved["trace"]["stop_reason"] == "met" and saved["answer"] == "A1"


def make_state(**fields: Any) -> sr.State:
    return sr.State(question=Q, **fields)


def candidate(passed: bool) -> Candidate:
    return Candidate(
        stage="knowledge",
        round=0,
        iteration=0,
        text="k",
        scores={},
        thresholds={},
        passed=passed,
        error=None,
    )


def test_routers_are_pure_and_respect_caps():
    context = SelfReflectionContext(max_knowledge_loops=2, max_answer_loops=2, max_rounds=2)
    runtime = Runtime(context=context)
    below, above = [candidate(False)], [candidate(True)]
    assert (
        sr.route_knowledge(make_state(candidates=below, knowledge_loop_step=1), runtime)
        == "generate_knowledge"
    )
    assert (
        sr.route_knowledge(make_state(candidates=below, knowledge_loop_step=2), runtime)
        == "select_knowledge"
    )
    assert (
        sr.route_knowledge(make_state(candidates=above, knowledge_loop_step=1), runtime)
        == "select_knowledge"
    )
    assert (
        sr.route_answer(make_state(candidates=below, answer_loop_step=1), runtime)
        == "generate_answer"
    )
    assert (
        sr.route_answer(make_state(candidates=below, answer_loop_step=2), runtime)
        == "select_answer"
    )
    assert sr.route_entailment(make_state(candidates=below, round=0), runtime) == "restart"
    assert sr.route_entailment(make_state(candidates=below, round=1), runtime) == "finish"
    assert sr.route_entailment(make_state(candidates=above, round=0), runtime) == "finish"
    ablated = Runtime(context=SelfReflectionContext(no_refinement=True))
    assert (
        sr.route_knowledge(make_state(candidates=below, knowledge_loop_step=1), ablated)
        == "select_knowledge"
    )
    assert sr.route_entailment(make_state(candidates=below), ablated) == "finish"
    # No context given (a plain invoke or an empty Studio form): the paper's defaults.
    assert (
        sr.route_knowledge(make_state(candidates=below, knowledge_loop_step=2), Runtime())
        == "generate_knowledge"
    )


def _base_with(tmp_path, models, facts):
    from veriloop.knowledge.entries import new_entry
    from veriloop.knowledge.store import KnowledgeBase

    base = KnowledgeBase.create(tmp_path / "kb", models.embedder)
    base.add([new_entry(text, 1.0, "https://example.org") for text in facts], models.embedder)
    base.save()
    return str(tmp_path / "kb")


FACT = "Noonan syndrome is inherited in an autosomal dominant manner."
OTHER = "Paris is the capital of France."


def test_grounded_knowledge_is_generated_from_the_relevant_passages(fake_backend, tmp_path):
    # cosine(Q, FACT) = 1 (shown), cosine(Q, OTHER) = 0 (below grounded_relevant_at)
    vectors = {Q: [1.0, 0.0], FACT: [1.0, 0.0], OTHER: [0.0, 1.0], "A1": [1.0, 0.0]}
    name, models = fake_backend(
        [FACT, "A1"], score_rule=scores_by_text({FACT: -0.2}), vectors=vectors, dim=2
    )
    kb = _base_with(tmp_path, models, [FACT, OTHER])
    result = run(name, grounded=True, kb_dir=kb)
    first = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert f"[1] {FACT}" in first and OTHER not in first
    # the copied passage is kept as knowledge, not stripped as an echo of the prompt
    assert result["knowledge"] == FACT and result["answer"] == "A1"
    [retrieval] = stages(result, "retrieval")
    assert retrieval["passed"] and "1 of 2 passages" in retrieval["text"]


def test_grounded_with_nothing_relevant_runs_closed_book(fake_backend, tmp_path):
    vectors = {Q: [1.0, 0.0], OTHER: [0.0, 1.0], "A1": [1.0, 0.0]}
    name, models = fake_backend(["K1", "A1"], vectors=vectors, dim=2)
    kb = _base_with(tmp_path, models, [OTHER])
    result = run(name, grounded=True, kb_dir=kb, no_refinement=True)
    first = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert first.startswith("Provide background knowledge") and "Passages" not in first
    [retrieval] = stages(result, "retrieval")
    assert not retrieval["passed"] and "none (closed-book)" in retrieval["text"]


def test_closed_book_does_not_retrieve(fake_backend):
    name, models = fake_backend(["K1", "A1"], vectors=vectors_for({"A1": True}), dim=2)
    result = run(name, no_refinement=True)
    assert stages(result, "retrieval") == []
