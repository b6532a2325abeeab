"""The benchmark harness: run methods and baselines on the same items, resumably.

Results go to `results.jsonl` in the run directory, one record per (run, item) with the
full output state and trace. Each record is written whole, flushed and fsynced before the
next item starts, so a killed benchmark loses at most the items in flight; re-running with
the same arguments skips every (run, item) already recorded, and a half-written last line
(from a kill mid-write) is cut off before appending. A model server that stops answering
stops the benchmark with a message (nothing is recorded for the unfinished items, so a
re-run picks them up); any other failure on one item is recorded as a failed record,
never dropped or misaligned.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
import typing
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veriloop.context import ModelSettings, parse_setting
from veriloop.errors import InvalidInputError, ModelUnavailableError
from veriloop.evaluation.harness import Task, run_tasks
from veriloop.evaluation.items import DatasetError, Item
from veriloop.files import write_json_atomically
from veriloop.graphs.registry import METHODS, get_method
from veriloop.text import safe_text

OUTPUT_KEYS = ("answer", "knowledge", "stop_reason", "refusal", "choice", "option_scores")


@dataclass(frozen=True)
class RunSpec:
    """One column of a comparison: a method with its settings."""

    name: str
    """Key in results.jsonl, e.g. 'self-reflection' or 'self-reflection[no_number]'."""
    method: str
    settings: dict[str, Any] = field(default_factory=dict)
    role: str = "method"
    """'method', 'baseline' or 'ablation'."""


def parse_variant(text: str) -> RunSpec:
    """Parse `NAME=METHOD,key=value,...` into a run of METHOD with its own settings.

    A variant compares one method under different settings in one benchmark, e.g.
    `l2r-gold=l2r,kb_dir=kbs/gold` next to `l2r` on an enriched base.

    Raises:
        InvalidInputError: Malformed text, an unknown method, or a setting it lacks.
    """
    name, sep, rest = text.partition("=")
    parts = [part.strip() for part in rest.split(",")] if sep else []
    if not sep or not name.strip() or not parts or not parts[0]:
        raise InvalidInputError(
            f"--variant {text!r}: expected NAME=METHOD,key=value,... "
            "(e.g. l2r-gold=l2r,kb_dir=kbs/gold)"
        )
    spec = get_method(parts[0], "answer")
    hints = typing.get_type_hints(spec.load()[1])
    settings: dict[str, Any] = {}
    for assignment in parts[1:]:
        key, has_value, raw = assignment.partition("=")
        key = key.strip().replace("-", "_")
        if not has_value or key not in hints:
            raise InvalidInputError(
                f"--variant {text!r}: {assignment!r} is not key=value with a setting of "
                f"{spec.id} ({', '.join(sorted(hints))})"
            )
        settings[key] = parse_setting(raw.strip(), hints[key], f"--variant {name} {key}")
    role = "baseline" if spec.baseline else "method"
    return RunSpec(name.strip(), spec.id, settings, role)


def plan_runs(
    methods: Iterable[str],
    baselines: Iterable[str],
    ablations: Iterable[str],
    variants: Iterable[str] = (),
) -> list[RunSpec]:
    """List the runs: each method, its ablations (those it has), each variant, each baseline.

    Raises:
        InvalidInputError: An unknown method, variant or ablation name, or an ablation
            that none of the methods has.
    """
    runs: list[RunSpec] = []
    ablation_list = list(ablations)
    method_list = list(methods)
    method_list = [get_method(method, "answer").id for method in method_list]
    offered = {name for method in method_list for name in get_method(method).ablations}
    unknown = [name for name in ablation_list if name not in offered]
    if unknown:
        known = {m.id: m.ablations for m in METHODS if m.ablations and m.kind == "answer"}
        raise InvalidInputError(
            f"unknown ablation(s) {unknown} for method(s) {method_list}; each method's "
            f"ablations: {known}"
        )
    for method in method_list:
        runs.append(RunSpec(method, method))
        for ablation in ablation_list:
            if ablation in get_method(method).ablations:
                runs.append(RunSpec(f"{method}[{ablation}]", method, {ablation: True}, "ablation"))
    runs.extend(parse_variant(variant) for variant in variants)
    for baseline in baselines:
        baseline = get_method(baseline, "answer").id
        runs.append(RunSpec(baseline, baseline, role="baseline"))
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise InvalidInputError(f"two runs share a name in {names}; name variants apart")
    if not runs:
        raise InvalidInputError("nothing to run: give at least one --method or --baseline")
    return runs


class ResultsFile:
    """Append-only JSON-lines results, safe against kills mid-write."""

    def __init__(self, path: Path) -> None:
        """Use (and repair, if its last line is cut off) the file at `path`."""
        self.path = path
        self._lock = threading.Lock()
        self._repair_tail()

    def _repair_tail(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with self.path.open("r+b") as handle:
                handle.truncate(cut)

    def records(self) -> list[dict[str, Any]]:
        """Return every record in file order.

        Raises:
            DatasetError: A complete line is not valid JSON (the file was edited by hand).
        """
        if not self.path.exists():
            return []
        records = []
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError as exc:
                    raise DatasetError(
                        f"{self.path}:{number}: not UTF-8 text ({exc.reason}); remove the line "
                        "to re-run that item"
                    ) from exc
                except json.JSONDecodeError as exc:
                    raise DatasetError(
                        f"{self.path}:{number}: not a valid record ({exc.msg}); remove the line "
                        "to re-run that item"
                    ) from exc
                if not isinstance(record, dict) or not {"run", "item_id"} <= record.keys():
                    raise DatasetError(
                        f"{self.path}:{number}: not a veriloop result (no 'run' and 'item_id'); "
                        "remove the line, or give another --out"
                    )
                records.append(record)
        return records

    def finished(self) -> set[tuple[str, str]]:
        """Return the (run, item id) pairs already recorded (failed ones included)."""
        return {(record["run"], record["item_id"]) for record in self.records()}

    def append(self, record: dict[str, Any]) -> None:
        """Write one record durably."""
        line = safe_text(json.dumps(record, ensure_ascii=False, default=str)) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())


class ResultsWarning(UserWarning):
    """A results file holds lines a report leaves out (duplicates, unknown runs)."""


def reportable_records(
    records: list[dict[str, Any]], manifest: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Return the records a report should count, and a note for each kind left out.

    A (run, item) recorded twice (a hand-edited or concatenated file) counts once, its last
    line kept; a line of a run the manifest does not list is left out. Each note is also
    raised as a `ResultsWarning`.
    """
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        latest[(str(record["run"]), str(record["item_id"]))] = record
    notes = []
    if len(latest) < len(records):
        notes.append(
            f"{len(records) - len(latest)} duplicate line(s) of an item already recorded: "
            "the last line of each was kept"
        )
    listed = {str(run) for run in manifest.get("runs") or []}
    unknown = sorted({run for run, _ in latest} - listed) if listed else []
    if unknown:
        notes.append(
            f"lines of run(s) {', '.join(map(repr, unknown))}, which the manifest does not "
            "list, were left out"
        )
    kept = [r for key, r in latest.items() if not unknown or key[0] not in unknown]
    for note in notes:
        warnings.warn(f"results.jsonl: {note}", ResultsWarning, stacklevel=2)
    return kept, notes


