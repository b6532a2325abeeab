"""`veriloop doctor` on the real runtime: it passes on the bundled model, fails loudly on a
truncated GGUF, and the installed llama.cpp build uses no AMX (or AVX-512) kernels."""

import subprocess
import sys
from pathlib import Path

import pytest

from veriloop.models.locate import bundled_chat_model_path
from veriloop.models.runtime_check import STEPS, check_runtime, uses_features

pytestmark = pytest.mark.integration
VERILOOP = str(Path(sys.executable).parent / "veriloop")


def test_the_check_passes_on_the_bundled_model() -> None:
    report = check_runtime()
    assert report.ok, report.message()
    assert [step.step for step in report.steps] == list(STEPS)
    assert "tokens" in report.steps[1].detail


def test_the_build_is_portable() -> None:
    import llama_cpp

    used = uses_features(llama_cpp.llama_print_system_info().decode())
    assert "AVX2" in used
    assert not [name for name in used if name.startswith(("AMX", "AVX512"))], used


def test_doctor_prints_the_environment_and_passes() -> None:
    result = subprocess.run(
        [VERILOOP, "doctor"],
        capture_output=True,
        text=True,
        timeout=600,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    for what in (
        "CPU features",
        "llama.cpp uses",
        "chat model",
        "cache directory",
        "setting backend",
    ):
        assert what in result.stdout, result.stdout
    assert "the model runtime works" in result.stderr


def test_doctor_fails_loudly_on_a_truncated_gguf(tmp_path: Path) -> None:
    whole = bundled_chat_model_path().read_bytes()
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(whole[: len(whole) // 3])
    result = subprocess.run(
        [VERILOOP, "doctor", "--brief", "--model-path", str(truncated)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert "error: the model runtime check failed at step 'load'" in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr
