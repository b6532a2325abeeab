"""Users' own answers to check: rows of (id, question, answer, sources) from a file or a frame.

    for row in read_rows(Path("rows.jsonl")):      # .jsonl, .json (a list), .csv, .parquet
        if isinstance(row, RowError): print(row.message)

A row is an object with an `answer` and its `sources` (the texts the answer should rest
on), optionally an `id` and the `question`. The column names of the tools people export
from are read too:

| veriloop   | RAGAS                | DeepEval            | also read                 |
|------------|----------------------|---------------------|---------------------------|
| `id`       |                      |                     | `row_id`, `sample_id`     |
| `question` | `user_input`         | `input`             | `query`                   |
| `answer`   | `response`           | `actual_output`     | `output`                  |
| `sources`  | `retrieved_contexts` | `retrieval_context` | `contexts`, `context`     |

A source is a string, or an object with `text` or `page_content` (a LangChain Document as
JSON). In a CSV cell, `sources` is a JSON list (`["a", "b"]`), a Python list literal (what
`pandas.DataFrame.to_csv` writes for a list), or one plain text (one source).

A bad row (no answer, sources not a list of texts, text that is not UTF-8, a repeated id)
is a `RowError` naming the row and the field; the rows around it are read as usual, so a
batch check records it as failed and goes on. Only a file that cannot be read at all
raises.
"""

from __future__ import annotations

import ast
import codecs
import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriloop.errors import InvalidInputError
from veriloop.text import has_surrogate, safe_text

FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "row_id", "sample_id"),
    "question": ("question", "user_input", "input", "query"),
    "answer": ("answer", "response", "actual_output", "output"),
    "sources": ("sources", "retrieved_contexts", "retrieval_context", "contexts", "context"),
}
"""Each field's accepted column names, in the order they are looked up."""

SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")


@dataclass(frozen=True)
class Row:
    """One answer to check against its sources."""

    id: str
    answer: str
    sources: list[str]
    question: str = ""
    position: int = 0
    """1-based position in the input (a line of a .jsonl file, a data row of a .csv)."""


@dataclass(frozen=True)
class RowError:
    """A row that cannot be checked, and why (the field named)."""

    id: str
    position: int
    field: str
    message: str

    def __str__(self) -> str:
        """Return the error as one line: where, which field, what to do."""
        return f"row {self.position} (id {self.id}): {self.field}: {self.message}"


def failed_id(position: int, seen: dict[str, int] | None) -> str:
    """Return an id for a row that has none to give (unreadable, not an object).

    "#3" for the third: never a plain number, so it cannot take the id of a row that names
    its own ("3"); made unique against the ids already read.
    """
    candidate, n = f"#{position}", 1
    while seen is not None and candidate in seen:
        n += 1
        candidate = f"#{position}.{n}"
    if seen is not None:
        seen[candidate] = position
    return candidate


def _field(record: Mapping[str, Any], name: str) -> tuple[str | None, Any]:
    """Return (the column name used, its value) for a field, or (None, None)."""
    for key in FIELD_ALIASES[name]:
        if key in record and record[key] is not None:
            return key, record[key]
    return None, None


def _source_text(source: Any) -> str | None:
    """Return a source's text (a string, or an object with text / page_content)."""
    if isinstance(source, str):
        return source
    if isinstance(source, Mapping):
        for key in ("text", "page_content"):
            if isinstance(source.get(key), str):
                return str(source[key])
    return None


def _cell_list(value: str) -> Any:
    """Read a CSV cell that may hold a list (JSON or a Python literal); else one text."""
    text = value.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            try:
                return ast.literal_eval(text)
            except (ValueError, SyntaxError):
                pass
    return [value]


def _has_undecodable(value: Any) -> bool:
    """Tell whether a text (or a list of them) holds bytes that were not UTF-8."""
    if isinstance(value, str):
        return any("\udc80" <= ch <= "\udcff" for ch in value)
    if isinstance(value, list):
        return any(_has_undecodable(v) for v in value)
    return False


def _has_lone_surrogate(value: Any) -> bool:
    """Tell whether a text (or a list or mapping of them) holds a lone surrogate code point."""
    if isinstance(value, str):
        return has_surrogate(value)
    if isinstance(value, list | tuple):
        return any(_has_lone_surrogate(v) for v in value)
    if isinstance(value, Mapping):
        return any(_has_lone_surrogate(v) for v in value.values())
    return False


def _id_text(raw_id: Any) -> str:
    """Return an id as text: 3.0 (an integer column with a gap, read as floats) is "3"."""
    if isinstance(raw_id, float) and raw_id.is_integer():
        return str(int(raw_id))
    return safe_text(str(raw_id)).strip()


