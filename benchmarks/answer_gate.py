r"""Fit `subject_relevant_at` on rated answers: where answers from "on the subject" pages go bad.

    .venv/bin/python benchmarks/answer_gate.py sheet --results docs/results/mediqa_issue38_s5 \
        --labels docs/benchmarks/mediqa_question_labels.jsonl \
        --exclude docs/benchmarks/rating_sheet_s4c.jsonl --below 0.65 \
        --out docs/benchmarks/answer_gate_sheet.jsonl
    .venv/bin/python benchmarks/answer_gate.py fit --sheet docs/benchmarks/answer_gate_sheet.jsonl \
        --ratings docs/benchmarks/answer_gate_ratings.jsonl --out docs/benchmarks/answer_gate.md

The refit of 2026-11-28 (docs/benchmarks/answer_gate_refit.md, with its commands) rated
the answers of the code then, with the gate lowered to 0.30, and found 0.51 again.

The first gate fit (`relevance_gate.py`) asked whether MedQuAD *has* a page on the
question's subject, so it set `subject_relevant_at` to 0.0: every question it sent to the
subject path had such a page. But the blinded ratings showed what happens below about 0.5:
the subject rule kept a page that names words of the question without being its subject
("Drinking Water" for quinine in seltzer water, "Paralysis" for sleep paralysis, "Chronic
Pain" for an ankle injury), and those answers were rated bad.

`sheet` takes the answered questions of a run that went through the subject path (the
retrieval record's gate is the run's `subject_relevant_at`; this tells the two paths apart
only while `relevant_at` differs from it, as 0.5 and 0.51 do) with the best passage's
cosine below `--below`, leaving out the items of the evaluation sheet (`--exclude`: the
gate is fitted on other questions than those it is judged on), and writes what a rater
sees: the question, its hand label, the answer with its cited pages; the cosine stays out
of the sheet. `fit` reads one rating per item (answer_rating.md's good / partial / bad)
and, for each gate on a 0.01 grid, counts the bad answers it keeps and the good and
partial answers it refuses; the gate is the one with the lowest cost, a bad answer kept
weighing three refusals of a good answer and a partial answer's refusal half of one (ties:
the lower gate), cross-fitted on two halves (by item id hash) for an honest error count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.rating_sheet import load, load_labels, shown

GRID = [round(0.30 + x * 0.01, 2) for x in range(0, 36)]
COST = {"bad": 3.0, "good": 1.0, "partial": 0.5}
"""Keeping a bad answer costs 3; refusing a good answer 1, a partial one 0.5."""


def through_subject_gate(record: dict[str, Any]) -> float | None:
    """Return the best cosine of an answer that went through the subject path (else None)."""
    if record.get("refusal") or not record.get("answer"):
        return None
    trace = record["trace"]
    retrieval = trace["candidates"][0]
    if retrieval["thresholds"].get("best_relevance") != trace["settings"]["subject_relevant_at"]:
        return None
    return float(retrieval["scores"]["best_relevance"])


def sheet(args: argparse.Namespace) -> None:
    """Write the items to rate."""
    labels = load_labels(args.labels)
    excluded = {json.loads(x)["id"] for x in args.exclude.read_text().splitlines() if x.strip()}
    lines = []
    for item, record in load(args.results).items():
        best = through_subject_gate(record)
        if best is None or best >= args.below or item in excluded:
            continue
        seen = shown(record)
        lines.append(
            {
                "id": item,
                "question": record["question"],
                "label": labels[item],
                "answer": seen["text"],
                "sources": seen["sources"],
                "best": round(best, 4),
            }
        )
    args.out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    print(f"{len(lines)} items -> {args.out} (raters see all but `best`)")


def cost(rows: list[dict[str, Any]], gate: float) -> float:
    """Return the cost of refusing below `gate` (`COST`)."""
    return sum(
        COST[r["rating"]]
        for r in rows
        if (r["rating"] == "bad") == (r["best"] >= gate) and r["rating"] in COST
    )


def fit_gate(rows: list[dict[str, Any]]) -> float:
    """Return the grid gate with the lowest cost (the lowest gate on ties)."""
    return min(GRID, key=lambda t: (cost(rows, t), t))


def fit(args: argparse.Namespace) -> None:
    """Write the curve and the fitted gate."""
    lines_in = [x for x in args.sheet.read_text().splitlines() if x.strip()]
    items = {x["id"]: x for x in map(json.loads, lines_in)}
    rows = []
    for line in args.ratings.read_text().splitlines():
        if line.strip():
            rated = json.loads(line)
            rows.append(
                {
                    "id": rated["id"],
                    "rating": rated["rating"],
                    "best": items[rated["id"]]["best"],
                    "half": hashlib.sha1(rated["id"].encode()).digest()[0] % 2,
                }
            )
    if not rows:
        raise SystemExit(f"{args.ratings}: no ratings")
    counts = {k: sum(r["rating"] == k for r in rows) for k in ("good", "partial", "bad")}
    lines = [
        "# `subject_relevant_at`, fitted on rated answers (issue 38)",
        "",
        f"Commands: see `benchmarks/answer_gate.py`. {len(rows)} answered MEDIQA questions "
        f"whose pages the subject rule called on the subject, best cosine at most "
        f"{max(r['best'] for r in rows):.2f}, none of them in the evaluation sheet; rated by "
        f"hand (answer_rating.md): {counts['good']} good, {counts['partial']} partial, "
        f"{counts['bad']} bad. A gate refuses below it; cost = 3 x bad answers kept + good "
        "answers refused + 0.5 x partial answers refused.",
        "",
        "| gate | refused | good refused | partial refused | bad kept | cost |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for t in GRID:
        below = [r for r in rows if r["best"] < t]
        kept_bad = sum(r["rating"] == "bad" and r["best"] >= t for r in rows)
        lines.append(
            f"| {t:.2f} | {len(below)} | {sum(r['rating'] == 'good' for r in below)} | "
            f"{sum(r['rating'] == 'partial' for r in below)} | {kept_bad} | {cost(rows, t):.1f} |"
        )
    crossed = []
    for half in (0, 1):
        fitted = fit_gate([r for r in rows if r["half"] != half])
        held = [r for r in rows if r["half"] == half]
        crossed.append(
            f"half {half}: gate {fitted:.2f}, on the other half "
            f"{sum(r['rating'] == 'bad' and r['best'] >= fitted for r in held)} bad kept, "
            f"{sum(r['rating'] != 'bad' and r['best'] < fitted for r in held)} good or partial "
            "refused"
        )
    shipped = fit_gate(rows)
    lines += ["", "Cross-fitted: " + "; ".join(crossed) + f". Fitted on all: **{shipped:.2f}**."]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def main() -> None:
    """Run `sheet` or `fit`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("sheet")
    made.add_argument("--results", type=Path, required=True)
    made.add_argument("--labels", type=Path, required=True)
    made.add_argument("--exclude", type=Path, required=True)
    made.add_argument("--below", type=float, default=0.65)
    made.add_argument("--out", type=Path, required=True)
    fitted = commands.add_parser("fit")
    fitted.add_argument("--sheet", type=Path, required=True)
    fitted.add_argument("--ratings", type=Path, required=True)
    fitted.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    {"sheet": sheet, "fit": fit}[args.command](args)


if __name__ == "__main__":
    main()
