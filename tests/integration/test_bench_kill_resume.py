"""`veriloop bench` killed mid-run (SIGKILL) and re-run ends with each item exactly once."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.live_records import whole_records
from veriloop.models.fake_server import base_url, fake_openai_server

pytestmark = [pytest.mark.integration, pytest.mark.full]
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "pubmedqa"
ITEMS = 8


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/pubmedqa is not present")
def test_killed_bench_resumes_without_loss_or_duplicates(tmp_path):
    veriloop = str(Path(sys.executable).parent / "veriloop")
    with fake_openai_server(delay=0.3) as server:
        command = [
            veriloop,
            "bench",
            "--baseline",
            "direct",
            "--method",
            "self-reflection",
            "--dataset",
            "pubmedqa",
            "--data-dir",
            str(SHARED),
            "--limit",
            str(ITEMS),
            "--out",
            str(tmp_path / "run"),
            "--backend",
            "openai",
            "--no-cache",
            "--no-report",
            "--set",
            f"base_url={base_url(server)}",
            "--set",
            "model_name=fake",
            "--set",
            "max_rounds=1",
        ]
        results = tmp_path / "run" / "results.jsonl"
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        deadline = time.monotonic() + 120
        while len(whole_records(results)) < 3 and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read().decode()[-2000:]
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        partial = len(whole_records(results))
        assert 3 <= partial < 2 * ITEMS
        finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr[-2000:]
    final = whole_records(results)
    keys = [(r["run"], r["item_id"]) for r in final]
    assert len(keys) == len(set(keys)) == 2 * ITEMS
    assert {run for run, _ in keys} == {"direct", "self-reflection"}
    assert not [r for r in final if r["error"]]
