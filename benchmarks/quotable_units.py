r"""Count what `veriloop.quotable` repairs and leaves out, on a seeded sample of MedQuAD units.

    .venv/bin/python benchmarks/quotable_units.py --sample 500 --seed 0 \
        --out docs/benchmarks/quotable_units_sample.jsonl

Units are the bundled MedQuAD answers cut by `standalone_units` (what the grounded default
could quote). For each sampled unit: whether `clean_unit` removed a glued footnote number
or a heading, and `unquotable_reason` (resource list, symptom table, pointer line, glued
list items, heading only). Prints the counts on the sample and on every unit, and writes
each sampled unit with its verdict to `--out` (for the hand check in
docs/benchmarks/quotable_units.md).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import Counter
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.quotable import strip_footnotes, strip_heading, unquotable_reason
from veriloop.standalone import standalone_units


def verdict(unit: str) -> dict[str, object]:
    """Return what the quotable rules do to one unit."""
    text = " ".join(unit.split())
    no_footnote = strip_footnotes(text)
    cleaned = strip_heading(no_footnote)
    reason = unquotable_reason(cleaned) or unquotable_reason(text)
    return {
        "unit": text,
        "footnote_removed": no_footnote != text,
        "heading_removed": cleaned != no_footnote,
        "cleaned": cleaned,
        "left_out": reason,
    }


def tally(rows: list[dict[str, object]]) -> Counter[str]:
    """Count the verdicts: repairs, and left-out units by reason."""
    counts: Counter[str] = Counter(units=len(rows))
    for row in rows:
        counts["footnote removed"] += bool(row["footnote_removed"])
        counts["heading removed"] += bool(row["heading_removed"])
        if row["left_out"]:
            counts[f"left out: {row['left_out']}"] += 1
        elif not row["footnote_removed"] and not row["heading_removed"]:
            counts["unchanged"] += 1
    return counts


def main() -> None:
    """Sample, count, write."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    units = []
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            units += [(row["qid"], u) for u in standalone_units(" ".join(row["answer"].split()))]
    everything = [verdict(u) for _, u in units]
    picked = sorted(random.Random(args.seed).sample(range(len(units)), args.sample))
    sample = [{"qid": units[i][0], **everything[i]} for i in picked]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in sample), encoding="utf-8")
    print(json.dumps({"sample": tally(sample), "every unit": tally(everything)}, indent=2))


if __name__ == "__main__":
    main()
