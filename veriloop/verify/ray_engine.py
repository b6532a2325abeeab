"""Check a batch on a Ray cluster: the same chunks, judged by actors, written by the driver.

    veriloop verify rows.parquet --out runs/check --engine ray [--address HOST:PORT]
    veriloop.check(rows, out="runs/check", engine="ray", address="auto")

The driver reads the rows (the same reader as the single-process run, so ids, positions and
bad-row records are the same), cuts them into the same chunks and skips the rows a resume
finds done (`plan_chunks`). The chunks left go through Ray Data's `map_batches`, one chunk
per batch, to a pool of actors that each load the judge once (`ChunkChecker`) and return
the chunk's records (`check_chunk`, the single-process code). The driver takes the
records back in input order and appends them to results.jsonl (fsynced, as the
single-process run does), so:

- the results are the bytes the single-process run writes: same chunks, so the judge
  reads the same batches, and records hold no timing;
- a worker killed mid-run loses nothing: Ray Data restarts the actor and runs its chunk
  again (its actor pools' `max_restarts` and `max_task_retries` are -1); a driver
  killed mid-run loses at most the chunks not yet written, and the re-run (same command)
  checks only those.

Ray is an optional extra (`pip install 'veriloop[ray]'`). Every worker must import the
same veriloop and its judge's weights: on one machine that is this environment; on a
cluster, the same environment on every node (docs/integrations/ray.md).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from typing import Any

from veriloop.errors import InvalidInputError
from veriloop.evaluation.bench import ResultsFile
from veriloop.verify.claims import BatchSettings, BatchSummary, check_settings
from veriloop.verify.rows import Row, RowError
from veriloop.verify.run import ChunkWriter, check_chunk, plan_chunks

INSTALL_HINT = "the ray engine needs Ray: pip install 'veriloop[ray]' (or leave out --engine)"


def require_ray() -> Any:
    """Return the `ray` module.

    Raises:
        InvalidInputError: Ray is not installed (says how to install it).
    """
    try:
        import ray
        import ray.data  # noqa: F401  (Ray Data ships in ray[data])
    except ImportError as exc:
        raise InvalidInputError(f"{INSTALL_HINT} ({exc})") from None
    return ray


class ChunkChecker:
    """A Ray actor: loads the judge once, then checks one chunk per call."""

    def __init__(self, settings: BatchSettings, threads: int = 1) -> None:
        """Load the judge (with a one-row check) on `threads` CPU threads."""
        import torch

        torch.set_num_threads(max(1, threads))
        self.settings = settings
        warm = Row(id="warm-up", answer="The judge is loaded once.", sources=["It is."])
        check_chunk([warm], ["warm-up"], settings)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """Check the batch's chunks; return each chunk's records as one JSON text."""
        out: dict[str, list[Any]] = {"chunk": [], "records": []}
        for number, payload in zip(batch["chunk"], batch["payload"], strict=True):
            todo = json.loads(str(payload))
            rows = [Row(**row) for row in todo["rows"]]
            records = check_chunk(rows, todo["prints"], self.settings)
            out["chunk"].append(int(number))
            out["records"].append(json.dumps(records, ensure_ascii=False))
        return out


def check_rows_on_ray(
    rows: Iterable[Row | RowError],
    results: ResultsFile,
    settings: BatchSettings | None = None,
    *,
    address: str | None = None,
    workers: int = 2,
    threads_per_worker: int = 1,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> BatchSummary:
    """Check every row not yet in `results` on Ray actors; append one record per row.

    Args:
        rows: Parsed rows (`read_rows` / `rows_from`); errors are recorded by the driver.
        results: The run's results.jsonl (`start_run`).
        settings: The verifier and thresholds, as for `check_rows`.
        address: A running cluster's address (`HOST:PORT`, or "auto" for the one this
            machine's `ray start` joined); None starts a local Ray for this run.
        workers: Checking actors (each loads the judge once and holds it, ~0.5 GB).
        threads_per_worker: CPU threads (and Ray CPUs) per actor.
        on_row: Called with each record once it is on disk.

    Raises:
        InvalidInputError: Ray is not installed, the settings name a verifier a batch
            cannot run, or `workers` is below 1.
    """
    settings = settings or BatchSettings()
    check_settings(settings)
    if workers < 1:
        raise InvalidInputError(f"workers must be at least 1, not {workers}")
    ray = require_ray()
    writer = ChunkWriter(results, on_row)
    started = time.perf_counter()
    payloads: list[dict[str, Any]] = []
    for number, plan in enumerate(plan_chunks(rows, writer.latest, settings)):
        writer.write_failed(plan)  # the driver records unreadable rows at once
        if plan.todo:
            todo = {"rows": [asdict(r) for r in plan.todo], "prints": plan.prints}
            payloads.append({"chunk": number, "payload": json.dumps(todo, ensure_ascii=False)})
    if payloads:
        _start(ray, address)
        for records in _checked_chunks(ray, payloads, settings, workers, threads_per_worker):
            writer.write_checked(records)
    writer.summary.seconds = time.perf_counter() - started
    return writer.summary


def _start(ray: Any, address: str | None) -> None:
    """Join the cluster at `address` (None: start a local one), quietly, without telemetry.

    Raises:
        InvalidInputError: The cluster cannot be joined (not running, no auth token).
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():
        return
    try:
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    except ConnectionError as exc:
        cause = exc.__cause__ or exc
        raise InvalidInputError(
            f"cannot join the Ray cluster at {address}: {str(cause).splitlines()[0]} (is it "
            "running, and does this environment hold its auth token: RAY_AUTH_TOKEN?)"
        ) from exc


def _checked_chunks(
    ray: Any,
    payloads: list[dict[str, Any]],
    settings: BatchSettings,
    workers: int,
    threads: int,
) -> Iterator[list[dict[str, Any]]]:
    """Yield each chunk's records in input order, as the actors finish them."""
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # results in input order
    context.enable_progress_bars = False
    dataset = ray.data.from_items(payloads, override_num_blocks=len(payloads))
    checked = dataset.map_batches(
        ChunkChecker,
        fn_constructor_kwargs={"settings": settings, "threads": threads},
        batch_size=1,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=threads,
    )  # Ray Data restarts a dead actor and retries its chunk (max_restarts -1 by default)
    expected = iter(p["chunk"] for p in payloads)
    for batch in checked.iter_batches(batch_size=1, batch_format="numpy", prefetch_batches=0):
        for number, records in zip(batch["chunk"], batch["records"], strict=True):
            if int(number) != next(expected):  # preserve_order broken: never write out of order
                raise RuntimeError(f"chunk {number} came back out of order")
            yield json.loads(str(records))
