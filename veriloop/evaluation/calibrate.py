"""Calibrate Self-Reflection's thresholds to the scorer model in use.

The paper's thresholds (factuality -1.0, consistency -5.0, entailment 0.8) were set on
7B+ models; scores from another model are on another scale. Calibration runs the method
once per item without refinement on a dev split (never the items you report), collects
each scorer's first-attempt distribution, and proposes the threshold at a chosen quantile:
at quantile q, about (1 - q) of first attempts pass and the loop refines the rest. The
report shows each proposal next to the paper default and the share of first attempts the
default would pass on this model.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

PAPER_DEFAULTS = {"factuality": -1.0, "consistency": -5.0, "entailment": 0.8}
SETTING_NAMES = {
    "factuality": "threshold_factuality",
    "consistency": "threshold_consistency",
    "entailment": "threshold_entailment",
}


def first_attempt_scores(records: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Collect first-attempt factuality, consistency and entailment from traces."""
    scores: dict[str, list[float]] = {name: [] for name in PAPER_DEFAULTS}
    wanted = {"knowledge": "factuality", "answer": "consistency", "round": "entailment"}
    for record in records:
        for candidate in (record.get("trace") or {}).get("candidates", []):
            name = wanted.get(candidate["stage"])
            first = candidate["round"] == 0 and (
                candidate["stage"] == "round" or candidate["iteration"] == 0
            )
            value = candidate["scores"].get(name) if name else None
            if name and first and value is not None:
                scores[name].append(float(value))
    return scores


def quantile(values: Sequence[float], q: float) -> float:
    """Return the q-quantile (0..1) with linear interpolation between order statistics."""
    if not values:
        raise ValueError("no values")
    if not 0 <= q <= 1:
        raise ValueError(f"quantile must be within [0, 1], got {q}")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def propose(scores: dict[str, list[float]], q: float) -> dict[str, dict[str, Any]]:
    """Propose a threshold per score, with the distribution it came from."""
    proposals: dict[str, dict[str, Any]] = {}
    for name, values in scores.items():
        if not values:
            continue
        default = PAPER_DEFAULTS[name]
        proposals[name] = {
            "setting": SETTING_NAMES[name],
            "paper_default": default,
            "calibrated": round(quantile(values, q), 4),
            "n": len(values),
            "min": round(min(values), 4),
            "p25": round(quantile(values, 0.25), 4),
            "median": round(statistics.median(values), 4),
            "p75": round(quantile(values, 0.75), 4),
            "max": round(max(values), 4),
            "default_pass_rate": round(sum(v >= default for v in values) / len(values), 4),
            "calibrated_pass_rate": round(
                sum(v >= quantile(values, q) for v in values) / len(values), 4
            ),
        }
    return proposals


def markdown(proposals: dict[str, dict[str, Any]], *, q: float, header: str) -> str:
    """Render the proposals as a Markdown table with the flags to use them."""
    lines = [
        header,
        "",
        f"Thresholds at quantile {q} of each first-attempt score distribution.",
        "",
        "| score | n | min | p25 | median | p75 | max | paper default (passes) | "
        "calibrated (passes) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, p in proposals.items():
        lines.append(
            f"| {name} | {p['n']} | {p['min']} | {p['p25']} | {p['median']} | {p['p75']} | "
            f"{p['max']} | {p['paper_default']} ({p['default_pass_rate']:.0%}) | "
            f"{p['calibrated']} ({p['calibrated_pass_rate']:.0%}) |"
        )
    flags = " ".join(f"--set {p['setting']}={p['calibrated']}" for p in proposals.values())
    lines += ["", f'Use them: `veriloop ask "..." {flags}` (same flags for `veriloop bench`).']
    return "\n".join(lines) + "\n"
