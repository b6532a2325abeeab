"""The HaluEval detection benchmark on fake models: θ on train, accuracy on test, revision."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.errors import InvalidInputError
from veriloop.models import Models

Make = Callable[..., tuple[str, Models]]
CAPITALS = [
    ("France", "Paris", "Lyon"),
    ("Italy", "Rome", "Milan"),
    ("Spain", "Madrid", "Seville"),
    ("Japan", "Tokyo", "Osaka"),
]


def write_halueval(folder: Path) -> None:
    (folder / "data").mkdir(parents=True)
    rows = [
        {
            "knowledge": f"The capital of {country} is {right}.",
            "question": f"What is the capital of {country}?",
            "right_answer": right,
            "hallucinated_answer": wrong,
        }
        for country, right, wrong in CAPITALS
    ]
    (folder / "data" / "qa_data.json").write_text("".join(json.dumps(r) + "\n" for r in rows))


def reply(messages: list[Any]) -> str:
    prompt = str(messages[-1].content)
    if "extract ALL the claims" in prompt:
        answer = prompt.split("#### Answer Start ####\n", 1)[1].split("\n####", 1)[0]
        return json.dumps({"claims": [answer.strip()]})
    if "First give a critique" in prompt:
        return json.dumps(
            {"critique": "Not in the source.", "supported": "No", "revised_claim": "N/A"}
        )
    question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
    right = next(r for c, r, _ in CAPITALS if c in question)
    if "give feedback" in prompt:
        return "The answer is wrong."
    return right  # a revision


def rule(prompt: str, target: str) -> float:
    if target in (" yes", " no"):
        return -50.0
    document = prompt.rsplit("Document: ", 1)[1].split("\nClaim:", 1)[0]
    claim = prompt.rsplit("Claim: ", 1)[1].split("\n", 1)[0]
    claim = claim.split('": ', 1)[1] if claim.startswith('Answer to "') else claim  # bare answer
    p = 0.9 if claim in document else 0.1
    return math.log(p if target == " Yes" else 1 - p)


def test_detection_bench_fits_theta_on_train_and_scores_test(
    fake_backend: Make, tmp_path: Path
) -> None:
    write_halueval(tmp_path / "halueval")
    backend, _ = fake_backend([reply] * 100, score_rule=rule)
    out = tmp_path / "run"
    args = [
        "detect-bench",
        "--data-dir",
        str(tmp_path / "halueval"),
        "--train",
        "2",
        "--test",
        "2",
        "--out",
        str(out),
        "--backend",
        backend,
        "--no-cache",
        "--set",
        "verifier=yesno",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["theta"] == pytest.approx(0.5)  # midway between P = 0.1 and 0.9
    assert summary["train_accuracy"] == 1.0 and summary["test_cases"] == 4
    assert summary["test_accuracy_all"] == 1.0 and summary["recall"] == 1.0
    assert summary["specificity"] == 1.0 and summary["test_undetermined"] == 0
    for run in ("fv-revise", "self-correction"):
        assert summary["revision"][run]["hallucinations_before"] == pytest.approx(1.0)
        assert summary["revision"][run]["hallucinations_after"] == pytest.approx(0.0)
        assert summary["revision"][run]["judged_hallucinated_after"] == 0
    assert summary["claims_from"] == {"decomposer": 8} and summary["discarded_claims"] == 0
    report = (out / "report.md").read_text()
    assert summary["test_accuracy_all_ci"] == [1.0, 1.0]  # every item right in every resample
    assert "| 0.5 | 4 (100.0%) | 4 | 0 | 100.0% | 100.0% [100.0, 100.0] | 100.0% | 100.0%" in report
    assert "claims came from (answers): decomposer 8; decomposed claims discarded" in report
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 8 + 2 + 2
    again = CliRunner().invoke(app, args)  # resumes: nothing left to run
    assert again.exit_code == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == 12


def test_detection_bench_rejects_too_few_items(tmp_path: Path) -> None:
    write_halueval(tmp_path / "halueval")
    result = CliRunner().invoke(
        app,
        [
            "detect-bench",
            "--data-dir",
            str(tmp_path / "halueval"),
            "--train",
            "3",
            "--test",
            "3",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 2 and "asked for 3 + 3 items, the dataset has 4" in result.output


def test_offset_skips_the_items_a_judge_was_trained_on() -> None:
    from veriloop.evaluation.detection import split_items
    from veriloop.evaluation.items import Item

    items = [Item(id=str(n), question=f"q{n}") for n in range(20)]
    first_train, first_test = split_items(items, 3, 3, seed=0)
    train, test = split_items(items, 3, 3, seed=0, offset=6)
    assert not {i.id for i in first_train + first_test} & {i.id for i in train + test}
    assert split_items(items, 3, 3, seed=0, offset=0) == (first_train, first_test)
    with pytest.raises(InvalidInputError, match="after skipping 16"):
        split_items(items, 3, 3, seed=0, offset=16)
