"""Calibration: a logistic map from a judge's raw score to P(supported), fitted and shipped."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from veriloop.errors import InvalidInputError

Feature = Literal["mean_gain", "min_gain", "conditional"]
CALIBRATION_DIR = Path(__file__).resolve().parents[1] / "data"
"""Where the shipped calibrations and judge weights live (nodes/data)."""


def sigmoid(z: float) -> float:
    """Return the logistic function of `z`, without overflow for any finite `z`."""
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass(frozen=True)
class Calibration:
    """A logistic map from a judge's raw score to P(supported), and where it was fitted."""

    slope: float
    intercept: float
    feature: Feature = "mean_gain"
    scorer: str = ""
    fitted_on: str = ""
    pairs: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def probability(self, value: float) -> float:
        """Return sigmoid(slope * value + intercept)."""
        return sigmoid(self.slope * value + self.intercept)

    def to_json(self) -> dict[str, Any]:
        """Return the calibration as a JSON object."""
        return {
            "slope": self.slope,
            "intercept": self.intercept,
            "feature": self.feature,
            "scorer": self.scorer,
            "fitted_on": self.fitted_on,
            "pairs": self.pairs,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        """Read a calibration written by `to_json`."""
        known = {"slope", "intercept", "feature", "scorer", "fitted_on", "pairs"}
        return cls(
            slope=float(data["slope"]),
            intercept=float(data["intercept"]),
            feature=data.get("feature", "mean_gain"),
            scorer=str(data.get("scorer", "")),
            fitted_on=str(data.get("fitted_on", "")),
            pairs=int(data.get("pairs", 0)),
            extra={k: v for k, v in data.items() if k not in known},
        )


def fit_calibration(
    values: Sequence[float], supported: Sequence[bool], **about: Any
) -> Calibration:
    """Fit P(supported) = sigmoid(a * value + b) by logistic regression (Platt scaling).

    Args:
        values: The judge's raw scores on training pairs.
        supported: Whether each training claim is supported.
        **about: `feature`, `scorer`, `fitted_on`, `pairs` and any extra notes to record.

    Raises:
        InvalidInputError: Fewer than two pairs, or only one class.
    """
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    if len(values) < 2 or len(set(supported)) < 2:
        raise InvalidInputError("calibration needs supported and unsupported training pairs")
    model = LogisticRegression(C=1e4)
    model.fit(np.asarray(values, dtype=float).reshape(-1, 1), np.asarray(supported, dtype=int))
    return Calibration(
        slope=float(model.coef_[0][0]),
        intercept=float(model.intercept_[0]),
        pairs=int(about.pop("pairs", len(values))),
        feature=about.pop("feature", "mean_gain"),
        scorer=str(about.pop("scorer", "")),
        fitted_on=str(about.pop("fitted_on", "")),
        extra=about,
    )


def calibration_file(judge: str, scorer: str, feature: str = "") -> Path:
    """Return where the shipped calibration of `judge` on `scorer` lives.

    Args:
        judge: The judge's kind, e.g. `likelihood`.
        scorer: The scorer model's name.
        feature: A variant's own calibration (e.g. `mean_gain`); empty: the judge's default,
            whose file names the feature it decides on.
    """
    slug = "".join(ch if ch.isalnum() else "_" for ch in scorer.lower()).strip("_")
    variant = f"{feature}_" if feature else ""
    return CALIBRATION_DIR / f"support_{judge}_{variant}{slug}.json"


def load_calibration(judge: str, scorer: str, feature: str = "") -> Calibration | None:
    """Return the shipped calibration of `judge` on `scorer`, or None if none was fitted.

    With `feature`, the variant's own file, else the default one if it is of that feature.
    """
    path = calibration_file(judge, scorer, feature)
    if path.exists():
        return Calibration.from_json(json.loads(path.read_text()))
    if feature:
        default = load_calibration(judge, scorer)
        return default if default is not None and default.feature == feature else None
    return None
