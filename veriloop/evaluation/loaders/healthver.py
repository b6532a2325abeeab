"""HealthVer (Sarrouti et al. 2021): evidence-claim pairs labelled Supports/Refutes/Neutral."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal

from veriloop.evaluation.items import DatasetError, Item

LABELS = {"Supports": 1, "Refutes": -1, "Neutral": 0}


def load_healthver(data_dir: Path, split: Literal["dev", "test"] = "dev") -> list[Item]:
    """Load `healthver_{split}.csv`: question = claim, documents = [evidence], gold = label.

    Raises:
        DatasetError: The file is missing, a column is absent, or a label is unknown.
    """
    path = Path(data_dir) / f"healthver_{split}.csv"
    if not path.is_file():
        raise DatasetError(f"{path} does not exist; point --data-dir at the HealthVer folder")
    items = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"id", "evidence", "claim", "label"} - set(reader.fieldnames or [])
        if missing:
            raise DatasetError(f"{path}: missing column(s) {sorted(missing)}")
        for row in reader:
            if row["label"] not in LABELS:
                raise DatasetError(
                    f"{path}:{reader.line_num}: label {row['label']!r} is not one of "
                    f"{sorted(LABELS)}"
                )
            items.append(
                Item(
                    id=row["id"],
                    question=row["claim"],
                    documents=[row["evidence"]],
                    gold=row["label"],
                    labels=[row["label"]],
                    metadata={"topic": row.get("topic_ip"), "topic_question": row.get("question")},
                    dataset="healthver",
                )
            )
    return items
