"""Rows/s of `veriloop verify` on one process vs a local Ray cluster with 1 and 2 workers.

    python benchmarks/ray_throughput.py --rows 2000 --out docs/benchmarks/ray_throughput

The same rows (HaluEval QA held-out answers with their knowledge, and MEDIQA 2019 answers
with the MedQuAD passages BM25 retrieves; the rows of benchmarks/verify_throughput.py) are
checked three times in one run, each by a fresh `veriloop verify` process: without Ray,
then `--engine ray --workers 1` and `--workers 2` against a Ray head this script starts on
loopback (`ray start --head`, as a user would; the cluster's start is not timed, the
driver's join and the actors' judge loading are). For each run: wall time (cold: model
loading included), steady rows/s and claims/s (between 10% and 90% of the rows written,
read from the results file's growth), the largest checking process's memory (RSS), and
whether its results equal the single-process run's. The
ratios against the single process are in the same table; a plan for a real cluster is
computed from the steady per-worker rate (docs/integrations/ray.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verify_throughput import halueval_rows, mediqa_rows  # noqa: E402

from veriloop.models.loopback import free_port  # noqa: E402

TARGET_ROWS = 10_000_000
TARGET_SECONDS = 3600.0
NODES = 100
# A throwaway cluster on loopback: no usage stats, no token (Ray 2.60 starts clusters with
# token authentication; a real cluster's driver sets RAY_AUTH_TOKEN).
QUIET = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


class Watch:
    """Samples a results file's line count and the checking processes' memory."""

    def __init__(self, results: Path, pids_of: str) -> None:
        """Start sampling every 0.25 s."""
        self.results, self.pids_of = results, pids_of
        self.samples: list[tuple[float, int]] = []
        self.peak_rss_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            lines = self.results.read_bytes().count(b"\n") if self.results.exists() else 0
            self.samples.append((time.perf_counter(), lines))
            self.peak_rss_mb = max(self.peak_rss_mb, rss_mb(self.pids_of))
            time.sleep(0.25)

    def stop(self) -> None:
        """Stop sampling."""
        self._stop.set()
        self._thread.join()

    def steady_rate(self, total: int) -> float | None:
        """Return rows/s between 10% and 90% of `total` rows written (None: too few samples)."""
        low = next((s for s in self.samples if s[1] >= total * 0.1), None)
        high = next((s for s in self.samples if s[1] >= total * 0.9), None)
        if low is None or high is None or high[0] <= low[0]:
            return None
        return (high[1] - low[1]) / (high[0] - low[0])


def rss_mb(pattern: str) -> float:
    """Return the largest RSS (MB) of the processes whose command line holds `pattern`."""
    listed = subprocess.run(["ps", "-eo", "rss=,args="], capture_output=True, text=True).stdout
    sizes = [
        int(line.split(None, 1)[0]) / 1024
        for line in listed.splitlines()
        if pattern in line and "ps -eo" not in line
    ]
    return max(sizes, default=0.0)


def timed_verify(
    rows: Path, out: Path, extra: list[str], pattern: str, total: int
) -> dict[str, Any]:
    """Run one `veriloop verify` and return its figures."""
    veriloop = str(Path(sys.executable).parent / "veriloop")
    watch = Watch(out / "results.jsonl", pattern)
    started = time.perf_counter()
    done = subprocess.run(
        [veriloop, "verify", str(rows), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        env={**os.environ, **QUIET},
    )
    wall = time.perf_counter() - started
    watch.stop()
    if done.returncode != 0:
        raise SystemExit(f"veriloop verify {' '.join(extra)} failed:\n{done.stderr[-3000:]}")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    claims = sum(len(r.get("claims", [])) for r in records)
    steady = watch.steady_rate(total)
    return {
        "wall_s": round(wall, 1),
        "rows_per_s_cold": round(total / wall, 2),
        "rows_per_s_steady": round(steady, 2) if steady else None,
        "claims_per_s_steady": round(steady * claims / total, 2) if steady else None,
        "claims": claims,
        "peak_checker_rss_mb": round(watch.peak_rss_mb),
        "records": records,
    }


def start_cluster(cpus: int, temp: Path) -> tuple[str, str]:
    """Start a Ray head on loopback; return its address and the `ray` command."""
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent))
    if ray_cli is None:
        raise SystemExit("Ray is not installed: pip install 'veriloop[ray]'")
    port = free_port()
    subprocess.run(
        [
            ray_cli, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
            f"--num-cpus={cpus}", "--include-dashboard=false", "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        check=True,
        capture_output=True,
        env={**os.environ, **QUIET},
    )  # fmt: skip
    return f"127.0.0.1:{port}", ray_cli


def cluster_plan(per_worker: float, claims_per_row: float, rss_mb: float) -> dict[str, Any]:
    """Return what a 100-node run needs to check 10 million rows in an hour."""
    needed = TARGET_ROWS / TARGET_SECONDS
    workers = needed / per_worker
    return {
        "rows_per_s_needed": round(needed),
        "rows_per_s_per_worker": round(per_worker, 2),
        "claims_per_row": round(claims_per_row, 2),
        "workers_needed": round(workers),
        "workers_per_node": round(workers / NODES, 1),
        "memory_per_node_gb": round(workers / NODES * rss_mb / 1024, 1),
    }


def main() -> None:
    """Check the rows three ways, compare, and write the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks/ray_throughput"))
    args = parser.parse_args()

    rows = halueval_rows(args.data_root, args.rows // 4, args.seed)
    rows += mediqa_rows(args.data_root, args.rows - len(rows), args.seed)
    rows = rows[: args.rows]
    work = Path(tempfile.mkdtemp(prefix="ray-throughput-"))
    rows_path = work / "rows.jsonl"
    rows_path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    total = len(rows)

    runs: dict[str, dict[str, Any]] = {}
    print(f"{total} rows; single process ...", flush=True)
    runs["single process"] = timed_verify(rows_path, work / "single", [], "veriloop verify", total)
    address, ray_cli = start_cluster(2, work / "ray")
    try:
        for workers in (1, 2):
            print(f"ray, {workers} worker(s) ...", flush=True)
            runs[f"ray, {workers} worker{'s' if workers > 1 else ''}"] = timed_verify(
                rows_path,
                work / f"ray{workers}",
                ["--engine", "ray", "--address", address, "--workers", str(workers)],
                "ChunkChecker",
                total,
            )
    finally:
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True)
    base = runs["single process"]
    table = []
    for name, run in runs.items():
        steady = run["rows_per_s_steady"]
        table.append(
            {
                "run": name,
                "wall_s": run["wall_s"],
                "rows_per_s_cold": run["rows_per_s_cold"],
                "rows_per_s_steady": steady,
                "claims_per_s_steady": run["claims_per_s_steady"],
                "steady_vs_single": (
                    round(steady / base["rows_per_s_steady"], 2)
                    if steady and base["rows_per_s_steady"]
                    else None
                ),
                "cold_vs_single": round(run["rows_per_s_cold"] / base["rows_per_s_cold"], 2),
                "peak_checker_rss_mb": run["peak_checker_rss_mb"],
                "same_results_as_single": run["records"] == base["records"],
            }
        )
    one = runs["ray, 1 worker"]
    plan = cluster_plan(
        one["rows_per_s_steady"] or one["rows_per_s_cold"],
        base["claims"] / total,
        runs["ray, 2 workers"]["peak_checker_rss_mb"],
    )
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    result = {"rows": total, "machine": machine, "table": table, "plan": plan}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(render(result), encoding="utf-8")
    print(render(result))
    shutil.rmtree(work, ignore_errors=True)


