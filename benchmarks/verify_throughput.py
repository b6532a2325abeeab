"""Batch verification throughput: 2,000 real rows, end to end from a cold start, on this CPU.

    .venv/bin/python benchmarks/verify_throughput.py --data-root ../shared/data

Rows (written to runs/verify_throughput/rows.jsonl):
- HaluEval QA held out from the trained judges (items 401-999 of the seeded shuffle that
  `veriloop detect-bench --offset 400` uses): each item's right and hallucinated answer,
  with the item's knowledge as the one source;
- MEDIQA 2019 Task 3 answers (all three XML files, seeded sample), each with the three
  MedQuAD passages BM25 retrieves for its question (what a RAG app would have retrieved).

Then, as a user would run it: `veriloop verify rows.jsonl --out DIR` in a fresh process
(model loading included), timed wall-clock, peak memory of the child (ru_maxrss).
Side by side in the same run, the way RAGAS-style tools judge: one LLM prompt per claim
(here the embedded SmolLM2-135M's Yes/No, `nodes.judges.YesNoJudge`, one prompt per
claim and source) on a seeded sample of the same claims, timed, and extrapolated to every
claim of the run -- labelled as extrapolated. Writes docs/benchmarks/verify_throughput.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.evaluation import detection
from veriloop.evaluation.datasets import load_dataset
from veriloop.knowledge.medquad import open_medquad

OUT = Path("docs/benchmarks")
WORK = Path("runs/verify_throughput")
MEDIQA_FILES = (
    "MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed.xml",
    "MEDIQA2019-Task3-QA-TrainingSet2-Alexa.xml",
    "MEDIQA2019-Task3-QA-ValidationSet.xml",
)


def halueval_rows(data_root: Path, items: int, seed: int) -> list[dict[str, Any]]:
    """Return the right and hallucinated answer of `items` held-out HaluEval QA items."""
    loaded = load_dataset("halueval", data_root / "halueval", "qa")
    _, chosen = detection.split_items(loaded, 1, items, seed, offset=400)
    return [
        {
            "id": f"halueval:{case.case_id}",
            "question": case.question,
            "answer": case.answer,
            "sources": case.sources,
            "gold_hallucinated": case.hallucinated,
        }
        for case in detection.paired_cases(chosen, "test")
    ]


def mediqa_rows(data_root: Path, count: int, seed: int) -> list[dict[str, Any]]:
    """Return `count` MEDIQA answers, each with the 3 MedQuAD passages BM25 finds for it."""
    answers = []
    for number, name in enumerate(MEDIQA_FILES, start=1):
        root = ET.parse(data_root / "mediqa2019" / name).getroot()
        for question in root.iter("Question"):
            text = (question.findtext("QuestionText") or "").strip()
            for answer in question.iter("Answer"):
                body = (answer.findtext("AnswerText") or "").strip()
                if text and body:
                    # answer ids repeat across the three files: prefix the file's number
                    answers.append((f"mediqa:{number}:{answer.get('AID')}", text, body))
    random.Random(seed).shuffle(answers)
    index = open_medquad()
    rows = []
    for row_id, question, body in answers[:count]:
        passages = [p.text for p, _ in index.search(question, 3)]
        if passages:
            rows.append({"id": row_id, "question": question, "answer": body, "sources": passages})
    return rows


def cold_run(rows_path: Path, run_dir: Path) -> dict[str, Any]:
    """Run `veriloop verify` in a fresh process; return wall seconds and its peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("veriloop")),
            "verify",
            str(rows_path),
            "--out",
            str(run_dir),
        ],
        check=False,
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode != 0:
        raise SystemExit(f"veriloop verify failed with status {done.returncode}")
    return {"wall_seconds": round(seconds, 1), "peak_rss_mb": round(max(peak, before) / 1024)}


def llm_judge_sample(results: list[dict[str, Any]], sample: int, seed: int) -> dict[str, Any]:
    """Judge a seeded sample of the run's claims RAGAS-style: one Yes/No prompt per claim."""
    from veriloop.context import ModelSettings
    from veriloop.models import get_models
    from veriloop.nodes.judges import SupportQuery, YesNoJudge

    claims = [
        (record, claim) for record in results if record.get("claims") for claim in record["claims"]
    ]
    picked = random.Random(seed).sample(claims, min(sample, len(claims)))
    judge = YesNoJudge(get_models(ModelSettings(cache_dir="")))
    queries = [SupportQuery(c["claim"], r["sources"], r.get("question", "")) for r, c in picked]
    judge.judge(queries[:1])  # load the model outside the timing
    started = time.perf_counter()
    verdicts, calls = judge.judge(queries)
    seconds = time.perf_counter() - started
    agree = sum(
        (v["probability"] is not None and v["probability"] >= 0.5) == (c["verdict"] == "supported")
        for v, (_, c) in zip(verdicts, picked, strict=True)
    )
    return {
        "claims": len(picked),
        "prompts": len(calls),
        "seconds": round(seconds, 1),
        "seconds_per_claim": round(seconds / len(picked), 3),
        "agreement_with_three_way": round(agree / len(picked), 3),
    }


