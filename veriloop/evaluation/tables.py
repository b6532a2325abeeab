"""Tables and numbers shared by every report: formatting, keyed metric caches, bootstrap.

One place for how a number is printed ("–" when missing), how per-record metrics are
cached (JSON lines of {"key", "metrics"}) and how two runs are compared item by item.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

PAIRED_METRICS = [
    ("nli_sample", "Med-NLI spl"),
    ("nli_sentence", "Med-NLI sent"),
    ("ref_supported", "Ref-supported %"),
    ("unsupported_claims", "Unsupp. claims"),
    ("contradicted_claims", "Contradicted claims"),
    ("unsupported_per_item", "Unsupp./item (refusal = 0)"),
    ("refused", "Refused %"),
    ("f1", "F1"),
    ("rouge_l", "R-L"),
]
"""Metrics `paired_comparison` compares by default (key, column label)."""
LOWER_IS_BETTER = {"unsupported_claims", "contradicted_claims", "unsupported_per_item"}
"""Metrics where a negative difference is the improvement."""
NO_DIRECTION = {"refused"}
"""Metrics where neither direction is better in itself (a refusal rate)."""


def difference_verdict(key: str, low: float, high: float) -> str:
    """Say whether an interval excluding zero is better, worse, or just higher/lower."""
    if low <= 0 <= high:
        return ""
    higher = low > 0
    if key in NO_DIRECTION:
        return " (higher)" if higher else " (lower)"
    return " (better)" if higher != (key in LOWER_IS_BETTER) else " (worse)"


def format_percent(value: float | None, *, sign: bool = False) -> str:
    """Format a share in [0, 1] as a percentage with one decimal ("–" when missing)."""
    return "–" if value is None else f"{100 * value:.1f}" + ("%" if sign else "")


def read_keyed_metrics(path: Path) -> dict[str, dict[str, Any]]:
    """Read a metrics cache file (JSON lines of {"key", "metrics"}); {} when it is absent."""
    cache: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                cache[entry["key"]] = entry["metrics"]
    return cache


def append_keyed_metrics(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    """Append {key: metrics} entries to a metrics cache file."""
    if entries:
        with path.open("a", encoding="utf-8") as handle:
            for key, metrics in entries.items():
                handle.write(json.dumps({"key": key, "metrics": metrics}) + "\n")


def format_number(value: float | None, digits: int) -> str:
    """Format a metric for a table ("–" when it is missing)."""
    return "–" if value is None else f"{value:.{digits}f}"


def bootstrap_interval(
    differences: list[float], *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Return a seeded percentile-bootstrap 95% interval of the mean difference."""
    values = np.asarray(differences, dtype=float)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def paired_comparison(
    per_record: dict[str, dict[str, Any]],
    method: str,
    baseline: str,
    metrics: list[tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Compare two runs item by item on the items both answered.

    `metrics` lists (key in the per-record dicts, label) pairs; default: PAIRED_METRICS.
    Returns, per metric: items compared, mean difference (method - baseline), its
    bootstrap 95% interval, and how many items the method won, tied and lost.
    """
    rows = []
    items = {key.split("\x00", 1)[1] for key in per_record if key.startswith(method + "\x00")}
    for key, label in metrics or PAIRED_METRICS:
        differences = []
        for item in sorted(items):
            a = per_record.get(f"{method}\x00{item}", {}).get(key)
            b = per_record.get(f"{baseline}\x00{item}", {}).get(key)
            if a is not None and b is not None:
                differences.append(float(a) - float(b))
        if not differences:
            continue
        low, high = bootstrap_interval(differences)
        rows.append(
            {
                "key": key,
                "metric": label,
                "items": len(differences),
                "mean_difference": sum(differences) / len(differences),
                "ci_low": low,
                "ci_high": high,
                "wins": sum(d > 0 for d in differences),
                "ties": sum(d == 0 for d in differences),
                "losses": sum(d < 0 for d in differences),
            }
        )
    return rows


def write_summary(run_dir: Path, summary: dict[str, Any]) -> None:
    """Write a study's summary.json (indented, newline-terminated) into its run directory."""
    (Path(run_dir) / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def run_header(title: str, manifest: dict[str, Any]) -> list[str]:
    """Return a study report's first lines: its title, the command and the settings."""
    return [
        f"# {title}",
        "",
        f"Command: `{manifest.get('command')}`  ",
        f"Settings: {json.dumps(manifest.get('settings', {}))}",
        "",
    ]
