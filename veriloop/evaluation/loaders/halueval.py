"""HaluEval v1: `qa` (knowledge, question, right and hallucinated answers) and `general`.

`qa` items carry the knowledge as the document, the right answer as the reference and the
hallucinated answer in metadata, so a detector can be scored on the paired right vs
hallucinated responses. `general` items are user queries with ChatGPT's response in
metadata and the human label ("yes" = hallucinated) in `gold`.
"""

from __future__ import annotations

from pathlib import Path

from veriloop.evaluation.items import DatasetError, Item
from veriloop.files import field, json_lines, require_file


def load_halueval(data_dir: Path, split: str = "qa") -> list[Item]:
    """Load HaluEval `qa` or `general` from data/{split}_data.json (JSON lines)."""
    if split not in {"qa", "general"}:
        raise DatasetError(f"unknown HaluEval split {split!r}; use qa or general")
    folder = Path(data_dir)
    path = folder / "data" / f"{split}_data.json"
    if not path.is_file():
        path = folder / f"{split}_data.json"
    require_file(path, "point --data-dir at the HaluEval folder")
    items = []
    for number, record in json_lines(path):
        where = f"{path}:{number}"
        if split == "qa":
            items.append(
                Item(
                    id=str(number),
                    question=str(field(record, "question", where)),
                    references=[str(field(record, "right_answer", where))],
                    documents=[str(field(record, "knowledge", where))],
                    metadata={
                        "hallucinated_answer": str(field(record, "hallucinated_answer", where))
                    },
                    dataset="halueval",
                )
            )
        else:
            label = str(field(record, "hallucination", where))
            if label not in {"yes", "no"}:
                raise DatasetError(f"{where}: hallucination must be yes or no, got {label!r}")
            items.append(
                Item(
                    id=str(record.get("ID", number)),
                    question=str(field(record, "user_query", where)),
                    gold=label,
                    labels=[label],
                    metadata={
                        "response": str(field(record, "chatgpt_response", where)),
                        "spans": record.get("hallucination_spans", []),
                    },
                    dataset="halueval",
                )
            )
    return items
