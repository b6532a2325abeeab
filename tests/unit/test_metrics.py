import math

import numpy as np
import pytest

from veriloop.evaluation import metrics as m
from veriloop.evaluation.items import Item
from veriloop.evaluation.nli import EmbeddingNLI, measure_on_healthver, med_nli
from veriloop.models.fakes import fake_models
from veriloop.text import split_sentences


def test_squad_normalisation_and_f1():
    assert m.normalize_answer("The  Cat, sat!") == "cat sat"
    # prediction "cat sat down" vs gold "the cat sat": overlap 2, P=2/3, R=1 -> F1 = 0.8
    assert m.unigram_f1("cat sat down", ["the cat sat"]) == pytest.approx(0.8)
    assert m.unigram_f1("dog", ["the cat sat", "a dog"]) == pytest.approx(1.0)
    assert m.unigram_f1("", ["x"]) == 0.0


def test_rouge_l_hand_case():
    # LCS("a b c d", "a c d e") = "a c d" (3); P = R = 3/4 -> F = 0.75
    assert m.rouge_l("a b c d", ["a c d e"]) == pytest.approx(0.75)
    assert m.rouge_l("x", []) == 0.0


def test_mc1_and_mc2():
    assert m.mc1([0.1, 0.9, 0.3], [False, True, False]) == 1.0
    assert m.mc1([0.9, 0.1], [False, True]) == 0.0
    # logprobs ln(1), ln(3) -> probabilities 1/4, 3/4; true = second -> 0.75
    assert m.mc2([0.0, math.log(3)], [False, True]) == pytest.approx(0.75)
    assert m.mc2_per_option([True, False, False], [True, True, False]) == pytest.approx(2 / 3)


def test_coverage_and_risk():
    report = m.coverage_report([True, True, False, True], [True, False, True, True])
    assert report == {"coverage": 0.75, "accuracy_on_answered": 2 / 3, "overall_accuracy": 0.5}
    points = m.risk_coverage([0.9, 0.1, 0.5], [True, False, False])
    assert points == [(1 / 3, 0.0), (2 / 3, 0.5), (1.0, 2 / 3)]


def test_detection_report():
    report = m.detection_report([True, True, False, False], [True, False, False, True])
    assert report == {"accuracy": 0.5, "recall": 0.5, "specificity": 0.5}


def test_mean_ignores_missing_and_never_returns_nan():
    assert m.mean([1.0, None, 3.0]) == 2.0
    assert m.mean([None]) is None
    assert m.hallucinations_per_answer([0, 2, 1]) == 1.0


def test_split_sentences():
    assert split_sentences("One. Two?\nThree") == ["One.", "Two?", "Three"]
    # an abbreviation's period ends no sentence
    assert split_sentences("Blockers (i.e. nifedipine) help. Ask Dr. Lee, e.g. today. Go.") == [
        "Blockers (i.e. nifedipine) help.",
        "Ask Dr. Lee, e.g. today.",
        "Go.",
    ]
    assert split_sentences("U.S. Route 51 is long. J. Smith said so.") == [
        "U.S. Route 51 is long.",
        "J. Smith said so.",
    ]
    assert split_sentences("I live in the USA. Fine.") == ["I live in the USA.", "Fine."]


def logistic_head(tmp_path, weight):
    path = tmp_path / "head.npz"
    np.savez(path, weight=np.asarray(weight, dtype=np.float32), bias=np.zeros(3, dtype=np.float32))
    return path


def test_embedding_nli_maps_argmax_to_verdicts(tmp_path):
    # 1-d embeddings give features [u, v, |u-v|, u*v]. This head scores "refutes" by |u-v|
    # and "supports" by u*v: the same vector -> (0, 0, 1) -> supports; the opposite vector
    # -> (2, 0, -1) -> refutes.
    models = fake_models([], vectors={"p": [1.0], "same": [1.0], "opposite": [-1.0]}, dim=1)
    weight = [[0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 1]]  # rows: refutes, neutral, supports
    judge = EmbeddingNLI(models, logistic_head(tmp_path, weight))
    assert judge.judge_pairs(["p", "p"], ["same", "opposite"]) == [1, -1]
    sample, sentence = med_nli(judge, "p", "same")
    assert sample == 1 and sentence == 1.0


def test_measure_on_healthver_counts_against_majority(tmp_path):
    models = fake_models([], vectors={"e": [1.0], "agree": [1.0]}, dim=1)
    judge = EmbeddingNLI(
        models, logistic_head(tmp_path, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]])
    )
    items = [
        Item(id="1", question="agree", documents=["e"], gold="Supports"),
        Item(id="2", question="agree", documents=["e"], gold="Neutral"),
        Item(id="3", question="agree", documents=["e"], gold="Neutral"),
    ]
    result = measure_on_healthver(judge, items, sample=10)
    assert result.pairs == 3
    assert result.accuracy == pytest.approx(1 / 3)
    assert result.majority_baseline == pytest.approx(2 / 3)
    assert result.recall_per_label == {"Neutral": 0.0, "Supports": 1.0}
