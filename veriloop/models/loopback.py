"""Run a server process on loopback until it answers, and stop it for good.

Used by the real-engine tests (llama-cpp-python's server, `langgraph dev`) and by
`benchmarks/served_throughput.py` (llama.cpp's `llama-server`).
"""

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


class ServerStartError(RuntimeError):
    """A server process exited before it was ready, or never got ready."""


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

    The process's output goes to `log`; on exit its whole process group gets SIGTERM, then
    SIGKILL after 20 s.

    Raises:
        ServerStartError: It exited early or did not answer within `timeout` seconds; the
            message ends with the tail of its log.
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
        while True:
            if process.poll() is not None:
                raise ServerStartError(f"{name} exited early:\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise ServerStartError(f"{name} did not start:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(ready_url, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        yield
    finally:
        _stop_group(process)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process's group, SIGKILL it after 20 s; a group already gone is fine."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    except ProcessLookupError:  # it died first (the early-exit case): nothing to stop
        process.wait()
