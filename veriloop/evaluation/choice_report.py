"""Report for multiple-choice runs (TruthfulQA MC, MedQA, CommonsenseQA): refusal-aware.

Per run, from the stored records (no model is needed):
- coverage (answered / items), accuracy on answered items, overall accuracy (a refusal or
  an unusable reply counts as wrong), hard and soft refusal counts, failed items;
- TruthfulQA: "true pick" (the chosen option is one of the true ones, since the option list
  merges the MC1 and MC2 sets), standard MC1 from option log-probs (the best-scored MC1
  option is the best answer), standard MC2 (normalised probability mass on true options),
  on answered items and overall (an item without scores counts 0);
- cost per item; a paired bootstrap interval of overall accuracy against each baseline;
- plots: the risk-coverage curve (items ordered by the method's own confidence: for L2R
  the hard-gate margin -min d/(c+eps), otherwise the chosen option's probability among the
  scored options) and a stacked bar of answered-right / answered-wrong / refused / failed.

- the reference's per-option MC2 (share of options the model judged correctly true or
  false), for runs whose outputs carry `option_judgements` (L2R with `judge_options`).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from veriloop.evaluation.metrics import mc1, mc2, mc2_per_option, mean, risk_coverage
from veriloop.evaluation.tables import bootstrap_interval, format_number, format_percent

pct = format_percent
num = format_number


def _confidence(record: dict[str, Any]) -> float | None:
    for candidate in (record.get("trace") or {}).get("candidates", []):
        margin = candidate["scores"].get("min_d_over_c")
        if candidate["stage"] == "retrieval" and margin is not None:
            return -float(margin)
    scores = record.get("option_scores")
    choice = record.get("choice")
    if scores and choice in scores:
        top = max(scores.values())
        total = sum(math.exp(v - top) for v in scores.values())
        return math.exp(scores[choice] - top) / total
    return None


def choice_metrics(record: dict[str, Any]) -> dict[str, Any]:
    """Return one record's multiple-choice metrics."""
    choice = record.get("choice")
    answered = choice is not None
    refusal = (record.get("refusal") or {}).get("kind")
    metrics: dict[str, Any] = {
        "answered": answered,
        "correct": answered and choice == record.get("gold"),
        "hard_refusal": refusal == "hard",
        "soft_refusal": refusal == "soft",
        "failed": bool(record.get("error")) or (not answered and refusal is None),
        "confidence": _confidence(record),
        "true_pick": None,
        "mc1_logprob": None,
        "mc2": None,
        "mc2_per_option": None,
    }
    true_labels = record.get("mc2_correct")
    scores = record.get("option_scores")
    if true_labels is not None:
        metrics["true_pick"] = answered and choice in true_labels
        if scores:
            labels = list(scores)
            mc1_labels = [
                label for label in labels if label in (record.get("mc1_options") or labels)
            ]
            metrics["mc1_logprob"] = mc1(
                [scores[label] for label in mc1_labels],
                [label == record.get("gold") for label in mc1_labels],
            )
            metrics["mc2"] = mc2(
                [scores[label] for label in labels], [label in true_labels for label in labels]
            )
    judgements = (record.get("outputs") or {}).get("option_judgements")
    if true_labels is not None and judgements:
        labels = list(record.get("options") or judgements)
        metrics["mc2_per_option"] = mc2_per_option(
            [bool(judgements.get(label)) for label in labels],
            [label in true_labels for label in labels],
        )
    usage = (record.get("trace") or {}).get("usage") or {}
    metrics.update(
        calls=usage.get("calls"),
        tokens_in=usage.get("tokens_in"),
        tokens_out=usage.get("tokens_out"),
        model_seconds=usage.get("model_seconds"),
    )
    return metrics


