"""MedQuAD (Ben Abacha & Demner-Fushman 2019): the original XML folders or a JSON-lines export.

Splits (MedQuAD has no official one): `sample` reads `medquad_sample_540.jsonl` (60 pairs
from each of 9 sources, grouped by source: use the harness's `--shuffle` to mix them),
`all` reads `medquad_all_answered.jsonl.gz`, `xml` reads every `*_QA/*.xml` document.
Question-answer pairs whose answer is empty are not benchmark items and are left out
(MedQuAD removed the answers of three MedlinePlus subsets for copyright reasons); any
other defect is an error naming the file and line.
"""

from __future__ import annotations

import gzip
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from veriloop.evaluation.items import DatasetError, Item

SPLIT_FILES = {"sample": "medquad_sample_540.jsonl", "all": "medquad_all_answered.jsonl.gz"}


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc


def _from_record(record: dict[str, Any], where: str) -> Item | None:
    missing = [name for name in ("question", "answer") if name not in record]
    if missing:
        raise DatasetError(f"{where}: record lacks {missing}")
    if not str(record["answer"]).strip():
        return None
    # qids repeat across MedQuAD's sources, so the id is qualified by the source.
    source = record.get("source_dir") or record.get("source") or ""
    return Item(
        id=f"{source}:{record.get('qid') or record.get('doc_id') or where}",
        question=str(record["question"]).strip(),
        references=[str(record["answer"]).strip()],
        metadata={key: record.get(key) for key in ("source", "qtype", "focus", "url")},
        dataset="medquad",
    )


def _xml_items(folder: Path) -> Iterator[Item]:
    files = sorted(folder.glob("*_QA/*.xml"))
    if not files:
        raise DatasetError(f"{folder} holds no */*_QA/*.xml MedQuAD documents")
    for path in files:
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            raise DatasetError(f"{path}:{exc.position[0]}: malformed XML ({exc})") from exc
        for pair in root.iter("QAPair"):
            question, answer = pair.find("Question"), pair.find("Answer")
            if question is None or answer is None:
                raise DatasetError(f"{path}: QAPair {pair.get('pid')} lacks Question or Answer")
            item = _from_record(
                {
                    "qid": question.get("qid"),
                    "question": question.text or "",
                    "answer": " ".join((answer.text or "").split()),
                    "qtype": question.get("qtype"),
                    "source": root.get("source"),
                    "source_dir": path.parent.name,
                    "url": root.get("url"),
                    "focus": root.findtext("Focus"),
                },
                str(path),
            )
            if item is not None:
                yield item


def load_medquad(data_dir: Path, split: str = "sample") -> list[Item]:
    """Load MedQuAD items from `data_dir` (a folder) or a JSON-lines file itself.

    Raises:
        DatasetError: A file is missing or malformed (named with its line).
    """
    path = Path(data_dir)
    if path.is_file():
        source = path
    elif split == "xml":
        return list(_xml_items(path))
    elif split in SPLIT_FILES:
        source = path / SPLIT_FILES[split]
    else:
        raise DatasetError(f"unknown MedQuAD split {split!r}; use sample, all or xml")
    if not source.is_file():
        raise DatasetError(f"{source} does not exist; point --data-dir at the MedQuAD folder")
    items = [
        item
        for number, record in _json_lines(source)
        if (item := _from_record(record, f"{source}:{number}")) is not None
    ]
    return items
