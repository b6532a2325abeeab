"""Factored Verification: time per answer vs number of claims, 1 vs 8 concurrent claim checks.

    .venv/bin/python -m benchmarks.verification_perf            # claims 1..16, delay 0.2 s

Against the loopback fake OpenAI-compatible server (`veriloop.models.fake_server`, its own
process, every request answered after `--delay` seconds), the graph verifies answers of
1, 2, 4, 8 and 16 sentences (`sentences_as_claims`, so there is no decomposition call);
each claim costs 4 scoring requests (" Yes", " yes", " No", " no"), run one after the other
inside its `Send` branch. `max_concurrency` (LangGraph's per-run limit on parallel tasks) is
1 or 8. The cache is off. With perfect parallelism the 8-worker time is
ceil(claims / 8) / claims of the 1-worker time.

Numbers go to docs/benchmarks/verification_perf.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path
from typing import Any

from veriloop.graphs.factored_verification import FactoredVerificationContext, build_graph
from veriloop.models.fake_server import fake_openai_server_process

SENTENCE = "Aspirin number {n} reduces the risk of blood clots in adults."


def time_answer(claims: int, workers: int, settings: dict[str, Any], repeats: int) -> float:
    """Return the median wall seconds to verify an answer of `claims` sentences."""
    graph: Any = build_graph().compile()
    answer = " ".join(SENTENCE.format(n=n) for n in range(claims))
    payload = {"answer": answer, "sources": ["Aspirin reduces the risk of blood clots."]}
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = graph.invoke(
            payload,
            context=FactoredVerificationContext(**settings),
            config={"max_concurrency": workers},
        )
        timings.append(time.perf_counter() - started)
        assert len(result["claims"]) == claims, "every claim must be checked"
    timings.sort()
    return timings[len(timings) // 2]


def main() -> None:
    """Measure and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    args = parser.parse_args()
    rows = []
    with fake_openai_server_process(delay=args.delay) as url:
        settings: dict[str, Any] = {
            "backend": "openai",
            "base_url": url,
            "model_name": "fake-remote",
            "cache_dir": "",
            "sentences_as_claims": True,
            "max_claims": max(args.claims),
            "max_revisions": 0,
        }
        time_answer(1, 1, settings, 1)  # warm up imports and the HTTP client
        for claims in args.claims:
            one = time_answer(claims, 1, settings, args.repeats)
            eight = time_answer(claims, 8, settings, args.repeats)
            ideal = math.ceil(claims / 8) / claims
            rows.append(
                {
                    "claims": claims,
                    "seconds_1_worker": round(one, 3),
                    "seconds_8_workers": round(eight, 3),
                    "speedup": round(one / eight, 2),
                    "ideal_speedup": round(1 / ideal, 2),
                    "requests": claims * 4,
                }
            )
            print(rows[-1], flush=True)
    report = {
        "command": "python -m benchmarks.verification_perf",
        "machine": f"{platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs",
        "server_delay_seconds": args.delay,
        "repeats": args.repeats,
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "verification_perf.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Factored Verification: time per answer vs claims, 1 vs 8 concurrent checks",
        "",
        f"Command: `{report['command']}`  ",
        f"Machine: {report['machine']}; fake server delay {args.delay} s per request; median of "
        f"{args.repeats} runs; cache off. How measured: `benchmarks/verification_perf.py`.",
        "",
        "| claims | scoring requests | 1 worker (s) | 8 workers (s) | speedup | ideal speedup |",
        "|---|---|---|---|---|---|",
        *(
            f"| {r['claims']} | {r['requests']} | {r['seconds_1_worker']} | "
            f"{r['seconds_8_workers']} | {r['speedup']}x | {r['ideal_speedup']}x |"
            for r in rows
        ),
    ]
    (args.out / "verification_perf.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
