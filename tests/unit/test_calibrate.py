import pytest

from veriloop.evaluation.calibrate import first_attempt_scores, markdown, propose, quantile


def test_quantile_hand_cases():
    assert quantile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert quantile([1.0, 2.0, 3.0, 4.0], 0.5) == pytest.approx(2.5)
    assert quantile([1.0, 2.0, 3.0, 4.0], 0.25) == pytest.approx(1.75)
    assert quantile([5.0], 0.9) == 5.0
    with pytest.raises(ValueError):
        quantile([], 0.5)
    with pytest.raises(ValueError):
        quantile([1.0], 1.5)


def cand(stage, round_index, iteration, **scores):
    return {"stage": stage, "round": round_index, "iteration": iteration, "scores": scores}


def test_only_first_attempts_of_the_first_round_count():
    trace = {
        "candidates": [
            cand("knowledge", 0, 0, factuality=-1.5),
            cand("knowledge", 0, 1, factuality=-0.5),
            cand("answer", 0, 0, consistency=-2.0),
            cand("round", 0, 0, entailment=0.7),
            cand("knowledge", 1, 0, factuality=-9.0),
            cand("answer", 0, 1, consistency=None),
        ]
    }
    scores = first_attempt_scores([{"trace": trace}, {"trace": None}])
    assert scores == {"factuality": [-1.5], "consistency": [-2.0], "entailment": [0.7]}


def test_propose_reports_pass_rates_of_default_and_calibrated():
    scores = {"factuality": [-2.0, -1.5, -1.0, -0.5], "consistency": [], "entailment": [0.5, 0.9]}
    proposals = propose(scores, 0.5)
    fact = proposals["factuality"]
    assert fact["calibrated"] == pytest.approx(-1.25)
    assert fact["default_pass_rate"] == 0.5  # -1.0 and -0.5 pass the paper's -1.0
    assert fact["calibrated_pass_rate"] == 0.5
    assert "consistency" not in proposals  # no data, no proposal
    assert proposals["entailment"]["default_pass_rate"] == 0.5
    text = markdown(proposals, q=0.5, header="# t")
    assert "--set threshold_factuality=-1.25" in text
