"""Citation checking, `veriloop index` and `veriloop ask --method fe` on fake models."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.models import Models
from veriloop.nodes.citations import cited_ids, number_citations, split_citations

runner = CliRunner()
Make = Callable[..., tuple[str, Models]]


def test_split_citations_keeps_valid_ids_and_flags_invented_ones() -> None:
    text, valid, invalid = split_citations(
        "Aspirin thins blood [PID-1, PID-7]. It causes bleeding [TID-2]. See WID-3.",
        {"PID-1", "TID-2"},
    )
    assert text == "Aspirin thins blood [PID-1]. It causes bleeding [TID-2]. See (unknown source)."
    assert valid == ["PID-1", "TID-2"] and invalid == ["PID-7", "WID-3"]
    assert cited_ids("a [PID-2] b [PID-2] [TID-1]") == ["PID-2", "TID-1"]


def test_number_citations_follows_the_citation_order() -> None:
    text, order = number_citations("A [PID-4]. B [PID-2, PID-4].", ["PID-4", "PID-2"])
    assert text == "A [1]. B [2, 1]." and order == ["PID-4", "PID-2"]


def test_index_then_ask_fe_prints_numbered_citations_and_the_rationale(
    fake_backend: Make, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "aspirin.txt").write_text("Aspirin causes stomach bleeding in older patients.")
    (docs / "scan.txt").write_bytes(b"\x00\x01binary")
    replies = [
        json.dumps({"PID-1": "PID-1 states aspirin causes stomach bleeding."}),
        json.dumps(
            {
                "labels": {"PID-1": {"label": "CORRECT-EXPLICIT", "justification": "stated"}},
                "verdict": "CORRECT",
            }
        ),
        "Yes, it can [PID-1] [PID-5].",
    ]
    backend, _ = fake_backend(replies)
    index_dir = tmp_path / "idx"
    built = runner.invoke(app, ["index", str(docs), "--out", str(index_dir), "--backend", backend])
    assert built.exit_code == 0, built.output
    assert "skipped scan.txt: binary or not UTF-8 text" in built.output
    assert "indexed 1 documents as 1 chunks" in built.output
    asked = runner.invoke(
        app,
        [
            "ask",
            "Does aspirin cause bleeding?",
            "--method",
            "fe",
            "--corpus",
            str(index_dir),
            "--backend",
            backend,
            "--no-cache",
            "--rationale",
        ],
    )
    assert asked.exit_code == 0, asked.output
    assert "Yes, it can [1]." in asked.output
    assert "removed citations to unknown ids: PID-5" in asked.output
    assert "CORRECT-EXPLICIT" in asked.output and "aspirin.txt" in asked.output


def test_index_errors_exit_2_with_a_message(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["index", str(empty), "--out", str(tmp_path / "i")])
    assert result.exit_code == 2 and "the corpus is empty" in result.output
    both = runner.invoke(app, ["index", str(empty), "--dataset", "pubmedqa"])
    assert both.exit_code == 2 and "exactly one corpus source" in both.output
    wrong = runner.invoke(app, ["ask", "q?", "--method", "l2r", "--corpus", str(empty)])
    assert wrong.exit_code == 2 and "does not use a corpus index" in wrong.output
