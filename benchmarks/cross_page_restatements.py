r"""Count the unit pairs `near_duplicate`'s paraphrase folds add and its contrasts keep apart.

    .venv/bin/python benchmarks/cross_page_restatements.py --show 40 --seed 0

Each bundled MedQuAD answer is cut and merged as the grounded default quotes it
(`quotable_texts`, `merge_items`); the units are grouped by focus and page (source and
document: what one answer may quote together). Prints

- how many pairs of distinct units on one focus (one page or two) share 0.8 of the
  shorter's content words with `PARAPHRASES` folded and name no different kinds, and how
  many of them hold a contrast (`contrasting`: kept apart), with `--show` of those;
- how many cross-page pairs reach 0.8 only folded (restatements the folds add), with
  `--show` of them at random (seeded), for reading by hand (docs/benchmarks/
  restatements.md).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.quotable import (
    content_overlap,
    contrasting,
    different_kinds,
    merge_items,
    quotable_texts,
)

OVERLAP = 0.8
"""`near_duplicate`'s default share of the shorter unit's content words."""


def units_by_focus() -> dict[str, dict[str, list[str]]]:
    """Return each focus's quotable units, by the page (source, document) writing them."""
    found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            units = [u for u, _ in merge_items([(u, "p") for u in quotable_texts(row["answer"])])]
            found[str(row["focus"]).lower()][f"{row['source']}:{row['doc_id']}"].extend(units)
    return found


def show(title: str, rows: list[tuple[str, str, str]], count: int, seed: int) -> None:
    """Print `count` of `rows` (focus, unit, unit) at random, seeded."""
    rows = list(rows)
    random.Random(seed).shuffle(rows)
    print(f"\n## {title}: {min(count, len(rows))} of {len(rows)}")
    for focus, a, b in rows[:count]:
        print(f"[{focus}]\n  A: {a[:300]}\n  B: {b[:300]}")


def main() -> None:
    """Count folded duplicates, contrasts and the pairs the folds add; print samples."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=40, help="pairs of each kind to print")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    one = contrasted = 0
    contrasts: list[tuple[str, str, str]] = []
    added: list[tuple[str, str, str]] = []
    for focus, pages in units_by_focus().items():
        written = [(u, page) for page, units in pages.items() for u in dict.fromkeys(units)]
        for (a, page_a), (b, page_b) in combinations(written, 2):
            if content_overlap(a, b) < OVERLAP or different_kinds(a, b):
                continue
            one += 1
            if contrasting(a, b):
                contrasted += 1
                contrasts.append((focus, a, b))
            elif page_a != page_b and content_overlap(a, b, fold=False) < OVERLAP:
                added.append((focus, a, b))
    print(f"unit pairs on one focus sharing >= {OVERLAP} folded, no different kinds: {one}")
    print(f"  of them holding a contrast (kept apart): {contrasted}")
    print(f"cross-page pairs reaching {OVERLAP} only folded, no contrast: {len(added)}")
    show("contrasts", contrasts, args.show, args.seed)
    show("added by the folds", added, args.show, args.seed)


if __name__ == "__main__":
    main()