def render(result: dict[str, Any]) -> str:
    """Return the result as the docs page."""
    lines = [
        "# Ray throughput: one process vs a local Ray cluster",
        "",
        f"Command: `python benchmarks/ray_throughput.py --rows {result['rows']}` "
        f"(machine: {result['machine']}; the three runs in one call, in this order).",
        "",
        f"{result['rows']} rows (HaluEval QA held-out answers with their knowledge, MEDIQA "
        "2019 answers with 3 MedQuAD passages each), each run a fresh `veriloop verify` "
        "process: cold = wall time with model loading (and for Ray, joining the cluster and "
        "loading one judge per actor); steady = rows/s between 10% and 90% of the rows "
        "written. Memory: the largest checking process's RSS (the single process itself; "
        "for Ray, one actor, whose RSS includes the pages of Ray's object store it touched).",
        "",
        "| run | wall s | rows/s cold | rows/s steady | claims/s steady | steady vs single "
        "| cold vs single | checker RSS MB | results = single's |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["table"]:
        lines.append(
            f"| {row['run']} | {row['wall_s']} | {row['rows_per_s_cold']} | "
            f"{row['rows_per_s_steady']} | {row['claims_per_s_steady']} | "
            f"{row['steady_vs_single']} | {row['cold_vs_single']} | "
            f"{row['peak_checker_rss_mb']} | {row['same_results_as_single']} |"
        )
    plan = result["plan"]
    lines += [
        "",
        "## What 10 million rows in an hour on 100 nodes needs (computed, not run)",
        "",
        f"- Rows/s needed: {plan['rows_per_s_needed']:,} "
        f"({TARGET_ROWS:,} rows / {TARGET_SECONDS:.0f} s).",
        f"- One worker (one core, one judge) checked {plan['rows_per_s_per_worker']} rows/s "
        f"here (steady), at {plan['claims_per_row']} claims per row.",
        f"- Workers needed: {plan['workers_needed']:,}, i.e. {plan['workers_per_node']} per "
        f"node on {NODES} nodes, with {plan['memory_per_node_gb']} GB of actor memory per node.",
        "- Rows with more sentences cost more: the rate scales with claims/s, not rows/s.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
