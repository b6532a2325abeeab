"""The polarity probes of benchmarks/polarity_probes.py, on scripted scores."""

from __future__ import annotations

import math

import pytest

from benchmarks.polarity_probes import FlipContrastJudge, OnnxPairClassifierJudge
from veriloop.errors import InvalidInputError
from veriloop.evaluation.judge_data.support_sets import perturbed_claim
from veriloop.models.fakes import fake_models
from veriloop.nodes.judges import SupportQuery

CLAIM = "Warfarin does not cause hair loss."


def rule(prompt: str, target: str) -> float:
    """Per-word log-prob: -1 when the evidence's polarity matches the claim's, else -4;
    -2 for every word without evidence (the prior)."""
    if "supports:" not in prompt:
        return -2.0
    return -1.0 if ("never" in prompt) == (" not " in f" {target} ") else -4.0


def test_the_contrast_is_the_evidence_preference_for_the_claim_over_its_flip_minus_the_prior() -> (
    None
):
    assert perturbed_claim(CLAIM) == "Warfarin does cause hair loss."  # 6 words vs 5
    judge = FlipContrastJudge(fake_models([], score_rule=rule))
    query = SupportQuery(CLAIM, ["Hair loss is common with warfarin.", "Warfarin never causes it."])
    [verdict], calls = judge.judge([query])
    # refuting text: (-4*6 - -1*5) = -19; supporting text: (-1*6 - -4*5) = 14; the prior
    # prefers the shorter flip: -2*6 - -2*5 = -2, so the contrasts are -17 and 16
    assert verdict["evidence_index"] == 1
    assert verdict["scores"] == {"contrast": 16.0, "prior_contrast": -2.0}
    assert verdict["probability"] == pytest.approx(1 / (1 + math.exp(-16)), abs=1e-6)
    assert len(calls) == 6  # claim and flip: without evidence, then with each text


def test_refuting_evidence_gives_a_low_probability_and_no_rule_is_unusable() -> None:
    judge = FlipContrastJudge(fake_models([], score_rule=rule))
    refuted, no_rule = judge.judge(
        [
            SupportQuery(CLAIM, ["Hair loss is common with warfarin."]),
            SupportQuery("Paris.", ["Paris is the capital of France."], "Capital of France?"),
        ]
    )[0]
    assert refuted["probability"] is not None and refuted["probability"] < 1e-6
    assert no_rule["probability"] is None
    assert no_rule["error"] == "no flip rule applies to the claim"


def test_the_onnx_probe_refuses_a_folder_without_a_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "tokenizer.json").write_text("{}")  # a tokenizer, but no *.onnx model
    with pytest.raises(InvalidInputError, match=r"must hold one \*\.onnx model.*found 0 models"):
        OnnxPairClassifierJudge(tmp_path)
