"""Build the two-word pages MedQuAD names by their first word alone (`knowledge.stated_names`).

A consumer writes "my mouth ulcer/canker"; the page is "Canker Sores", and no search for
"canker" alone ranks it among the thirty passages retrieval keeps. MedQuAD writes
"canker" only ever before "sore" or "sores", so the word names that page and nothing
else. A page's first word is its name when:

- the page's name holds two specific words (`nodes.subject.focus_terms`: "Greig
  cephalopolysyndactyly syndrome" holds greig and cephalopolysyndactyly), and no other
  page's name holds the first;
- every distinct MedQuAD answer text writing the first word (stemmed, as
  `nodes.subject.subject_tokens` reads words) writes the last right after it, in
  `MIN_TEXTS` texts or more ("canker sore", "canker sores": 10 texts);
- the word is no common English word: the embedded encoder's general-English vocabulary
  (all-MiniLM-L6-v2's WordPiece vocabulary, `COMMON_WORDS`) does not hold it whole. That
  leaves out a person's or a city's name and plain adjectives that MedQuAD happens to
  write only in one page's name ("todd" of Todd's Paralysis, "warsaw", "marine",
  "acoustic", "singleton"), which a question writes in their own sense.

The list holds the word as the page's name writes it (lower case), since
`MedQuADIndex.named_openings` matches the question's words as written. Writes
`knowledge/data/medquad/first_word_names.txt` (`knowledge.stated_names.FIRST_WORD_NAMES`).

    .venv/bin/python benchmarks/first_word_names.py [--check]

`--check` writes nothing and fails when the committed list differs from a fresh build.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `benchmarks` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bundled_list import write_or_check  # noqa: E402
from veriloop.knowledge.medquad import MEDQUAD_FILE, page_name
from veriloop.knowledge.stated_names import FIRST_WORD_NAMES, own_name
from veriloop.models.locate import bundled_embedding_model_path
from veriloop.nodes.subject import focus_terms, subject_tokens

MIN_TEXTS = 3
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")


def common_words() -> frozenset[str]:
    """Return the whole words of the embedded encoder's vocabulary (no "##" pieces)."""
    vocabulary = bundled_embedding_model_path() / "vocab.txt"
    words = vocabulary.read_text(encoding="utf-8").splitlines()
    return frozenset(word for word in words if word.isalpha())


def _first_and_last(focus: str) -> tuple[str, str, str] | None:
    """Return a two-word page name's first word as written, its stem and the last stem."""
    name = own_name(page_name(focus)) or page_name(focus)
    stems = [stem for stem in subject_tokens(name) if stem]
    if len(stems) != 2 or set(stems) != focus_terms(focus):
        return None
    first, last = stems
    word = next((w for w in _WORD.findall(name.lower()) if first in subject_tokens(w)), None)
    return (word, first, last) if word else None


def first_word_names(
    rows: Iterable[Mapping[str, str]], common: frozenset[str]
) -> list[tuple[str, str, int]]:
    """Return (first word, focus, texts) for each two-word page its first word names alone.

    Args:
        rows: MedQuAD answers, each with its "focus" and "answer".
        common: words too common to name a page by (`common_words`).

    Returns:
        The words in order, each with the focus it names and the number of distinct
        answer texts writing it, every one followed by the name's last word.
    """
    rows = list(rows)
    foci = sorted({row["focus"] for row in rows})
    holders: dict[str, set[str]] = collections.defaultdict(set)
    for focus in foci:
        for term in focus_terms(focus):
            holders[term].add(page_name(focus))
    candidates: dict[str, tuple[str, str, str]] = {}  # first stem -> word, focus, last stem
    for focus in foci:
        parts = _first_and_last(focus)
        if parts is None:
            continue
        word, first, last = parts
        if holders[first] == {page_name(focus)} and word.removesuffix("'s") not in common:
            candidates.setdefault(first, (word, focus, last))
    followed: collections.Counter[str] = collections.Counter()
    alone: set[str] = set()
    for text in dict.fromkeys(row["answer"] for row in rows):
        tokens = subject_tokens(text)
        for at, token in enumerate(tokens):
            if token in candidates:
                if at + 1 < len(tokens) and tokens[at + 1] == candidates[token][2]:
                    followed[token] += 1
                else:
                    alone.add(token)
    return sorted(
        (word, focus, followed[first])
        for first, (word, focus, _) in candidates.items()
        if first not in alone and followed[first] >= MIN_TEXTS
    )


def list_file(names: list[tuple[str, str, int]]) -> str:
    """Return the list file's text: how it was built, then one word, focus, texts a line."""
    return (
        "# Two-word pages MedQuAD names by their first word alone, 'canker' of Canker Sores\n"
        f"# (built by benchmarks/first_word_names.py: the word no other page's name holds,\n"
        f"# followed by the name's last word in every answer writing it, {MIN_TEXTS}+ texts,\n"
        "# not in the encoder's vocabulary); first word <TAB> focus <TAB> texts writing it\n"
        + "".join(f"{word}\t{focus}\t{texts}\n" for word, focus, texts in names)
    )


def main() -> int:
    """Build (or check) the first-word list and print how many pages it names."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed list")
    args = parser.parse_args()
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        names = first_word_names((json.loads(line) for line in lines), common_words())
    return write_or_check(
        FIRST_WORD_NAMES, list_file(names), args.check, f"{len(names)} first-word names"
    )


if __name__ == "__main__":
    sys.exit(main())
