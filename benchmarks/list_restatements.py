r"""Count the lists `veriloop.quotable.restates_list` leaves out, and the units they catch.

    .venv/bin/python benchmarks/list_restatements.py --show 30 --seed 0

Each bundled MedQuAD answer is cut and merged as the grounded default quotes it
(`quotable_texts`, `merge_items`); the units are grouped by focus (what one answer may
quote together). Prints how many distinct lists (a lead-in and two items at least) another
unit on their focus restates, how many inside one answer, and `--show` of them at random
(seeded) with the unit restating each, for reading by hand.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.quotable import lead_of, merge_items, quotable_texts, restates_list


def restated(units: list[str]) -> list[tuple[str, str]]:
    """Return each distinct list of `units` another unit restates, with that unit."""
    found = []
    distinct = list(dict.fromkeys(units))
    for listed in distinct:
        if not (lead_of(listed) and "; " in listed):
            continue
        for other in distinct:
            if (
                other != listed
                and restates_list(listed, other)
                and not restates_list(other, listed)
            ):
                found.append((listed, other))
                break
    return found


def main() -> None:
    """Count restated lists per focus and per answer; print a seeded sample of them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=30, help="restated lists to print")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    by_focus: dict[str, list[str]] = defaultdict(list)
    in_answer = 0
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            units = [u for u, _ in merge_items([(u, "p") for u in quotable_texts(row["answer"])])]
            in_answer += len(restated(units))
            by_focus[str(row["focus"]).lower()].extend(units)
    lists = sum(1 for units in by_focus.values() for u in set(units) if lead_of(u) and "; " in u)
    found = [(focus, *pair) for focus, units in by_focus.items() for pair in restated(units)]
    print(f"foci {len(by_focus)}; distinct lists {lists}; restated on their focus {len(found)}")
    print(f"restated inside one answer: {in_answer}")
    random.Random(args.seed).shuffle(found)
    for focus, listed, other in found[: args.show]:
        print(f"\n[{focus}]\n  list:  {listed[:400]}\n  other: {other[:400]}")


if __name__ == "__main__":
    main()
