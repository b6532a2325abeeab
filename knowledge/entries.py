"""Knowledge-base entries: the record, its validation, and the file formats it comes in.

An entry is one declarative fact with a confidence in [0, 1] and where it came from
(L2R's structured knowledge `(K_i, C_i, S_i)`). Whitespace inside a fact (tabs, line
breaks, runs of spaces) is collapsed to single spaces, so every entry is one line in every
export format and a tab can never split a `confidence<TAB>fact` row.

Import formats (`read_entries`):
- JSON lines: `{"knowledge": ..., "confidence": 0.9, "source": ...}` (`text` or `fact`
  are accepted for `knowledge`; confidence defaults to 1.0, the manual-enrichment value);
- CSV with a header naming `knowledge` (or `text`/`fact`), optional `confidence`, `source`;
- the L2R reference's text format: `confidence<TAB>fact` per line (`.txt`/`.tsv`).
A malformed row raises `InvalidInputError` naming the file and line; nothing is skipped.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from veriloop.errors import InvalidInputError
from veriloop.text import has_word, strip_control

MAX_KNOWLEDGE_CHARS = 4000
TEXT_KEYS = ("knowledge", "text", "fact")


@dataclass(frozen=True)
class Entry:
    """One fact in a knowledge base."""

    id: str
    knowledge: str
    confidence: float
    source: str
    created: str
    metadata: dict[str, Any] = field(default_factory=dict)
    """Provenance details, e.g. the question and answer an enriched fact came from."""

    def to_json(self) -> dict[str, Any]:
        """Return the entry as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class NewEntry:
    """A validated fact not yet in a base (it gets its id when added)."""

    knowledge: str
    confidence: float = 1.0
    source: str = "manual"
    metadata: dict[str, Any] = field(default_factory=dict)


def now() -> str:
    """Return the current UTC time as an ISO-8601 string (seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def clean_knowledge(text: Any, where: str) -> str:
    """Return the fact with whitespace collapsed; reject empty or oversized text.

    Raises:
        InvalidInputError: The text is not a string, is empty, or is too long.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{where}: knowledge must be text, got {type(text).__name__}")
    cleaned = re.sub(r"\s+", " ", strip_control(text)).strip()
    if not cleaned:
        raise InvalidInputError(f"{where}: knowledge is empty")
    if not has_word(cleaned):
        raise InvalidInputError(f"{where}: knowledge {cleaned[:40]!r} has no letter or digit")
    if len(cleaned) > MAX_KNOWLEDGE_CHARS:
        raise InvalidInputError(
            f"{where}: knowledge is {len(cleaned)} characters; the limit is "
            f"{MAX_KNOWLEDGE_CHARS} (split it into single facts)"
        )
    return cleaned


