"""The one item schema every dataset loader produces."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from veriloop.errors import DatasetError

__all__ = ["DatasetError", "Item", "with_unique_ids"]


@dataclass(frozen=True)
class Item:
    """One benchmark item, whatever dataset it came from."""

    id: str
    question: str
    references: list[str] = field(default_factory=list)
    """Reference answers (free text); the first is the primary one."""
    documents: list[str] = field(default_factory=list)
    """Context passages or evidence that come with the item."""
    options: dict[str, str] = field(default_factory=dict)
    """Multiple-choice options, label -> text."""
    gold: str | None = None
    """The correct option label, or the gold class label (yes/no/maybe, ...)."""
    labels: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    dataset: str = ""


def with_unique_ids(items: list[Item]) -> list[Item]:
    """Suffix repeated ids with #2, #3, ... in order, so every item has its own id.

    Results are keyed by item id; two items sharing one would make a resumed benchmark
    skip the second. Some datasets repeat ids (MedQuAD has duplicate question pairs).
    """
    seen: Counter[str] = Counter()
    unique = []
    for item in items:
        seen[item.id] += 1
        unique.append(
            item if seen[item.id] == 1 else replace(item, id=f"{item.id}#{seen[item.id]}")
        )
    return unique
