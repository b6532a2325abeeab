r"""Hand rating, blinded: a sheet of answer pairs to rate, then the tally before and after.

    .venv/bin/python benchmarks/rating_sheet.py make \
        --before docs/results/mediqa_issue38_before --after docs/results/mediqa_issue38_after \
        --labels docs/benchmarks/mediqa_question_labels.jsonl --sample 60 --seed 38 \
        --out docs/benchmarks/rating_sheet.jsonl
    .venv/bin/python benchmarks/rating_sheet.py tally --sheet docs/benchmarks/rating_sheet.jsonl \
        --ratings docs/benchmarks/ratings.jsonl --out docs/benchmarks/rating_tally.md

`make` samples items (seeded; `--exclude SHEET` leaves out the items of other sheets, so a
fresh sample holds only unrated questions) from the `grounded` runs of both folders and
writes, per item,
the question, its hand label and the two answers as A and B in a seeded random order (the
answer text with its cited page titles, or the refusal and its reason); which of A and B is
the run before is kept in `key` on each line, for `tally` only: a rater reads `question`,
`label`, `A` and `B` (docs/benchmarks/answer_rating.md). `tally` reads the ratings
({"id", "A", "B"} per line, each one of good, partial, bad, refused right, refused wrong;
or a `carry` file) and writes the share of each rating before and after, with seeded
bootstrap 95% intervals. `carry` takes the ratings over to a re-run of the "after" code
(`carry --sheet ... --ratings ... --rerun DIR --out FILE`) and lists what must be rated
again.

A later round on the same rated items:

    .venv/bin/python benchmarks/rating_sheet.py changed --rated RATED --before DIR \
        --after DIR --labels ... --seed 40 --out SHEET
    .venv/bin/python benchmarks/rating_sheet.py update --rated RATED --sheet SHEET \
        --ratings RATINGS --out RATED_NOW

`changed` writes a blinded sheet of the items of RATED (an unblinded file: {"id",
"before", "after"} per line, "after" rating the `--before` run's answer) whose answer in
`--after` differs from `--before`'s; `update` writes RATED again with each rated
pair's new side as "after" (the unchanged items keep theirs; "before" stays the start).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.evaluation.tables import bootstrap_interval

RATINGS = ("good", "partial", "bad", "refused right", "refused wrong")


def shown(record: dict[str, Any]) -> dict[str, Any]:
    """Return what a rater sees of one answer."""
    outputs = record.get("outputs") or {}
    if record.get("refusal") or not record.get("answer"):
        reason = (record.get("refusal") or {}).get("detail") or record.get("error") or "no answer"
        return {"refused": True, "text": f"(refused) {reason}", "sources": []}
    note = outputs.get("not_covered")  # what the answer says it does not cover
    return {
        "refused": False,
        "text": record["answer"] + (f" (Not covered: {note})" if note else ""),
        "sources": [f"[{s['number']}] {s['title']}" for s in outputs.get("sources", [])],
    }


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Return a JSON-lines file's objects."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_labels(path: Path) -> dict[str, dict[str, Any]]:
    """Return the hand labels by item id, each with only what a rater sees."""
    return {
        x["id"]: {k: x[k] for k in ("qtypes", "subject", "foci", "answerable", "note")}
        for x in read_lines(path)
    }


def load(folder: Path) -> dict[str, dict[str, Any]]:
    """Return the `grounded` records of a results folder by item id."""
    rows = read_lines(folder / "results.jsonl")
    return {r["item_id"]: r for r in rows if r.get("run") == "grounded"}


def blinded(
    item: str,
    before: dict[str, Any],
    after: dict[str, Any],
    label: dict[str, Any],
    rng: random.Random,
) -> dict[str, Any]:
    """Return one sheet line: the two answers as A and B in a seeded random order."""
    first_is_before = rng.random() < 0.5
    pair = [shown(before), shown(after)]
    a, b = pair if first_is_before else pair[::-1]
    return {
        "id": item,
        "question": before["question"],
        "label": label,
        "A": a,
        "B": b,
        "key": {"A": "before" if first_is_before else "after"},
    }


def make(args: argparse.Namespace) -> None:
    """Write the blinded sheet."""
    before, after = load(args.before), load(args.after)
    labels = load_labels(args.labels)
    excluded = {row["id"] for path in args.exclude for row in read_lines(path)}
    items = sorted(set(before) & set(after) & set(labels) - excluded)
    rng = random.Random(args.seed)
    picked = sorted(rng.sample(items, args.sample))
    lines = [blinded(item, before[item], after[item], labels[item], rng) for item in picked]
    args.out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    print(f"{len(lines)} items -> {args.out}")


def changed(args: argparse.Namespace) -> None:
    """Write the blinded sheet of the rated items whose answer changed between two runs."""
    rated = [row["id"] for row in read_lines(args.rated)]
    before, after = load(args.before), load(args.after)
    labels = load_labels(args.labels)
    rng = random.Random(args.seed)
    lines = []
    for item in rated:
        if shown(before[item])["text"] != shown(after[item])["text"]:
            lines.append(blinded(item, before[item], after[item], labels[item], rng))
    args.out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    print(f"{len(lines)} of {len(rated)} rated items changed -> {args.out}")


def update(args: argparse.Namespace) -> None:
    """Write the rated items again, each changed one with its new answer's rating."""
    sheet = {x["id"]: x for x in read_lines(args.sheet)}
    new = {}
    for row in read_lines(args.ratings):
        after_side = "A" if sheet[row["id"]]["key"]["A"] == "after" else "B"
        new[row["id"]] = row[after_side]
    rows = [{**row, "after": new.get(row["id"], row["after"])} for row in read_lines(args.rated)]
    missing = set(sheet) - set(new)
    if missing:
        raise SystemExit(f"error: the sheet's items {sorted(missing)} have no rating")
    args.out.write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
    taken = sum(row["id"] in new for row in rows)
    outside = len(set(new) - {row["id"] for row in rows})  # a sheet may reach past the sample
    print(
        f"{taken} ratings taken, {len(rows) - taken} carried"
        + (f", {outside} for items outside --rated not carried" if outside else "")
        + f" -> {args.out}"
    )


