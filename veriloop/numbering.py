"""Numbered and lettered names: "trisomy 13", "type 2 diabetes", "hepatitis A".

A name's number or letter says which kind of it a text is about. The subject rule
(`nodes.subject`) keeps pages numbering a name as the question does; the near-duplicate
test (`veriloop.quotable.near_duplicate`) keeps two sentences on different kinds apart.
"""

from __future__ import annotations

import re
from collections.abc import Set

from bm25s.stopwords import STOPWORDS_EN_PLUS

NUMBERED = re.compile(r"\b([a-z]+)[\s-]+(\d+[a-z]?|i{1,3}|iv|v)\b")
"""A name's word and the number after it: "trisomy 13", "type 2", "chromosome 22", "type II"."""

ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5"}

NUMBERING_WORDS = frozenset("type types stage grade class phase form group level".split())
"""Words that number whatever they stand beside ("type 2 diabetes", "Waardenburg syndrome
type 1"): such a number belongs to the nearest name word, not to the word itself."""


LETTERED_NAMES = frozenset({"hepatitis", "vitamin"})
"""The names whose kinds are letters (`LETTERED`)."""

LETTERED = re.compile(
    rf"\b({'|'.join(f'[{n[0].upper()}{n[0]}]{n[1:]}' for n in sorted(LETTERED_NAMES))})s?"
    r"\s+((?:[A-E]|[b-e])"
    r"(?:(?:\s*,\s*|,?\s+(?:and|or)\s+)(?:[A-E]|[b-e])\b)*)\b"
)
"""A name's word and the letters after it: "hepatitis A", "Vitamin D", "hepatitis c" (not a
lower-case "a": "is hepatitis a virus" may hold the article), "hepatitis A, B and C",
"vitamins A and D", "hepatitis b or c" (never a lower-case "a": "vitamin D and a diet")."""


def numbered(text: str, unnamed: Set[str] = frozenset()) -> dict[str, set[str]]:
    """Return each numbered name word of `text` with its numbers (`NUMBERED`, `LETTERED`).

    A numbering word ("type") is keyed by the nearest word that names something, after the
    number ("type 2 diabetes") or before the numbering word ("Diabetes Type 1"); stop
    words and `unnamed` (words naming no subject: "disease") name nothing.
    """
    lowered = text.lower()
    found: dict[str, set[str]] = {}
    for match in NUMBERED.finditer(lowered):
        word, number = match.group(1), ROMAN.get(match.group(2), match.group(2))
        if word in NUMBERING_WORDS:
            after = [w for w in re.findall(r"[a-z]+", lowered[match.end() :])[:1]]
            before = [
                w
                for w in re.findall(r"[a-z]+", lowered[: match.start()])[-3:]
                if w not in unnamed and w not in STOPWORDS_EN_PLUS
            ][-1:]
            named = [w for w in after if w not in STOPWORDS_EN_PLUS] or before
            if not named:
                continue
            word = f"{word} {named[0]}"
        found.setdefault(word, set()).add(number)
    for match in LETTERED.finditer(text):  # "hepatitis A": a letter numbers it
        letters = re.findall(r"\b[A-Ea-e]\b", match.group(2))
        found.setdefault(match.group(1).lower(), set()).update(x.upper() for x in letters)
    return found
