"""The shipped answer-relevance judge on real sentences: the question type and subject count."""

from __future__ import annotations

import json

import pytest

from veriloop.nodes.judges.relevance import RELEVANCE_DIR, RelevanceJudge

pytestmark = [pytest.mark.integration, pytest.mark.full]

QUESTION = "What are the treatments for anal fissure?"
TREATMENT = (
    "Most anal fissures heal with home treatment after a few days or weeks, such as eating "
    "more fiber, drinking water and taking warm baths."
)
SYMPTOMS = "Symptoms of an anal fissure include pain during bowel movements and bright red blood."
CANCER = (
    "Treatment of stage IIIA anal cancer may include external-beam radiation therapy with "
    "chemotherapy."
)
UNRELATED = "Paris is the capital of France and its largest city."


def test_an_answer_to_the_question_outscores_its_neighbours() -> None:
    judge = RelevanceJudge()
    treatment, symptoms, cancer, unrelated = judge.scores(
        QUESTION, [TREATMENT, SYMPTOMS, CANCER, UNRELATED]
    )
    assert treatment >= 0.5  # it answers the question
    assert unrelated < 0.1
    # on topic but another question type, and the right question type on another condition:
    # both below the sentence that answers
    assert treatment > symptoms and treatment > cancer
    assert judge.pair_scores([QUESTION], [TREATMENT]) == [treatment]  # batch-independent


def test_the_shipped_judge_says_how_it_was_trained() -> None:
    training = json.loads((RELEVANCE_DIR / "training.json").read_text())
    assert training["kind"] == "relevance" and training["mode"] == "full"
    assert training["seconds"] > 0 and "MedQuAD" in training["licences"]["medquad"]
    # trained on MedQuAD only: its held-out foci and every MEDIQA set stay unseen
    assert "held-out tenth" in training["held_out"]
    assert "no MEDIQA 2019 data" in training["held_out"]
    size = sum(p.stat().st_size for p in RELEVANCE_DIR.glob("*.safetensors"))
    assert size < 50 * 2**20
