"""Versioned directories: write a complete new version, then switch to it atomically.

Both on-disk stores (the knowledge base and the corpus index) are directories of the form

    DIR/CURRENT        the name of the live version, e.g. "v000004"
    DIR/v000004/...    that version's files
    DIR/.lock          taken while a writer publishes

`publish_version` writes the new version into a staging directory, fsyncs every file and
the directory, renames it into place and then replaces `CURRENT` with an atomic rename, so
a reader (or a crash) only ever sees the old version or the new one. Older versions are
removed after the switch.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

VERSION_PATTERN = re.compile(r"v\d{6}")

KNOWLEDGE_BASE_KIND = "veriloop-knowledge-base"
CORPUS_INDEX_KIND = "veriloop-corpus"
KIND_NAMES = {KNOWLEDGE_BASE_KIND: "a knowledge base", CORPUS_INDEX_KIND: "a corpus index"}

T = TypeVar("T")


def version_name(version: int) -> str:
    """Return the directory name of version `version` (`v000004`)."""
    return f"v{version:06d}"


def fsync_dir(path: Path) -> None:
    """Flush a directory's entry table to disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_file(path: Path, write: Callable[[Any], None], mode: str = "w") -> None:
    """Open `path`, let `write` fill it, then flush and fsync it."""
    handle: Any
    with open(path, mode, encoding=None if "b" in mode else "utf-8") as handle:  # noqa: PTH123
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())


def fsync_file(path: Path) -> None:
    """Fsync a file another library wrote (FAISS, bm25s)."""
    with path.open("rb") as handle:
        os.fsync(handle.fileno())


@contextlib.contextmanager
def writer_lock(directory: Path) -> Iterator[None]:
    """Hold the directory's exclusive writer lock for the duration of the block."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def live_version(directory: Path) -> str | None:
    """Return the name `CURRENT` points at, or None when the directory has no version."""
    pointer = directory / "CURRENT"
    return pointer.read_text().strip() if pointer.is_file() else None


def live_kind(directory: Path) -> str | None:
    """Return what the live version of `directory` holds, or None when it has no version.

    The manifest's `kind` names it; knowledge bases written before kinds were recorded
    have no `kind` but a `next_id`, and are reported as knowledge bases. A manifest that
    cannot be read gives "unknown".
    """
    live = live_version(directory)
    if live is None:
        return None
    try:
        manifest = json.loads((directory / live / "manifest.json").read_text())
    except (OSError, ValueError):
        return "unknown"
    if not isinstance(manifest, dict):
        return "unknown"
    if "kind" in manifest:
        return str(manifest["kind"])
    return KNOWLEDGE_BASE_KIND if "next_id" in manifest else "unknown"


def describe_kind(kind: str | None) -> str:
    """Return a reader's phrase for a kind ("a knowledge base", "a corpus index", ...)."""
    if kind is None:
        return "nothing veriloop wrote"
    return KIND_NAMES.get(kind, "a versioned folder of unknown kind")


def read_live(directory: Path, load: Callable[[str], T], attempts: int = 5) -> T:
    """Load the live version with `load(version_name)`, never failing on a switch under way.

    A writer may switch `CURRENT` and delete the old version between our reading `CURRENT`
    and our reading the version's files. When `load` fails (a missing file surfaces as
    OSError from Python, RuntimeError from FAISS, ValueError from numpy) and `CURRENT` now
    names another version, the load is retried on the new one; a failure while `CURRENT`
    stays the same is real damage and is raised as it came.
    """
    for attempt in range(attempts):
        live = live_version(directory)
        if live is None:
            raise FileNotFoundError(directory / "CURRENT")
        try:
            return load(live)
        except Exception:
            if attempt + 1 == attempts or live_version(directory) == live:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def publish_version(directory: Path, version: int, write_contents: Callable[[Path], None]) -> None:
    """Write version `version` with `write_contents(staging_dir)` and switch `CURRENT` to it.

    The caller holds the writer lock and has checked that no newer version exists.
    `write_contents` must fsync what it writes (use `write_file` / `fsync_file`).
    """
    name = version_name(version)
    staging = directory / f".staging-{name}-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    write_contents(staging)
    fsync_dir(staging)
    final = directory / name
    if final.exists():
        shutil.rmtree(final)
    staging.rename(final)
    temporary = directory / "CURRENT.tmp"
    write_file(temporary, lambda h: h.write(name + "\n"))
    os.replace(temporary, directory / "CURRENT")
    fsync_dir(directory)
    for stale in directory.iterdir():
        if (
            stale.is_dir()
            and stale.name != name
            and (stale.name.startswith(".staging-") or VERSION_PATTERN.fullmatch(stale.name))
        ):
            shutil.rmtree(stale, ignore_errors=True)
