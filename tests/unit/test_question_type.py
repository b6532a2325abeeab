"""The question-type classifier's arithmetic and cue test, on a hand-built classifier."""

from __future__ import annotations

import numpy as np
import pytest

from veriloop.errors import InvalidInputError
from veriloop.nodes.question_type import QuestionTypeClassifier, question_types


def toy() -> QuestionTypeClassifier:
    return QuestionTypeClassifier(
        classes=("information", "treatment"),
        coef=np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32),
        intercept=np.zeros(2, dtype=np.float32),
        cues={"treatment": frozenset({"treat", "therapi"})},
        encoder="toy",
    )


def test_probabilities_are_a_softmax_of_the_linear_scores() -> None:
    probs = toy().probabilities(np.array([[2.0, 0.0], [0.0, 0.0]]))
    assert probs[0, 0] == pytest.approx(np.exp(2) / (np.exp(2) + 1))
    assert probs[1].tolist() == pytest.approx([0.5, 0.5])
    best = toy().classify(np.array([0.0, 3.0]))
    assert [t.qtype for t in best] == ["treatment", "information"]
    assert best[0].probability == pytest.approx(np.exp(3) / (np.exp(3) + 1), abs=1e-6)


def test_a_sentence_is_about_a_type_when_it_holds_one_of_its_cue_stems() -> None:
    classifier = toy()
    assert classifier.mentions("treatment", "It is treated with light therapy.")
    assert not classifier.mentions("treatment", "It affects one in 2,000 people.")
    assert not classifier.mentions("symptoms", "It is treated with light therapy.")


def test_a_missing_classifier_says_how_to_train_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError, match="train_question_type.py"):
        QuestionTypeClassifier.load(tmp_path)


def test_the_bundled_classifier_has_every_medquad_type_and_cues_for_each() -> None:
    bundled = question_types()
    assert len(bundled.classes) == 15 and "exams and tests" in bundled.classes
    assert bundled.coef.shape == (15, 384)
    assert {"diagnos", "test"} <= bundled.cues["exams and tests"]
    assert "treatment" in bundled.cues and bundled.cues["treatment"]
