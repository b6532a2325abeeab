r"""The grounded default on every MEDIQA 2019 Task 3 question, before and after: counts.

    .venv/bin/python benchmarks/mediqa_answers.py \
        --before docs/results/mediqa_issue38_before --after docs/results/mediqa_issue38_after \
        --labels docs/benchmarks/mediqa_question_labels.jsonl \
        --out docs/benchmarks/mediqa_answers.md

Per item of the `grounded` run in each folder (the 199 questions with an expert-rated
answer, the same items in both), read against the hand labels (`qtypes`, `answerable`:
does MedQuAD have a page that answers it; docs/benchmarks/answer_rating.md):

- refused; refused although answerable ("yes"); refused although a page on the subject
  exists ("partial");
- per answer: duplicated sentences (`veriloop.quotable.near_duplicate` pairs), heading runs
  (`strip_heading` would change a sentence), glued footnote numbers, units that are no
  answer (`unquotable_reason`);
- type matched: the answer quotes a passage whose MedQuAD type is the question's labelled
  primary type;
- seconds per question (the harness's wall time).

Rates with seeded bootstrap 95% intervals (2,000 resamples), and after-minus-before on
the same items with a paired bootstrap interval.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.evaluation.tables import bootstrap_interval
from veriloop.knowledge.medquad import MEDQUAD_FILE, page_keys
from veriloop.quotable import FOOTNOTE, near_duplicate, strip_heading, unquotable_reason

MEASURES = (
    ("refused", "refused"),
    ("refused_answerable", "refused, MedQuAD answers it (labelled yes)"),
    ("refused_on_subject", "refused, MedQuAD has the subject (labelled yes or partial)"),
    ("duplicates", "duplicated sentences per answer"),
    ("heading_runs", "heading runs per answer"),
    ("footnotes", "glued footnote numbers per answer"),
    ("non_answers", "resource lists, tables, pointer lines per answer"),
    ("type_matched", "answered from a passage of the asked type (answered items)"),
)


def medquad_types() -> dict[str, str]:
    """Return each bundled MedQuAD answer's question type by its page key (`page_keys`).

    Runs before the page keys (ids `MQ-<qid>-<n>` for every pair) read a qid two sites
    share as the last pair's; their committed counts were made that way.
    """
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return {key: row["qtype"] for key, row in zip(page_keys(rows), rows, strict=True)}


def passage_type(passage_id: str, types: dict[str, str]) -> str | None:
    """Return a MedQuAD passage's question type ("MQ-<page key>-<n>"; None for other sources)."""
    if not passage_id.startswith("MQ-"):
        return None
    return types.get(passage_id[3:].rsplit("-", 1)[0])


def item_measures(
    record: dict[str, Any], label: dict[str, Any], types: dict[str, str]
) -> dict[str, float | None]:
    """Return one item's measures (None where a measure does not apply)."""
    outputs = record.get("outputs") or {}
    kept = [s["text"] for s in outputs.get("sentences", []) if s.get("supported")]
    refused = record.get("refusal") is not None or not record.get("answer")
    answerable = label.get("answerable")
    cited = [passage_type(s["id"], types) for s in outputs.get("sources", [])]
    primary = label["qtypes"][0]
    return {
        "refused": float(refused),
        "refused_answerable": float(refused and answerable == "yes"),
        "refused_on_subject": float(refused and answerable in ("yes", "partial")),
        "duplicates": None
        if refused
        else float(sum(near_duplicate(a, b) for i, a in enumerate(kept) for b in kept[:i])),
        "heading_runs": None if refused else float(sum(strip_heading(s) != s for s in kept)),
        "footnotes": None if refused else float(sum(bool(FOOTNOTE.search(s)) for s in kept)),
        "non_answers": None
        if refused
        else float(sum(unquotable_reason(s) is not None for s in kept)),
        "type_matched": None if refused or primary == "other" else float(primary in cited),
    }


def load(folder: Path) -> dict[str, dict[str, Any]]:
    """Return the `grounded` run's records of a results folder, by item id."""
    records = {}
    for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("run") == "grounded":
            records[record["item_id"]] = record
    return records


def rate(values: list[float]) -> str:
    """Return a mean with its bootstrap interval."""
    if not values:
        return "-"
    low, high = bootstrap_interval(values)
    return f"{sum(values) / len(values):.3f} [{low:.3f}, {high:.3f}] (n={len(values)})"


def main() -> None:
    """Measure both runs and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    labels = {
        x["id"]: x for x in map(json.loads, args.labels.read_text(encoding="utf-8").splitlines())
    }
    runs = {"before": load(args.before), "after": load(args.after)}
    items = sorted(set(runs["before"]) & set(runs["after"]) & set(labels))
    types = medquad_types()
    measured = {
        name: {i: item_measures(runs[name][i], labels[i], types) for i in items} for name in runs
    }
    lines = [
        "| measure | before | after | after − before (paired) |",
        "| --- | --- | --- | --- |",
    ]
    for key, title in MEASURES:
        cols = []
        for name in runs:
            cols.append(rate([v for i in items if (v := measured[name][i][key]) is not None]))
        pairs = [
            (a, b)
            for i in items
            if (a := measured["after"][i][key]) is not None
            and (b := measured["before"][i][key]) is not None
        ]
        diffs = [a - b for a, b in pairs]
        if diffs:
            low, high = bootstrap_interval(diffs)
            cols.append(
                f"{sum(diffs) / len(diffs):+.3f} [{low:+.3f}, {high:+.3f}] (n={len(diffs)})"
            )
        else:
            cols.append("-")
        lines.append(f"| {title} | " + " | ".join(cols) + " |")
    seconds = {
        name: statistics.median(runs[name][i]["wall_seconds"] for i in items) for name in runs
    }
    lines.append(
        f"| median seconds per question | {seconds['before']:.2f} | {seconds['after']:.2f} | |"
    )
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
