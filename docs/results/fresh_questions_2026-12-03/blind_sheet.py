"""Make a blind rating sheet from two `run.py` outputs of one batch, and its key.

    python blind_sheet.py BEFORE.txt AFTER.txt SHEET.md KEY.json SEED

Each question's two answers are shown as A and B in a seeded random order; the key says
which is which (and whether they are the same text), for tallying after the rating.
"""

import json
import random
import sys


def parse(path: str) -> dict[str, str]:
    """Return each question of a `run.py` output with its answer block (text and sources)."""
    answers: dict[str, str] = {}
    with open(path, encoding="utf-8") as lines:
        for block in lines.read().split("=" * 80 + "\n"):
            if block.startswith("Q: "):
                head, _, rest = block.partition("\n")
                answers[head[3:].strip()] = rest.strip()
    return answers


def main(before_path: str, after_path: str, sheet_path: str, key_path: str, seed: str) -> None:
    """Write the sheet (A/B per question) and the key."""
    before, after = parse(before_path), parse(after_path)
    rng = random.Random(int(seed))
    key: dict[str, dict[str, object]] = {}
    with open(sheet_path, "w", encoding="utf-8") as sheet:
        for n, question in enumerate(before, 1):
            old, new = before[question], after[question]
            flip = rng.random() < 0.5
            first, second = (new, old) if flip else (old, new)
            key[question] = {
                "A": "after" if flip else "before",
                "B": "before" if flip else "after",
                "same": old == new,
            }
            sheet.write(f"## {n}. {question}\n\n**A**\n\n{first}\n\n**B**\n\n{second}\n\n")
    with open(key_path, "w", encoding="utf-8") as out:
        json.dump(key, out, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:6])
