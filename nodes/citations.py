"""Citations in generated text: find `[PID-3]`-style ids, keep valid ones, flag the rest.

A citation is valid only when the id names a context unit the method actually gave the
model (and, for the answer, one that survived verification). An invented or mistyped id is
removed from the text shown to the user and reported in the trace, never rendered as a
source.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

CITATION_ID = re.compile(r"\b([PTW]ID-\d+)\b")
BRACKETED = re.compile(r"\s*\[([^\[\]]*?[PTW]ID-\d+[^\[\]]*?)\]")
NUMBERED = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
"""A numbered citation marker: `[1]`, `[2, 3]`."""


def strip_citations(text: str) -> str:
    """Remove citation markers (`[PID-3]`-style ids and numbered `[1]`) from `text`."""
    text = NUMBERED.sub("", BRACKETED.sub("", text))
    return " ".join(CITATION_ID.sub("", text).split())


def with_marker(sentence: str, number: int) -> str:
    """Put a numbered citation marker before the sentence's final punctuation."""
    sentence = sentence.rstrip()
    if sentence and sentence[-1] in ".!?":
        return f"{sentence[:-1]} [{number}]{sentence[-1]}"
    return f"{sentence} [{number}]"


def cited_ids(text: str) -> list[str]:
    """Return the ids mentioned in `text`, in order of first mention."""
    seen: list[str] = []
    for match in CITATION_ID.finditer(text):
        if match.group(1) not in seen:
            seen.append(match.group(1))
    return seen


def split_citations(text: str, valid: Collection[str]) -> tuple[str, list[str], list[str]]:
    """Remove bracketed citations to unknown ids from `text`.

    Returns:
        The text with only valid bracketed citations left, the valid ids it cites (in
        order), and the invalid ids it cited.
    """
    invalid: list[str] = []

    def keep_valid(match: re.Match[str]) -> str:
        ids = CITATION_ID.findall(match.group(1))
        good = [i for i in ids if i in valid]
        invalid.extend(i for i in ids if i not in valid and i not in invalid)
        return f" [{', '.join(good)}]" if good else ""

    cleaned = BRACKETED.sub(keep_valid, text)
    for stray in CITATION_ID.findall(cleaned):
        if stray not in valid:
            invalid.append(stray) if stray not in invalid else None
            cleaned = re.sub(rf"\b{re.escape(stray)}\b", "(unknown source)", cleaned)
    valid_cited = [i for i in cited_ids(cleaned) if i in valid]
    return " ".join(cleaned.split()), valid_cited, invalid


def number_citations(text: str, order: Iterable[str]) -> tuple[str, list[str]]:
    """Replace `[PID-3]` markers by `[1]`, `[2]`, ... in `order`; return text and legend order."""
    numbers = {unit_id: n for n, unit_id in enumerate(order, start=1)}

    def renumber(match: re.Match[str]) -> str:
        ids = CITATION_ID.findall(match.group(1))
        labels = [str(numbers[i]) for i in ids if i in numbers]
        return f" [{', '.join(labels)}]" if labels else ""

    return " ".join(BRACKETED.sub(renumber, text).split()), list(numbers)
