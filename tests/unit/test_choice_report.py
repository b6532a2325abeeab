"""Multiple-choice benchmarking: records, hand-computed summaries, variants, the report."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from veriloop.errors import InvalidInputError
from veriloop.evaluation.bench import ResultsFile, parse_variant, plan_runs, run_bench
from veriloop.evaluation.choice_report import choice_metrics, summarise_choices
from veriloop.evaluation.items import Item
from veriloop.evaluation.report import write_report
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models

Make = Callable[..., tuple[str, Models]]


def record(choice: str | None, refusal: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "run": "m",
        "item_id": "1",
        "gold": "A",
        "choice": choice,
        "refusal": {"kind": refusal, "detail": ""} if refusal else None,
        "options": {"A": "a", "B": "b", "C": "c"},
        "trace": None,
        "error": None,
        **extra,
    }


def test_hand_computed_summary() -> None:
    per_item = [
        choice_metrics(record("A")),
        choice_metrics(record("B")),
        choice_metrics(record(None, "hard")),
        choice_metrics(record(None, "soft")),
        choice_metrics(record(None)),  # no usable reply: failed
    ]
    summary = summarise_choices(per_item)
    assert summary["coverage"] == pytest.approx(2 / 5)
    assert summary["accuracy_on_answered"] == pytest.approx(1 / 2)
    assert summary["overall_accuracy"] == pytest.approx(1 / 5)
    assert (summary["hard_refusals"], summary["soft_refusals"], summary["failed"]) == (1, 1, 1)
    assert summary["mc2_overall"] is None  # not TruthfulQA


def test_truthfulqa_scores_from_option_log_probs() -> None:
    scores = {"A": math.log(0.5), "B": math.log(0.3), "C": math.log(0.2)}
    metrics = choice_metrics(
        record("B", option_scores=scores, mc2_correct=["A", "B"], mc1_options=["A", "C"])
    )
    assert metrics["correct"] is False and metrics["true_pick"] is True
    assert metrics["mc1_logprob"] == 1.0  # among MC1 options A beats C
    assert metrics["mc2"] == pytest.approx(0.8)
    assert metrics["confidence"] == pytest.approx(0.3)
    refused = choice_metrics(record(None, "hard", mc2_correct=["A"]))
    summary = summarise_choices([metrics, refused])
    assert summary["mc2_scored"] == pytest.approx(0.8)
    assert summary["mc2_overall"] == pytest.approx(0.4)
    assert summary["true_pick_overall"] == pytest.approx(0.5)


def test_l2r_confidence_is_the_hard_gate_margin() -> None:
    trace = {
        "candidates": [
            {"stage": "retrieval", "scores": {"min_d_over_c": 0.4}},
        ],
        "usage": {"calls": 2},
    }
    assert choice_metrics(record("A", trace=trace))["confidence"] == pytest.approx(-0.4)


def test_variants_parse_and_errors() -> None:
    run = parse_variant("l2r-gold=l2r,kb_dir=kbs/gold,top_k=2")
    assert (run.name, run.method, run.settings, run.role) == (
        "l2r-gold",
        "l2r",
        {"kb_dir": "kbs/gold", "top_k": 2},
        "method",
    )
    assert parse_variant("rag-gold=rag,kb_dir=x").role == "baseline"
    with pytest.raises(InvalidInputError, match="expected NAME=METHOD"):
        parse_variant("l2r")
    with pytest.raises(InvalidInputError, match="not key=value with a setting of l2r"):
        parse_variant("x=l2r,threshold_factuality=1")
    with pytest.raises(InvalidInputError, match="share a name"):
        plan_runs(["l2r"], [], [], ["l2r=l2r,top_k=2"])
    with pytest.raises(InvalidInputError, match="unknown ablation"):
        plan_runs(["l2r"], [], ["no_number"])
    runs = plan_runs(["l2r", "self-reflection"], [], ["no_reasoning", "no_number"])
    assert [r.name for r in runs] == [
        "l2r",
        "l2r[no_reasoning]",
        "self-reflection",
        "self-reflection[no_number]",
    ]


def test_bench_and_report_on_multiple_choice_items(fake_backend: Make, tmp_path: Path) -> None:
    items = [
        Item(
            id=str(i),
            question=q,
            options={"A": "Paris", "B": "Rome"},
            gold=gold,
            references=["Paris" if gold == "A" else "Rome"],
            metadata={"mc2_correct": [gold], "mc1_options": ["A", "B"]},
            dataset="toy",
        )
        for i, (q, gold) in enumerate([("Capital of France?", "A"), ("Capital of Italy?", "B")])
    ]
    vectors = {
        "Capital of France?": [1, 0, 0, 0, 0, 0, 0, 0],
        "France's capital is Paris.": [1, 0, 0, 0, 0, 0, 0, 0],
        "Capital of Italy?": [0, 1, 0, 0, 0, 0, 0, 0],
    }

    def chat(messages: list[Any]) -> str:
        prompt = str(messages[0].content)
        if "Knowledge Base" in prompt:
            return json.dumps({"evidence": "", "reason": "", "CAN_ANSWER": True, "answer": "A"})
        return json.dumps({"answer": "A"})

    backend, models = fake_backend([chat] * 20, vectors=vectors)
    kb = tmp_path / "kb"
    base = KnowledgeBase.create(kb, models.embedder)
    base.add([new_entry("France's capital is Paris.")], models.embedder)
    base.save()
    runs = plan_runs(["l2r"], ["direct"], [], [f"l2r-a2=l2r,kb_dir={kb},alpha=2.5"])
    results = ResultsFile(tmp_path / "run" / "results.jsonl")
    (tmp_path / "run").mkdir()
    run_bench(runs, items, results, base_settings={"backend": backend, "kb_dir": str(kb)})
    records = {(r["run"], r["item_id"]): r for r in results.records()}
    assert records[("l2r", "0")]["choice"] == "A"
    assert records[("l2r", "1")]["refusal"]["kind"] == "hard"  # orthogonal: d = 2
    assert records[("l2r-a2", "1")]["choice"] == "A"  # alpha 2.5 lets it through (wrong)
    assert records[("l2r", "0")]["outputs"]["retrieved"][0]["id"] == "K-1"
    report = write_report(tmp_path / "run").read_text()
    assert "| l2r | 2 | 50.0 | 100.0 | 50.0 | 1 / 0 | 0 |" in report
    assert "| l2r-a2 | 2 | 100.0 | 50.0 | 50.0 | 0 / 0 | 0 |" in report
    assert "| direct | 2 | 100.0 | 50.0 | 50.0 | 0 / 0 | 0 |" in report
    assert "l2r − direct | 2 | +0.0" in report
    assert (tmp_path / "run" / "risk_coverage.png").stat().st_size > 0


def test_reference_per_option_mc2_from_judgements() -> None:
    judged = choice_metrics(
        record(
            "A",
            mc2_correct=["A", "B"],
            outputs={"option_judgements": {"A": True, "B": False, "C": False}},
        )
    )
    assert judged["mc2_per_option"] == pytest.approx(2 / 3)  # A right, B wrong, C right
    summary = summarise_choices([judged, choice_metrics(record(None, "hard", mc2_correct=["A"]))])
    assert summary["mc2_per_option"] == pytest.approx(2 / 3) and summary["judged_items"] == 1
