"""Data files: reading (JSON lines, JSON, XML, gzip) with errors that name file and line.

Writing: `write_json_atomically`. A run folder's writer lock (bench, verify): `run_lock`.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from veriloop.errors import DatasetError, InvalidInputError


def require_file(path: Path, hint: str) -> Path:
    """Return `path`, or raise a DatasetError saying what to point --data-dir at."""
    if not path.is_file():
        raise DatasetError(f"{path} does not exist; {hint}")
    return path


def dataset_file(data_dir: Path, default_name: str, dataset: str) -> Path:
    """Return `data_dir` if it is a file, else `data_dir/default_name`; it must exist."""
    path = Path(data_dir)
    path = path if path.is_file() else path / default_name
    return require_file(path, f"point --data-dir at the {dataset} folder (or at the file)")


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) from a JSON-lines file, gzipped or not."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(value, dict):
                raise DatasetError(f"{path}:{number}: expected a JSON object")
            yield number, value


def json_file(path: Path) -> Any:
    """Parse a JSON file, naming the line of a syntax error."""
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


def xml_root(path: Path) -> ET.Element:
    """Parse an XML file (gzipped or not), naming the line of a syntax error."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as handle:
                return ET.parse(handle).getroot()
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise DatasetError(f"{path}:{exc.position[0]}: malformed XML ({exc})") from exc


def field(record: dict[str, Any], name: str, where: str) -> Any:
    """Return `record[name]`, or raise a DatasetError naming the place."""
    if name not in record:
        raise DatasetError(f"{where}: missing field {name!r}")
    return record[name]


def text_of(element: ET.Element | None) -> str:
    """Return an element's whole text, whitespace folded ('' for None)."""
    return "" if element is None else " ".join("".join(element.itertext()).split())


def write_json_atomically(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` through a temporary file, so readers never see half.

    Raises:
        OSError: The folder cannot be created or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder's writer lock; refuse at once if another process holds it.

    Raises:
        InvalidInputError: Another process is checking into this folder.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / ".lock").open("a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise InvalidInputError(
                f"{run_dir} is being written by {holder}; wait for it to finish (then re-run "
                "to resume) or give another --out"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
