"""Build the list of words MedQuAD writes capitalised mid-sentence (`veriloop.standalone`).

A list item quoted after its lead-in has its first word lowered ("Symptoms include:
fever"), unless the word is a name: one MedQuAD writes capitalised inside a sentence (after
a lower-case word or a comma) at least `MIN_CAPITALISED` times and at least `RATIO` times
as often as in lower case (Hodgkin, Fanconi, National, American; not Testing, Human or
Rehabilitation, which its titles capitalise). Writes `veriloop/data/proper_words.txt` and
prints how many words it holds.

    .venv/bin/python benchmarks/proper_words.py [--check]

`--check` writes nothing and fails when the committed list differs from a fresh build.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `benchmarks` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bundled_list import write_or_check  # noqa: E402
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.standalone import PROPER_WORDS

MIN_CAPITALISED = 3
RATIO = 40
MID_WORD = re.compile(r"(?<=[a-z,;] )([A-Za-z][\w'’-]*)")


def proper_words(answers: list[str]) -> list[str]:
    """Return the words `answers` write capitalised mid-sentence far more than in lower case."""
    capitalised: collections.Counter[str] = collections.Counter()
    lower: collections.Counter[str] = collections.Counter()
    for answer in answers:
        for match in MID_WORD.finditer(answer):
            word = match.group(1)
            (capitalised if word[:1].isupper() else lower)[word.lower()] += 1
    return sorted(
        word
        for word, count in capitalised.items()
        if count >= MIN_CAPITALISED and count >= RATIO * lower[word]
    )


def list_file(words: list[str]) -> str:
    """Return the list file's text: how it was built, then one word a line."""
    return (
        "# Words MedQuAD writes capitalised mid-sentence (built by benchmarks/proper_words.py;\n"
        f"# at least {MIN_CAPITALISED} times and {RATIO}x as often as in lower case)\n"
        + "".join(f"{word}\n" for word in words)
    )


def main() -> int:
    """Build (or check) the proper-word list and print its effect on quoted list items."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed list")
    args = parser.parse_args()
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as rows:
        answers = [json.loads(line)["answer"] for line in rows]
    words = proper_words(answers)
    text = list_file(words)
    return write_or_check(PROPER_WORDS, text, args.check, f"{len(words)} words")


if __name__ == "__main__":
    sys.exit(main())
