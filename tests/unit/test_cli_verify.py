"""`veriloop verify` and `veriloop ask --verify` on fake models."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.models import Models

runner = CliRunner()
Make = Callable[..., tuple[str, Models]]


def test_verify_a_json_answer_prints_claims_and_verdict(fake_backend: Make, tmp_path: Path) -> None:
    def rule(prompt: str, target: str) -> float:
        return {" Yes": math.log(0.1), " No": math.log(0.9)}.get(target, -50.0)

    backend, _ = fake_backend([json.dumps({"claims": ["Aspirin cures cancer."]})], score_rule=rule)
    path = tmp_path / "answer.json"
    path.write_text(
        json.dumps(
            {
                "question": "q?",
                "answer": "Aspirin cures cancer.",
                "sources": ["Aspirin thins blood."],
            }
        )
    )
    result = runner.invoke(
        app,
        [
            "verify",
            str(path),
            "--backend",
            backend,
            "--no-cache",
            "--set",
            "max_revisions=0",
            "--set",
            "verifier=yesno",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "cancer" in result.output and "0.100" in result.output  # cells fold: words only
    assert "verdict: hallucinated" in result.output
    assert "source says" in result.output and "thins" in result.output


def test_verify_says_when_the_answer_sentences_stood_in_for_claims(
    fake_backend: Make, tmp_path: Path
) -> None:
    def rule(prompt: str, target: str) -> float:
        return {" Yes": math.log(0.2), " No": math.log(0.8)}.get(target, -50.0)

    backend, _ = fake_backend([json.dumps({"claims": []})], score_rule=rule)
    path = tmp_path / "answer.json"
    answer = "Warfarin causes hair loss in most patients."
    path.write_text(json.dumps({"answer": answer, "sources": ["Warfarin can cause bleeding."]}))
    args = ["verify", str(path), "--backend", backend, "--no-cache"]
    result = runner.invoke(app, [*args, "--set", "max_revisions=0", "--set", "verifier=yesno"])
    assert result.exit_code == 0, result.output
    assert "decomposer listed no claims" in result.output
    assert "0.200" in result.output and "verdict: hallucinated" in result.output


def test_verify_shows_the_source_a_likelihood_verdict_rests_on(
    fake_backend: Make, tmp_path: Path
) -> None:
    def rule(prompt: str, target: str) -> float:
        return -0.2 if "platelets" in prompt else -3.0

    backend, _ = fake_backend([], score_rule=rule)
    path = tmp_path / "answer.json"
    path.write_text(
        json.dumps(
            {
                "question": "What does aspirin do?",
                "answer": "Aspirin stops platelets clumping.",
                "sources": ["Aspirin is a common drug.", "It inhibits platelets."],
            }
        )
    )
    args = ["verify", str(path), "--backend", backend, "--no-cache", "--set", "max_revisions=0"]
    result = runner.invoke(
        app, [*args, "--set", "verifier=likelihood", "--set", "sentences_as_claims=true"]
    )
    assert result.exit_code == 0, result.output
    # the table folds long cells: look for the source's words, not its whole text
    assert "inhibits" in result.output  # the source it rests on ...
    assert "common drug" not in result.output  # ... not the first one
    assert "likelihood" in result.output and "verdict: supported" in result.output


def test_verify_input_errors_exit_2(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["verify", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "is not valid JSON" in runner.invoke(app, ["verify", str(bad)]).output
    refused = tmp_path / "refused.json"
    refused.write_text(json.dumps({"question": "q", "answer": None, "refusal": {"kind": "hard"}}))
    out = runner.invoke(app, ["verify", str(refused)])
    assert out.exit_code == 2 and "no answer to verify" in out.output
    unknown = tmp_path / "ok.json"
    unknown.write_text(json.dumps({"answer": "a", "sources": ["s"]}))
    out = runner.invoke(app, ["verify", str(unknown), "--method", "nonsense"])
    assert out.exit_code == 2 and "unknown verification method 'nonsense'" in out.output
    out = runner.invoke(app, ["verify", str(unknown), "--method", "m-eval"])
    assert out.exit_code == 2 and "M-Eval needs the question" in out.output


def test_ask_chains_fe_into_factored_verification(fake_backend: Make, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "aspirin.txt").write_text("Aspirin causes stomach bleeding in older patients.")
    replies = [
        json.dumps({"PID-1": "PID-1 states aspirin causes stomach bleeding."}),
        json.dumps(
            {
                "labels": {"PID-1": {"label": "CORRECT-EXPLICIT", "justification": "stated"}},
                "verdict": "CORRECT",
            }
        ),
        "Yes, it can cause stomach bleeding [PID-1].",
        json.dumps({"claims": ["Aspirin can cause stomach bleeding."]}),
    ]
    backend, models = fake_backend(replies)
    index = tmp_path / "idx"
    assert (
        runner.invoke(
            app, ["index", str(docs), "--out", str(index), "--backend", backend]
        ).exit_code
        == 0
    )
    result = runner.invoke(
        app,
        [
            "ask",
            "Does aspirin cause bleeding?",
            "--method",
            "fe",
            "--corpus",
            str(index),
            "--backend",
            backend,
            "--no-cache",
            "--verify",
            "factored",
            "--json",
            "--set",
            "verifier=yesno",
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout[result.stdout.index("{") :])
    assert document["answer"] == "Yes, it can cause stomach bleeding [PID-1]."
    verification = document["verification"]
    assert verification["verdict"] == "supported"
    assert verification["claims"][0]["claim"] == "Aspirin can cause stomach bleeding."
    scored = models.scorer.calls  # type: ignore[attr-defined]
    assert "[PID-1] Aspirin causes stomach bleeding in older patients." in scored[0][0]
