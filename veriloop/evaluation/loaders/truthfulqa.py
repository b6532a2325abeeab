"""TruthfulQA: the generation CSV and the multiple-choice `mc_task.json`.

`split="generation"` reads TruthfulQA.csv (utf-8-sig; `;`-separated answer lists):
references = best answer then the other correct answers; incorrect answers in metadata.
`split="mc"` reads data/mc_task.json. Its correct options come first, so options are
shuffled with a fixed seed per question: `options` maps A, B, ... to texts, `gold` is the
MC1 answer's label, and `metadata["mc2_correct"]` lists the labels of all true options.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

from veriloop.evaluation.items import DatasetError, Item
from veriloop.files import field, json_file

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _split_answers(text: str) -> list[str]:
    return [part.strip() for part in text.split(";") if part.strip()]


def load_truthfulqa(data_dir: Path, split: str = "mc", seed: int = 0) -> list[Item]:
    """Load TruthfulQA (`generation` or `mc`)."""
    folder = Path(data_dir)
    if split == "generation":
        path = folder / "TruthfulQA.csv"
        if not path.is_file():
            raise DatasetError(f"{path} does not exist; point --data-dir at the TruthfulQA folder")
        items = []
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            for number, row in enumerate(reader, start=1):
                if not row.get("Question") or not row.get("Best Answer"):
                    raise DatasetError(
                        f"{path}:{reader.line_num}: row without Question/Best Answer"
                    )
                correct = _split_answers(row.get("Correct Answers", ""))
                items.append(
                    Item(
                        id=str(number),
                        question=row["Question"],
                        references=[
                            row["Best Answer"],
                            *[c for c in correct if c != row["Best Answer"]],
                        ],
                        metadata={
                            "incorrect": _split_answers(row.get("Incorrect Answers", "")),
                            "category": row.get("Category"),
                            "type": row.get("Type"),
                        },
                        dataset="truthfulqa",
                    )
                )
        return items
    if split != "mc":
        raise DatasetError(f"unknown TruthfulQA split {split!r}; use mc or generation")
    path = folder / "data" / "mc_task.json"
    if not path.is_file():
        raise DatasetError(f"{path} does not exist; point --data-dir at the TruthfulQA folder")
    items = []
    for number, record in enumerate(json_file(path)):
        where = f"{path}: question {number}"
        mc1 = field(record, "mc1_targets", where)
        mc2 = field(record, "mc2_targets", where)
        texts = list(mc2) + [t for t in mc1 if t not in mc2]
        random.Random(seed * 100_003 + number).shuffle(texts)
        if len(texts) > len(LABELS):
            raise DatasetError(f"{where}: more than {len(LABELS)} options")
        options = {LABELS[i]: text for i, text in enumerate(texts)}
        by_text = {text: label for label, text in options.items()}
        best = [text for text, ok in mc1.items() if ok == 1]
        if len(best) != 1:
            raise DatasetError(f"{where}: mc1_targets must mark exactly one answer 1")
        items.append(
            Item(
                id=str(number),
                question=str(field(record, "question", where)),
                options=options,
                gold=by_text[best[0]],
                references=[best[0]],
                metadata={
                    "mc2_correct": sorted(by_text[t] for t, ok in mc2.items() if ok == 1),
                    "mc1_options": sorted(by_text[t] for t in mc1),
                },
                dataset="truthfulqa",
            )
        )
    return items
