"""The harness core every study plugs into: tasks, one step each, resumable results.

A study (answer benchmarks in `bench`, Factored Verification detection in `detection`,
M-Eval validation in `validation_bench`, and the ones to come) supplies only what differs:
its list of `Task`s, each a (run, case id, step) where the step returns the record to keep.
The core does the rest, the same way for all of them:

- skips every (run, case id) already in `results.jsonl` (resume after a kill or Ctrl-C);
- runs the steps on `workers` threads, appending each record durably as it finishes;
- stops when the model server goes down (`ModelUnavailableError`): nothing more starts,
  queued steps are cancelled and stay unrecorded for the re-run;
- on Ctrl-C, cancels queued steps and hands the interrupt to the caller at once;
- reports every record to `on_record` (progress bars, running scores).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

from veriloop.errors import InvalidInputError, ModelUnavailableError


class ResultsStore(Protocol):
    """Where records go: `finished()` keys and durable `append` (see bench.ResultsFile)."""

    def finished(self) -> set[tuple[str, str]]:
        """Return the (run, case id) pairs already recorded."""
        ...

    def append(self, record: dict[str, Any]) -> None:
        """Write one record durably."""
        ...


@dataclass(frozen=True)
class Task:
    """One step of a study: `step()` returns the record of (run, case_id)."""

    run: str
    case_id: str
    step: Callable[[], dict[str, Any]]


def pending(tasks: Sequence[Task], results: ResultsStore) -> list[Task]:
    """Return the tasks whose (run, case id) is not recorded yet, in order."""
    done = results.finished()
    return [task for task in tasks if (task.run, task.case_id) not in done]


def run_tasks(
    tasks: Sequence[Task],
    results: ResultsStore,
    *,
    workers: int = 1,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> int:
    """Run every task not yet recorded; return how many ran now.

    Raises:
        InvalidInputError: `workers` is below 1.
        ModelUnavailableError: The model server stopped answering (finished work is kept).
        KeyboardInterrupt: Ctrl-C; queued steps were cancelled, steps in flight abandoned.
    """
    if workers < 1:
        raise InvalidInputError(f"--workers must be at least 1, got {workers}")
    todo = pending(tasks, results)
    if not todo:
        return 0
    stop = threading.Event()

    def execute(task: Task) -> None:
        if stop.is_set():
            return
        try:
            record = task.step()
        except ModelUnavailableError:
            stop.set()  # before any queued step starts: they stay unrecorded for the re-run
            raise
        results.append(record)
        if on_record is not None:
            on_record(record)

    pool = ThreadPoolExecutor(max_workers=workers)
    futures: list[Future[None]] = [pool.submit(execute, task) for task in todo]
    try:
        finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
    except KeyboardInterrupt:
        # Start nothing more. Steps in flight finish in their threads and are recorded if
        # the process lives that long; the caller decides whether to wait.
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    failure = next((f.exception() for f in finished if f.exception() is not None), None)
    if failure is not None:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise failure
    pool.shutdown(wait=True)
    return len(todo)
