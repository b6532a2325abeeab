import json
from pathlib import Path

import pytest

from veriloop.evaluation.items import DatasetError
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "pubmedqa"


def write_fixture(folder: Path) -> None:
    records = {
        "1": {
            "QUESTION": "Q1?",
            "CONTEXTS": ["c1"],
            "LABELS": ["RESULTS"],
            "MESHES": [],
            "YEAR": "2001",
            "final_decision": "yes",
            "LONG_ANSWER": "Because.",
        },
        "2": {
            "QUESTION": "Q2?",
            "CONTEXTS": ["c2"],
            "final_decision": "no",
            "LONG_ANSWER": "Not so.",
        },
    }
    (folder / "ori_pqal.json").write_text(json.dumps(records))
    (folder / "test_ground_truth.json").write_text(json.dumps({"2": "no"}))


def test_reference_is_decision_then_long_answer(tmp_path):
    write_fixture(tmp_path)
    items = load_pubmedqa(tmp_path, split="all")
    assert [i.id for i in items] == ["1", "2"]
    assert items[0].references == ["yes. Because."] and items[0].documents == ["c1"]
    assert [i.id for i in load_pubmedqa(tmp_path)] == ["2"]


def test_bad_files_are_named(tmp_path):
    with pytest.raises(DatasetError, match="ori_pqal.json does not exist"):
        load_pubmedqa(tmp_path)
    (tmp_path / "ori_pqal.json").write_text('{"1": {"QUESTION": "q"}}')
    with pytest.raises(DatasetError, match="record 1 lacks"):
        load_pubmedqa(tmp_path, split="all")
    (tmp_path / "ori_pqal.json").write_text("{not json")
    with pytest.raises(DatasetError, match="ori_pqal.json:1: not valid JSON"):
        load_pubmedqa(tmp_path, split="all")


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/pubmedqa is not present")
def test_real_test_split_has_500_items():
    items = load_pubmedqa(SHARED)
    assert len(items) == 500
    assert all(i.references[0].split(".")[0] in {"yes", "no", "maybe"} for i in items)
