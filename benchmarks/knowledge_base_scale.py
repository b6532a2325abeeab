"""Knowledge-base scale: build time, memory, query latency and recall of exact vs HNSW.

    .venv/bin/python benchmarks/knowledge_base_scale.py            # 10k, 100k, 1M
    .venv/bin/python benchmarks/knowledge_base_scale.py --sizes 10000 --queries 200

Vectors are synthetic but shaped like sentence embeddings: 384 dimensions (MiniLM's),
unit length, drawn around random cluster centres (one centre per ~50 entries, noise 1.0 times
the centre's norm) so that neighbourhoods exist, as they do for real text; uniformly random
vectors would make every neighbour equally far and no index meaningful. Queries are fresh
draws from the same clusters.

For each size: the exact index (`IndexFlatL2`, the default) and HNSW (`IndexHNSWFlat`,
M=32, efConstruction=80) are built through `veriloop.knowledge.index`; we time the build, measure
the index's serialised size (its memory footprint) and the process's peak RSS, time single
queries (k=4, one at a time, as a question arrives) for p50/p99, and compute HNSW recall@4
against the exact top-4. HNSW is measured at several efSearch values. At the 10k size the
whole `KnowledgeBase.search_vectors` path (hit records with confidences and refusal
scores) is timed too, so the overhead over raw FAISS is visible.

Numbers go to docs/benchmarks/knowledge_base_scale.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import time
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import numpy.typing as npt

from veriloop.knowledge.entries import Entry
from veriloop.knowledge.index import IndexSpec, build_index, search
from veriloop.knowledge.store import KnowledgeBase

DIM = 384
K = 4


def clustered_unit_vectors(
    count: int, centres: npt.NDArray[np.float32], rng: np.random.Generator, noise: float = 1.0
) -> npt.NDArray[np.float32]:
    """Draw `count` unit vectors around random rows of `centres`."""
    out = np.empty((count, DIM), dtype=np.float32)
    for start in range(0, count, 100_000):
        stop = min(count, start + 100_000)
        picks = rng.integers(0, len(centres), size=stop - start)
        block = centres[picks] + noise * rng.standard_normal((stop - start, DIM)).astype(
            np.float32
        ) / np.sqrt(DIM)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start:stop] = block
    return out


def latencies(index: Any, queries: npt.NDArray[np.float32]) -> list[float]:
    """Time single k=4 queries one at a time; return milliseconds."""
    times = []
    for row in range(len(queries)):
        started = time.perf_counter()
        search(index, queries[row : row + 1], K)
        times.append((time.perf_counter() - started) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    """Return p50/p99/mean of latencies in ms."""
    values = np.asarray(times)
    return {
        "p50_ms": round(float(np.percentile(values, 50)), 4),
        "p99_ms": round(float(np.percentile(values, 99)), 4),
        "mean_ms": round(float(values.mean()), 4),
    }


def recall_at_k(approximate: npt.NDArray[np.int64], exact: npt.NDArray[np.int64]) -> float:
    """Share of the exact top-k rows the approximate search also returned."""
    hits = sum(len(set(a) & set(e)) for a, e in zip(approximate, exact, strict=True))
    return hits / exact.size


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_size(size: int, queries_count: int, seed: int, ef_values: list[int]) -> dict[str, Any]:
    """Build both indexes over `size` vectors and measure them."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, size // 50), DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    vectors = clustered_unit_vectors(size, centres, rng)
    queries = clustered_unit_vectors(queries_count, centres, rng)
    result: dict[str, Any] = {"entries": size, "queries": queries_count, "dim": DIM}

    started = time.perf_counter()
    flat = build_index(vectors, IndexSpec(kind="flat"))
    flat_build = time.perf_counter() - started
    _, exact_rows = search(flat, queries, K)
    result["flat"] = {
        "build_seconds": round(flat_build, 3),
        "index_mb": round(faiss.serialize_index(flat).nbytes / 2**20, 1),
        **summary(latencies(flat, queries)),
    }
    print(f"  flat: {result['flat']}", flush=True)  # noqa: T201

    spec = IndexSpec(kind="hnsw", hnsw_m=32, ef_construction=80, ef_search=ef_values[0])
    started = time.perf_counter()
    hnsw = build_index(vectors, spec)
    hnsw_build = time.perf_counter() - started
    hnsw_any: Any = faiss.downcast_index(hnsw)
    result["hnsw"] = {
        "m": spec.hnsw_m,
        "ef_construction": spec.ef_construction,
        "build_seconds": round(hnsw_build, 3),
        "index_mb": round(faiss.serialize_index(hnsw).nbytes / 2**20, 1),
        "by_ef_search": [],
    }
    for ef in ef_values:
        hnsw_any.hnsw.efSearch = ef
        _, rows = search(hnsw, queries, K)
        row = {"ef_search": ef, "recall_at_4": round(recall_at_k(rows, exact_rows), 4)}
        row.update(summary(latencies(hnsw, queries)))
        result["hnsw"]["by_ef_search"].append(row)
        print(f"  hnsw ef={ef}: {row}", flush=True)  # noqa: T201

    if size <= 10_000:
        base = KnowledgeBase(
            Path("unsaved"),
            embedding_model="synthetic",
            dim=DIM,
            index_spec=IndexSpec(kind="flat"),
            entries=[Entry(f"K-{i + 1}", f"fact {i}", 0.9, "synthetic", "") for i in range(size)],
            vectors=vectors,
            index=flat,
        )
        times = []
        for row_number in range(len(queries)):
            started = time.perf_counter()
            base.search_vectors(queries[row_number : row_number + 1], K)
            times.append((time.perf_counter() - started) * 1000)
        result["knowledge_base_search_flat"] = summary(times)
    result["peak_rss_mb_so_far"] = round(peak_rss_mb(), 1)
    del flat, hnsw, vectors
    return result


