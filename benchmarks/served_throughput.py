"""Workers against throughput on real engines: a serialising server and one that batches.

    bash scripts/build_llama_server.sh     # once: llama.cpp's llama-server, portable build
    .venv/bin/python benchmarks/served_throughput.py

The same PubMedQA questions go through `veriloop bench`'s harness (direct answering on the
`openai` backend: one chat request per item, no cache, `max_tokens` 128) at 1, 2, 4 and 8
workers against three engines serving the bundled SmolLM2-135M on 127.0.0.1, one at a time,
each with 2 threads for decoding and for prompts:

- llama-cpp-python's server (`python -m llama_cpp.server`, the one the real-engine tests
  use): one request at a time behind a lock;
- llama.cpp's `llama-server` with one slot (`-np 1`): the same C++ engine, no batching;
- `llama-server` with four slots (`-np 4`, continuous batching: the slots' tokens decode
  in one batch).

Numbers (items/s, generated tokens/s, speed-up over one worker on the same engine) go to
docs/benchmarks/served_throughput.{json,md}. The client shares the 2 cores with the server;
`direct` keeps the client's share small (no local embeddings or judges).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from veriloop.evaluation.bench import plan_runs
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa
from veriloop.evaluation.timing import timed_bench
from veriloop.files import write_json_atomically
from veriloop.models.locate import bundled_chat_model_path
from veriloop.models.loopback import free_port, running_server

WORKERS = (1, 2, 4, 8)


def engines(llama_server: Path, model: Path, port: int) -> dict[str, list[str]]:
    """Return each engine's name and the command that serves `model` on `port`."""
    python_server = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "2048", "--n_threads", "2", "--n_threads_batch", "2",
    ]  # fmt: skip

    def cpp_server(slots: int) -> list[str]:
        return [
            str(llama_server), "--model", str(model), "--alias", "smollm2",
            "--host", "127.0.0.1", "--port", str(port),
            "--ctx-size", str(2048 * slots), "--parallel", str(slots), "--threads", "2",
        ]  # fmt: skip

    return {
        "llama-cpp-python server": python_server,
        "llama-server -np 1": cpp_server(1),
        "llama-server -np 4": cpp_server(4),
    }


def timed_run(items: list[Any], settings: dict[str, Any], workers: int) -> dict[str, Any]:
    """Answer the items once at `workers` concurrency; return timing and token totals."""
    timed = timed_bench(plan_runs([], ["direct"], []), items, settings, workers=workers)
    keys = ("workers", "items", "failed", "wall_seconds", "items_per_second", "tokens_out",
            "tokens_per_second")  # fmt: skip
    return {key: timed[key] for key in keys}


def main() -> None:
    """Measure every engine at every worker count and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/pubmedqa"))
    parser.add_argument("--items", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument(
        "--llama-server",
        type=Path,
        default=Path.home() / ".cache/veriloop/llama-server-11434.0.0-portable/bin/llama-server",
        help="The llama-server binary scripts/build_llama_server.sh printed.",
    )
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    args = parser.parse_args()
    if not args.llama_server.is_file():
        raise SystemExit(
            f"no llama-server at {args.llama_server}: run `bash scripts/build_llama_server.sh`"
        )
    items = load_pubmedqa(args.data_dir)[: args.items]
    model = bundled_chat_model_path()
    version = subprocess.run(
        [str(args.llama_server), "--version"], capture_output=True, text=True, check=False
    )
    rows: list[dict[str, Any]] = []
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryDirectory() as logs:
        for name, command in engines(args.llama_server, model, port).items():
            log = Path(logs) / "server.log"
            with running_server(
                command, ready_url=f"{url}/models", log=log, name=name, timeout=180
            ):
                settings: dict[str, Any] = {
                    "backend": "openai",
                    "base_url": url,
                    "model_name": "smollm2",
                    "max_tokens": args.max_tokens,
                    "cache_dir": "",
                }
                timed_run(items[:2], settings, 1)  # probe and warm the engine outside timings
                runs = [timed_run(items, settings, workers) for workers in WORKERS]
            for run in runs:
                run["engine"] = name
                run["speedup"] = round(run["tokens_per_second"] / runs[0]["tokens_per_second"], 2)
                print(json.dumps(run))
            rows += runs
    report = {
        "command": "python benchmarks/served_throughput.py",
        "machine": f"{platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs",
        "llama_server_version": (version.stdout + version.stderr).strip().splitlines()[-2:],
        "items": len(items),
        "max_tokens": args.max_tokens,
        "rows": rows,
    }
    lines = [
        "# Workers against throughput on real engines",
        "",
        f"Command: `{report['command']}`; {report['machine']}; {len(items)} PubMedQA test "
        f"questions answered directly (one chat request each, `max_tokens` {args.max_tokens}, "
        "no cache) through the `openai` backend; the bundled SmolLM2-135M-Instruct Q4_1 "
        "on 127.0.0.1; client and server share the machine. Speed-up is generated tokens "
        "per second over the same engine at one worker (answers differ in length between "
        "runs, so tokens/s is the fair rate).",
        "",
        "| engine | workers | wall s | items/s | tokens/s | speed-up | failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['engine']} | {row['workers']} | {row['wall_seconds']:.1f} | "
            f"{row['items_per_second']:.2f} | {row['tokens_per_second']:.1f} | "
            f"{row['speedup']:.2f}x | {row['failed']} |"
        )
    write_json_atomically(args.out / "served_throughput.json", report)
    (args.out / "served_throughput.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
