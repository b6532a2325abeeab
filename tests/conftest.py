"""Shared fixtures: scripted fake backends registered under a unique name per test."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from veriloop.models import Models, register_backend, unregister_backend
from veriloop.models.fakes import fake_models

_names = itertools.count()


@pytest.fixture
def fake_backend() -> Iterator[Callable[..., tuple[str, Models]]]:
    """Register scripted models; return (backend name, models) for the test to use."""
    registered: list[str] = []

    def make(replies: list[Any], **kwargs: Any) -> tuple[str, Models]:
        name = f"fake-{next(_names)}"
        models = fake_models(replies, **kwargs)
        register_backend(name, lambda settings: models)
        registered.append(name)
        return name, models

    yield make
    for name in registered:
        unregister_backend(name)


@pytest.fixture
def lock_holder() -> Iterator[Callable[[Path], Any]]:
    """Hold a run folder's writer lock from another process; return that process.

    The holder is killed when the test ends (a test may kill it earlier).
    """
    import subprocess
    import sys

    holders: list[subprocess.Popen[str]] = []

    def hold(folder: Path) -> subprocess.Popen[str]:
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time; from pathlib import Path;"
                "from veriloop.files import run_lock\n"
                "with run_lock(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(30)",
                str(folder),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        holders.append(holder)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        return holder

    yield hold
    for holder in holders:
        holder.kill()
        holder.wait()