def parse_row(
    record: Any, position: int, *, from_csv: bool = False, seen: dict[str, int] | None = None
) -> Row | RowError:
    """Read one record as a row to check, or say what is wrong with it.

    Args:
        record: A mapping (a JSON object, a CSV or data-frame row).
        position: Its 1-based position, for messages and the default id.
        from_csv: Cells are text: `sources` may be a list literal or one text.
        seen: Ids already read, with their positions (a repeated id is an error).
    """
    default_id = str(position)
    if not isinstance(record, Mapping):
        return RowError(
            failed_id(position, seen),
            position,
            "row",
            f"expected an object with answer and sources, got {type(record).__name__}",
        )
    _, raw_id = _field(record, "id")
    row_id = default_id if raw_id is None or _id_text(raw_id) == "" else _id_text(raw_id)
    if seen is not None:
        if row_id in seen:
            return RowError(
                f"{row_id} (row {position})",
                position,
                "id",
                f"repeats the id of row {seen[row_id]}; ids must be unique (results are "
                "keyed by id)",
            )
        seen[row_id] = position
    for name in ("id", "question", "answer", "sources"):
        key, value = _field(record, name)
        if key is not None and _has_undecodable(value):
            return RowError(
                row_id, position, key, "holds bytes that are not UTF-8 text; save the file as UTF-8"
            )
        if key is not None and _has_lone_surrogate(value):
            return RowError(
                row_id,
                position,
                key,
                "holds a lone surrogate (a \\ud800-\\udfff escape with no pair): it is not "
                "text any file can hold; remove it or replace it with the character meant",
            )
    answer_key, answer = _field(record, "answer")
    if answer is None:
        names = " / ".join(FIELD_ALIASES["answer"])
        return RowError(row_id, position, "answer", f"missing (give one of: {names})")
    if not isinstance(answer, str):
        return RowError(
            row_id, position, answer_key or "answer", f"must be text, got {type(answer).__name__}"
        )
    if not answer.strip():
        return RowError(row_id, position, answer_key or "answer", "is empty: nothing to check")
    question_key, question = _field(record, "question")
    if question is not None and not isinstance(question, str):
        return RowError(
            row_id,
            position,
            question_key or "question",
            f"must be text, got {type(question).__name__}",
        )
    sources_key, sources = _field(record, "sources")
    label = sources_key or "sources"
    if sources is None:
        names = " / ".join(FIELD_ALIASES["sources"])
        return RowError(
            row_id, position, "sources", f"missing (give one of: {names}): a list of texts"
        )
    if from_csv and isinstance(sources, str):  # a CSV or a data-frame cell is text
        sources = _cell_list(sources)
    if hasattr(sources, "tolist") and not isinstance(sources, str):  # numpy array (parquet)
        sources = sources.tolist()
    if not isinstance(sources, list | tuple):
        return RowError(
            row_id,
            position,
            label,
            f"must be a list of texts, got {type(sources).__name__}; wrap a single source "
            'in a list: ["..."]',
        )
    texts: list[str] = []
    for number, source in enumerate(sources, start=1):
        text = _source_text(source)
        if text is None:
            return RowError(
                row_id,
                position,
                label,
                f"item {number} is {type(source).__name__}, not text (or an object with "
                "'text' / 'page_content')",
            )
        if text.strip():
            texts.append(text)
    if not texts:
        return RowError(row_id, position, label, "holds no text: the answer has nothing to rest on")
    return Row(
        id=row_id,
        answer=answer,
        sources=texts,
        question=(question or "").strip(),
        position=position,
    )


_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
"""Byte-order marks and the encoding each names (UTF-32's before UTF-16's: they share bytes)."""


