"""Issue 36's hostile inputs to batch checking, each kept: nothing silently wrong, no traceback."""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_batch_verify import SOURCE, WordJudge
from typer.testing import CliRunner

import veriloop
from veriloop.cli import app
from veriloop.errors import InvalidInputError
from veriloop.evaluation.bench import ResultsFile
from veriloop.evaluation.html_report import script_safe_json
from veriloop.files import run_lock
from veriloop.testing import assert_grounded
from veriloop.verify.claims import BatchSettings
from veriloop.verify.rows import Row, RowError, read_rows, rows_from
from veriloop.verify.run import latest_records, start_run

runner = CliRunner()
BACKED = {"answer": "Hair loss is an uncommon side effect.", "sources": [SOURCE]}


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> WordJudge:
    """Factored Verification's judge replaced by the batch tests' scripted one."""
    import veriloop.graphs.factored_verification as fv

    judge = WordJudge()
    monkeypatch.setattr(fv, "support_judge", lambda kind, models, **_: judge)
    return judge


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ------------------------------------------------------------------ resume and fingerprints


def test_another_input_into_the_same_out_is_refused_in_one_line(
    tmp_path: Path, scripted: WordJudge
) -> None:
    a = write_rows(tmp_path / "a.jsonl", [{"id": str(i), **BACKED} for i in range(3)])
    b = write_rows(
        tmp_path / "b.jsonl",
        [
            {"id": str(i), "answer": "Warfarin cures headaches.", "sources": [SOURCE]}
            for i in range(3)
        ],
    )
    out = tmp_path / "out"
    assert runner.invoke(app, ["verify", str(a), "--out", str(out)]).exit_code == 0
    refused = runner.invoke(app, ["verify", str(b), "--out", str(out)])
    assert refused.exit_code == 2
    assert f"holds the results of {a}, not {b}" in refused.output
    assert "Traceback" not in refused.output
    # asked to continue, b's rows are checked (their text differs), not served a's verdicts
    go_on = runner.invoke(app, ["verify", str(b), "--out", str(out), "--continue"])
    assert go_on.exit_code == 0, go_on.output
    assert "3 rows checked" in go_on.output
    latest = latest_records(
        __import__("veriloop.evaluation.bench", fromlist=["x"]).ResultsFile(out / "results.jsonl")
    )
    assert {r["answer"] for r in latest.values()} == {"Warfarin cures headaches."}


def test_an_edited_answer_under_the_same_id_is_checked_again(
    tmp_path: Path, scripted: WordJudge
) -> None:
    rows = tmp_path / "rows.jsonl"
    write_rows(rows, [{"id": "1", **BACKED}, {"id": "2", **BACKED}])
    out = tmp_path / "out"
    assert runner.invoke(app, ["verify", str(rows), "--out", str(out)]).exit_code == 0
    write_rows(
        rows,
        [
            {"id": "1", **BACKED},
            {"id": "2", "answer": "Warfarin cures headaches.", "sources": [SOURCE]},
        ],
    )
    again = runner.invoke(app, ["verify", str(rows), "--out", str(out)])
    assert "1 rows checked, 0 failed, 1 already done" in again.output
    latest = latest_records(ResultsFile(out / "results.jsonl"))
    assert latest["2"]["verdict"] == "hallucinated"  # not the old "supported"
    assert latest["1"]["fingerprint"] != latest["2"]["fingerprint"]


def test_a_second_writer_on_one_out_is_refused(
    tmp_path: Path, lock_holder: Callable[[Path], Any]
) -> None:
    out = tmp_path / "out"
    holder = lock_holder(out)
    with pytest.raises(InvalidInputError, match=f"is being written by process {holder.pid}"):
        with run_lock(out):
            pass
    holder.kill()
    holder.wait()
    with run_lock(out):  # free again once the holder is gone
        pass


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_out_is_one_line(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    with pytest.raises(InvalidInputError, match="cannot write into"):
        start_run(locked / "run", "x", BatchSettings())


def test_an_out_that_is_a_file_or_unwritable_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InvalidInputError, match="is a file"):
        start_run(blocker, "x", BatchSettings())
    with pytest.raises(InvalidInputError, match="cannot write into"):
        start_run(blocker / "below", "x", BatchSettings())  # a file where a folder must go


# ------------------------------------------------------------------------ bad text


def test_a_lone_surrogate_is_one_failed_row_and_the_batch_finishes(
    tmp_path: Path, scripted: WordJudge
) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"id": "good", **BACKED})
        + "\n"
        + '{"id": "bad", "answer": "Hair \\ud800 loss.", "sources": ["x"]}\n'
        + '{"id": "bad\\udfff-id", "answer": "A text.", "sources": ["x"]}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["verify", str(rows), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 rows checked, 2 failed" in result.output
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    failed = [r for r in lines if r["error"]]
    assert [r["field"] for r in failed] == ["answer", "id"]
    assert "lone surrogate" in failed[0]["error"]
    # check() fails the same row the same way, and returns the others
    results = veriloop.check([{"id": "s", "answer": "A \ud800 b.", "sources": ["x"]}, BACKED])
    assert "lone surrogate" in results[0]["error"] and results[1]["verdict"] == "supported"


def test_failed_rows_keep_ids_that_cannot_collide(scripted: WordJudge) -> None:
    results = veriloop.check(["junk", {"id": "1", **BACKED}, 5])
    assert [r["id"] for r in results] == ["#1", "1", "#3"]
    assert results[0]["verdict"] is None and "expected an object" in results[0]["error"]
    assert results[1]["verdict"] == "supported" and results[1]["error"] is None


