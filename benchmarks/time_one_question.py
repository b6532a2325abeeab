r"""Median seconds per question one at a time, as a single `veriloop ask` has it.

    PYTHONPATH=/tmp/wt_start .venv/bin/python benchmarks/time_one_question.py \
        --questions docs/results/mediqa_issue38_s29 --limit 60 --out /tmp/timing/start_1.json
    .venv/bin/python benchmarks/time_one_question.py \
        --questions docs/results/mediqa_issue38_s29 --limit 60 --out /tmp/timing/now_1.json

The grounded default is built once and warmed on `--warmup` questions (models loaded,
indexes read); then each question is invoked alone, with the embedding memo (where the
code under test has one) emptied before it, so no question borrows the vectors of the one
before. The questions are a results folder's, in its order. Run the code before and after
a change alternately on one machine (a git worktree on `PYTHONPATH`), twice each, and
compare medians of the same run only: this machine's speed drifts by a fifth between
hours. Writes {"code", "n", "median", "mean", "times"} to `--out`.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a script: let `veriloop` resolve (PYTHONPATH first)
    sys.path.append(str(Path(__file__).resolve().parents[1]))

import veriloop
from veriloop.models import gateway


def empty_memos() -> None:
    """Empty every live embedding memo, where the code under test has one."""
    for obj in gc.get_objects():
        if isinstance(obj, gateway.Models) and hasattr(obj, "_embedded"):
            obj._embedded = type(obj._embedded)()


def main() -> None:
    """Time the questions one at a time and write the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, required=True, help="a results folder")
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--method", default="grounded")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rows = args.questions / "results.jsonl"
    if not rows.is_file():
        raise SystemExit(f"no results.jsonl in {args.questions}: give a `veriloop bench` --out")
    if args.limit < 1 or args.warmup < 0:
        parser.error("--limit must be 1 or more and --warmup 0 or more")
    questions = [
        json.loads(line)["question"] for line in rows.open(encoding="utf-8") if line.strip()
    ]
    questions = questions[: args.limit]
    if not questions:
        raise SystemExit(f"{rows} holds no question: give a `veriloop bench` --out with results")
    handle = veriloop.method(args.method)
    for question in questions[: args.warmup]:
        handle.invoke(question)
    times = []
    for question in questions:
        empty_memos()
        start = time.perf_counter()
        handle.invoke(question)
        times.append(time.perf_counter() - start)
    result = {
        "code": veriloop.__file__,
        "n": len(times),
        "median": statistics.median(times),
        "mean": statistics.mean(times),
        "times": times,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result), encoding="utf-8")
    print(args.out, round(result["median"], 3))


if __name__ == "__main__":
    main()
