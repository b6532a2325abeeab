"""`veriloop doctor`: what the runtime sees, and proof that it works here."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from veriloop.cli.common import (
    DEFAULT_CACHE_DIR,
    err,
    fail,
    out,
)
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, VeriloopError


def doctor(
    model_path: Annotated[
        Path | None,
        typer.Option(help="GGUF file to check [the bundled SmolLM2-135M-Instruct]."),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Run the runtime check.")
    ] = True,
    brief: Annotated[
        bool, typer.Option("--brief", help="Print only the check (scripts/setup.sh uses this).")
    ] = False,
    timeout: Annotated[float, typer.Option(min=1.0, help="Seconds the check may take.")] = 600.0,
) -> None:
    """Show the CPU, runtime build, model files, cache and settings; prove the runtime works.

    The check loads the chat model, decodes a few tokens, teacher-forces a short text and
    embeds a sentence in a child process, so a crash of native code is reported as the step
    that crashed. Exit status: 0 when the check passes (or is skipped), 1 when it fails,
    2 on a usage error.
    """
    from veriloop.models import runtime_check
    from veriloop.models.locate import not_gguf

    try:
        if model_path is not None and not model_path.is_file():
            raise InvalidInputError(f"--model-path {model_path} is not a file; give a GGUF file")
        if model_path is not None and (problem := not_gguf(model_path)):
            raise InvalidInputError(f"--model-path {model_path} {problem}; give a GGUF file")
        if timeout <= 0:
            raise InvalidInputError(f"--timeout must be positive, got {timeout}")
        if not brief:
            _print_environment(model_path)
    except VeriloopError as exc:
        raise fail(exc) from None
    if not check:
        return
    err.print("checking the model runtime (load, decode, score, embed) in a child process...")
    settings = ModelSettings()  # VERILOOP_CHAT_MODEL_PATH / _EMBEDDING_MODEL apply here too
    chosen = model_path or (Path(settings.chat_model_path) if settings.chat_model_path else None)
    report = runtime_check.check_runtime(
        chosen, embedding_model=settings.embedding_model, timeout=timeout
    )
    for step in report.steps:
        mark = "[green]ok[/green]" if step.ok else "[red]failed[/red]"
        detail = escape(step.detail)
        err.print(f"  {step.step:<7} {mark} {step.seconds:5.1f} s  {detail}", soft_wrap=True)
    if report.system_info and brief:
        used = ", ".join(runtime_check.uses_features(report.system_info))
        err.print(f"  llama.cpp uses: {used}", soft_wrap=True)
    if not report.ok:
        err.print(f"[red]error:[/red] {escape(report.message())}", soft_wrap=True)
        raise typer.Exit(code=1)  # the runtime is broken: status 1, not a usage error
    err.print(f"[green]{escape(report.message())}[/green]", soft_wrap=True)


STARTUP_PROBE = """
import time
t0 = time.perf_counter()
import veriloop.cli
t1 = time.perf_counter()
import veriloop.graphs.grounded, veriloop.models.backends
t2 = time.perf_counter()
print(f"{t1 - t0:.2f} {t2 - t1:.2f}")
"""


def startup_costs() -> str:
    """Measure, in a fresh interpreter, what importing the CLI and the model stack costs.

    The CLI alone is what `--help` and input errors pay; the model stack (LangChain,
    llama.cpp bindings, FAISS, graphs) is imported only by a command that runs a model.
    """
    import subprocess
    import sys

    try:
        done = subprocess.run(
            [sys.executable, "-c", STARTUP_PROBE],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        cli, stack = (float(x) for x in done.stdout.split())
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        return f"not measured ({exc})"
    return (
        f"importing the CLI {cli:.2f} s (what --help and input errors cost), then the "
        f"model stack {stack:.2f} s (commands that run a model)"
    )


def _print_environment(model_path: Path | None) -> None:
    """Print the CPU, the llama.cpp build, the model files, the cache and the settings."""
    from veriloop.models import runtime_check
    from veriloop.models.locate import bundled_chat_model_path, bundled_embedding_model_path

    features = runtime_check.cpu_features()
    table = Table(title="veriloop doctor", show_header=False)
    table.add_column("what", style="bold", no_wrap=True)
    table.add_column("value")
    table.add_row("CPU", runtime_check.cpu_model())
    table.add_row("CPU features", " ".join(name for name, has in features.items() if has) or "?")
    missing = [name for name in runtime_check.PORTABLE_NEEDS if not features[name]]
    if missing and any(features.values()):
        table.add_row(
            "warning",
            f"this CPU lacks {', '.join(missing)}, which the portable build needs; "
            "run VERILOOP_LLAMA_BUILD=native bash scripts/setup.sh",
        )
    try:
        import llama_cpp

        info = llama_cpp.llama_print_system_info().decode(errors="replace")
        table.add_row("llama-cpp-python", llama_cpp.__version__)
        table.add_row("llama.cpp uses", ", ".join(runtime_check.uses_features(info)))
    except ImportError as exc:
        table.add_row("llama-cpp-python", f"not importable ({exc}); run bash scripts/setup.sh")
    table.add_row(
        "llama.cpp build",
        runtime_check.installed_build() or "not recorded (not installed by scripts/setup.sh)",
    )
    configured = ModelSettings().chat_model_path
    locators: tuple[tuple[str, Callable[[], Path]], ...] = (
        (
            "chat model",
            lambda: model_path or (Path(configured) if configured else bundled_chat_model_path()),
        ),
        ("embedding model", bundled_embedding_model_path),
    )
    for label, locate in locators:
        try:
            path = Path(locate())
            size = (
                sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
                if path.is_dir()
                else path.stat().st_size
            )
            table.add_row(label, f"{path} ({size / 1e6:.1f} MB)")
        except (VeriloopError, OSError) as exc:
            table.add_row(label, f"[red]{escape(str(exc))}[/red]")
    table.add_row("start-up", startup_costs())
    cache = Path(os.environ.get("VERILOOP_CACHE_DIR", str(DEFAULT_CACHE_DIR)))
    state = "exists" if cache.is_dir() else "not created yet"
    table.add_row("cache directory", f"{cache} ({state}; --no-cache or --cache-dir to change)")
    settings = ModelSettings()
    for spec in fields(ModelSettings):
        value = getattr(settings, spec.name)
        variable = f"VERILOOP_{spec.name.upper()}"
        source = f" (from {variable})" if variable in os.environ else ""
        table.add_row(f"setting {spec.name}", f"{value!r}{source}")
    out.print(table)