def run_item(run: RunSpec, item: Item, base_settings: dict[str, Any]) -> dict[str, Any]:
    """Run one method on one item; return the record (failed items carry `error`).

    Raises:
        ModelUnavailableError: The model server is down; the item is left unrecorded.
    """
    build_graph, context_class = get_method(run.method).load()
    known = set(context_class.__dataclass_fields__)
    settings = {k: v for k, v in {**base_settings, **run.settings}.items() if k in known}
    record: dict[str, Any] = {
        "run": run.name,
        "method": run.method,
        "role": run.role,
        "item_id": item.id,
        "dataset": item.dataset,
        "question": item.question,
        "references": item.references,
        "gold": item.gold,
        "settings": run.settings,
    }
    if item.options:
        record["options"] = item.options
        record["mc2_correct"] = item.metadata.get("mc2_correct")
        record["mc1_options"] = item.metadata.get("mc1_options")
    started = time.perf_counter()
    try:
        context: ModelSettings = context_class(**settings)
        request: dict[str, Any] = {"question": item.question}
        if item.options:
            request["options"] = item.options
        result = _compiled(run.method, build_graph).invoke(request, context=context)
        record.update({key: result.get(key) for key in OUTPUT_KEYS})
        record["outputs"] = {
            key: value
            for key, value in result.items()
            if key not in {*OUTPUT_KEYS, "question", "trace"}
        }
        record.update(trace=result.get("trace"), error=None)
    except ModelUnavailableError:
        raise
    except Exception as exc:  # recorded, never dropped: a bad item must not sink the run
        record.update({key: None for key in OUTPUT_KEYS})
        record.update(trace=None, error=f"{type(exc).__name__}: {exc}")
    record["wall_seconds"] = round(time.perf_counter() - started, 3)
    return record