def test_a_bad_line_and_an_explicit_id_are_two_rows(tmp_path: Path, scripted: WordJudge) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("{not json\n" + json.dumps({"id": "1", **BACKED}) + "\n")
    out = tmp_path / "out"
    result = runner.invoke(app, ["verify", str(rows), "--out", str(out)])
    assert "1 rows checked, 1 failed" in result.output
    assert set(latest_records(ResultsFile(out / "results.jsonl"))) == {"#1", "1"}
    # a re-run does not append the same failure again
    before = (out / "results.jsonl").read_text().count("\n")
    runner.invoke(app, ["verify", str(rows), "--out", str(out)])
    assert (out / "results.jsonl").read_text().count("\n") == before


def test_every_row_failed_exits_1(tmp_path: Path, scripted: WordJudge) -> None:
    rows = write_rows(tmp_path / "rows.jsonl", [{"id": "a", "answer": ""}, {"id": "b"}])
    result = runner.invoke(app, ["verify", str(rows), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and "every row of" in result.output


# ------------------------------------------------------------------- encodings, sizes


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_a_byte_order_mark_is_read_in_every_format(tmp_path: Path, encoding: str) -> None:
    rows = [{"id": "1", **BACKED}, {"id": "2", **BACKED}, {"id": "3", **BACKED}]
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding=encoding)
    as_list = tmp_path / "rows.json"
    as_list.write_text(json.dumps(rows), encoding=encoding)
    table = tmp_path / "rows.csv"
    table.write_text(
        "id,answer,sources\n" + "".join(f"{r['id']},{r['answer']},{SOURCE}\n" for r in rows),
        encoding=encoding,
    )
    for path in (jsonl, as_list, table):
        parsed = list(read_rows(path))
        assert [type(r) for r in parsed] == [Row, Row, Row], (path, parsed)
        assert [r.id for r in parsed] == ["1", "2", "3"]


def test_utf16_without_a_mark_is_named(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(json.dumps({"id": "1", **BACKED}).encode("utf-16-le"))
    with pytest.raises(InvalidInputError, match="UTF-16 text without a byte-order mark"):
        list(read_rows(path))
    assert codecs.BOM_UTF16_LE not in path.read_bytes()[:2]


def test_a_csv_cell_over_the_default_field_limit_is_read(tmp_path: Path) -> None:
    long_source = "Bleeding is the most common side effect. " * 5000  # 205,000 characters
    path = tmp_path / "rows.csv"
    path.write_text(f'answer,sources\nBleeding is common.,"{long_source}"\n', encoding="utf-8")
    [row] = list(read_rows(path))
    assert isinstance(row, Row) and len(row.sources[0]) == len(long_source)


def test_integer_ids_with_a_gap_stay_integers() -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {"id": [1, None, 3], "answer": ["A b c.", "D e f.", "G h i."], "sources": [["x"]] * 3}
    )
    assert frame["id"].dtype.kind == "f"  # pandas reads a gap as NaN: 1.0, nan, 3.0
    assert [r.id for r in rows_from(frame)] == ["1", "2", "3"]


def test_a_parquet_text_column_holding_a_json_list_is_a_list(tmp_path: Path) -> None:
    import pandas as pd

    path = tmp_path / "rows.parquet"
    pd.DataFrame({"answer": ["A b c."], "sources": ['["one", "two"]']}).to_parquet(path)
    [row] = list(read_rows(path))
    assert isinstance(row, Row) and row.sources == ["one", "two"]


def test_pipes_and_devices_are_not_missing_files(tmp_path: Path) -> None:
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInputError, match="not a regular file"):
        list(read_rows(fifo))
    result = runner.invoke(app, ["verify", "/dev/zero"])
    assert result.exit_code == 2 and "not a regular file" in result.output


# ------------------------------------------------------------------ Python entry points


def test_check_takes_one_dict_as_one_row_and_refuses_none(scripted: WordJudge) -> None:
    [one] = veriloop.check({"id": "x", **BACKED})
    assert one["id"] == "x" and one["verdict"] == "supported"
    with pytest.raises(InvalidInputError, match="rows must be a list of dicts"):
        veriloop.check(None)
    with pytest.raises(InvalidInputError, match="rows must be a list of dicts"):
        veriloop.check(42)


def test_assert_grounded_reads_one_string_as_one_source(scripted: WordJudge) -> None:
    result = assert_grounded("Hair loss is an uncommon side effect.", SOURCE)
    [claim] = result["claims"]
    assert claim["evidence_index"] == 0 and claim["evidence_span"] == SOURCE
    with pytest.raises(InvalidInputError, match="sources must be a list of texts"):
        assert_grounded("Hair loss is an uncommon side effect.", None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="the answer must be text"):
        assert_grounded(None, [SOURCE])  # type: ignore[arg-type]


# -------------------------------------------------------------------------- report


def test_the_report_json_block_escapes_what_could_end_it() -> None:
    hostile = "<!-- <script> </script> ]]> & \u2028 \u2029 \ud800"
    text = script_safe_json([{"answer": hostile}])
    for raw in ("<", ">", "&", "\u2028", "\u2029", "\ud800"):
        assert raw not in text
    assert json.loads(text)[0]["answer"] == hostile.replace("\ud800", "\ufffd")


def test_a_json_rows_sources_as_one_string_is_an_error_naming_it() -> None:
    [parsed] = list(rows_from([{"answer": "x", "sources": "one text"}]))
    assert isinstance(parsed, RowError) and "wrap a single source in a list" in parsed.message
