"""Adapters from benchmark datasets to veriloop's stores (evaluation layer).

A dataset item becomes a corpus document (`documents_from_items`, for `veriloop index
--dataset`) or a gold fact (`gold_facts`, L2R's upper-bound base: the L2R reference also
evaluates on a base built from each question's gold answer, which bounds what retrieval
plus refusal can reach when the knowledge is right and complete; a gold fact states the
question with its correct answer, so it is retrieved by the question and settles it;
confidence is 1 and the source names the dataset and item).
"""

from __future__ import annotations

from collections.abc import Iterable

from veriloop.evaluation.items import Item
from veriloop.knowledge.corpus import Document
from veriloop.knowledge.entries import NewEntry, new_entry


def documents_from_items(items: Iterable[Item], dataset: str) -> list[Document]:
    """Turn dataset items' documents into one corpus document per item (id = item id).

    Items sharing the same documents (repeated questions on one abstract) give one document.
    """
    documents: list[Document] = []
    seen: set[str] = set()
    for item in items:
        text = "\n\n".join(doc.strip() for doc in item.documents if doc.strip())
        if not text or text in seen:
            continue
        seen.add(text)
        title = str(item.metadata.get("title") or "")
        documents.append(Document(item.id, text, title, f"dataset:{dataset}"))
    return documents


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
