"""MASH-QA (Zhu et al. 2020), SQuAD v2-style JSON; multiple answer spans are joined in order."""

from __future__ import annotations

from pathlib import Path

from veriloop.evaluation.items import Item
from veriloop.files import dataset_file, field, json_file


def load_mashqa(data_dir: Path, split: str = "test") -> list[Item]:
    """Load `mashqa_{split}.json` (or the given file): data[].paragraphs[].qas[]."""
    path = dataset_file(data_dir, f"mashqa_{split}.json", "MASH-QA")
    items = []
    for article in field(json_file(path), "data", str(path)):
        for paragraph in field(article, "paragraphs", str(path)):
            for qa in field(paragraph, "qas", str(path)):
                where = f"{path}: question {qa.get('id')}"
                spans = [str(a["text"]) for a in field(qa, "answers", where) if a.get("text")]
                if not spans:
                    continue  # SQuAD v2 unanswerable: no reference
                items.append(
                    Item(
                        id=str(field(qa, "id", str(path))),
                        question=str(field(qa, "question", where)),
                        references=[" ".join(spans)],
                        documents=[str(paragraph.get("context", ""))],
                        metadata={"title": article.get("title")},
                        dataset="mashqa",
                    )
                )
    return items
