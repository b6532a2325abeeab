"""Draw a run report's PNG plots: metric bars, scores by attempt, and cost per item.

`report.write_report` calls `write_plots` after it has scored the records and links the
files it returns from report.md. matplotlib is imported when the plots are drawn (the Agg
backend: no display needed).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any


def write_plots(
    run_dir: Path,
    summaries: dict[str, dict[str, Any]],
    records: list[dict[str, Any]],
    per_record: dict[str, dict[str, Any]],
) -> list[str]:
    """Draw metric bars per run, score distributions per iteration, and cost per item."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summaries)
    files = []
    figure, axes = plt.subplots(1, 4, figsize=(16, 4))
    for axis, (key, label) in zip(
        axes,
        [
            ("nli_sample", "Med-NLI sample"),
            ("nli_sentence", "Med-NLI sentence"),
            ("f1", "F1"),
            ("rouge_l", "ROUGE-L"),
        ],
        strict=True,
    ):
        values = [summaries[n][key] if summaries[n][key] is not None else 0 for n in names]
        axis.bar(range(len(names)), values, color="tab:blue")
        axis.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
        axis.set_title(label)
    figure.tight_layout()
    figure.savefig(run_dir / "metrics.png", dpi=110)
    plt.close(figure)
    files.append("metrics.png")

    stages = [("knowledge", "factuality"), ("answer", "consistency"), ("round", "entailment")]
    figure, axes = plt.subplots(1, 3, figsize=(15, 4))
    for axis, (stage, score) in zip(axes, stages, strict=True):
        by_step: dict[int, list[float]] = defaultdict(list)
        for record in records:
            for c in (record.get("trace") or {}).get("candidates", []):
                value = c["scores"].get(score)
                if c["stage"] == stage and value is not None:
                    by_step[(c["round"] if stage == "round" else c["iteration"]) + 1].append(value)
        steps = sorted(by_step)
        if steps:
            axis.boxplot([by_step[s] for s in steps], tick_labels=[str(s) for s in steps])
        axis.set_title(f"{score} by {'round' if stage == 'round' else 'attempt'} (all runs)")
        axis.set_xlabel("round" if stage == "round" else "attempt within its loop")
    figure.tight_layout()
    figure.savefig(run_dir / "scores_by_iteration.png", dpi=110)
    plt.close(figure)
    files.append("scores_by_iteration.png")

    figure, axes = plt.subplots(1, 2, figsize=(12, 4))
    for axis, (key, label) in zip(
        axes,
        [("calls", "model calls per item"), ("model_seconds", "model seconds per item")],
        strict=True,
    ):
        data = [
            [
                m[key]
                for k, m in per_record.items()
                if k.split("\x00")[0] == n and m[key] is not None
            ]
            for n in names
        ]
        axis.boxplot(data, tick_labels=names)
        axis.tick_params(axis="x", rotation=30, labelsize=8)
        axis.set_title(label)
    figure.tight_layout()
    figure.savefig(run_dir / "cost_per_item.png", dpi=110)
    plt.close(figure)
    files.append("cost_per_item.png")
    return files
