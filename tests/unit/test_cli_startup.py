"""Help and input errors answer without importing the model stack (issue 32: start-up).

Measured by which modules load, not by a timer: `veriloop doctor` prints what start-up
costs on the machine at hand.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "faiss", "llama_cpp", "langchain_community", "openai", "sentence_transformers")
PROBE = """
import json, sys
from typer.testing import CliRunner
from veriloop.cli import app
result = CliRunner().invoke(app, json.loads(sys.argv[1]))
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[2])))
print(json.dumps({"code": result.exit_code, "output": result.output, "heavy": heavy}))
"""


def invoke_fresh(args: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--help"], 0, "Usage"),
        (["ask", "--help"], 0, "--details"),
        (["verify", "--help"], 0, "--details"),
        (["kb", "--help"], 0, "knowledge bases"),
        (["ask", "   "], 2, "the question is empty"),
        (["ask", "?!"], 2, "has no letter or digit"),
        (["ask", "Is it inherited?", "-m", "nope"], 2, "unknown method 'nope'"),
        (["ask", "Is it inherited?", "--verify", "nope"], 2, "unknown verification method"),
        (["verify", "/no/such/answer.json"], 2, "does not exist"),
        (["verify", "answer.json", "-m", "nope"], 2, "unknown verification method"),
    ],
)
def test_help_and_input_errors_do_not_import_the_model_stack(
    args: list[str], code: int, says: str
) -> None:
    result = invoke_fresh(args)
    assert result["code"] == code and says in str(result["output"])
    assert result["heavy"] == [], f"{args} imported {result['heavy']}"


def test_a_command_that_runs_a_model_does_import_it() -> None:
    # The probe can see the stack: the grounded graph's module imports it (no model loads).
    probe = (
        "import json, sys, veriloop.graphs.grounded; "
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert {"langchain_community", "openai"} <= set(json.loads(done.stdout))