def tally(args: argparse.Namespace) -> None:
    """Unblind the ratings and write the shares before and after."""
    sheet = {x["id"]: x for x in read_lines(args.sheet)}
    rated = read_lines(args.ratings)
    by_run: dict[str, list[str]] = {"before": [], "after": []}
    for row in rated:
        if "before" in row:  # a `carry` file: already unblinded
            by_run["before"].append(row["before"])
            by_run["after"].append(row["after"])
            continue
        key = sheet[row["id"]]["key"]["A"]
        other = "after" if key == "before" else "before"
        by_run[key].append(row["A"])
        by_run[other].append(row["B"])
    lines = [
        f"Hand ratings of {len(rated)} items (blinded A/B; protocol: answer_rating.md).",
        "",
        "| rating | before | after |",
        "| --- | --- | --- |",
    ]
    for rating in RATINGS:
        cells = []
        for run in ("before", "after"):
            hits = [float(r == rating) for r in by_run[run]]
            low, high = bootstrap_interval(hits) if hits else (0.0, 0.0)
            cells.append(f"{sum(hits):.0f} ({sum(hits) / len(hits):.0%}, [{low:.0%}, {high:.0%}])")
        lines.append(f"| {rating} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


def carry(args: argparse.Namespace) -> None:
    """Carry the ratings over to a re-run of the "after" code, marking what changed.

    Per sheet item, the re-run's answer is compared with the rated "after" answer: the
    same text keeps its rating; a refusal where the rated "before" answer was also a
    refusal takes the "before" rating (a refusal is right or wrong by what MedQuAD holds,
    not by its wording); anything else is left for rating again (`unrated`).
    """
    sheet = read_lines(args.sheet)
    ratings = {r["id"]: r for r in read_lines(args.ratings)}
    rerun = load(args.rerun)
    carried, unrated = [], []
    for item in sheet:
        rating = ratings[item["id"]]
        after_side = "A" if item["key"]["A"] == "after" else "B"
        before_side = "B" if after_side == "A" else "A"
        new = shown(rerun[item["id"]])
        if new["text"] == item[after_side]["text"]:
            verdict = rating[after_side]
        elif new["refused"] and item[before_side]["refused"]:
            verdict = rating[before_side]
        else:
            unrated.append({"id": item["id"], "question": item["question"], "answer": new})
            continue
        carried.append({"id": item["id"], "before": rating[before_side], "after": verdict})
    args.out.write_text("".join(json.dumps(x) + "\n" for x in carried), encoding="utf-8")
    print(f"{len(carried)} carried -> {args.out}; {len(unrated)} to rate again:")
    for row in unrated:
        print(json.dumps(row))


def _with_paths(parser: argparse.ArgumentParser, *names: str) -> argparse.ArgumentParser:
    """Add a required path option per name ("sheet" -> --sheet) and return the parser."""
    for name in names:
        parser.add_argument(f"--{name}", type=Path, required=True)
    return parser


def main() -> None:
    """Run `make`, `tally` or `carry`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    maker = _with_paths(sub.add_parser("make"), "before", "after", "labels", "out")
    maker.add_argument("--sample", type=int, default=60)
    maker.add_argument("--seed", type=int, default=38)
    maker.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="a sheet (JSON lines with `id`) whose items are not sampled; repeatable",
    )
    _with_paths(sub.add_parser("tally"), "sheet", "ratings", "out")
    _with_paths(sub.add_parser("carry"), "sheet", "ratings", "rerun", "out")
    changer = _with_paths(sub.add_parser("changed"), "rated", "before", "after", "labels", "out")
    changer.add_argument("--seed", type=int, default=40)
    _with_paths(sub.add_parser("update"), "rated", "sheet", "ratings", "out")
    args = parser.parse_args()
    commands = {"make": make, "tally": tally, "carry": carry, "changed": changed, "update": update}
    commands[args.command](args)


if __name__ == "__main__":
    main()