def write_markdown(path: Path, payload: dict[str, Any]) -> None:
    """Render the measurements as a Markdown page."""
    lines = [
        "# Knowledge-base scale: exact vs HNSW",
        "",
        f"Command: `{payload['command']}`  ",
        f"Machine: {payload['machine']}; FAISS {payload['faiss']}, "
        f"{payload['threads']} OpenMP thread(s) for builds; queries are single-threaded, "
        "one at a time.  ",
        "Vectors: synthetic, 384-d unit vectors around random cluster centres (see the "
        "script's docstring); k = 4 as in L2R.",
        "",
        "| entries | index | build s | index MiB | efSearch | recall@4 | p50 ms | p99 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size in payload["sizes"]:
        flat = size["flat"]
        lines.append(
            f"| {size['entries']:,} | flat (exact) | {flat['build_seconds']} | "
            f"{flat['index_mb']} | – | 1.0 | {flat['p50_ms']} | {flat['p99_ms']} |"
        )
        for row in size["hnsw"]["by_ef_search"]:
            lines.append(
                f"| {size['entries']:,} | HNSW M=32 | {size['hnsw']['build_seconds']} | "
                f"{size['hnsw']['index_mb']} | {row['ef_search']} | {row['recall_at_4']} | "
                f"{row['p50_ms']} | {row['p99_ms']} |"
            )
    lines += [""]
    for size in payload["sizes"]:
        if "knowledge_base_search_flat" in size:
            kb = size["knowledge_base_search_flat"]
            lines.append(
                f"`KnowledgeBase.search_vectors` at {size['entries']:,} entries (flat, hit "
                f"records included): p50 {kb['p50_ms']} ms, p99 {kb['p99_ms']} ms, against "
                f"{size['flat']['p50_ms']} / {size['flat']['p99_ms']} ms for the raw index."
            )
    lines.append(f"\nPeak RSS of the benchmark process: {payload['peak_rss_mb']} MiB.")
    target = payload.get("target")
    if target:
        lines += ["", f"Target at 1M (approximate p50 < 5 ms with recall@4 >= 0.95): {target}"]
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    """Measure every size and write the report files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--ef", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    args = parser.parse_args()
    sizes = []
    for size in args.sizes:
        print(f"{size:,} entries", flush=True)  # noqa: T201
        sizes.append(measure_size(size, args.queries, args.seed, args.ef))
    payload: dict[str, Any] = {
        "command": "python benchmarks/knowledge_base_scale.py "
        + " ".join(
            [f"--sizes {' '.join(map(str, args.sizes))}", f"--queries {args.queries}"]
            + [f"--ef {' '.join(map(str, args.ef))}"]
        ),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
        f"Python {platform.python_version()}",
        "faiss": faiss.__version__,
        "threads": faiss.omp_get_max_threads(),
        "sizes": sizes,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
    million = next((s for s in sizes if s["entries"] == 1_000_000), None)
    if million:
        passing = [
            row
            for row in million["hnsw"]["by_ef_search"]
            if row["p50_ms"] < 5 and row["recall_at_4"] >= 0.95
        ]
        payload["target"] = (
            f"met at efSearch {', '.join(str(r['ef_search']) for r in passing)}"
            if passing
            else "NOT met at any efSearch measured"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "knowledge_base_scale.json").write_text(json.dumps(payload, indent=2) + "\n")
    write_markdown(args.out / "knowledge_base_scale.md", payload)
    print(f"wrote {args.out / 'knowledge_base_scale.md'}")  # noqa: T201


if __name__ == "__main__":
    main()
