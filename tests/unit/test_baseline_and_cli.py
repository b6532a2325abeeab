import json

from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.graphs.direct import DirectContext, build_graph

runner = CliRunner()


def test_direct_baseline_answers_once_with_a_trace(fake_backend):
    name, models = fake_backend(["It is inherited."])
    result = (
        build_graph()
        .compile()
        .invoke({"question": "Is it inherited?"}, context=DirectContext(backend=name))
    )
    assert result["answer"] == "It is inherited."
    assert result["stop_reason"] == "single_pass"
    assert result["trace"]["usage"]["chat_calls"] == 1
    prompt = models.chat_model.conversations[0][0].content  # type: ignore[attr-defined]
    assert prompt == 'Answer the question: "Is it inherited?" with one paragraph.'


def test_cli_user_errors_are_one_line_and_exit_2():
    for args, message in [
        (["ask", ""], "the question is empty"),
        (["ask", "q", "--method", "nope"], "unknown method 'nope'"),
        (["ask", "q", "--set", "nope=1"], "expected NAME=VALUE"),
        (["ask", "q", "-m", "sr", "--set", "max_rounds=many"], "not a valid int"),
    ]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert message in result.output
        assert "Traceback" not in result.output
        error_lines = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(error_lines) == 1


def test_cli_json_output_is_the_full_state(fake_backend):
    name, _ = fake_backend(["K1", "A1"])
    result = runner.invoke(
        app,
        [
            "ask",
            "Is it inherited?",
            "--method",
            "self-reflection",
            "--backend",
            name,
            "--no-cache",
            "--json",
            "--set",
            "no_refinement=true",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout[result.stdout.index("{") :])
    assert payload["answer"] == "A1" and payload["knowledge"] == "K1"
    assert payload["trace"]["stop_reason"] == "single_pass"


def test_cli_table_shows_scores_and_stop_reasons(fake_backend):
    name, _ = fake_backend(["K1", "A1"])
    result = runner.invoke(
        app,
        [
            "ask",
            "Is it inherited?",
            "-m",
            "self-reflection",
            "--backend",
            name,
            "--no-cache",
            "--set",
            "no_refinement=true",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "factuality" in result.output and "consistency" in result.output
    assert "knowledge loop, round 1: single_pass" in result.output
    assert "A1" in result.output
