"""Time one pass of the bench harness: the measurement the performance benchmarks share.

`benchmarks/harness_perf.py` (orchestration overhead, cache speed-up) and
`benchmarks/served_throughput.py` (workers against tokens per second) both answer a list of
items once, in a fresh results file, and read wall time and the traces' usage totals.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from veriloop.evaluation.bench import ResultsFile, RunSpec, run_bench
from veriloop.evaluation.items import Item


def timed_bench(
    runs: list[RunSpec], items: list[Item], settings: dict[str, Any], *, workers: int
) -> dict[str, Any]:
    """Run every (run, item) once in a throw-away results file; return timing and usage totals.

    Args:
        runs: What to run (`plan_runs`).
        items: The items, all answered once per run (no earlier results are reused).
        settings: The base settings every run gets (backend, cache folder, caps).
        workers: Concurrent item-runs.

    Returns:
        workers, items (records written), failed (records with an error), wall_seconds,
        items_per_second, model_seconds, calls, cached_calls, tokens_out and
        tokens_per_second, summed over the records' traces (a record that failed before
        tracing anything adds to `failed` only).
    """
    with tempfile.TemporaryDirectory() as folder:
        results = ResultsFile(Path(folder) / "results.jsonl")
        started = time.perf_counter()
        run_bench(runs, items, results, base_settings=settings, workers=workers)
        wall = time.perf_counter() - started
        records = results.records()
    usage = [r["trace"]["usage"] for r in records if r.get("trace")]  # failed: no trace
    tokens_out = sum(u["tokens_out"] for u in usage)
    return {
        "workers": workers,
        "items": len(records),
        "failed": sum(bool(r["error"]) for r in records),
        "wall_seconds": round(wall, 3),
        "items_per_second": round(len(records) / wall, 3),
        "model_seconds": round(sum(u["model_seconds"] for u in usage), 3),
        "calls": sum(u["calls"] for u in usage),
        "cached_calls": sum(u["cached_calls"] for u in usage),
        "tokens_out": tokens_out,
        "tokens_per_second": round(tokens_out / wall, 1),
    }
