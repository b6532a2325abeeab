"""Corpus retrieval scale: build time, latency per retriever and fused, tokens per answer.

    .venv/bin/python -m benchmarks.corpus_retrieval_scale                   # 10k and 100k
    .venv/bin/python -m benchmarks.corpus_retrieval_scale --sizes 10000 --queries 100

Corpus: chunks of ~5-8 real sentences drawn (seeded) from the PubMedQA abstracts and the
PubMed/MEDLINE sample in ../shared/data, so BM25 sees real biomedical vocabulary at any
size. Vectors: embedding 100k chunks with MiniLM on 2 CPU cores takes long, so the indexes
hold synthetic clustered 384-d unit vectors (as in `knowledge_base_scale.py`; FAISS latency
depends on count and dimension, not on where vectors came from), and MiniLM's measured
throughput on real chunks is reported so the embedding share of a real build can be
estimated. Triplets: as many as chunks, over an entity vocabulary of corpus words (Zipf-
distributed, so some entities are hubs, as in a real graph), with synthetic vectors.
Queries: real PubMedQA questions (lexical and entity matching) with synthetic query vectors.

Per size we time: FAISS flat and HNSW build, BM25 build (tokenise + index), triplet graph
build, the whole `CorpusIndex.build` (embedding excluded: a lookup embedder returns the
prepared vectors) and `CorpusIndex.open`; then single-query p50/p99 (ms) of semantic
(flat, HNSW), lexical (BM25), triplet (seed entities, 1-hop subgraph, cosine ranking) and
fused (`HybridRetriever.retrieve`, paragraphs + triplets, RRF) retrieval.

Tokens: from the Factual Evidence benchmark run (`docs/results/pubmedqa_fe_n20/`), the
retrieved context of `fe` (paragraphs) and `fe[triplets_instead_of_paragraphs]` tokenised
with SmolLM2's tokenizer, and the prompt tokens of each run's first model call.

Numbers go to docs/benchmarks/corpus_retrieval_scale.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.knowledge_base_scale import DIM, clustered_unit_vectors
from veriloop.knowledge.corpus import Chunk
from veriloop.knowledge.corpus_index import CorpusIndex, lexical_tokens
from veriloop.knowledge.hybrid import HybridRetriever, RetrievalSettings
from veriloop.knowledge.index import IndexSpec, build_index
from veriloop.knowledge.triplets import TripletGraph

RELATIONS = [
    "causes",
    "treats",
    "is associated with",
    "reduces",
    "increases",
    "inhibits",
    "predicts",
    "is a risk factor for",
    "is measured by",
    "interacts with",
    "prevents",
    "is used in",
]


def real_sentences(data: Path) -> list[str]:
    """Return sentences from the PubMedQA abstracts and the MEDLINE sample."""
    texts: list[str] = []
    pqal = json.loads((data / "pubmedqa" / "ori_pqal.json").read_text())
    for record in pqal.values():
        texts.extend(record["CONTEXTS"])
    with (data / "pubmed_medline_sample" / "medline16n0902_sample.jsonl").open() as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("abstract"):
                texts.append(row["abstract"])
    sentences = [s.strip() for t in texts for s in re.split(r"(?<=[.!?])\s+", t) if len(s) > 30]
    return sentences


def make_chunks(sentences: list[str], count: int, rng: np.random.Generator) -> list[Chunk]:
    """Compose `count` chunks of 5-8 sentences each."""
    chunks: list[Chunk] = []
    for n in range(count):
        picks = rng.integers(0, len(sentences), size=int(rng.integers(5, 9)))
        text = " ".join(sentences[i] for i in picks)[:1000]
        chunks.append(
            Chunk(
                id=f"PID-{n + 1}",
                doc_id=f"doc{n // 3}",
                title="",
                source="bench",
                start=0,
                text=text,
            )
        )
    return chunks


def make_triplets(
    sentences: list[str], count: int, rng: np.random.Generator
) -> list[dict[str, str]]:
    """Compose `count` triplets over a Zipf-distributed entity vocabulary of corpus words."""
    words = sorted({w.lower() for s in sentences[:20000] for w in re.findall(r"[A-Za-z]{6,}", s)})
    rng.shuffle(words)
    vocabulary = words[: max(1000, count // 5)]
    ranks = np.minimum(rng.zipf(1.3, size=(count, 2)) - 1, len(vocabulary) - 1)
    return [
        {
            "subject": vocabulary[a],
            "relation": RELATIONS[n % len(RELATIONS)],
            "object": vocabulary[b],
            "source": "bench",
        }
        for n, (a, b) in enumerate(ranks)
    ]


class LookupEmbedder:
    """Returns prepared vectors in order (so a build's timing excludes embedding)."""

    name = "lookup"

    def __init__(self, *blocks: npt.NDArray[np.float32]) -> None:
        """Serve `blocks` one after the other."""
        self.blocks = list(blocks)

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Return the next `len(texts)` prepared vectors."""
        block = self.blocks[0]
        out, self.blocks[0] = block[: len(texts)], block[len(texts) :]
        if not len(self.blocks[0]):
            self.blocks.pop(0)
        return out


def percentiles(samples: list[float]) -> dict[str, float]:
    """Return p50 and p99 in milliseconds."""
    values = np.asarray(samples) * 1000
    return {
        "p50_ms": round(float(np.percentile(values, 50)), 3),
        "p99_ms": round(float(np.percentile(values, 99)), 3),
    }


def timed(action: Any) -> tuple[Any, float]:
    """Run `action`; return its result and the seconds it took."""
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def measure_size(
    size: int, sentences: list[str], questions: list[str], queries: int, seed: int
) -> dict[str, Any]:
    """Build every index for `size` chunks and time queries."""
    rng = np.random.default_rng(seed)
    chunks = make_chunks(sentences, size, rng)
    rows = make_triplets(sentences, size, rng)
    centres = rng.standard_normal((max(1, size // 50), DIM)).astype(np.float32)
    vectors = clustered_unit_vectors(size, centres, rng)
    graph_probe = TripletGraph()
    _, graph_seconds = timed(lambda: graph_probe.add_many(rows))
    triplet_vectors = clustered_unit_vectors(len(graph_probe.triplets), centres, rng)
    query_vectors = clustered_unit_vectors(queries, centres, rng)
    _, flat_seconds = timed(lambda: build_index(vectors, IndexSpec("flat")))
    _, hnsw_seconds = timed(lambda: build_index(vectors, IndexSpec("hnsw")))

    def bm25_build() -> Any:
        import bm25s

        model = bm25s.BM25()
        model.index(lexical_tokens([c["text"] for c in chunks]), show_progress=False)
        return model

    _, bm25_seconds = timed(bm25_build)
    result: dict[str, Any] = {
        "chunks": size,
        "triplets": len(graph_probe.triplets),
        "entities": graph_probe.graph.number_of_nodes(),
        "build_seconds": {
            "faiss_flat": round(flat_seconds, 3),
            "faiss_hnsw": round(hnsw_seconds, 3),
            "bm25": round(bm25_seconds, 3),
            "triplet_graph": round(graph_seconds, 3),
        },
    }
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("flat", "hnsw"):
            directory = Path(folder) / kind
            embedder = LookupEmbedder(vectors.copy(), triplet_vectors.copy())
            started = time.perf_counter()
            CorpusIndex.build(directory, chunks, embedder, spec=IndexSpec(kind), triplet_rows=rows)
            result["build_seconds"][f"corpus_index_{kind}_total"] = round(
                time.perf_counter() - started, 3
            )
            started = time.perf_counter()
            index = CorpusIndex.open(directory)
            result["build_seconds"][f"corpus_index_{kind}_open"] = round(
                time.perf_counter() - started, 3
            )
            latencies = time_queries(index, questions, query_vectors)
            if kind == "flat":
                result["latency"] = latencies
            else:
                result["latency"]["semantic_hnsw"] = latencies["semantic"]
                result["latency"]["fused_hnsw"] = latencies["fused"]
    return result


def time_queries(
    index: CorpusIndex, questions: list[str], query_vectors: npt.NDArray[np.float32]
) -> dict[str, dict[str, float]]:
    """Time single semantic, lexical, triplet and fused queries; return p50/p99 per kind."""
    retriever = HybridRetriever(index)
    settings = RetrievalSettings(mode="both")
    samples: dict[str, list[float]] = {"semantic": [], "lexical": [], "triplets": [], "fused": []}
    for n, vector in enumerate(query_vectors):
        question = questions[n % len(questions)]
        calls = {
            "semantic": lambda: index.search_semantic(vector, 20),  # noqa: B023
            "lexical": lambda: index.search_lexical(question, 20),  # noqa: B023
            "triplets": lambda: retriever.triplets(question, vector, settings, None),  # noqa: B023
            "fused": lambda: retriever.retrieve(question, vector, settings),  # noqa: B023
        }
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            samples[name].append(time.perf_counter() - started)
    return {name: percentiles(values) for name, values in samples.items()}


def embedding_throughput(sentences: list[str], count: int) -> dict[str, Any]:
    """Embed `count` real chunks with the bundled MiniLM; return chunks per second."""
    from veriloop.context import ModelSettings
    from veriloop.models.backends import get_embedder

    embedder = get_embedder(ModelSettings())
    chunks = make_chunks(sentences, count, np.random.default_rng(1))
    embedder.embed([chunks[0]["text"]])  # load
    _, seconds = timed(
        lambda: [
            embedder.embed([c["text"] for c in chunks[i : i + 128]]) for i in range(0, count, 128)
        ]
    )
    return {
        "chunks": count,
        "seconds": round(seconds, 2),
        "chunks_per_second": round(count / seconds, 1),
        "model": embedder.name,
    }


def context_tokens(run_dir: Path) -> dict[str, Any] | None:
    """Tokenise the paragraph vs triplet contexts of the FE benchmark run."""
    path = run_dir / "results.jsonl"
    if not path.is_file():
        return None
    from llama_cpp import Llama

    from veriloop.models.locate import bundled_chat_model_path

    tokenizer = Llama(str(bundled_chat_model_path()), vocab_only=True, verbose=False)
    runs: dict[str, dict[str, list[int]]] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["run"] not in ("fe", "fe[triplets_instead_of_paragraphs]") or not record.get(
            "knowledge"
        ):
            continue
        calls = [
            c for c in (record.get("trace") or {}).get("calls", []) if c["purpose"] == "rationale"
        ]
        entry = runs.setdefault(record["run"], {"context": [], "rationale_prompt": []})
        entry["context"].append(
            len(tokenizer.tokenize(record["knowledge"].encode(), add_bos=False))
        )
        if calls:
            entry["rationale_prompt"].append(calls[0]["tokens_in"])
    summary = {
        run: {
            "items": len(v["context"]),
            "context_tokens_mean": round(float(np.mean(v["context"])), 1),
            "rationale_prompt_tokens_mean": round(float(np.mean(v["rationale_prompt"])), 1)
            if v["rationale_prompt"]
            else None,
        }
        for run, v in runs.items()
    }
    if len(summary) == 2:
        para, trip = summary["fe"], summary["fe[triplets_instead_of_paragraphs]"]
        summary["context_ratio_paragraphs_to_triplets"] = round(
            para["context_tokens_mean"] / max(trip["context_tokens_mean"], 1e-9), 2
        )
    return summary


def write_markdown(report: dict[str, Any], path: Path) -> None:
    """Render the numbers as a Markdown page."""
    lines = [
        "# Corpus retrieval scale (Factual Evidence's hybrid retriever)",
        "",
        f"Command: `{report['command']}`  ",
        f"Machine: {report['machine']}  ",
        "How measured: see the docstring of `benchmarks/corpus_retrieval_scale.py` (real "
        "biomedical sentences recombined into chunks; synthetic clustered vectors; real "
        f"PubMedQA questions; {report['queries']} single queries per size).",
        "",
        "## Build time (seconds; embedding excluded)",
        "",
        "| chunks | triplets | FAISS flat | FAISS HNSW | BM25 | triplet graph | "
        "whole index (flat) | whole index (HNSW) | open (flat) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size in report["sizes"]:
        b = size["build_seconds"]
        lines.append(
            f"| {size['chunks']:,} | {size['triplets']:,} | {b['faiss_flat']} | "
            f"{b['faiss_hnsw']} | {b['bm25']} | {b['triplet_graph']} | "
            f"{b['corpus_index_flat_total']} | "
            f"{b['corpus_index_hnsw_total']} | {b['corpus_index_flat_open']} |"
        )
    e = report["embedding"]
    lines += [
        "",
        f"Embedding real chunks with {e['model']}: {e['chunks_per_second']} chunks/s "
        f"({e['chunks']} chunks in {e['seconds']} s), so embedding adds about "
        + ", ".join(
            f"{s['chunks'] / e['chunks_per_second'] / 60:.0f} min for {s['chunks']:,} chunks"
            for s in report["sizes"]
        )
        + " to a real build.",
        "",
        "## Query latency (ms, single queries, p50 / p99)",
        "",
        "| chunks | semantic flat | semantic HNSW | lexical BM25 | triplets (1 hop) | "
        "fused (flat) | fused (HNSW) |",
        "|---|---|---|---|---|---|---|",
    ]
    for size in report["sizes"]:
        cells = [
            f"{size['latency'][name]['p50_ms']} / {size['latency'][name]['p99_ms']}"
            for name in ("semantic", "semantic_hnsw", "lexical", "triplets", "fused", "fused_hnsw")
        ]
        lines.append(f"| {size['chunks']:,} | " + " | ".join(cells) + " |")
    tokens = report.get("tokens")
    lines += ["", "## Tokens per answer: paragraphs vs triplets", ""]
    if tokens:
        lines += [
            "| run | items | context tokens (mean) | rationale prompt tokens (mean) |",
            "|---|---|---|---|",
        ]
        for run in ("fe", "fe[triplets_instead_of_paragraphs]"):
            if run in tokens:
                t = tokens[run]
                lines.append(
                    f"| {run} | {t['items']} | {t['context_tokens_mean']} | "
                    f"{t['rationale_prompt_tokens_mean']} |"
                )
        if "context_ratio_paragraphs_to_triplets" in tokens:
            lines += [
                "",
                f"Paragraph context / triplet context: "
                f"{tokens['context_ratio_paragraphs_to_triplets']}x (the paper reports 6.5x: "
                "1,846 vs 285 tokens).",
            ]
    else:
        lines.append("Not measured: run `bash scripts/pubmedqa_fe.sh` first.")
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    """Run the benchmark and write its files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embed-chunks", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--fe-run", type=Path, default=Path("docs/results/pubmedqa_fe_n20"))
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks/corpus_retrieval_scale"))
    args = parser.parse_args()
    sentences = real_sentences(args.data)
    from veriloop.evaluation.datasets import load_dataset

    questions = [item.question for item in load_dataset("pubmedqa", args.data / "pubmedqa", "all")]
    report: dict[str, Any] = {
        "command": "python -m benchmarks.corpus_retrieval_scale "
        + " ".join(f"--sizes {' '.join(map(str, args.sizes))} --queries {args.queries}".split()),
        "machine": f"{platform.machine()}, {platform.python_version()}, "
        f"{__import__('os').cpu_count()} CPUs",
        "queries": args.queries,
        "sentences": len(sentences),
        "embedding": embedding_throughput(sentences, args.embed_chunks),
        "sizes": [],
        "tokens": context_tokens(args.fe_run),
    }
    for size in args.sizes:
        print(f"size {size:,} ...", flush=True)
        report["sizes"].append(measure_size(size, sentences, questions, args.queries, seed=size))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    write_markdown(report, args.out.with_suffix(".md"))
    print(args.out.with_suffix(".md").read_text())


if __name__ == "__main__":
    main()
