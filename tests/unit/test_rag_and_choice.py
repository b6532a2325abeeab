"""Plain RAG baseline and multiple-choice handling of the baselines, on fakes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from veriloop.errors import InvalidInputError
from veriloop.graphs.direct import DirectContext
from veriloop.graphs.direct import build_graph as build_direct
from veriloop.graphs.rag import RAGContext
from veriloop.graphs.rag import build_graph as build_rag
from veriloop.graphs.self_reflection import SelfReflectionContext
from veriloop.graphs.self_reflection import build_graph as build_self_reflection
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models
from veriloop.nodes.choice import check_options, question_text

Make = Callable[..., tuple[str, Models]]
OPTIONS = {"A": "Paris", "B": "Rome", "C": "Berlin"}


def make_kb(models: Models, path: Path, facts: list[str]) -> str:
    base = KnowledgeBase.create(path, models.embedder)
    base.add([new_entry(fact) for fact in facts], models.embedder)
    base.save()
    return str(path)


def test_rag_always_answers_from_what_it_retrieved(fake_backend: Make, tmp_path: Path) -> None:
    backend, models = fake_backend(["Paris is the capital."])
    kb = make_kb(models, tmp_path / "kb", ["Paris is the capital of France.", "Rome is old."])
    result = (
        build_rag()
        .compile()
        .invoke(
            {"question": "What is the capital of France?"},
            context=RAGContext(backend=backend, kb_dir=kb, top_k=1),
        )
    )
    assert result["answer"] == "Paris is the capital."
    assert result.get("refusal") is None and result["stop_reason"] == "single_pass"
    assert len(result["retrieved"]) == 1
    assert result["trace"]["evidence_ids"] == [result["retrieved"][0]["id"]]
    prompt = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert f"[{result['retrieved'][0]['id']}]" in prompt


def test_rag_on_an_empty_base_still_answers(fake_backend: Make, tmp_path: Path) -> None:
    backend, models = fake_backend(["A guess."])
    kb = make_kb(models, tmp_path / "kb", [])
    result = (
        build_rag()
        .compile()
        .invoke({"question": "Anything?"}, context=RAGContext(backend=backend, kb_dir=kb))
    )
    assert result["answer"] == "A guess." and result.get("knowledge") is None
    prompt = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert "(no knowledge)" in prompt


def test_rag_multiple_choice_is_constrained_to_labels(fake_backend: Make, tmp_path: Path) -> None:
    backend, models = fake_backend(['{"answer": "D"}', '{"answer": "A"}'])
    kb = make_kb(models, tmp_path / "kb", ["Paris is the capital of France."])
    result = (
        build_rag()
        .compile()
        .invoke(
            {"question": "Capital of France?", "options": OPTIONS},
            context=RAGContext(backend=backend, kb_dir=kb),
        )
    )
    assert result["choice"] == "A" and result["answer"] == "A. Paris"
    assert set(result["option_scores"]) == set(OPTIONS)
    # the invalid label D was re-asked with the validation error
    second = models.chat_model.conversations[1][-1].content  # type: ignore[attr-defined]
    assert "could not be used" in second and "answer" in second


def test_direct_multiple_choice_scores_options_under_the_same_prompt(fake_backend: Make) -> None:
    prompts: list[str] = []

    def rule(prompt: str, target: str) -> float:
        prompts.append(prompt)
        return {"Paris": -0.1, "Rome": -2.0, "Berlin": -3.0}[target]

    backend, _ = fake_backend(['{"answer": "B"}'], score_rule=rule)
    result = (
        build_direct()
        .compile()
        .invoke(
            {"question": "Capital of France?", "options": OPTIONS},
            context=DirectContext(backend=backend),
        )
    )
    assert result["choice"] == "B" and result["answer"] == "B. Rome"
    assert result["option_scores"] == {"A": -0.1, "B": -2.0, "C": -3.0}
    assert len(set(prompts)) == 1 and prompts[0].endswith("\nAnswer: ")
    assert "A. Paris\nB. Rome\nC. Berlin" in prompts[0]


def test_direct_multiple_choice_without_a_valid_label_is_no_usable_output(
    fake_backend: Make,
) -> None:
    backend, _ = fake_backend(["I think Paris", "Paris!"])
    result = (
        build_direct()
        .compile()
        .invoke(
            {"question": "Capital of France?", "options": OPTIONS},
            context=DirectContext(backend=backend),
        )
    )
    assert result.get("choice") is None and result.get("answer") is None
    assert result["stop_reason"] == "no_usable_output"


def test_self_reflection_rejects_multiple_choice_items(fake_backend: Make) -> None:
    backend, _ = fake_backend([])
    with pytest.raises(InvalidInputError, match="free-text questions"):
        build_self_reflection().compile().invoke(
            {"question": "Capital of France?", "options": OPTIONS},
            context=SelfReflectionContext(backend=backend),
        )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["Paris", "Rome"], "must map labels to texts"),
        ({"A": "Paris", "B": " "}, "option 'B' has no text"),
        ({"A": "Paris"}, "needs 2 to 26 options"),
    ],
)
def test_bad_options_say_what_is_wrong(options: Any, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        check_options(options)


def test_question_text_lists_options_in_order() -> None:
    assert question_text("Q?", None) == "Q?"
    assert question_text("Q?", {"B": "two", "A": "one"}) == (
        "Q?\nCandidate answers:\nB. two\nA. one"
    )
