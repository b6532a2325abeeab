"""The bundled linear classifiers' files: written by the trainers, read at run time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veriloop.errors import InvalidInputError
from veriloop.nodes.linear_weights import LinearWeights, probabilities, write_weights


def test_weights_written_by_a_trainer_read_back_and_score(tmp_path: Path) -> None:
    coef = np.array([[2.0, 0.0], [0.0, 2.0]])
    notes = {"classes": ["a", "b"], "encoder": "mini", "thresholds": {"a": [0.4, 0.2]}}
    write_weights(tmp_path / "clf", coef, np.zeros(2), notes)
    read = LinearWeights.read(tmp_path / "clf", "test", "train.py")
    assert read.classes == ("a", "b") and read.encoder == "mini" and read.notes == notes
    assert read.coef.dtype == np.float32
    rows = probabilities(np.array([[1.0, 0.0], [0.0, 0.0]]), read.coef, read.intercept)
    assert rows[0, 0] == pytest.approx(1 / (1 + np.exp(-2.0))) and rows[1].tolist() == [0.5, 0.5]


def test_a_folder_without_a_classifier_says_how_to_train_one(tmp_path: Path) -> None:
    with pytest.raises(
        InvalidInputError,
        match="no unit-type classifier .*train one with benchmarks/train_unit_type.py",
    ):
        LinearWeights.read(tmp_path, "unit-type", "benchmarks/train_unit_type.py")