def summarise_choices(per_item: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate one run's per-item metrics."""
    total = len(per_item)
    answered = [m for m in per_item if m["answered"]]
    right = sum(m["correct"] for m in per_item)
    tqa = [m for m in per_item if m["true_pick"] is not None]
    with_mc2 = [m for m in per_item if m["mc2"] is not None]
    return {
        "items": total,
        "answered": len(answered),
        "coverage": len(answered) / total if total else None,
        "accuracy_on_answered": right / len(answered) if answered else None,
        "overall_accuracy": right / total if total else None,
        "hard_refusals": sum(m["hard_refusal"] for m in per_item),
        "soft_refusals": sum(m["soft_refusal"] for m in per_item),
        "failed": sum(m["failed"] for m in per_item),
        "true_pick_overall": (sum(bool(m["true_pick"]) for m in tqa) / len(tqa)) if tqa else None,
        "mc1_logprob_scored": mean(m["mc1_logprob"] for m in with_mc2),
        "mc2_scored": mean(m["mc2"] for m in with_mc2),
        "mc2_overall": (sum(m["mc2"] for m in with_mc2) / len(tqa)) if tqa else None,
        "scored_items": len(with_mc2),
        "mc2_per_option": mean(m["mc2_per_option"] for m in per_item),
        "judged_items": sum(m["mc2_per_option"] is not None for m in per_item),
        "calls": mean(m["calls"] for m in per_item),
        "tokens_in": mean(m["tokens_in"] for m in per_item),
        "tokens_out": mean(m["tokens_out"] for m in per_item),
        "model_seconds": mean(m["model_seconds"] for m in per_item),
    }


def write_choice_plots(
    run_dir: Path, per_run: dict[str, list[dict[str, Any]]], summaries: dict[str, dict[str, Any]]
) -> list[str]:
    """Draw the risk-coverage curves and the outcome bars; return the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6.5, 4.5))
    for name, items in per_run.items():
        ranked = [m for m in items if m["answered"] and m["confidence"] is not None]
        if not ranked:
            continue
        points = risk_coverage([m["confidence"] for m in ranked], [m["correct"] for m in ranked])
        scale = len(ranked) / len(items)
        axis.plot([c * scale for c, _ in points], [r for _, r in points], label=name)
    axis.set_xlabel("coverage (share of all items answered)")
    axis.set_ylabel("risk (error rate among answered)")
    axis.set_xlim(0, 1)
    axis.set_ylim(0, 1)
    axis.set_title("Risk-coverage, most confident answers first")
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(run_dir / "risk_coverage.png", dpi=110)
    plt.close(figure)

    names = list(summaries)
    right = [sum(m["correct"] for m in per_run[n]) for n in names]
    wrong = [summaries[n]["answered"] - r for n, r in zip(names, right, strict=True)]
    refused = [summaries[n]["hard_refusals"] + summaries[n]["soft_refusals"] for n in names]
    failed = [summaries[n]["failed"] for n in names]
    figure, axis = plt.subplots(figsize=(7, 4))
    bottom = [0] * len(names)
    for values, label, colour in (
        (right, "answered right", "tab:green"),
        (wrong, "answered wrong", "tab:red"),
        (refused, "refused", "tab:gray"),
        (failed, "failed", "black"),
    ):
        axis.bar(names, values, bottom=bottom, label=label, color=colour)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    axis.tick_params(axis="x", rotation=20, labelsize=8)
    axis.set_ylabel("items")
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(run_dir / "outcomes.png", dpi=110)
    plt.close(figure)
    return ["risk_coverage.png", "outcomes.png"]


def write_choice_report(
    run_dir: Path, manifest: dict[str, Any], records: list[dict[str, Any]]
) -> Path:
    """Write report.md, summary.json and plots for a multiple-choice run directory."""
    per_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_key: dict[str, dict[str, Any]] = {}
    roles: dict[str, str] = {}
    models: dict[str, str] = {}
    for record in records:
        metrics = choice_metrics(record)
        per_run[record["run"]].append(metrics)
        by_key[f"{record['run']}\x00{record['item_id']}"] = metrics
        roles[record["run"]] = record.get("role", "method")
        models = models or ((record.get("trace") or {}).get("settings") or {}).get("models", {})
    summaries = {name: summarise_choices(items) for name, items in per_run.items()}
    is_truthfulqa = any(s["true_pick_overall"] is not None for s in summaries.values())
    lines = [
        f"# Benchmark report: {manifest.get('dataset', '?')} "
        f"({manifest.get('split') or 'default'} split, {len({r['item_id'] for r in records})} "
        "items, multiple choice)",
        "",
        f"Command: `{manifest.get('command', '?')}`  ",
        f"Models: {', '.join(f'{k}: {v}' for k, v in models.items())}  ",
        f"Settings: {json.dumps(manifest.get('settings', {}))}",
        "",
        "## Coverage and accuracy",
        "",
        "| run | items | coverage % | acc. on answered % | overall acc. % | hard / soft "
        "refusals | failed | calls / item | tokens in / out per item | model s / item |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summaries.items():
        lines.append(
            f"| {name} | {s['items']} | {pct(s['coverage'])} | "
            f"{pct(s['accuracy_on_answered'])} | {pct(s['overall_accuracy'])} | "
            f"{s['hard_refusals']} / {s['soft_refusals']} | {s['failed']} | "
            f"{num(s['calls'], 1)} | {num(s['tokens_in'], 0)} / {num(s['tokens_out'], 0)} | "
            f"{num(s['model_seconds'], 2)} |"
        )
    if is_truthfulqa:
        lines += [
            "",
            "## TruthfulQA scores",
            "",
            "Accuracy above is MC1-style (the chosen option is the single best answer). "
            "'True pick' counts any true option. MC1 / MC2 (log-prob) are the standard "
            "scores from each option's total log-prob under the run's final prompt, on the "
            "items that were scored (answered items for refusing methods); 'MC2 overall' "
            "counts an unscored (refused) item as 0. 'MC2 per-option' is the L2R "
            "reference's variant: the share of options the model judged correctly true or "
            "false (runs with judge_options, on the items it judged).",
            "",
            "| run | true pick % (overall) | MC1 log-prob % (scored) | MC2 % (scored) | "
            "MC2 % overall | scored items | MC2 per-option % | judged items |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, s in summaries.items():
            lines.append(
                f"| {name} | {pct(s['true_pick_overall'])} | {pct(s['mc1_logprob_scored'])} | "
                f"{pct(s['mc2_scored'])} | {pct(s['mc2_overall'])} | {s['scored_items']} | "
                f"{pct(s['mc2_per_option'])} | {s['judged_items']} |"
            )
    baselines = [n for n in summaries if roles[n] == "baseline"]
    comparisons = []
    for method_run in [n for n in summaries if roles[n] != "baseline"]:
        for baseline_run in baselines:
            items = {k.split("\x00", 1)[1] for k in by_key if k.startswith(method_run + "\x00")}
            differences = [
                float(by_key[f"{method_run}\x00{i}"]["correct"])
                - float(by_key[f"{baseline_run}\x00{i}"]["correct"])
                for i in sorted(items)
                if f"{baseline_run}\x00{i}" in by_key
            ]
            if differences:
                low, high = bootstrap_interval(differences)
                comparisons.append((method_run, baseline_run, differences, low, high))
    if comparisons:
        lines += [
            "",
            "## Overall accuracy, item by item (refusals count wrong)",
            "",
            "| method minus baseline | items | difference (points) | 95% bootstrap CI | "
            "wins / ties / losses |",
            "|---|---|---|---|---|",
        ]
        for method_run, baseline_run, diffs, low, high in comparisons:
            verdict = " (better)" if low > 0 else " (worse)" if high < 0 else ""
            lines.append(
                f"| {method_run} − {baseline_run} | {len(diffs)} | "
                f"{100 * sum(diffs) / len(diffs):+.1f} | [{100 * low:+.1f}, {100 * high:+.1f}]"
                f"{verdict} | {sum(d > 0 for d in diffs)} / {sum(d == 0 for d in diffs)} / "
                f"{sum(d < 0 for d in diffs)} |"
            )
    lines += ["", "## Plots", ""]
    for file in write_choice_plots(run_dir, per_run, summaries):
        lines.append(f"![{file}]({file})")
    (run_dir / "summary.json").write_text(json.dumps({"summaries": summaries}, indent=2) + "\n")
    report = run_dir / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report
