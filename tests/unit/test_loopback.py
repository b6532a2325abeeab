"""The loopback server runner: ready when the URL answers, gone on exit, clear when it dies."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import httpx
import pytest

from veriloop.models.loopback import ServerStartError, free_port, running_server


def test_a_server_is_used_while_ready_and_its_process_group_is_gone_after(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    url = f"http://127.0.0.1:{port}/"
    with running_server(command, ready_url=url, log=tmp_path / "log", name="http.server"):
        assert httpx.get(url, timeout=5).status_code == 200
    with pytest.raises(httpx.HTTPError):
        httpx.get(url, timeout=2)


def test_a_server_that_dies_says_so_with_its_log(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "print('no model file here'); raise SystemExit(3)"]
    with pytest.raises(ServerStartError, match="(?s)toy exited early.*no model file here"):
        with running_server(
            command, ready_url="http://127.0.0.1:9/", log=tmp_path / "log", name="toy"
        ):
            pass


def test_a_server_that_never_answers_times_out_and_is_killed(tmp_path: Path) -> None:
    log = tmp_path / "log"
    command = [
        sys.executable,
        "-c",
        "import os, time; print(os.getpid(), flush=True); time.sleep(60)",
    ]
    with pytest.raises(ServerStartError, match="toy did not start"):
        with running_server(
            command, ready_url="http://127.0.0.1:9/", log=log, name="toy", timeout=1
        ):
            pass
    pid = int(log.read_text().split()[0])
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not left sleeping
        os.kill(pid, 0)
