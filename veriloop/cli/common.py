"""What every command shares: consoles, the cache default, --set parsing, one error path.

User errors (bad question, unknown method or setting, missing model, unreachable server)
print one line starting with "error:" and exit with status 2; no traceback. Every command
is registered through `handles_errors`, and commands that stop early call `fail`.
"""

from __future__ import annotations

import functools
import os
import sys
import typing
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from veriloop.context import ModelSettings, current_names, parse_setting
from veriloop.errors import InvalidInputError, VeriloopError

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)

DEFAULT_CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "veriloop"

P = ParamSpec("P")
R = TypeVar("R")


def fail(exc: VeriloopError) -> typer.Exit:
    """Print the error as one `error:` line; return the Exit (status 2) to raise."""
    err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
    return typer.Exit(code=2)


def handles_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so any VeriloopError becomes one `error:` line and exit status 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except VeriloopError as exc:
            raise fail(exc) from None

    return wrapper


def cache_setting(no_cache: bool, cache_dir: Path | None = None) -> str:
    """Return the cache_dir setting: '' with --no-cache, else the option, env or default."""
    if no_cache:
        return ""
    return str(cache_dir or os.environ.get("VERILOOP_CACHE_DIR", DEFAULT_CACHE_DIR))


def build_context(
    context_class: type[ModelSettings],
    assignments: list[str],
    *,
    ignore_unknown: bool = False,
    **given: Any,
) -> ModelSettings:
    """Build a method's Context from CLI options and `--set name=value` pairs.

    Args:
        context_class: The method's Context dataclass.
        assignments: `NAME=VALUE` texts, converted to each field's type.
        ignore_unknown: Skip names the Context lacks instead of rejecting them.
        **given: Fields set by CLI options; None means "not given".

    Raises:
        InvalidInputError: A malformed or unknown assignment, or a value the Context rejects.
    """
    known = {spec.name: spec for spec in fields(context_class)}
    hints = typing.get_type_hints(context_class)
    values = {key: value for key, value in given.items() if value is not None}
    renamed: dict[str, str] = getattr(context_class, "RENAMED", {})
    for assignment in assignments:
        name, sep, raw = assignment.partition("=")
        name = name.strip().replace("-", "_")
        if name in renamed:
            name = next(iter(current_names(context_class, {name: None}, "--set ")))
        if sep and name not in known and ignore_unknown:
            continue
        if not sep or name not in known:
            raise InvalidInputError(
                f"--set {assignment!r}: expected NAME=VALUE with NAME one of "
                f"{', '.join(sorted(known))}"
            )
        values[name] = parse_setting(raw, hints[name], f"--set {name}")
    return context_class(**values)


def stop_interrupted(results: Any) -> typing.NoReturn:
    """Say what Ctrl-C kept and how to resume, then end the process at once (status 130).

    Every study (bench, detect-bench, validate-bench) stops this way.

    Queued items were cancelled; items in flight are abandoned rather than awaited (a
    llama.cpp call cannot be interrupted), exactly as a kill would leave them: every
    finished record is already on disk, and a re-run picks up what is missing.
    """
    try:
        kept = len(results.records())
    except VeriloopError:
        kept = -1
    held = f"{kept} finished record(s) are" if kept >= 0 else "finished records are"
    err.print(
        f"[yellow]interrupted:[/yellow] {held} kept in {results.path}; items in flight were "
        "not recorded. Run the same command again to resume where it stopped.",
        soft_wrap=True,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)
