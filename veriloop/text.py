"""Text utilities every layer may use (core: imports nothing of veriloop's)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

_KEPT_CONTROLS = {"\t", "\n", "\r"}


def strip_control(text: str) -> str:
    """Remove control characters (NUL, escape, backspace, ...) but keep tabs and newlines."""
    return "".join(ch for ch in text if ch in _KEPT_CONTROLS or unicodedata.category(ch) != "Cc")


def has_word(text: str) -> bool:
    """Return True when the text holds at least one letter or digit."""
    return any(ch.isalnum() for ch in text)


_ABBREVIATIONS = (
    "e.g.", "i.e.", "vs.", "Dr.", "Mr.", "Ms.", "Mrs.", "Prof.", "approx.", "cf.", "Dept.",
)  # fmt: skip
NOT_ABBREVIATED = r"(?<!\b[A-Z])" + "".join(rf"(?<!\b{re.escape(a[:-1])})" for a in _ABBREVIATIONS)
"""Lookbehinds to put before a period (`NOT_ABBREVIATED + r"\\. "`): it closes no common
abbreviation ("e.g.", "Dr.") and follows no lone capital letter ("H. pylori", "U.S.")."""
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\b[A-Z]\.)"
    + "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS)
    + r"\s+|\n+"
)


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at ., ! or ? followed by space, and at line breaks.

    A period after a lone capital letter ("U.S. Route", "J. Smith") or closing a common
    abbreviation ("e.g.", "i.e.", "vs.", "Dr.", "Dept.") does not end a sentence.
    """
    parts = _SENTENCE_END.split(text.strip())
    return [part.strip() for part in parts if part.strip()]


def first_json_value(text: str) -> Any:
    """Decode the JSON value that starts at the first "{" in `text` (prose around it is fine).

    Raw newlines inside strings are accepted: small models put them there.

    Raises:
        ValueError: There is no "{", or what follows it is not valid JSON (says where).
    """
    start = text.find("{")
    if start < 0:
        raise ValueError("the reply contains no JSON object")
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise ValueError(f"the JSON is malformed ({exc.msg} at character {exc.pos})") from exc
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Tell whether `text` holds a lone surrogate (a code point no UTF-8 file can hold)."""
    return _SURROGATE.search(text) is not None


def safe_text(text: str) -> str:
    """Return `text` with every lone surrogate replaced by U+FFFD, so it can be written."""
    return _SURROGATE.sub("\ufffd", text)


def sentence_offsets(answer: str, sentences: Sequence[str]) -> list[tuple[int | None, int | None]]:
    """Return where each sentence sits in the answer, searching forward in order."""
    found: list[tuple[int | None, int | None]] = []
    cursor = 0
    for sentence in sentences:
        at = answer.find(sentence, cursor)
        if at < 0:
            found.append((None, None))
            continue
        found.append((at, at + len(sentence)))
        cursor = at + len(sentence)
    return found
