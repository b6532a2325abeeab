"""`veriloop kb ...` and `veriloop ask --method l2r --kb` on fake models."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models

runner = CliRunner()
Make = Callable[..., tuple[str, Models]]
ASPIRIN = "Aspirin thins the blood."
VECTORS = {
    ASPIRIN: [1, 0, 0, 0, 0, 0, 0, 0],
    "What does aspirin do?": [0.95, 0.3122, 0, 0, 0, 0, 0, 0],
    "Who won the 1930 World Cup?": [0, 0, 0, 1, 0, 0, 0, 0],
}


def kb(args: list[str], backend: str | None = None) -> str:
    extra = ["--backend", backend] if backend and args[0] not in {"stats", "export", "list"} else []
    if args[0] == "delete":
        extra = []
    result = runner.invoke(app, ["kb", *args, *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_create_add_search_update_delete_export(fake_backend: Make, tmp_path: Path) -> None:
    backend, _ = fake_backend([], vectors=VECTORS)
    base = str(tmp_path / "kb")
    assert "created" in kb(["create", base], backend)
    assert "added 1 entry (K-1 .. K-1)" in kb(
        ["add", base, ASPIRIN, "--confidence", "0.9"], backend
    )
    assert "skipped 1 duplicate" in kb(["add", base, "aspirin thins the blood"], backend)
    facts = tmp_path / "facts.txt"
    facts.write_text("0.5\tWater boils at 100 C.\n0.7\tIce is frozen water.\n")
    assert "added 2 entries (K-2 .. K-3)" in kb(["add", base, "--file", str(facts)], backend)
    hits = json.loads(kb(["search", base, "What does aspirin do?", "--json", "-k", "2"], backend))
    assert hits[0]["id"] == "K-1" and hits[0]["confidence"] == 0.9
    kb(["update", base, "K-2", "--confidence", "0.25"], backend)
    kb(["delete", base, "K-3"])
    stats = json.loads(kb(["stats", base]))
    assert stats["entries"] == 2 and stats["sources"] == {"manual": 1, "file:facts.txt": 1}
    out = tmp_path / "out.jsonl"
    kb(["export", base, str(out)])
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(e["id"], e["confidence"]) for e in exported] == [("K-1", 0.9), ("K-2", 0.25)]
    assert "Water boils" in kb(["list", base, "--contains", "water"])


def test_bad_facts_file_changes_nothing_and_names_the_line(
    fake_backend: Make, tmp_path: Path
) -> None:
    backend, _ = fake_backend([], vectors=VECTORS)
    base = str(tmp_path / "kb")
    kb(["create", base], backend)
    facts = tmp_path / "facts.jsonl"
    facts.write_text('{"knowledge": "fine"}\n{"knowledge": "bad", "confidence": 1.5}\n')
    result = runner.invoke(app, ["kb", "add", base, "--file", str(facts), "--backend", backend])
    assert result.exit_code == 2
    assert "facts.jsonl:2: confidence 1.5 is outside [0, 1]" in result.output
    assert len(KnowledgeBase.open(Path(base))) == 0


def test_kb_errors_are_one_line(tmp_path: Path) -> None:
    for args, message in [
        (["kb", "stats", str(tmp_path / "none")], "is not a veriloop knowledge base"),
        (["kb", "create", str(tmp_path), "--index", "ivf9"], "unknown index kind"),
    ]:
        (tmp_path / "x").write_text("occupied")
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output


def test_gold_import_turns_references_into_facts(fake_backend: Make, tmp_path: Path) -> None:
    backend, _ = fake_backend([], vectors=VECTORS)
    data = tmp_path / "csqa"
    data.mkdir()
    row = {
        "id": "q1",
        "question": "Where do fish live?",
        "choices": {"label": ["A", "B"], "text": ["desert", "water"]},
        "answerKey": "B",
    }
    (data / "dev_rand_split.jsonl").write_text(json.dumps(row) + "\n")
    base = str(tmp_path / "kb")
    kb(["create", base], backend)
    kb(["import", base, "--dataset", "commonsenseqa", "--data-dir", str(data)], backend)
    entry = KnowledgeBase.open(Path(base)).entries[0]
    assert entry.knowledge == "Where do fish live? water"
    assert entry.source == "gold:commonsenseqa" and entry.metadata == {"item_id": "q1"}


def test_ask_l2r_shows_answer_entries_and_refusals(fake_backend: Make, tmp_path: Path) -> None:
    reply = {"evidence": "[K-1]", "reason": "K-1 says so", "CAN_ANSWER": True, "answer": "Thins"}
    backend, _ = fake_backend([json.dumps(reply)], vectors=VECTORS)
    base = str(tmp_path / "kb")
    kb(["create", base], backend)
    kb(["add", base, ASPIRIN], backend)
    common = ["--method", "l2r", "--kb", base, "--backend", backend, "--no-cache"]
    answered = runner.invoke(app, ["ask", "What does aspirin do?", *common])
    assert answered.exit_code == 0, answered.output
    assert "Thins" in answered.output and "K-1 says so" in answered.output
    assert "Knowledge-base entries retrieved" in answered.output and "K-1" in answered.output
    refused = runner.invoke(app, ["ask", "Who won the 1930 World Cup?", *common, "--json"])
    payload = json.loads(refused.stdout[refused.stdout.index("{") :])
    assert payload["refusal"]["kind"] == "hard" and payload.get("answer") is None
    assert payload["retrieved"][0]["id"] == "K-1"
    wrong = runner.invoke(app, ["ask", "q", "--method", "direct", "--kb", base])
    assert wrong.exit_code == 2 and "does not use a knowledge base" in wrong.output


def test_ask_with_options(fake_backend: Make) -> None:
    backend, _ = fake_backend(['{"answer": "B"}'])
    result = runner.invoke(
        app,
        ["ask", "Capital of Italy?", "--method", "direct", "--backend", backend, "--no-cache"]
        + ["--option", "A=Paris", "--option", "B=Rome", "--json"],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout[result.stdout.index("{") :])
    assert payload["choice"] == "B" and payload["answer"] == "B. Rome"
    bad = runner.invoke(app, ["ask", "q", "--method", "direct", "--option", "Paris"])
    assert bad.exit_code == 2 and "expected LABEL=TEXT" in bad.output
