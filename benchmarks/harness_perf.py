"""Harness throughput, cache speed-up and overhead against a loopback OpenAI-compatible server.

    .venv/bin/python benchmarks/harness_perf.py

A fake server on 127.0.0.1 answers every chat and completions request after a fixed delay
(200 ms), standing in for a remote model server. The same 64 PubMedQA questions run
through `veriloop bench`'s harness (Self-Reflection on the `openai` backend, one round
and one attempt per loop: 2 chat + 3 scoring requests per item, plus a local MiniLM
embedding) at 1, 4 and 16 workers, each cold (no cache); then once more at 1 worker with
a cache, cold and warm. Numbers go to docs/benchmarks/harness_perf.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
from pathlib import Path
from typing import Any

from veriloop.evaluation.bench import plan_runs
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa
from veriloop.evaluation.timing import timed_bench
from veriloop.models.fake_server import fake_openai_server_process


def timed_run(items: list[Any], settings: dict[str, Any], workers: int) -> dict[str, Any]:
    """Run Self-Reflection on the items once, cold; return timing and model-time totals."""
    timed = timed_bench(plan_runs(["self-reflection"], [], []), items, settings, workers=workers)
    wall, model_seconds = timed["wall_seconds"], timed["model_seconds"]
    keys = ("workers", "items", "failed", "wall_seconds", "items_per_second", "model_seconds",
            "calls", "cached_calls")  # fmt: skip
    return {
        **{key: timed[key] for key in keys},
        # With one worker, everything that is not model time is orchestration.
        "overhead_share": round((wall - model_seconds) / wall, 4) if workers == 1 else None,
    }


def main() -> None:
    """Measure and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/pubmedqa"))
    parser.add_argument("--items", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    args = parser.parse_args()
    items = load_pubmedqa(args.data_dir)[: args.items]
    with fake_openai_server_process(delay=args.delay) as url:
        settings: dict[str, Any] = {
            "backend": "openai",
            "base_url": url,
            "model_name": "fake-remote",
            "max_rounds": 1,
            "max_knowledge_loops": 1,
            "max_answer_loops": 1,
            "cache_dir": "",
        }
        timed_run(items[:2], settings, 1)  # load the embedding model outside the timings
        scaling = [timed_run(items, settings, workers) for workers in (1, 4, 16)]
        with tempfile.TemporaryDirectory() as cache:
            cold = timed_run(items, {**settings, "cache_dir": cache}, 1)
            warm = timed_run(items, {**settings, "cache_dir": cache}, 1)
    base = scaling[0]["items_per_second"]
    for row in scaling:
        row["speedup"] = round(row["items_per_second"] / base, 2)
        row["scaling_efficiency"] = round(row["speedup"] / row["workers"], 3)
    report = {
        "command": "python benchmarks/harness_perf.py",
        "machine": f"{platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs",
        "server_delay_seconds": args.delay,
        "scaling": scaling,
        "cache": {
            "cold": cold,
            "warm": warm,
            "speedup": round(cold["wall_seconds"] / warm["wall_seconds"], 1),
        },
    }
    lines = [
        "# Harness performance against a loopback model server",
        "",
        f"Command: `{report['command']}`; {report['machine']}; fake OpenAI-compatible server on "
        f"127.0.0.1 answering every request after {args.delay * 1000:.0f} ms; {len(items)} "
        "PubMedQA test questions; Self-Reflection on the `openai` backend with one round and "
        "one attempt per loop (2 chat + 3 scoring requests per item, one local MiniLM "
        "embedding).",
        "",
        "| workers | wall s | items/s | speed-up | of linear | model s (sum) | failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in scaling:
        lines.append(
            f"| {row['workers']} | {row['wall_seconds']:.1f} | {row['items_per_second']:.2f} | "
            f"{row['speedup']:.2f}x | {row['scaling_efficiency']:.0%} | "
            f"{row['model_seconds']:.1f} | {row['failed']} |"
        )
    lines += [
        "",
        f"- Cache (1 worker): cold {cold['wall_seconds']:.1f} s, warm {warm['wall_seconds']:.2f} s"
        f" ({warm['cached_calls']} of {warm['calls']} calls from cache; embeddings are "
        f"recomputed): **{report['cache']['speedup']}x** faster.",
        f"- Orchestration overhead at 1 worker: {scaling[0]['overhead_share']:.2%} of wall time "
        "(wall minus the time spent inside model calls, including HTTP).",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "harness_perf.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "harness_perf.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
