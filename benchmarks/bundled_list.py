"""Write a list bundled with veriloop that a benchmark builds from MedQuAD, or check it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_or_check(path: Path, text: str, check: bool, summary: str) -> int:
    """Write `text` to `path` and print `summary`, or with `check` compare it and say so.

    Returns:
        The exit status: 1 when `check` finds the committed file differs, else 0.
    """
    shown = path.resolve().relative_to(ROOT)
    if check:
        same = path.read_text(encoding="utf-8") == text
        print(f"{shown}: {'up to date' if same else 'differs from a fresh build'}")
        return 0 if same else 1
    path.write_text(text, encoding="utf-8")
    print(f"{summary} -> {shown}")
    return 0
