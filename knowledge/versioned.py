"""Versioned directories: write a complete new version, then switch to it atomically.

Both on-disk stores (the knowledge base and the corpus index) are directories of the form

    DIR/CURRENT        the name of the live version, e.g. "v000004"
    DIR/v000004/...    that version's files
    DIR/.lock          taken while a writer publishes

`publish_version` writes the new version into a staging directory, fsyncs every file and
the directory, renames it into place and then replaces `CURRENT` with an atomic rename, so
a reader (or a crash) only ever sees the old version or the new one. Older versions are
removed after the switch.

What both stores do with it is written once here: `check_live_kind` refuses to open a
directory that holds the other store, and each version holds rows as JSON lines, their unit
vectors (`vectors.npy`), the FAISS index over them (`index.faiss`) and `manifest.json`,
published by `publish_rows` and read back by `read_rows`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from veriloop.knowledge.index import IndexSpec, read_index, write_index

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


def check_live_kind(
    directory: Path, kind: str, error: type[Exception], *, missing: str, other: str
) -> None:
    """Raise `error` unless the live version of `directory` holds `kind` (or cannot tell).

    Args:
        directory: The versioned directory about to be opened.
        kind: What the caller opens (`KNOWLEDGE_BASE_KIND` or `CORPUS_INDEX_KIND`).
        error: The caller's error class.
        missing: The message when the directory has no version.
        other: What follows "DIR is <what it holds>, " when it holds another kind.

    Raises:
        Exception: `error`, with one of the two messages.
    """
    if live_version(directory) is None:
        raise error(missing)
    found = live_kind(directory)
    if found not in {kind, "unknown"}:
        raise error(f"{directory} is {describe_kind(found)}, {other}")


def publish_rows(
    directory: Path,
    version: int,
    *,
    rows_file: str,
    rows: Iterable[Any],
    vectors: npt.NDArray[np.float32],
    index: Any,
    manifest: dict[str, Any],
    more: Callable[[Path], None] | None = None,
) -> None:
    """Publish version `version`: rows, their vectors, the index, `more`, the manifest.

    The rows go to `rows_file` as JSON lines, the vectors to `vectors.npy` (numpy, no
    pickle), the FAISS index to `index.faiss`; `more(staging_dir)` writes a store's other
    files (fsynced, as `publish_version` asks) before `manifest.json` is written last. The
    caller holds the writer lock and has checked that no newer version exists.
    """

    def write_contents(staging: Path) -> None:
        write_file(
            staging / rows_file,
            lambda h: h.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
        )
        write_file(staging / "vectors.npy", lambda h: np.save(h, vectors, allow_pickle=False), "wb")
        write_index(index, staging / "index.faiss")
        fsync_file(staging / "index.faiss")
        if more is not None:
            more(staging)
        write_file(staging / "manifest.json", lambda h: h.write(json.dumps(manifest, indent=2)))

    publish_version(directory, version, write_contents)


def read_rows(folder: Path, rows_file: str, spec: IndexSpec) -> tuple[list[Any], Any, Any]:
    """Read back what `publish_rows` wrote into `folder`: the rows, their vectors, the index.

    Raises:
        OSError: A file is missing or unreadable.
        ValueError: A file is not what it should be.
        RuntimeError: FAISS cannot read the index.
    """
    rows = [
        json.loads(line)
        for line in (folder / rows_file).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    vectors = np.load(folder / "vectors.npy", allow_pickle=False)
    return rows, vectors, read_index(folder / "index.faiss", spec)
