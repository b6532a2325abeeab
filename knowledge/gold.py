"""Gold knowledge: a dataset's reference answers as facts (L2R's upper-bound base).

The L2R reference also evaluates on a base built from each question's gold answer, which
bounds what retrieval plus refusal can reach when the knowledge is right and complete. A
gold fact states the question with its correct answer, so it is retrieved by the question
and settles it; confidence is 1 and the source names the dataset and item.
"""

from __future__ import annotations

from veriloop.evaluation.items import Item
from veriloop.knowledge.entries import NewEntry, new_entry


def gold_facts(items: list[Item]) -> list[NewEntry]:
    """Return one confidence-1 fact per item with a reference answer."""
    facts = []
    for item in items:
        answer = item.options.get(item.gold, "") if item.options and item.gold else ""
        answer = answer or (item.references[0] if item.references else "")
        if not answer:
            continue
        facts.append(
            new_entry(
                f"{item.question.strip()} {answer.strip()}",
                1.0,
                f"gold:{item.dataset or 'dataset'}",
                where=f"item {item.id}",
                metadata={"item_id": item.id},
            )
        )
    return facts