def check_confidence(value: Any, where: str) -> float:
    """Return the confidence as a float in [0, 1].

    Raises:
        InvalidInputError: It is not a number or lies outside [0, 1].
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InvalidInputError(
            f"{where}: confidence is empty; give a probability such as 0.8, or leave the "
            "confidence column out for 1.0 everywhere"
        )
    if isinstance(value, bool):
        raise InvalidInputError(f"{where}: confidence {value!r} is not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{where}: confidence {value!r} is not a number") from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise InvalidInputError(
            f"{where}: confidence {value!r} is outside [0, 1]; give a probability such as 0.8"
        )
    return number


def new_entry(
    knowledge: Any,
    confidence: Any = 1.0,
    source: Any = "manual",
    *,
    where: str = "entry",
    metadata: dict[str, Any] | None = None,
) -> NewEntry:
    """Validate one fact.

    Raises:
        InvalidInputError: Empty or oversized text, or a confidence outside [0, 1].
    """
    return NewEntry(
        knowledge=clean_knowledge(knowledge, where),
        confidence=check_confidence(confidence, where),
        source=str(source or "manual"),
        metadata=dict(metadata or {}),
    )


def _text_field(row: dict[str, Any], where: str) -> Any:
    for key in TEXT_KEYS:
        if key in row:
            return row[key]
    raise InvalidInputError(f"{where}: no knowledge field (expected one of {list(TEXT_KEYS)})")


def _read_jsonl(path: Path, source: str) -> Iterator[NewEntry]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise InvalidInputError(f"{where}: expected a JSON object per line")
            yield new_entry(
                _text_field(row, where),
                row.get("confidence", 1.0),
                row.get("source") or source,
                where=where,
                metadata=row.get("metadata") if isinstance(row.get("metadata"), dict) else None,
            )


def _read_csv(path: Path, source: str) -> Iterator[NewEntry]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        if not any(key in header for key in TEXT_KEYS):
            raise InvalidInputError(
                f"{path}:1: the CSV header {header} names no knowledge column "
                f"(expected one of {list(TEXT_KEYS)})"
            )
        has_confidence = "confidence" in header
        try:
            for row in reader:
                where = f"{path}:{reader.line_num}"
                yield new_entry(
                    _text_field(row, where),
                    row.get("confidence") if has_confidence else 1.0,
                    row.get("source") or source,
                    where=where,
                )
        except csv.Error as exc:
            raise InvalidInputError(
                f"{path}:{reader.line_num}: not a readable CSV row ({exc}); facts are limited "
                f"to {MAX_KNOWLEDGE_CHARS} characters"
            ) from None


def _read_confidence_tab_fact(path: Path, source: str) -> Iterator[NewEntry]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            confidence, tab, fact = line.rstrip("\n").partition("\t")
            if not tab:
                raise InvalidInputError(
                    f"{where}: expected 'confidence<TAB>fact' (the L2R text format)"
                )
            yield new_entry(fact, confidence.strip(), source, where=where)


def read_entries(path: Path, *, source: str | None = None) -> list[NewEntry]:
    """Read and validate every fact in a JSONL, CSV or `confidence<TAB>fact` file.

    Raises:
        InvalidInputError: The file is missing, of an unknown kind, or has a bad row
            (the message names the file and line).
    """
    if not path.is_file():
        raise InvalidInputError(f"{path} does not exist or is not a file")
    origin = source or f"file:{path.name}"
    suffix = path.suffix.lower()
    try:
        if suffix in {".jsonl", ".ndjson"}:
            return list(_read_jsonl(path, origin))
        if suffix == ".csv":
            return list(_read_csv(path, origin))
        if suffix in {".txt", ".tsv"}:
            return list(_read_confidence_tab_fact(path, origin))
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    raise InvalidInputError(
        f"{path}: unknown file kind {suffix!r}; use .jsonl, .csv, or .txt/.tsv "
        "(confidence<TAB>fact)"
    )


def write_entries(entries: list[Entry], path: Path) -> None:
    """Write entries to a JSONL, CSV or `confidence<TAB>fact` file (by suffix), atomically.

    JSONL keeps everything (ids, provenance); CSV keeps id, knowledge, confidence, source
    and created; the text format keeps confidence and fact only, as the L2R reference does.

    Raises:
        InvalidInputError: The suffix is not .jsonl, .csv, .txt or .tsv.
    """
    suffix = path.suffix.lower()
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder; give a file name such as facts.jsonl")
    if not path.parent.is_dir():
        raise InvalidInputError(
            f"the folder {path.parent} does not exist; create it first or export elsewhere"
        )
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8", newline="") as handle:
        if suffix in {".jsonl", ".ndjson"}:
            for entry in entries:
                handle.write(json.dumps(entry.to_json(), ensure_ascii=False) + "\n")
        elif suffix == ".csv":
            writer = csv.writer(handle)
            writer.writerow(["id", "knowledge", "confidence", "source", "created"])
            for entry in entries:
                writer.writerow(
                    [entry.id, entry.knowledge, entry.confidence, entry.source, entry.created]
                )
        elif suffix in {".txt", ".tsv"}:
            for entry in entries:
                handle.write(f"{entry.confidence}\t{entry.knowledge}\n")
        else:
            handle.close()
            temporary.unlink()
            raise InvalidInputError(
                f"{path}: unknown export kind {suffix!r}; use .jsonl, .csv or .txt"
            )
    temporary.replace(path)
