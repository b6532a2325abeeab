r"""Count the subjects MedQuAD's treatment pages say they treat, as `treating_pages` reads them.

    .venv/bin/python benchmarks/treating_pages.py --show 40 --seed 0

Every bundled MedQuAD answer of a page named as a treatment (`TREATMENT_NAME`: "Hormone
Replacement Therapy", "Pain Relievers") is read as `nodes.treating_pages.treating_pages`
reads a candidate, once for each focus of the source that is no treatment's: which foci
would it stand in for on a treatment question whose subject's pages name no treatment?
Prints the treatment pages, the (treatment, subject) pairs found, and `--show` of them at
random (seeded) with the unit that names the subject, for reading.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.knowledge.medquad import MEDQUAD_FILE, page_name
from veriloop.nodes.subject import focus_terms
from veriloop.nodes.treating_pages import TREATMENT_NAME, treating_pages


def main() -> None:
    """Print the counts of (treatment page, subject) pairs and a sample to read."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=40, help="pairs to print")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    treatments: dict[str, list[str]] = {}
    foci: set[str] = set()
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            focus = str(row["focus"])
            if TREATMENT_NAME.search(page_name(focus)):
                treatments.setdefault(focus, []).append(str(row["answer"]))
            else:
                foci.add(focus)
    subjects = sorted(f for f in foci if focus_terms(f))
    pairs: list[tuple[str, str, str]] = []
    for treatment, answers in sorted(treatments.items()):
        found = [
            {"id": f"{treatment}-{i}", "title": treatment, "text": a, "url": "", "relevance": 0.0}
            for i, a in enumerate(answers)
        ]
        for subject in subjects:  # one subject at a time: each pair is its own question
            kept = treating_pages(found, [subject])
            if kept:
                pairs.append((treatment, subject, kept[0]["treats"]))
    print(f"{len(treatments)} treatment pages; {len(pairs)} (treatment, subject) pairs")
    for treatment in sorted({t for t, _, _ in pairs}):
        print(f"  {treatment}: {sum(t == treatment for t, _, _ in pairs)} subjects")
    for treatment, subject, unit in random.Random(args.seed).sample(
        pairs, min(args.show, len(pairs))
    ):
        print(f"- {subject} <- {treatment}: {unit}")


if __name__ == "__main__":
    main()
