"""Heterogeneity arithmetic for M-Eval: DerSimonian–Laird random effects and M(c).

Pure functions, no models. M-Eval (Sun et al. 2025, formulas 2-4) treats each article's
stance on a claim as a study's effect y_i in {+1, 0, -1} and asks how much the articles
agree:

- fixed-effect weights w_i = 1 / v_i, pooled mean  ȳ = Σ w_i y_i / Σ w_i
- Cochran's Q = Σ w_i (y_i - ȳ)²,  df = k - 1
- C = Σ w_i - Σ w_i² / Σ w_i
- τ²_DL = max(0, (Q - df) / C)           (between-article variance)
- I² = max(0, (Q - df) / Q)              (share of variation that is heterogeneity)
- random-effects weights w*_i = 1 / (v_i + τ²), mean μ = Σ w*_i y_i / Σ w*_i,
  standard error sqrt(1 / Σ w*_i)
- M(c) = Σ y_i r_i over the given and the extra evidence (formula 4).

Articles do not report sampling variances, so M-Eval sets them constant; **our mapping**
(the paper leaves it open) ties the variance to reliability instead: v_i = 1 / r_i for
reliability r_i > 0, so a systematic review (r ≈ 7) counts seven times a level-1 source in
the pooled mean, consistently with M(c), which weights stances by r_i. With equal
reliabilities it reduces to the paper's constant variance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from veriloop.errors import InvalidInputError


@dataclass(frozen=True)
class DLResult:
    """The DerSimonian–Laird statistics of one claim's evidence."""

    k: int
    fixed_mean: float
    q: float
    df: int
    c: float
    tau2: float
    i2: float
    """In [0, 1]; 0 when Q <= df (no heterogeneity beyond chance) or Q is 0."""
    random_mean: float
    random_se: float
    random_weights: tuple[float, ...]


def dersimonian_laird(effects: Sequence[float], variances: Sequence[float]) -> DLResult:
    """Return the DerSimonian–Laird random-effects statistics.

    Raises:
        InvalidInputError: No studies, lengths differ, or a variance is not positive.
    """
    if not effects:
        raise InvalidInputError("DerSimonian–Laird needs at least one study")
    if len(effects) != len(variances):
        raise InvalidInputError(
            f"{len(effects)} effects but {len(variances)} variances; give one variance each"
        )
    if any(not v > 0 or math.isinf(v) for v in variances):
        raise InvalidInputError(f"variances must be positive and finite, got {list(variances)}")
    weights = [1.0 / v for v in variances]
    total = sum(weights)
    fixed = sum(w * y for w, y in zip(weights, effects, strict=True)) / total
    q = sum(w * (y - fixed) ** 2 for w, y in zip(weights, effects, strict=True))
    df = len(effects) - 1
    c = total - sum(w * w for w in weights) / total
    tau2 = max(0.0, (q - df) / c) if c > 0 else 0.0
    i2 = max(0.0, (q - df) / q) if q > 0 else 0.0
    random_weights = tuple(1.0 / (v + tau2) for v in variances)
    random_total = sum(random_weights)
    random_mean = sum(w * y for w, y in zip(random_weights, effects, strict=True)) / random_total
    return DLResult(
        k=len(effects),
        fixed_mean=fixed,
        q=q,
        df=df,
        c=c,
        tau2=tau2,
        i2=i2,
        random_mean=random_mean,
        random_se=math.sqrt(1.0 / random_total),
        random_weights=random_weights,
    )


def reliability_variances(reliabilities: Sequence[float]) -> list[float]:
    """Map reliabilities to sampling variances, v_i = 1 / r_i (our mapping).

    Raises:
        InvalidInputError: A reliability is not positive.
    """
    if any(not r > 0 for r in reliabilities):
        raise InvalidInputError(
            f"reliabilities must be positive to map to variances, got {list(reliabilities)}"
        )
    return [1.0 / r for r in reliabilities]


def weighted_claim_score(stances: Sequence[int], reliabilities: Sequence[float]) -> float:
    """Return M(c) = Σ stance_i · reliability_i (M-Eval formula 4).

    Raises:
        InvalidInputError: Lengths differ, or a stance is not -1, 0 or +1.
    """
    if len(stances) != len(reliabilities):
        raise InvalidInputError(
            f"{len(stances)} stances but {len(reliabilities)} reliabilities; give one each"
        )
    if any(s not in (-1, 0, 1) for s in stances):
        raise InvalidInputError(f"stances must be -1, 0 or +1, got {list(stances)}")
    return float(sum(s * r for s, r in zip(stances, reliabilities, strict=True)))
