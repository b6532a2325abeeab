import math

import pytest

from veriloop.models.fakes import fake_models
from veriloop.nodes import scorers


def test_weighted_mean_hand_cases():
    assert scorers.weighted_mean([-1.0, -3.0], [0.5, 0.5]) == pytest.approx(-2.0)
    assert scorers.weighted_mean([-1.0, -3.0], [1.0, 3.0]) == pytest.approx(-2.5)
    with pytest.raises(ValueError):
        scorers.weighted_mean([-1.0], [0.5, 0.5])
    with pytest.raises(ValueError):
        scorers.weighted_mean([-1.0, -2.0], [0.0, 0.0])


def test_cosine_hand_cases():
    assert scorers.cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert scorers.cosine([1, 0], [0, 1]) == pytest.approx(0.0)
    assert scorers.cosine([1, 1], [1, 0]) == pytest.approx(1 / math.sqrt(2))
    assert scorers.cosine([0, 0], [1, 0]) == 0.0


def test_factuality_scores_knowledge_after_the_demonstration_prompt():
    models = fake_models([], score_rule=lambda prompt, target: -1.25)
    outcome = scorers.factuality(models, "Is X inherited?", "X is inherited.", demo_count=2)
    assert outcome.value == pytest.approx(-1.25)
    prompt, target = models.scorer.calls[0]  # type: ignore[attr-defined]
    assert target == "X is inherited."
    assert prompt.endswith("Question: Is X inherited?\nKnowledge: ")
    assert prompt.count("Question:") == 3  # two demonstrations + the question
    assert prompt.startswith("Based on Question, please generate the factual knowledge.")


def test_consistency_averages_both_infilling_directions():
    def rule(prompt: str, target: str) -> float:
        return -1.0 if target == "the answer" else -3.0

    models = fake_models([], score_rule=rule)
    outcome = scorers.consistency(models, "the knowledge", "the answer")
    assert outcome.value == pytest.approx(-2.0)
    weighted = scorers.consistency(models, "the knowledge", "the answer", weights=[3.0, 1.0])
    assert weighted.value == pytest.approx(-1.5)
    (forward_prompt, forward_target), (backward_prompt, backward_target) = models.scorer.calls[:2]  # type: ignore[attr-defined]
    assert "the knowledge" in forward_prompt and forward_target == "the answer"
    assert "the answer" in backward_prompt and backward_target == "the knowledge"
    assert len(outcome.calls) == 2


def test_scorer_failure_is_a_recorded_none_not_nan():
    models = fake_models([], score_rule=lambda prompt, target: None)
    outcome = scorers.consistency(models, "k", "a")
    assert outcome.value is None
    assert "could not be scored" in (outcome.error or "")


def test_entailment_is_cosine_of_question_and_answer_embeddings():
    models = fake_models([], vectors={"q": [1.0, 0.0], "a": [1.0, 1.0]}, dim=2)
    assert scorers.entailment(models, "q", "a").value == pytest.approx(1 / math.sqrt(2))
    assert scorers.entailment(models, "q", "  ").value is None
