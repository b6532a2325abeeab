"""Reading users' rows: every format, the RAGAS and DeepEval names, and each bad row named."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from veriloop.errors import InvalidInputError
from veriloop.verify.rows import Row, RowError, read_rows, rows_from

SOURCE = "Warfarin thins the blood."


def parsed(path: Path) -> list[Row | RowError]:
    return list(read_rows(path))


def test_the_three_column_vocabularies_read_the_same_row(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    rows = [
        {"id": "a", "question": "q?", "answer": "It thins blood.", "sources": [SOURCE]},
        {"user_input": "q?", "response": "It thins blood.", "retrieved_contexts": [SOURCE]},
        {"input": "q?", "actual_output": "It thins blood.", "retrieval_context": [SOURCE]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = parsed(path)
    assert [r.id for r in got] == ["a", "2", "3"]  # no id: its 1-based position
    assert all(isinstance(r, Row) for r in got)
    assert {(r.question, r.answer, tuple(r.sources)) for r in got if isinstance(r, Row)} == {
        ("q?", "It thins blood.", (SOURCE,))
    }


def test_each_bad_row_is_an_error_naming_its_field_and_the_rest_go_on(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    lines = [
        json.dumps({"answer": "ok sentence here.", "sources": [SOURCE]}).encode(),
        json.dumps({"question": "q?", "sources": [SOURCE]}).encode(),  # no answer
        json.dumps({"answer": "x", "sources": SOURCE}).encode(),  # a bare string
        json.dumps({"answer": "x", "sources": [3]}).encode(),  # not text
        json.dumps({"answer": "x", "sources": ["  "]}).encode(),  # nothing to rest on
        b"{not json",
        b'{"answer": "caf\xe9", "sources": ["a"]}',  # Latin-1 bytes
        json.dumps({"id": "1", "answer": "dup.", "sources": [SOURCE]}).encode(),  # repeats id 1
        json.dumps({"answer": "fine again.", "contexts": [{"page_content": SOURCE}]}).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    got = parsed(path)
    errors = {r.position: r for r in got if isinstance(r, RowError)}
    assert errors[2].field == "answer" and "missing" in errors[2].message
    assert errors[3].field == "sources" and "wrap a single source" in errors[3].message
    assert errors[4].field == "sources" and "item 1 is int" in errors[4].message
    assert errors[5].field == "sources" and "no text" in errors[5].message
    assert errors[6].field == "line" and "not valid JSON" in errors[6].message
    assert errors[7].field == "line" and "not UTF-8" in errors[7].message
    assert errors[8].field == "id" and "row 1" in errors[8].message and errors[8].id != "1"
    assert str(errors[2]).startswith("row 2 (id 2): answer:")
    good = [r for r in got if isinstance(r, Row)]
    assert [r.position for r in good] == [1, 9] and good[1].sources == [SOURCE]


def test_csv_cells_hold_json_or_python_lists_or_one_text(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "user_input": ["q1", "q2", "q3"],
            "response": ["One. Two.", "Three.", "Four."],
            "retrieved_contexts": [["a", "b"], json.dumps(["c"]), "just one text"],
        }
    )
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)  # pandas writes the first list as "['a', 'b']"
    got = parsed(path)
    assert [r.sources for r in got if isinstance(r, Row)] == [["a", "b"], ["c"], ["just one text"]]


def test_csv_with_bytes_that_are_not_utf8_fails_only_that_row(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_bytes(b"answer,sources\nfine.,a\ncaf\xe9.,b\n")
    got = parsed(path)
    assert isinstance(got[0], Row)
    assert isinstance(got[1], RowError) and "UTF-8" in got[1].message


def test_a_json_list_and_a_parquet_file_read_as_rows(tmp_path: Path) -> None:
    rows = [{"id": 7, "answer": "It thins blood.", "sources": [SOURCE]}]
    listed = tmp_path / "rows.json"
    listed.write_text(json.dumps({"rows": rows}))
    assert [r.id for r in parsed(listed)] == ["7"]
    parquet = tmp_path / "rows.parquet"
    pd.DataFrame(rows).to_parquet(parquet)
    [row] = parsed(parquet)
    assert isinstance(row, Row) and row.sources == [SOURCE]  # a numpy array became a list


def test_a_dataframe_and_plain_dicts_are_rows_too() -> None:
    frame = pd.DataFrame([{"answer": "It thins blood.", "sources": [SOURCE], "question": None}])
    [row] = list(rows_from(frame))
    assert isinstance(row, Row) and row.question == ""
    [bad] = list(rows_from([("It thins blood.", [SOURCE])]))
    assert isinstance(bad, RowError) and "expected an object" in bad.message


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("rows.txt", "x", "unsupported file type .txt"),
        ("rows.json", "{broken", "not valid JSON"),
        ("rows.json", '"a string"', "expected a JSON list of rows"),
    ],
)
def test_a_file_that_cannot_be_read_at_all_says_why(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InvalidInputError, match=message):
        parsed(path)
    with pytest.raises(InvalidInputError, match="does not exist"):
        parsed(tmp_path / "missing.jsonl")
