"""Start a real server process on loopback for a test module, and stop it for good."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(
    command: Sequence[str],
    *,
    ready_url: str,
    log: Path,
    name: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> Iterator[None]:
    """Run `command` in its own session until `ready_url` answers 200; kill it on exit.

    The test fails with the tail of the server's log if it exits early or never gets ready.
    """
    with log.open("w") as handle:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"{name} exited early:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(ready_url, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail(f"{name} did not start:\n{log.read_text()[-3000:]}")
        yield
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