_graphs: dict[str, Any] = {}
_graphs_lock = threading.Lock()


def _compiled(method: str, build_graph: Callable[[], Any]) -> Any:
    with _graphs_lock:
        if method not in _graphs:
            _graphs[method] = build_graph().compile(name=method)
        return _graphs[method]


def run_bench(
    runs: list[RunSpec],
    items: list[Item],
    results: ResultsFile,
    *,
    base_settings: dict[str, Any],
    workers: int = 1,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> int:
    """Run every (run, item) not yet in `results` on the harness core; return how many ran.

    Raises:
        ModelUnavailableError: The model server stopped answering (finished work is kept).
    """
    tasks = [
        Task(run.name, item.id, functools.partial(run_item, run, item, base_settings))
        for run in runs
        for item in items
    ]
    return run_tasks(tasks, results, workers=workers, on_record=on_record)


def code_version() -> str:
    """Return the git commit of the veriloop checkout (+ "-dirty"), or "unknown"."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


@dataclass(frozen=True)
class Selection:
    """Which items a benchmark runs: a dataset's split, optionally shuffled and cut."""

    dataset: str
    data_dir: Path
    split: str | None = None
    limit: int | None = None
    shuffle: bool = False
    seed: int = 0

    def items(self) -> list[Item]:
        """Load the dataset and return the selected items.

        Raises:
            DatasetError: Missing or malformed dataset files.
            InvalidInputError: An unknown dataset or split, or a bad `limit`.
        """
        from veriloop.evaluation.datasets import load_dataset

        loaded = load_dataset(self.dataset, Path(self.data_dir), self.split)
        return select_items(loaded, limit=self.limit, shuffle=self.shuffle, seed=self.seed)

    def default_run_dir(self) -> Path:
        """Return runs/<dataset>_<split>_n<limit>[_shuffle<seed>], the default --out."""
        parts = [self.dataset, self.split or "default", f"n{self.limit}" if self.limit else "all"]
        if self.shuffle:
            parts.append(f"shuffle{self.seed}")
        return Path("runs") / "_".join(parts)


def typed_settings(runs: list[RunSpec], raw: dict[str, Any], flag: str = "--set") -> dict[str, Any]:
    """Check setting names against the runs' Contexts; convert strings to the field's type.

    Raises:
        InvalidInputError: No run's method has a setting of that name, or a value does not
            convert to its type.
    """
    hints: dict[str, Any] = {}
    for run in runs:
        hints.update(typing.get_type_hints(get_method(run.method).load()[1]))
    typed: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in hints:
            raise InvalidInputError(
                f"{flag} {name}: no method in this benchmark has that setting; known: "
                f"{', '.join(sorted(hints))}"
            )
        typed[name] = (
            parse_setting(value, hints[name], f"{flag} {name}")
            if isinstance(value, str) and hints[name] is not str
            else value
        )
    return typed


def start_run(
    run_dir: Path,
    runs: list[RunSpec],
    selection: Selection,
    *,
    settings: dict[str, Any],
    command: str,
) -> ResultsFile:
    """Record a benchmark's manifest in `run_dir` and open its results file.

    The manifest holds what selects the items, the runs, the settings given and those
    taken from `VERILOOP_*` variables (never the cache directory: it does not change a
    result) and the command that started the run. See
    `write_manifest` for resuming.

    Raises:
        InvalidInputError: `run_dir` is a file, or holds results for other items.
    """
    write_manifest(
        run_dir,
        {
            "dataset": selection.dataset,
            "split": selection.split,
            "limit": selection.limit,
            "shuffle": selection.shuffle,
            "seed": selection.seed,
            "data_dir": str(selection.data_dir),
            "runs": [run.name for run in runs],
            "settings": {k: v for k, v in settings.items() if k != "cache_dir"},
            "environment": settings_environment(),
            "command": command,
        },
    )
    return ResultsFile(run_dir / "results.jsonl")


def settings_environment() -> dict[str, str]:
    """Return the `VERILOOP_*` variables that set fields (the cache directory aside).

    Settings may come from the environment instead of the command line (a served
    backend usually does), so the manifest records them too.
    """
    return {
        name: value
        for name, value in sorted(os.environ.items())
        if name.startswith("VERILOOP_") and name != "VERILOOP_CACHE_DIR"
    }


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Record the benchmark's arguments; refuse to mix another dataset into the directory.

    The manifest also lists the code versions (git commits) that wrote results into it, so
    a resumed run that crossed a code change says so.

    Raises:
        InvalidInputError: `run_dir` already holds results for other items.
    """
    path = run_dir / "manifest.json"
    if run_dir.exists() and not run_dir.is_dir():
        raise InvalidInputError(f"{run_dir} is a file; give a folder for --out")
    if path.exists():
        previous = read_manifest(run_dir)
        keys = ("dataset", "split", "limit", "shuffle", "seed", "offset")
        if any((previous.get(key) or 0) != (manifest.get(key) or 0) for key in keys):
            held = ", ".join(f"{key}={previous.get(key)}" for key in keys)
            raise InvalidInputError(
                f"{run_dir} holds results for other items ({held}); use another --out"
            )
        runs = sorted(set(previous.get("runs", [])) | set(manifest.get("runs", [])))
        commits = list(dict.fromkeys([*previous.get("code_versions", []), code_version()]))
        manifest = {**previous, **manifest, "runs": runs, "code_versions": commits}
    else:
        manifest = {**manifest, "code_versions": [code_version()]}
    write_json_atomically(path, manifest)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """Return a run directory's manifest.json ({} when it has none).

    Raises:
        InvalidInputError: The file is not a JSON object (truncated or edited by hand).
    """
    path = Path(run_dir) / "manifest.json"
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(
            f"{path} is damaged ({exc}); delete it to have it written again from the "
            "command's arguments (results.jsonl is kept and resumed)"
        ) from exc
    if not isinstance(manifest, dict):
        raise InvalidInputError(f"{path} is not a JSON object; delete it to have it rewritten")
    return manifest


def select_items(items: list[Item], *, limit: int | None, shuffle: bool, seed: int) -> list[Item]:
    """Take the first `limit` items, after a seeded shuffle when asked.

    Raises:
        InvalidInputError: `limit` is given and not a positive whole number.
    """
    import random

    if limit is not None and limit < 1:
        raise InvalidInputError(
            f"--limit must be at least 1, got {limit}; leave it out to use every item"
        )
    chosen = list(items)
    if shuffle:
        random.Random(seed).shuffle(chosen)
    return chosen[:limit] if limit is not None else chosen
