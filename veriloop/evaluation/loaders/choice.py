"""Multiple-choice QA: MedQA (USMLE, 4 options) and CommonsenseQA."""

from __future__ import annotations

from pathlib import Path

from veriloop.evaluation.items import DatasetError, Item
from veriloop.files import dataset_file, field, json_lines


def load_medqa(data_dir: Path, split: str = "test") -> list[Item]:
    """Load MedQA US 4-option JSON lines (`phrases_no_exclude_{split}.jsonl`)."""
    path = dataset_file(data_dir, f"phrases_no_exclude_{split}.jsonl", "MedQA")
    items = []
    for number, record in json_lines(path):
        where = f"{path}:{number}"
        options = {str(k): str(v) for k, v in dict(field(record, "options", where)).items()}
        gold = str(field(record, "answer_idx", where))
        if gold not in options:
            raise DatasetError(f"{where}: answer_idx {gold!r} is not an option")
        items.append(
            Item(
                id=str(number),
                question=str(field(record, "question", where)),
                options=options,
                gold=gold,
                references=[options[gold]],
                metadata={"meta_info": record.get("meta_info")},
                dataset="medqa",
            )
        )
    return items


def load_commonsenseqa(data_dir: Path, split: str = "dev") -> list[Item]:
    """Load CommonsenseQA JSON lines (`{split}_rand_split.jsonl`)."""
    path = dataset_file(data_dir, f"{split}_rand_split.jsonl", "CommonsenseQA")
    items = []
    for number, record in json_lines(path):
        where = f"{path}:{number}"
        choices = field(record, "choices", where)
        options = dict(
            zip(field(choices, "label", where), field(choices, "text", where), strict=True)
        )
        gold = record.get("answerKey")
        if gold is not None and gold not in options:
            raise DatasetError(f"{where}: answerKey {gold!r} is not an option")
        items.append(
            Item(
                id=str(field(record, "id", where)),
                question=str(field(record, "question", where)),
                options=options,
                gold=gold,
                references=[options[gold]] if gold else [],
                metadata={"concept": record.get("question_concept")},
                dataset="commonsenseqa",
            )
        )
    return items