def main() -> None:
    """Build the rows, run the cold batch, time the LLM-judge sample, write the report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    parser.add_argument("--halueval-items", type=int, default=599)
    parser.add_argument("--mediqa-rows", type=int, default=802)
    parser.add_argument("--llm-sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    rows = halueval_rows(args.data_root, args.halueval_items, args.seed) + mediqa_rows(
        args.data_root, args.mediqa_rows, args.seed
    )
    rows_path = WORK / "rows.jsonl"
    rows_path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run_dir = WORK / f"run_{int(time.time())}"
    cold = cold_run(rows_path, run_dir)
    results = [json.loads(line) for line in (run_dir / "results.jsonl").open()]
    checked = [r for r in results if r.get("error") is None]
    claims = sum(len(r["claims"]) for r in checked)
    by_source = {
        name: [r for r in checked if r["id"].startswith(name)] for name in ("halueval", "mediqa")
    }
    gold = {r["id"]: r.get("gold_hallucinated") for r in rows}
    halu = by_source["halueval"]
    detected = sum((r["verdict"] == "hallucinated") == gold[r["id"]] for r in halu)
    llm = llm_judge_sample(checked, args.llm_sample, args.seed)
    extrapolated = llm["seconds_per_claim"] * claims
    report = {
        "command": "python benchmarks/verify_throughput.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
        f"{__import__('os').cpu_count()} cores",
        "rows": len(rows),
        "rows_by_source": {k: len(v) for k, v in by_source.items()},
        "failed_rows": len(results) - len(checked),
        "claims": claims,
        "claims_by_source": {k: sum(len(r["claims"]) for r in v) for k, v in by_source.items()},
        **cold,
        "rows_per_second": round(len(results) / cold["wall_seconds"], 2),
        "claims_per_second": round(claims / cold["wall_seconds"], 2),
        "verdicts": {
            v: sum(r["verdict"] == v for r in checked)
            for v in ("supported", "hallucinated", "undetermined")
        },
        "halueval_detection_accuracy": round(detected / len(halu), 3) if halu else None,
        "llm_judge_sample": llm,
        "llm_judge_extrapolated_seconds": round(extrapolated),
        "target_seconds": 900,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "verify_throughput.json").write_text(json.dumps(report, indent=2) + "\n")
    md = [
        "# Batch verification throughput",
        "",
        f"Command: `{report['command']}` (machine: {report['machine']}).",
        "",
        f"{report['rows']} rows ({report['rows_by_source']['halueval']} HaluEval QA held-out "
        f"answers with their knowledge, {report['rows_by_source']['mediqa']} MEDIQA 2019 "
        "answers with the 3 MedQuAD passages BM25 retrieves for the question), checked by "
        "`veriloop verify rows.jsonl --out DIR` in a fresh process: model loading included, "
        "default settings (three-way judge + mismatch rules, every sentence a claim).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| wall time, cold start | {report['wall_seconds']} s (target <= 900 s) |",
        f"| rows/s | {report['rows_per_second']} |",
        f"| claims (sentences) | {claims} ({report['claims_by_source']}) |",
        f"| claims/s | {report['claims_per_second']} |",
        f"| peak memory (RSS) | {report['peak_rss_mb']} MB |",
        f"| failed rows | {report['failed_rows']} |",
        f"| verdicts | {report['verdicts']} |",
        f"| HaluEval: verdict matches gold (hallucinated or not) | "
        f"{report['halueval_detection_accuracy']} |",
        "",
        "## The same claims judged RAGAS-style (one LLM prompt per claim)",
        "",
        f"A seeded sample of {llm['claims']} of the run's claims, each judged by the embedded "
        "SmolLM2-135M's Yes/No (`YesNoJudge`: one prompt per claim and source, scored for "
        f"Yes and No: {llm['prompts']} model calls): {llm['seconds']} s, "
        f"{llm['seconds_per_claim']} s per claim. **Extrapolated** (not run) to all "
        f"{claims} claims: "
        f"{report['llm_judge_extrapolated_seconds']} s, against "
        f"{report['wall_seconds']} s measured for the whole batch above. Its verdicts agree "
        f"with the three-way judge's on {llm['agreement_with_three_way']:.0%} of the sample; "
        "the Yes/No judge itself is at chance on every held-out set "
        "(docs/benchmarks/support_judges.md), so this row is about cost, not quality.",
        "",
    ]
    (OUT / "verify_throughput.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