def decoded(path: Path, raw: bytes) -> str | None:
    """Return the file's text when its encoding is certain: a BOM names it, or it is UTF-8.

    None when it is not: bytes that are not UTF-8 and no BOM (each line or cell is then
    read on its own, and the ones that are not text are named).

    Raises:
        InvalidInputError: A BOM names an encoding the bytes do not follow, or the bytes
            look like UTF-16 without a BOM (say which encoding to save it in).
    """
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding).removeprefix("\ufeff")
            except UnicodeDecodeError as exc:
                raise InvalidInputError(
                    f"{path} starts with a {encoding} byte-order mark but is not {encoding} "
                    f"text ({exc.reason} at byte {exc.start}); save it as UTF-8"
                ) from exc
    head = raw[:200]
    if head.count(0) > len(head) // 4:  # every other byte NUL: UTF-16 (NUL is valid UTF-8)
        raise InvalidInputError(
            f"{path} looks like UTF-16 text without a byte-order mark; save it as UTF-8"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _jsonl_records(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (line number, record, error) per non-blank line of a JSON-lines file."""
    raw = path.read_bytes()
    text = decoded(path, raw)
    lines: list[bytes | str] = (
        list(text.splitlines()) if text is not None else list(raw.splitlines())
    )
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield number, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
                continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"not valid JSON ({exc.msg})"


def _csv_records(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (data row number, record, None) per row of a CSV file with a header.

    A cell may be as long as the file (Python's csv module stops at 131,072 characters
    unless told otherwise); text that is not UTF-8 is kept as escapes and the row naming
    it fails, not the file.
    """
    raw = path.read_bytes()
    text = decoded(path, raw)
    if text is None:
        text = raw.decode("utf-8", errors="surrogateescape")
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    for number, record in enumerate(reader, start=1):
        yield number, {k: v for k, v in record.items() if k is not None}, None


def _json_records(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (position, record, None) per item of a JSON list (or its `rows` / `data`)."""
    raw = path.read_bytes()
    text = decoded(path, raw)
    if text is None:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
            ) from exc
    try:
        data = json.loads(text or "")
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path} is not valid JSON: {exc.msg} (line {exc.lineno})") from exc
    if isinstance(data, dict):
        listed = next((data[k] for k in ("rows", "data", "samples") if k in data), None)
        data = [data] if listed is None and "answer" in data else listed
    if not isinstance(data, list):
        raise InvalidInputError(
            f"{path}: expected a JSON list of rows (or one row object), got {type(data).__name__}"
        )
    for number, record in enumerate(data, start=1):
        yield number, record, None


def _parquet_records(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (position, record, None) per row of a Parquet file (pandas + pyarrow)."""
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except ImportError as exc:
        raise InvalidInputError(
            f"reading {path} needs pyarrow: pip install pyarrow (it is in veriloop's "
            "dependencies; re-run scripts/setup.sh)"
        ) from exc
    except Exception as exc:  # pyarrow's errors are many and undocumented
        raise InvalidInputError(f"{path} is not a readable Parquet file: {exc}") from exc
    yield from frame_records(frame)


def frame_records(frame: Any) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (position, record, None) per row of a pandas DataFrame."""
    for number, record in enumerate(frame.to_dict(orient="records"), start=1):
        yield number, {k: v for k, v in record.items() if not _is_missing(v)}, None


def _is_missing(value: Any) -> bool:
    """Tell whether a data-frame cell is empty (None or NaN)."""
    return value is None or (isinstance(value, float) and value != value)


def read_rows(path: Path) -> Iterator[Row | RowError]:
    """Yield each row of a .jsonl, .json, .csv or .parquet file: a Row, or a RowError.

    Raises:
        InvalidInputError: The file does not exist, has another suffix, or cannot be read
            at all (a JSON list that does not parse).
    """
    path = Path(path)
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder; give a {', '.join(SUFFIXES)} file")
    if path.exists() and not path.is_file():
        raise InvalidInputError(
            f"{path} is not a regular file (a pipe, a device or a socket); save the rows to "
            f"a {', '.join(SUFFIXES)} file and give its path"
        )
    if not path.is_file():
        raise InvalidInputError(f"{path} does not exist")
    suffix = path.suffix.lower()
    readers = {
        ".jsonl": _jsonl_records,
        ".json": _json_records,
        ".csv": _csv_records,
        ".parquet": _parquet_records,
    }
    if suffix not in readers:
        raise InvalidInputError(
            f"{path}: unsupported file type {suffix or '(none)'}; give one of {', '.join(SUFFIXES)}"
        )
    seen: dict[str, int] = {}
    cells_are_text = suffix in (".csv", ".parquet")
    try:
        for position, record, error in readers[suffix](path):
            if error is not None:
                yield RowError(failed_id(position, seen), position, "line", error)
            else:
                yield parse_row(record, position, from_csv=cells_are_text, seen=seen)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def rows_from(records: Iterable[Any]) -> Iterator[Row | RowError]:
    """Yield rows from Python objects: dicts, one dict, or a DataFrame.

    Raises:
        InvalidInputError: `records` is None, text, or not iterable.
    """
    if records is None or isinstance(records, str | bytes):
        raise InvalidInputError(
            f"rows must be a list of dicts (answer, sources, ...), one dict, a pandas "
            f"DataFrame or a file path; got {type(records).__name__}"
        )
    is_frame = hasattr(records, "to_dict") and hasattr(records, "columns")
    if isinstance(records, Mapping):  # one row
        records = [records]
    if is_frame:  # a pandas DataFrame: cells may hold a list as text, as in a CSV
        numbered: Iterable[tuple[int, Any, str | None]] = frame_records(records)
    else:
        try:
            numbered = ((n, r, None) for n, r in enumerate(records, start=1))
        except TypeError as exc:
            raise InvalidInputError(
                f"rows must be a list of dicts, one dict, a DataFrame or a file path; "
                f"got {type(records).__name__}"
            ) from exc
    seen: dict[str, int] = {}
    for position, record, _ in numbered:
        yield parse_row(record, position, from_csv=is_frame, seen=seen)
