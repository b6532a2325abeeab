"""The RAGAS and DeepEval metrics, run through the real packages (issue 39), offline.

The docs pages' examples run as they stand (a fresh process, telemetry off); the metrics'
edge cases (no context, a contradiction beside a supported claim) through the packages'
own entry points.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations"
OFFLINE = {
    "RAGAS_DO_NOT_TRACK": "true",
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "HF_HUB_OFFLINE": "1",
    "OPENAI_API_KEY": "",  # nothing may reach for an LLM
}


def page_code(page: str) -> str:
    """Return the python blocks of a docs/integrations page, in order, as one script."""
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, f"{page} has no python example"
    return "\n".join(blocks)


def run_page(page: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """Run a page's example in a fresh process in `folder`; fail with its output."""
    script = folder / "example.py"
    script.write_text(page_code(page), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=folder,
        env={**os.environ, **OFFLINE},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_the_ragas_page_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("ragas", reason="install the extra: pip install 'veriloop[ragas]'")
    done = run_page("ragas.md", tmp_path)
    assert "hallucinated" in done.stdout and "unusable" in done.stdout


def test_the_deepeval_page_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("deepeval", reason="install the extra: pip install 'veriloop[deepeval]'")
    done = run_page("deepeval.md", tmp_path)
    assert "contradicted" in done.stdout and "recessive" in done.stdout


def test_the_any_tool_example_runs_as_written(tmp_path: Path) -> None:
    done = run_page("index.md", tmp_path)
    assert "contradicted" in done.stdout


def test_ragas_scores_every_row_never_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ragas", reason="install the extra: pip install 'veriloop[ragas]'")
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    from ragas import EvaluationDataset, evaluate

    from veriloop.integrations.ragas import VeriloopGrounding

    source = "Graves disease is the most common cause of hyperthyroidism. It is not contagious."
    dataset = EvaluationDataset.from_list(
        [
            {"response": "Hyperthyroidism is contagious.", "retrieved_contexts": [source]},
            {"response": "Graves disease is a cause.", "retrieved_contexts": []},
            {
                "response": "Graves disease is the most common cause of hyperthyroidism. "
                "The moon is made of cheese.",
                "retrieved_contexts": [source],
            },
        ]
    )
    metric = VeriloopGrounding()
    result = evaluate(dataset, metrics=[metric], show_progress=False, raise_exceptions=True)
    scores = list(result.to_pandas()["veriloop_grounding"])
    assert not any(math.isnan(s) for s in scores)
    assert scores == [0.0, 0.0, 0.5]
    table = metric.explain(result)
    assert list(table["veriloop_verdict"]) == ["hallucinated", "unusable", "hallucinated"]
    assert list(table["contradicted_claims"]) == [1, 0, 0]
    assert "sources: holds no text" in table["veriloop_reason"][1]
    assert "The moon is made of cheese." in table["veriloop_reason"][2]


def test_deepeval_fails_a_contradiction_even_above_the_threshold(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("deepeval", reason="install the extra: pip install 'veriloop[deepeval]'")
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    from deepeval.test_case import LLMTestCase

    from veriloop.integrations.deepeval import VeriloopGroundingMetric

    source = "The usual adult dose is 5 mg twice a day. The condition is not contagious."
    half = LLMTestCase(
        input="What is the dose?",
        actual_output="The usual adult dose is 50 mg twice a day. The condition is not contagious.",
        retrieval_context=[source],
    )
    metric = VeriloopGroundingMetric(threshold=0.5)
    assert metric.measure(half) == 0.5
    assert metric.is_successful() is False  # 0.5 >= 0.5, but a claim is contradicted
    assert metric.score_breakdown["contradicted"] == 1
    assert "'50 mg'" in (metric.reason or "") and "'5 mg'" in (metric.reason or "")

    nothing = LLMTestCase(input="q", actual_output="The condition is not contagious.")
    assert metric.measure(nothing) == 0.0 and not metric.is_successful()
    assert "sources" in (metric.reason or "")

    import asyncio

    backed = LLMTestCase(
        input="q", actual_output="The condition is not contagious.", context=[source]
    )
    assert asyncio.run(VeriloopGroundingMetric(strict_mode=True).a_measure(backed)) == 1.0
