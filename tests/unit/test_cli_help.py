"""Every command and sub-command answers `--help` (exit 0) and shows its bracketed defaults."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.cli.common import DEFAULT_CACHE_DIR

runner = CliRunner()


def command_paths() -> list[list[str]]:
    """Walk the click tree behind the Typer app: [], ["ask"], ["kb"], ["kb", "add"], ..."""
    root = typer.main.get_command(app)
    paths: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:
        paths.append(path)
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, [*path, name])

    walk(root, [])
    return paths


PATHS = command_paths()


def test_the_tree_holds_every_command() -> None:
    names = {" ".join(path) for path in PATHS}
    for expected in ("ask", "bench", "report", "calibrate", "doctor", "verify", "index", "kb add"):
        assert expected in names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "veriloop")
def test_help_exits_zero(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def test_bracketed_defaults_are_shown_not_eaten_as_markup() -> None:
    ask = runner.invoke(app, ["ask", "--help"], terminal_width=200)
    assert ask.exit_code == 0, ask.output
    assert f"[{DEFAULT_CACHE_DIR}]" in ask.output
    bench = runner.invoke(app, ["bench", "--help"], terminal_width=200)
    assert bench.exit_code == 0, bench.output
    assert "[runs/<dataset>_<split>_n<limit>]" in bench.output
