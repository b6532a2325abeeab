r"""Count the kinds the shared-concept join re-added after the subject rule left them out.

    .venv/bin/python benchmarks/concept_join_kinds.py --show 40 --seed 0

For every pair of bundled MedQuAD foci sharing a UMLS concept where the second is a kind
of the first (`nodes.subject.kind_of`, asked "What is <first>?"), the subject rule is run
on the two pages alone (`match_subject`, one-sentence texts). Prints how many pairs there
are, how many the rule leaves the kind out of (those the concept join in
`nodes.grounding.retrieve_ranked` joined back until it read `kind_of` too), and `--show`
of those at random (seeded).
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
from veriloop.nodes.subject import kind_of, match_subject


def main() -> None:
    """Print the counts of (subject, kind) pairs sharing a concept, and a sample."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=40, help="pairs left out to print")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    concepts: dict[str, set[str]] = defaultdict(set)
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            concepts[str(row["focus"])] |= {c for c in row.get("cuis") or [] if c}
    foci_of: dict[str, set[str]] = defaultdict(set)
    for focus, cuis in concepts.items():
        for cui in cuis:
            foci_of[cui].add(focus)
    pairs = sorted(
        {
            (focus, other)
            for focus, cuis in concepts.items()
            for cui in cuis
            for other in foci_of[cui]
            if other != focus and kind_of(f"What is {focus}?", other)
        }
    )
    left_out = [
        (focus, other)
        for focus, other in pairs
        if match_subject(f"What is {focus}?", [focus, other], [f"{focus} is a condition."] * 2).kept
        == [0]
    ]
    print(f"foci {len(concepts)}; (subject, kind) pairs sharing a concept {len(pairs)}")
    print(f"kinds the subject rule leaves out: {len(left_out)}")
    random.Random(args.seed).shuffle(left_out)
    for focus, other in left_out[: args.show]:
        print(f"  {focus}  /  {other}")


if __name__ == "__main__":
    main()
