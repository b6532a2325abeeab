"""Ctrl-C (a real SIGINT) stops `veriloop bench` promptly, keeps what finished, and resumes."""

import json
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
ITEMS = 12


def write_pubmedqa(folder: Path) -> None:
    records = {
        str(n): {
            "QUESTION": f"Is treatment {n} effective?",
            "CONTEXTS": [f"Context {n}."],
            "final_decision": "yes",
            "LONG_ANSWER": f"Treatment {n} helped.",
        }
        for n in range(1, ITEMS + 1)
    }
    (folder / "ori_pqal.json").write_text(json.dumps(records))
    (folder / "test_ground_truth.json").write_text(json.dumps({k: "yes" for k in records}))


def test_sigint_stops_promptly_and_the_rerun_resumes(tmp_path: Path) -> None:
    data = tmp_path / "pubmedqa"
    data.mkdir()
    write_pubmedqa(data)
    veriloop = str(Path(sys.executable).parent / "veriloop")
    with fake_openai_server(delay=0.5) as server:
        command = [
            veriloop,
            "bench",
            "--baseline",
            "direct",
            "--dataset",
            "pubmedqa",
            "--data-dir",
            str(data),
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
        ]
        results = tmp_path / "run" / "results.jsonl"
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while len(whole_records(results)) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()[-2000:]
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGINT)
        interrupted = time.monotonic()
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - interrupted
        kept = whole_records(results)
        # Stopped at once (one item takes 0.5 s; the 10 queued ones would take 5 s more).
        assert process.returncode == 130, stderr[-2000:]
        assert took < 3.0, f"took {took:.1f} s to stop"
        assert "interrupted" in stderr and "again to resume" in stderr
        assert 2 <= len(kept) < ITEMS
        finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr[-2000:]
    final = whole_records(results)
    ids = [r["item_id"] for r in final]
    assert len(ids) == len(set(ids)) == ITEMS
    assert [r["item_id"] for r in final[: len(kept)]] == [r["item_id"] for r in kept]
