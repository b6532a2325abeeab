"""The `veriloop` command line: one Typer app, one module per command group.

    veriloop ask "Is Noonan syndrome inherited?"     # answer (cli/ask.py)
    veriloop bench / report / calibrate              # compare methods (cli/bench.py)
    veriloop verify / detect-bench / validate-bench  # check answers (cli/verify.py)
    veriloop index / kb ...                          # corpora and knowledge bases
    veriloop doctor                                  # the runtime on this machine

Every command is registered through `common.handles_errors`: a user error is one `error:`
line and exit status 2, wherever it is raised.
"""

from __future__ import annotations

import warnings

import typer

from veriloop.cli import ask, bench, doctor, index, kb, verify
from veriloop.cli.common import handles_errors

# Help texts are plain text: with Rich markup on, a default path in square brackets is
# read as a markup tag (and crashes `--help`, or silently disappears).
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Hallucination-mitigation methods as LangGraph graphs, offline by default.",
)


@app.callback()
def main() -> None:
    """Run veriloop's methods from the command line."""
    warnings.formatwarning = one_line_warning


def one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """Format a warning for a terminal user: `warning: <message>`, no source line."""
    return f"warning: {message}\n"


for name, command in (
    ("ask", ask.ask),
    ("bench", bench.bench),
    ("report", bench.report_command),
    ("calibrate", bench.calibrate),
    ("doctor", doctor.doctor),
    ("index", index.index_command),
    ("verify", verify.verify_command),
    ("detect-bench", verify.detect_bench_command),
    ("validate-bench", verify.validate_bench_command),
):
    app.command(name)(handles_errors(command))
app.add_typer(kb.kb_app, name="kb")

__all__ = ["app"]
