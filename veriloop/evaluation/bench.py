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

import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, ModelUnavailableError
from veriloop.evaluation.items import DatasetError, Item
from veriloop.methods import get_method

ABLATIONS = ("no_refinement", "no_aspect", "no_number")


@dataclass(frozen=True)
class RunSpec:
    """One column of a comparison: a method with its settings."""

    name: str
    """Key in results.jsonl, e.g. 'self-reflection' or 'self-reflection[no_number]'."""
    method: str
    settings: dict[str, Any] = field(default_factory=dict)
    role: str = "method"
    """'method', 'baseline' or 'ablation'."""


def plan_runs(
    methods: Iterable[str], baselines: Iterable[str], ablations: Iterable[str]
) -> list[RunSpec]:
    """List the runs: each method, each baseline, and each ablation of each method.

    Raises:
        InvalidInputError: An unknown method or ablation name.
    """
    runs: list[RunSpec] = []
    ablation_list = list(ablations)
    unknown = [name for name in ablation_list if name not in ABLATIONS]
    if unknown:
        raise InvalidInputError(f"unknown ablation(s) {unknown}; choose from {list(ABLATIONS)}")
    for method in methods:
        get_method(method)
        runs.append(RunSpec(method, method))
        for ablation in ablation_list:
            runs.append(RunSpec(f"{method}[{ablation}]", method, {ablation: True}, "ablation"))
    for baseline in baselines:
        get_method(baseline)
        runs.append(RunSpec(baseline, baseline, role="baseline"))
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
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DatasetError(
                        f"{self.path}:{number}: not a valid record ({exc.msg}); remove the line "
                        "to re-run that item"
                    ) from exc
        return records

    def finished(self) -> set[tuple[str, str]]:
        """Return the (run, item id) pairs already recorded (failed ones included)."""
        return {(record["run"], record["item_id"]) for record in self.records()}

    def append(self, record: dict[str, Any]) -> None:
        """Write one record durably."""
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())


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
    started = time.perf_counter()
    try:
        context: ModelSettings = context_class(**settings)
        result = _compiled(run.method, build_graph).invoke(
            {"question": item.question}, context=context
        )
        record.update(
            answer=result.get("answer"),
            knowledge=result.get("knowledge"),
            stop_reason=result.get("stop_reason"),
            trace=result.get("trace"),
            error=None,
        )
    except ModelUnavailableError:
        raise
    except Exception as exc:  # recorded, never dropped: a bad item must not sink the run
        record.update(
            answer=None,
            knowledge=None,
            stop_reason=None,
            trace=None,
            error=f"{type(exc).__name__}: {exc}",
        )
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
    """Run every (run, item) not yet in `results`; return how many were run now.

    Raises:
        ModelUnavailableError: The model server stopped answering (finished work is kept).
    """
    if workers < 1:
        raise InvalidInputError(f"--workers must be at least 1, got {workers}")
    done = results.finished()
    todo = [(run, item) for run in runs for item in items if (run.name, item.id) not in done]
    if not todo:
        return 0
    stop = threading.Event()

    def task(run: RunSpec, item: Item) -> None:
        if stop.is_set():
            return
        try:
            record = run_item(run, item, base_settings)
        except ModelUnavailableError:
            stop.set()  # before any queued item starts: they stay unrecorded for the re-run
            raise
        results.append(record)
        if on_record is not None:
            on_record(record)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures: list[Future[None]] = [pool.submit(task, run, item) for run, item in todo]
        finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failure = next((f.exception() for f in finished if f.exception() is not None), None)
        if failure is not None:
            stop.set()
            for future in futures:
                future.cancel()
            raise failure
    return len(todo)


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Record the benchmark's arguments; refuse to mix another dataset into the directory.

    Raises:
        InvalidInputError: `run_dir` already holds results for other items.
    """
    path = run_dir / "manifest.json"
    if path.exists():
        previous = json.loads(path.read_text())
        keys = ("dataset", "split", "limit", "shuffle", "seed")
        if any(previous.get(key) != manifest.get(key) for key in keys):
            held = ", ".join(f"{key}={previous.get(key)}" for key in keys)
            raise InvalidInputError(
                f"{run_dir} holds results for other items ({held}); use another --out"
            )
        runs = sorted(set(previous.get("runs", [])) | set(manifest.get("runs", [])))
        manifest = {**previous, **manifest, "runs": runs}
    run_dir.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(manifest, indent=2) + "\n")
    temporary.replace(path)


def select_items(items: list[Item], *, limit: int | None, shuffle: bool, seed: int) -> list[Item]:
    """Take the first `limit` items, after a seeded shuffle when asked."""
    import random

    chosen = list(items)
    if shuffle:
        random.Random(seed).shuffle(chosen)
    return chosen[:limit] if limit else chosen
