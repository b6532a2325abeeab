"""L2R graph on fakes: every refusal path, the reply parsing, multiple choice, ablation."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from veriloop.errors import InvalidInputError
from veriloop.graphs.learn_to_refuse import LearnToRefuseContext, after_retrieval, build_graph
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models

ASPIRIN = "Aspirin thins the blood."
VECTORS = {
    ASPIRIN: [1, 0, 0, 0, 0, 0, 0, 0],
    "Paris is the capital of France.": [0, 1, 0, 0, 0, 0, 0, 0],
    # cos 0.9 with ASPIRIN -> d = 2 - 1.8 = 0.2
    "What does aspirin do?": [0.9, math.sqrt(1 - 0.81), 0, 0, 0, 0, 0, 0],
    # cos 0.75 with ASPIRIN -> d = 0.5
    "Is aspirin sold in shops?": [0.75, 0, math.sqrt(1 - 0.5625), 0, 0, 0, 0, 0],
    # orthogonal to both -> d = 2
    "Who won the 1930 World Cup?": [0, 0, 0, 1, 0, 0, 0, 0],
}

Make = Callable[..., tuple[str, Models]]


def reply(can_answer: bool, answer: str | None, **extra: Any) -> str:
    body = {"evidence": "K-1 says so", "reason": "it follows", "CAN_ANSWER": can_answer}
    body.update(extra)
    body["answer"] = answer
    return json.dumps(body)


def setup(
    fake_backend: Make, tmp_path: Path, replies: list[Any], facts: list[tuple[str, float]]
) -> tuple[str, Models, str]:
    backend, models = fake_backend(replies, vectors=VECTORS)
    kb_dir = tmp_path / "kb"
    base = KnowledgeBase.create(kb_dir, models.embedder)
    base.add([new_entry(text, confidence) for text, confidence in facts], models.embedder)
    base.save()
    return backend, models, str(kb_dir)


def run(
    backend: str,
    kb_dir: str,
    question: str,
    options: dict[str, str] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    context = LearnToRefuseContext(backend=backend, kb_dir=kb_dir, **settings)
    payload: dict[str, Any] = {"question": question, "options": options}
    return build_graph().compile().invoke(payload, context=context)


def test_answers_from_a_close_confident_entry_and_cites_it(
    fake_backend: Make, tmp_path: Path
) -> None:
    backend, models, kb = setup(
        fake_backend, tmp_path, [reply(True, "It thins the blood.")], [(ASPIRIN, 1.0)]
    )
    result = run(backend, kb, "What does aspirin do?")
    assert result["answer"] == "It thins the blood."
    assert result["refusal"] is None and result["stop_reason"] == "single_pass"
    assert result["evidence"] == "K-1 says so" and result["reasoning"] == "it follows"
    hit = result["retrieved"][0]
    assert hit["id"] == "K-1" and hit["distance"] == pytest.approx(0.2, abs=1e-5)
    assert result["trace"]["evidence_ids"] == ["K-1"]
    prompt = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert "[K-1] Aspirin thins the blood. (confidence 1.00)" in prompt
    assert "#### Question Start ####\nWhat does aspirin do?" in prompt


def test_hard_refusal_skips_the_model(fake_backend: Make, tmp_path: Path) -> None:
    backend, models, kb = setup(fake_backend, tmp_path, [], [(ASPIRIN, 1.0)])
    result = run(backend, kb, "Who won the 1930 World Cup?")
    assert result["answer"] is None and result["stop_reason"] == "refused"
    assert result["refusal"]["kind"] == "hard"
    assert "2.000 is not below alpha = 0.75" in result["refusal"]["detail"]
    assert models.chat_model.conversations == []  # type: ignore[attr-defined]
    assert result["trace"]["usage"]["chat_calls"] == 0
    assert result["trace"]["evidence_ids"] == []


def test_low_confidence_turns_a_close_entry_into_a_hard_refusal(
    fake_backend: Make, tmp_path: Path
) -> None:
    # d = 0.5: below alpha with confidence 1 (0.5), above it with confidence 0.5 (1.0)
    backend, _, kb = setup(fake_backend, tmp_path, [reply(True, "yes")], [(ASPIRIN, 1.0)])
    assert run(backend, kb, "Is aspirin sold in shops?")["refusal"] is None
    backend, _, kb2 = setup(fake_backend, tmp_path / "b", [], [(ASPIRIN, 0.5)])
    refused = run(backend, kb2, "Is aspirin sold in shops?")
    assert refused["refusal"]["kind"] == "hard"
    assert refused["trace"]["candidates"][0]["scores"]["min_d_over_c"] == pytest.approx(1.0)


def test_consulting_the_model_anyway_still_refuses(fake_backend: Make, tmp_path: Path) -> None:
    backend, models, kb = setup(fake_backend, tmp_path, [reply(True, "Uruguay")], [(ASPIRIN, 1)])
    result = run(backend, kb, "Who won the 1930 World Cup?", consult_model_when_hard_refused=True)
    assert result["answer"] is None and result["refusal"]["kind"] == "hard"
    assert "consulted anyway (CAN_ANSWER = True)" in result["refusal"]["detail"]
    assert len(models.chat_model.conversations) == 1  # type: ignore[attr-defined]
    assert [c["stage"] for c in result["trace"]["candidates"]] == ["retrieval", "answer"]


def test_soft_refusal_when_the_model_says_it_cannot_answer(
    fake_backend: Make, tmp_path: Path
) -> None:
    backend, _, kb = setup(
        fake_backend,
        tmp_path,
        [reply(False, None, reason="the base says nothing about dosage")],
        [(ASPIRIN, 1.0)],
    )
    result = run(backend, kb, "What does aspirin do?")
    assert result["answer"] is None and result["stop_reason"] == "refused"
    assert result["refusal"] == {"kind": "soft", "detail": "the base says nothing about dosage"}


def test_bad_json_is_re_asked_once_then_recorded(fake_backend: Make, tmp_path: Path) -> None:
    backend, _, kb = setup(
        fake_backend,
        tmp_path,
        ["Sure! It thins blood.", reply(True, "thins blood")],
        [(ASPIRIN, 1)],
    )
    assert run(backend, kb, "What does aspirin do?")["answer"] == "thins blood"
    backend, _, kb2 = setup(
        fake_backend, tmp_path / "b", ["not json", '{"CAN_ANSWER": "maybe"'], [(ASPIRIN, 1)]
    )
    failed = run(backend, kb2, "What does aspirin do?")
    assert failed["answer"] is None and failed["stop_reason"] == "no_usable_output"
    assert failed["refusal"] is None
    assert "attempt 2" in failed["trace"]["stops"][0]["detail"]


def test_lenient_parse_accepts_lower_case_field_and_surrounding_text(
    fake_backend: Make, tmp_path: Path
) -> None:
    text = 'Here you go: {"evidence": "", "reason": "", "can_answer": true, "answer": "yes"} ok'
    backend, _, kb = setup(fake_backend, tmp_path, [text], [(ASPIRIN, 1)])
    assert run(backend, kb, "What does aspirin do?")["answer"] == "yes"


def test_empty_base_refuses_without_crashing(fake_backend: Make, tmp_path: Path) -> None:
    backend, _, kb = setup(fake_backend, tmp_path, [], [])
    result = run(backend, kb, "What does aspirin do?")
    assert result["refusal"] == {"kind": "hard", "detail": "the knowledge base is empty"}
    assert result["retrieved"] == [] and result["knowledge"] is None


def test_multiple_choice_picks_a_label_and_scores_every_option(
    fake_backend: Make, tmp_path: Path
) -> None:
    options = {"A": "It cures colds.", "B": "It thins the blood.", "C": "Nothing."}
    backend, models, kb = setup(
        fake_backend, tmp_path, [reply(True, "Z"), reply(True, "B")], [(ASPIRIN, 1)]
    )
    result = run(backend, kb, "What does aspirin do?", options=options)
    assert result["choice"] == "B" and result["answer"] == "B. It thins the blood."
    assert set(result["option_scores"]) == {"A", "B", "C"}
    prompt = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert "Candidate answers:\nA. It cures colds.\nB. It thins the blood." in prompt
    targets = [target for _, target in models.scorer.calls]  # type: ignore[attr-defined]
    assert targets == list(options.values())


def test_no_reasoning_ablation_asks_for_the_verdict_only(
    fake_backend: Make, tmp_path: Path
) -> None:
    backend, models, kb = setup(
        fake_backend, tmp_path, ['{"CAN_ANSWER": true, "answer": "thins it"}'], [(ASPIRIN, 1)]
    )
    result = run(backend, kb, "What does aspirin do?", no_reasoning=True)
    assert result["answer"] == "thins it" and result["evidence"] is None
    prompt = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert '"evidence"' not in prompt and "fields CAN_ANSWER and answer" in prompt


def test_missing_knowledge_base_is_a_clear_error(fake_backend: Make, tmp_path: Path) -> None:
    backend, _ = fake_backend([])
    with pytest.raises(InvalidInputError, match="needs a knowledge base: set kb_dir"):
        run(backend, "", "What does aspirin do?")


def test_bad_options_are_rejected(fake_backend: Make, tmp_path: Path) -> None:
    backend, _, kb = setup(fake_backend, tmp_path, [], [(ASPIRIN, 1)])
    with pytest.raises(InvalidInputError, match="needs 2 to 26 options"):
        run(backend, kb, "What does aspirin do?", options={"A": "only one"})


def test_router_is_pure() -> None:
    from veriloop.graphs.learn_to_refuse import State

    assert after_retrieval(State(question="q", consult_model=True)) == "answer_from_knowledge"
    assert after_retrieval(State(question="q", consult_model=False)) == "refuse_hard"


def test_option_judge_runs_only_for_answered_choice_items(
    fake_backend: Make, tmp_path: Path
) -> None:
    options = {"A": "It cures colds.", "B": "It thins the blood."}
    judgement = json.dumps({"A": False, "B": True})
    backend, models, kb = setup(
        fake_backend, tmp_path, [reply(True, "B"), judgement], [(ASPIRIN, 1)]
    )
    result = run(backend, kb, "What does aspirin do?", options=options, judge_options=True)
    assert result["option_judgements"] == {"A": False, "B": True}
    assert [c["stage"] for c in result["trace"]["candidates"]][-1] == "option_judge"
    judge_prompt = models.chat_model.conversations[1][-1].content  # type: ignore[attr-defined]
    assert "mapping each letter to true or false" in judge_prompt
    # a hard refusal never reaches the judge
    refused = run(backend, kb, "Who won the 1930 World Cup?", options=options, judge_options=True)
    assert refused.get("option_judgements") is None and refused["refusal"]["kind"] == "hard"


def test_answer_router_is_pure() -> None:
    from veriloop.graphs.learn_to_refuse import State, after_answer

    assert after_answer(State(question="q", judge_wanted=True)) == "judge_options"
    assert after_answer(State(question="q")) == "finish"
