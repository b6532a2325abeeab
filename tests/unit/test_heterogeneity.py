"""DerSimonian–Laird and M(c): a worked example by hand, cross-checked with statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from veriloop.errors import InvalidInputError
from veriloop.nodes.m_eval.heterogeneity import (
    dersimonian_laird,
    reliability_variances,
    weighted_claim_score,
)


def test_worked_example_by_hand() -> None:
    # stances y = (+1, +1, -1), variances v = (1, 0.5, 1) -> weights w = (1, 2, 1)
    result = dersimonian_laird([1, 1, -1], [1, 0.5, 1])
    assert result.fixed_mean == pytest.approx(0.5)  # (1 + 2 - 1) / 4
    assert result.q == pytest.approx(3.0)  # 1(0.5)² + 2(0.5)² + 1(1.5)²
    assert result.df == 2
    assert result.c == pytest.approx(2.5)  # 4 - (1 + 4 + 1) / 4
    assert result.tau2 == pytest.approx(0.4)  # (3 - 2) / 2.5
    assert result.i2 == pytest.approx(1 / 3)  # (3 - 2) / 3
    # w* = 1 / (v + 0.4) = (1/1.4, 1/0.9, 1/1.4); mu = (1/0.9) / (2/1.4 + 1/0.9)
    assert result.random_mean == pytest.approx((1 / 0.9) / (2 / 1.4 + 1 / 0.9))
    assert result.random_mean == pytest.approx(0.4375)
    assert result.random_se == pytest.approx(math.sqrt(1 / (2 / 1.4 + 1 / 0.9)))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # statsmodels divides by Q = 0
def test_agrees_with_statsmodels_on_random_cases() -> None:
    meta = pytest.importorskip("statsmodels.stats.meta_analysis")
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = int(rng.integers(2, 10))
        effects = rng.choice([-1.0, 0.0, 1.0], size=k)
        variances = 1.0 / rng.uniform(1.0, 8.0, size=k)
        ours = dersimonian_laird(list(effects), list(variances))
        theirs = meta.combine_effects(effects, variances, method_re="dl")
        assert ours.q == pytest.approx(theirs.q)
        assert ours.fixed_mean == pytest.approx(theirs.mean_effect_fe)
        assert ours.i2 == pytest.approx(max(0.0, theirs.i2))
        if theirs.tau2 >= 0:
            assert ours.tau2 == pytest.approx(theirs.tau2)
            assert ours.random_mean == pytest.approx(theirs.mean_effect_re)
        else:  # statsmodels leaves a negative moment estimate; DL truncates it at 0
            assert ours.tau2 == 0 and ours.random_mean == pytest.approx(ours.fixed_mean)


def test_agreement_means_no_heterogeneity() -> None:
    result = dersimonian_laird([1, 1, 1], [1, 1, 1])
    assert result.q == 0 and result.tau2 == 0 and result.i2 == 0 and result.random_mean == 1
    single = dersimonian_laird([-1], [0.5])
    assert single.df == 0 and single.tau2 == 0 and single.random_mean == -1


def test_reliability_mapping_and_claim_score() -> None:
    assert reliability_variances([7, 1, 0.5]) == pytest.approx([1 / 7, 1.0, 2.0])
    assert weighted_claim_score([1, -1, 0], [7.0, 6.5, 3.0]) == pytest.approx(0.5)
    with pytest.raises(InvalidInputError, match="stances must be -1, 0 or \\+1"):
        weighted_claim_score([2], [1.0])
    with pytest.raises(InvalidInputError, match="reliabilities must be positive"):
        reliability_variances([0.0])


def test_bad_inputs_say_what_is_wrong() -> None:
    with pytest.raises(InvalidInputError, match="at least one study"):
        dersimonian_laird([], [])
    with pytest.raises(InvalidInputError, match="2 effects but 1 variances"):
        dersimonian_laird([1, 1], [1])
    with pytest.raises(InvalidInputError, match="positive and finite"):
        dersimonian_laird([1, 1], [1, 0])
