"""Calibrate and measure the claim-support judges on held-out pairs.

    # fit the likelihood judge's calibration on HaluEval QA training items
    .venv/bin/python benchmarks/support_judges.py calibrate --items 60
    # judge held-out pairs (resumable), then write docs/benchmarks/support_judges.{md,json}
    .venv/bin/python benchmarks/support_judges.py measure --judges head,cross_encoder \
        --sets halueval,healthver_sr,citation,pubmedqa_swap --max-items 300
    .venv/bin/python benchmarks/support_judges.py report

Judges: `head` (MiniLM pair-feature MLP head), `yesno` (SmolLM2 P(Yes)), `likelihood`
(SmolLM2 evidence-likelihood gain, calibrated), `cross_encoder` (the trained MiniLM
cross-encoder). Sets: see `veriloop.evaluation.judge_data.support_sets`.

Every `--judges` form is built by `support_judge_builders.make_judge` (trained judges from
a folder, the polarity probes, question policies); the notes `report` writes below its
tables are `support_judge_notes.NOTES`.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

if not __package__:  # run as a script (the documented way): let `benchmarks.` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.support_judge_builders import FEATURES, judge_identity, make_judge
from benchmarks.support_judge_notes import NOTES
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.evaluation.judge_data.nli_sets import all_held_out_sets
from veriloop.evaluation.judge_data.support_sets import halueval_pairs
from veriloop.evaluation.support_measure import (
    auroc,
    compact_records,
    markdown_table,
    measure,
    paired_against,
    read_records,
    sample_by_item,
    summarise,
)
from veriloop.models import get_models
from veriloop.nodes.judges import LikelihoodJudge, calibration_file, fit_calibration

OUT = Path("docs/benchmarks")
ROOT = Path(__file__).resolve().parents[1]
RECORDS = OUT / "support_judges.jsonl"


HEALTHVER_TEST = ("healthver_sr", "healthver_rest")
V1_JUDGES = ("cross_encoder_v1", "gated_v1")  # the only trained judges HealthVer never saw


def trained_on(judge: str, set_name: str) -> bool:
    """Return whether `judge` was trained on the pairs of `set_name`.

    HealthVer test trained the MLP head and every cross-encoder since v1 (v2's fine-tuning
    stages, v3's, and `gated`, which wraps the shipped one); every other set is held out
    from every judge.
    """
    trained = judge == "head" or (
        judge.startswith(("cross_encoder", "gated", "three_way")) and judge not in V1_JUDGES
    )
    return set_name in HEALTHVER_TEST and trained


def calibrate(args: argparse.Namespace) -> None:
    """Fit the likelihood judge's logistic calibration on HaluEval QA training items.

    Prints each feature's AUROC on the training pairs (the place to choose a feature:
    never the held-out sets), then writes the calibration of `--feature` to its variant
    file, and to the default file too with `--default`.
    """
    models = get_models(ModelSettings(cache_dir=args.cache_dir))
    pairs = sample_by_item(halueval_pairs(args.data_root / "halueval", "train"), args.items)
    judge = LikelihoodJudge(models, calibration=None, feature=args.feature)
    values: dict[str, list[float]] = {feature: [] for feature in FEATURES}
    labels = []
    for pair in tqdm(pairs, desc="scoring training pairs"):
        [verdict], _ = judge.judge([pair.query])
        if verdict["probability"] is not None:
            for feature in FEATURES:
                values[feature].append(verdict["scores"][feature])
            labels.append(pair.supported)
    for feature in FEATURES:
        print(f"training AUROC of {feature}: {auroc(values[feature], labels):.3f}")
    fitted = fit_calibration(
        values[args.feature],
        labels,
        feature=args.feature,
        scorer=models.scorer.name,
        fitted_on=f"HaluEval QA train items ({args.items} items, seed 0)",
        training_auroc={f: round(auroc(values[f], labels) or 0.0, 4) for f in FEATURES},
    )
    paths = [calibration_file("likelihood", models.scorer.name, args.feature)]
    if args.default:
        paths.append(calibration_file("likelihood", models.scorer.name))
    for path in paths:
        path.write_text(json.dumps(fitted.to_json(), indent=2) + "\n")
        print(
            f"{path}: slope {fitted.slope:.3f}, intercept {fitted.intercept:.3f}, "
            f"{len(labels)} pairs"
        )


def run_measure(args: argparse.Namespace) -> None:
    """Judge the held-out pairs, appending to the records file."""
    sets = all_held_out_sets(args.data_root)
    unknown = sorted(set(args.sets.split(",")) - set(sets))
    if unknown:  # before any judge loads
        raise SystemExit(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(sets)}")
    OUT.mkdir(parents=True, exist_ok=True)
    for requested in args.judges.split(","):
        judge_name, judge = make_judge(requested, args.cache_dir)
        for set_name in args.sets.split(","):
            pairs = sample_by_item(sets[set_name], args.max_items)
            with tqdm(total=len(pairs), desc=f"{judge_name} on {set_name}") as bar:
                try:
                    measure(
                        judge_name,
                        judge,
                        set_name,
                        pairs,
                        RECORDS,
                        progress=bar.update,
                        identity=judge_identity(judge),
                    )
                except InvalidInputError as error:
                    raise SystemExit(str(error)) from error


def three_way_table(rows: list[dict[str, Any]]) -> list[str]:
    """Return the three-way rows of `summarise` as a markdown table."""

    def share(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    lines = [
        "| set | judge | pairs | 3-way accuracy [95% CI] | contradictions caught | "
        "entailed called contradicted |",
        "|---|---|---|---|---|---|",
    ]
    for row in sorted(rows, key=lambda r: (r["set"], r["judge"])):
        if "three_way_accuracy" not in row:
            continue
        ci = row["three_way_accuracy_ci"]
        lines.append(
            f"| {row['set']} | {row['judge']}"
            + (" (in-sample)" if trained_on(row["judge"], row["set"]) else "")
            + f" | {row['pairs']} | {share(row['three_way_accuracy'])}"
            + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
            + f" | {share(row['contradictions_caught'])} | "
            f"{share(row['supported_called_contradicted'])} |"
        )
    return lines


CARD_JUDGES = {
    "three_way": "three_way",
    "three_way_model": "three_way_model",
    "cross_encoder": "trained",
    "gated": "gated",
    "likelihood_mean_gain": "likelihood",
    "yesno": "yesno",
}
"""Judges whose held-out accuracy ships with the package (benchmark name -> judge kind)."""

CARD_SETS = {
    "halueval": "HaluEval QA held-out (right vs hallucinated answers)",
    "healthver_dev_sr": "HealthVer dev, Supports vs Refutes",
    "citation": "Citation-Integrity test",
    "healthver_dev_negated": "HealthVer dev, claims vs their negations",
    "snli_test": "SNLI test, entailed vs rest",
}
"""The held-out sets the card lists, in the order reports print them."""


def write_judge_card(rows: list[dict[str, Any]]) -> None:
    """Write the judges' held-out accuracy into the package (nodes/data/judge_accuracy.json).

    Reports print it beside the numbers a judge produced.
    """
    card: dict[str, Any] = {
        "source": "docs/benchmarks/support_judges.md (python benchmarks/support_judges.py report)",
        "metric": "balanced accuracy [95% bootstrap CI]",
        "judges": {},
    }
    for row in rows:
        kind = CARD_JUDGES.get(row["judge"])
        if kind is None or row["set"] not in CARD_SETS:
            continue
        card["judges"].setdefault(kind, []).append(
            {
                "set": row["set"],
                "label": CARD_SETS[row["set"]],
                "pairs": row["pairs"],
                "balanced_accuracy": round(row["balanced_accuracy"], 3),
                "ci": [round(v, 3) for v in row["balanced_accuracy_ci"]],
            }
        )
    order = list(CARD_SETS)
    for entries in card["judges"].values():
        entries.sort(key=lambda e: order.index(e["set"]))
    path = ROOT / "veriloop" / "nodes" / "data" / "judge_accuracy.json"
    path.write_text(json.dumps(card, indent=1) + "\n")


def report(_args: argparse.Namespace) -> None:
    """Write docs/benchmarks/support_judges.{md,json} from the records."""
    compact_records(RECORDS)  # the plain log into support_judges.jsonl.gz (what git keeps)
    records = read_records(RECORDS)
    rows = summarise(records)
    against_head = paired_against(records, "head")
    (OUT / "support_judges.json").write_text(
        json.dumps({"judges": rows, "against_head": against_head}, indent=2) + "\n"
    )
    write_judge_card(rows)
    paired_lines = [
        "| set | judge | items (pairs) | balanced accuracy minus the head's [95% CI] |",
        "|---|---|---|---|",
    ] + [
        f"| {r['set']} | {r['judge']} | {r['items']} ({r['pairs']}) | "
        f"{r['difference']:+.3f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]"
        + (
            " (both in-sample)"
            if trained_on(r["judge"], r["set"])
            else " (head in-sample)"
            if trained_on("head", r["set"])
            else ""
        )
        + " |"
        for r in sorted(against_head, key=lambda r: (r["set"], r["judge"]))
    ]
    lines = [
        "# Claim-support judges on held-out pairs (and, marked, on their own training pairs)",
        "",
        "Written by `benchmarks/support_judges.py report` from `support_judges.jsonl.gz` "
        f"(machine: {platform.machine()}, 2 cores). Balanced accuracy at P >= 0.5; "
        "intervals: 95% bootstrap over items (1000 resamples); ECE over 10 bins; s/claim "
        "is wall time per pair on 2 cores (the likelihood and P(Yes) judges run SmolLM2).",
        "",
        *markdown_table(rows, trained_on),
        "",
        "## Three ways: entailed / neither / contradicted",
        "",
        "Judges that say contradicted, on sets with three-way gold labels: accuracy of the "
        "verdict (supported = entailed, unsupported = neither), with a 95% bootstrap interval "
        "over items; the share of gold contradictions called contradicted; the share of gold "
        "entailed pairs called contradicted (false alarms).",
        "",
        *three_way_table(rows),
        "",
        "## Against the MLP head, on the same pairs",
        "",
        "Each judge's balanced accuracy minus the head's on the pairs both judged; the "
        "interval resamples items (1000 times) and scores both judges on each resample.",
        "",
        *paired_lines,
        "",
        NOTES,
    ]
    (OUT / "support_judges.md").write_text("\n".join(lines))
    print("\n".join(lines))


def main() -> None:
    """Parse the sub-command and run it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    parser.add_argument("--cache-dir", default=str(Path.home() / ".cache" / "veriloop"))
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("calibrate")
    fit.add_argument("--items", type=int, default=60)
    fit.add_argument("--feature", default="mean_gain", choices=FEATURES)
    fit.add_argument("--default", action="store_true", help="also ship it as the default")
    fit.set_defaults(run=calibrate)
    run = commands.add_parser("measure")
    run.add_argument("--judges", default="head,cross_encoder")
    run.add_argument(
        "--sets", default="halueval,healthver_sr,healthver_rest,citation,pubmedqa_swap"
    )
    run.add_argument("--max-items", type=int, default=300)
    run.set_defaults(run=run_measure)
    commands.add_parser("report").set_defaults(run=report)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
