"""Self-Reflection cost per question, cold and with the model-call cache warm, in one run.

    .venv/bin/python benchmarks/self_reflection_perf.py --data-dir ../shared/data/pubmedqa

For the first N PubMedQA test questions: model calls, tokens in and out, model time and
wall time per question; orchestration overhead = (wall - model time) / wall; then the same
questions again against the now-warm cache, and the end-to-end speed-up. Model loading is
done once before timing starts and reported separately. Numbers go to a JSON file and a
Markdown table (docs/benchmarks/ by default); nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa
from veriloop.graphs.self_reflection import SelfReflectionContext, build_graph
from veriloop.models import get_models


def run_pass(
    graph: Any, questions: list[tuple[str, str]], context: SelfReflectionContext
) -> list[dict[str, Any]]:
    """Run every question once; return per-question cost and timing rows."""
    rows = []
    for item_id, question in questions:
        started = time.perf_counter()
        result = graph.invoke({"question": question}, context=context)
        wall = time.perf_counter() - started
        usage = result["trace"]["usage"]
        rows.append(
            {
                "id": item_id,
                "calls": usage["calls"],
                "chat_calls": usage["chat_calls"],
                "cached_calls": usage["cached_calls"],
                "tokens_in": usage["tokens_in"],
                "tokens_out": usage["tokens_out"],
                "model_seconds": round(usage["model_seconds"], 3),
                "wall_seconds": round(wall, 3),
                "overhead_share": round((wall - usage["model_seconds"]) / wall, 4),
                "stop_reason": result["stop_reason"],
            }
        )
    return rows


def totals(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Add up a pass's rows."""
    wall = sum(r["wall_seconds"] for r in rows)
    model = sum(r["model_seconds"] for r in rows)
    return {
        "wall_seconds": round(wall, 3),
        "model_seconds": round(model, 3),
        "overhead_share": round((wall - model) / wall, 4),
        "calls": sum(r["calls"] for r in rows),
        "cached_calls": sum(r["cached_calls"] for r in rows),
    }


def markdown(report: dict[str, Any]) -> str:
    """Render the report as a Markdown page."""
    lines = [
        "# Self-Reflection performance (embedded model)",
        "",
        f"Command: `{report['command']}`  ",
        f"Model: {report['models']['chat']} (scorer: {report['models']['scorer']}, "
        f"embeddings: {report['models']['embeddings']}); {report['machine']}  ",
        f"Items: first {len(report['cold'])} PubMedQA test questions; paper settings "
        "(thresholds -1.0 / -5.0 / 0.8, caps 3 / 3 / 3). Model load (once, not in the "
        f"timings): {report['model_load_seconds']} s.",
        "",
        "| pass | item | calls (cached) | tokens in | tokens out | model s | wall s | overhead |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("cold", "warm"):
        for row in report[name]:
            lines.append(
                f"| {name} | {row['id']} | {row['calls']} ({row['cached_calls']}) | "
                f"{row['tokens_in']} | {row['tokens_out']} | {row['model_seconds']:.2f} | "
                f"{row['wall_seconds']:.2f} | {row['overhead_share']:.1%} |"
            )
    cold, warm = report["cold_totals"], report["warm_totals"]
    lines += [
        "",
        f"- Orchestration overhead, cold: {cold['overhead_share']:.2%} of wall time "
        f"({cold['wall_seconds'] - cold['model_seconds']:.2f} s of {cold['wall_seconds']:.1f} s; "
        "target < 5%).",
        f"- Warm cache: {warm['wall_seconds']:.2f} s vs {cold['wall_seconds']:.1f} s cold, "
        f"**{report['warm_speedup']:.0f}x** faster end to end (target >= 20x); "
        f"{warm['cached_calls']} of {warm['calls']} calls served from cache (embeddings are "
        "recomputed, not cached).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run the cold and warm passes and write the report files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/pubmedqa"))
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    args = parser.parse_args()

    items = load_pubmedqa(args.data_dir)[: args.limit]
    questions = [(item.id, item.question) for item in items]
    with tempfile.TemporaryDirectory() as cache_dir:
        context = SelfReflectionContext(cache_dir=cache_dir)
        started = time.perf_counter()
        models = get_models(context)
        models.embed(["warm up"], purpose="load")
        load_seconds = time.perf_counter() - started
        graph = build_graph().compile()
        cold = run_pass(graph, questions, context)
        warm = run_pass(graph, questions, context)
    report: dict[str, Any] = {
        "command": f"python benchmarks/self_reflection_perf.py --data-dir {args.data_dir} "
        f"--limit {args.limit}",
        "models": models.describe(),
        "machine": f"{platform.machine()}, {platform.python_version()}, {os.cpu_count()} CPUs",
        "settings": {
            k: v for k, v in asdict(context).items() if k.startswith(("threshold", "max_"))
        },
        "model_load_seconds": round(load_seconds, 2),
        "cold": cold,
        "warm": warm,
        "cold_totals": totals(cold),
        "warm_totals": totals(warm),
    }
    report["warm_speedup"] = round(
        report["cold_totals"]["wall_seconds"] / report["warm_totals"]["wall_seconds"], 1
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "self_reflection_perf.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "self_reflection_perf.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
