"""The Python entry points: veriloop.method(...) and veriloop.evaluate(...)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import veriloop
from veriloop.errors import InvalidInputError
from veriloop.models import Models

Make = Callable[..., tuple[str, Models]]


def test_method_returns_the_registry_graph_and_context(fake_backend: Make) -> None:
    graph, context = veriloop.method("factual-evidence")  # an alias
    assert graph.name == "factual_evidence" and context.__name__ == "FactualEvidenceContext"
    backend, _ = fake_backend(["It is inherited."])
    result = veriloop.method("direct").invoke("Is Noonan syndrome inherited?", backend=backend)
    assert result["answer"] == "It is inherited."
    with pytest.raises(InvalidInputError, match="unknown method 'nope'"):
        veriloop.method("nope")


def test_evaluate_runs_resumes_and_reports(fake_backend: Make, tmp_path: Path) -> None:
    data = tmp_path / "pq"
    data.mkdir()
    records = {
        str(n): {
            "QUESTION": f"Q{n}?",
            "CONTEXTS": ["c"],
            "final_decision": "yes",
            "LONG_ANSWER": "Yes.",
        }
        for n in (1, 2)
    }
    (data / "ori_pqal.json").write_text(json.dumps(records))
    (data / "test_ground_truth.json").write_text(json.dumps({"1": "yes", "2": "yes"}))
    backend, models = fake_backend(["Yes."] * 2)
    run = veriloop.evaluate(
        [],
        baselines=["direct"],
        dataset="pubmedqa",
        data_dir=data,
        settings={"backend": backend},
        out=tmp_path / "run",
        report=False,
    )
    lines = (run / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["item_id"] for line in lines] == ["1", "2"]
    again = veriloop.evaluate(
        [],
        baselines=["direct"],
        dataset="pubmedqa",
        data_dir=data,
        settings={"backend": backend},
        out=tmp_path / "run",
        report=False,
    )
    assert (again / "results.jsonl").read_text().splitlines() == lines  # resumed, nothing redone
    with pytest.raises(InvalidInputError, match="settings threshhold: no method"):
        veriloop.evaluate(
            [],
            baselines=["direct"],
            dataset="pubmedqa",
            data_dir=data,
            settings={"backend": backend, "threshhold": 0.5},
            out=tmp_path / "run",
        )


def test_python_and_cli_benchmarks_share_the_default_run_directory() -> None:
    from veriloop.evaluation.bench import Selection

    plain = Selection("medqa", Path("d"), "test", 30)
    assert plain.default_run_dir() == Path("runs/medqa_test_n30")
    shuffled = Selection("medqa", Path("d"), None, None, shuffle=True, seed=3)
    assert shuffled.default_run_dir() == Path("runs/medqa_default_all_shuffle3")


def test_a_setting_the_method_does_not_have_is_named_with_the_known_ones() -> None:
    import pytest

    from veriloop.api import method
    from veriloop.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"unknown setting\(s\) \['max_revisions'\].*known"):
        method("self-correction").invoke(
            {"question": "q", "answer": "a", "sources": ["s"]}, max_revisions=1
        )
