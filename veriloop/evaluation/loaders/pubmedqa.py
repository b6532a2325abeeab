"""PubMedQA PQA-L (Jin et al. 2019): `ori_pqal.json` plus the test split's PMIDs.

The reference answer is `final_decision + ". " + LONG_ANSWER`, as Ji et al. (2023) use it
(e.g. "yes. Results depicted mitochondrial dynamics ...").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from veriloop.evaluation.items import DatasetError, Item

DATA_FILE = "ori_pqal.json"
TEST_IDS_FILE = "test_ground_truth.json"
REQUIRED = ("QUESTION", "CONTEXTS", "final_decision", "LONG_ANSWER")


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(
            f"{path} does not exist; point --data-dir at a PubMedQA folder holding "
            f"{DATA_FILE} and {TEST_IDS_FILE}"
        )
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


def load_pubmedqa(data_dir: Path, split: Literal["test", "dev", "all"] = "test") -> list[Item]:
    """Load PQA-L items in file order.

    `test` keeps the 500 test PMIDs, `dev` the other 500 (for calibration: never tune on
    the items you report), `all` all 1000.

    Raises:
        DatasetError: A file is missing or not JSON, or a record lacks a required field.
    """
    records = _read_json(Path(data_dir) / DATA_FILE)
    if not isinstance(records, dict):
        raise DatasetError(f"{Path(data_dir) / DATA_FILE}: expected an object PMID -> record")
    test_ids: set[str] | None = None
    if split in {"test", "dev"}:
        test_ids = set(_read_json(Path(data_dir) / TEST_IDS_FILE))
    items = []
    for pmid, record in records.items():
        if test_ids is not None and (pmid in test_ids) != (split == "test"):
            continue
        missing = [name for name in REQUIRED if name not in record]
        if missing:
            raise DatasetError(f"{Path(data_dir) / DATA_FILE}: record {pmid} lacks {missing}")
        decision = str(record["final_decision"])
        items.append(
            Item(
                id=str(pmid),
                question=str(record["QUESTION"]),
                references=[f"{decision}. {record['LONG_ANSWER']}"],
                documents=[str(text) for text in record["CONTEXTS"]],
                gold=decision,
                labels=[str(label) for label in record.get("LABELS", [])],
                metadata={"year": record.get("YEAR"), "meshes": record.get("MESHES", [])},
                dataset="pubmedqa",
            )
        )
    return items
