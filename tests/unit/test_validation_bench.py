"""The M-Eval benchmark on fake models: right/wrong responses, labels, ablations, resume."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.models import Models

Make = Callable[..., tuple[str, Models]]


def write_medqa(folder: Path) -> None:
    folder.mkdir(parents=True)
    rows = [
        {
            "question": f"Which drug treats condition {n}?",
            "answer": "aspirin",
            "options": {"A": "aspirin", "B": "potato"},
            "answer_idx": "A",
        }
        for n in range(3)
    ]
    (folder / "phrases_no_exclude_test.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows)
    )


def reply(messages: list[Any]) -> str:
    prompt = str(messages[-1].content)
    if "professional medical expert" in prompt:
        return json.dumps(
            {
                "random_selection": True,
                "complete_data": True,
                "unbiased_conclusions": True,
                "blinding": True,
            }
        )
    claim = prompt.rsplit("Claim: ", 1)[1]
    return json.dumps({"stance": "contradicts" if "potato" in claim else "supports"})


def test_validate_bench_scores_right_and_wrong_responses(
    fake_backend: Make, tmp_path: Path
) -> None:
    write_medqa(tmp_path / "medqa")
    corpus = tmp_path / "pubmed.jsonl"
    corpus.write_text(
        json.dumps(
            {
                "pmid": "1",
                "title": "Aspirin treats conditions",
                "abstract": "Aspirin treats many conditions; drug trials.",
                "year": 2020,
            }
        )
        + "\n"
    )
    backend, _ = fake_backend([reply] * 200)
    out = tmp_path / "run"
    args = [
        "validate-bench",
        "--data-dir",
        str(tmp_path / "medqa"),
        "--evidence-corpus",
        str(corpus),
        "--limit",
        "2",
        "--out",
        str(out),
        "--backend",
        backend,
        "--no-cache",
        "--set",
        "stance_judge=llm",
        "--set",
        "claims_per_answer=0",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    full = summary["m-eval"]
    assert full["responses"] == 4 and full["accuracy"] == 1.0
    assert full["recall"] == 1.0 and full["specificity"] == 1.0 and full["undetermined"] == 0
    assert summary["m-eval[no_heterogeneity]"]["accuracy"] == 1.0
    assert set(summary) == {
        "m-eval",
        "m-eval[random_reliability]",
        "m-eval[no_heterogeneity]",
        "m-eval[no_extra_evidence]",
    }
    records = (out / "results.jsonl").read_text().splitlines()
    assert len(records) == 16
    assert CliRunner().invoke(app, args).exit_code == 0  # resumes without re-running
    assert len((out / "results.jsonl").read_text().splitlines()) == 16
    assert "| m-eval | 4 | 100.0% | 100.0% | 100.0% | 0 |" in (out / "report.md").read_text()


def test_citation_claims_are_balanced_and_checked_against_their_cited_abstracts() -> None:
    import pytest

    from veriloop.errors import InvalidInputError
    from veriloop.evaluation.items import Item
    from veriloop.evaluation.validation_bench import (
        CLAIM_QUESTION,
        balanced_claims,
        claim_cases,
    )

    items = [
        Item(
            id=f"s{n}", question=f"Drug {n} helps <|cit|>.", documents=[f"abs {n}"], gold="SUPPORT"
        )
        for n in range(4)
    ] + [
        Item(id="r1", question="Drug 9 harms.", documents=["abs 9", "abs 10"], gold="REFUTE"),
        Item(id="r2", question="Drug 8 harms.", documents=["abs 8"], gold="CONTRADICT"),
        Item(id="n1", question="Drug 7.", documents=["abs 7"], gold="NEUTRAL"),
        Item(id="r3", question="No evidence.", documents=[], gold="REFUTE"),
    ]
    chosen = balanced_claims(items, 2, seed=0)
    assert sorted(i.gold or "" for i in chosen) == ["CONTRADICT", "REFUTE", "SUPPORT", "SUPPORT"]
    assert balanced_claims(items, 2, seed=0) == chosen  # seeded
    with pytest.raises(InvalidInputError, match="only 2 CONTRADICT/REFUTE claims"):
        balanced_claims(items, 3, seed=0)
    cases = {c["case_id"]: c for c in claim_cases(items[:1] + items[4:5])}
    assert cases["s0"]["answer"] == "Drug 0 helps ."  # the citation marker removed
    assert cases["s0"]["question"] == CLAIM_QUESTION and cases["s0"]["incorrect"] is False
    assert cases["r1"]["incorrect"] is True
    assert [a["abstract"] for a in cases["r1"]["articles"]] == ["abs 9", "abs 10"]
