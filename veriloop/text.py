"""Text utilities every layer may use (core: imports nothing of veriloop's)."""

from __future__ import annotations

import unicodedata

_KEPT_CONTROLS = {"\t", "\n", "\r"}


def strip_control(text: str) -> str:
    """Remove control characters (NUL, escape, backspace, ...) but keep tabs and newlines."""
    return "".join(ch for ch in text if ch in _KEPT_CONTROLS or unicodedata.category(ch) != "Cc")


def has_word(text: str) -> bool:
    """Return True when the text holds at least one letter or digit."""
    return any(ch.isalnum() for ch in text)
