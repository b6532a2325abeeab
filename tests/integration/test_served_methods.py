"""Every method, and the CLI paths a served user takes, against the real engine.

The engine is llama-cpp-python's OpenAI-compatible server on loopback (fixture `served` in
conftest.py) serving the bundled SmolLM2. Each test asserts what the served path must get
right: requests the server accepts (no failed calls), replies that parse where a schema
is asked for, and outputs that keep the method's contracts (cited ids were retrieved,
facts land in the base, records in the run folder). What the 135M model writes is not
judged here.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from veriloop.api import method
from veriloop.context import ModelSettings
from veriloop.knowledge.corpus import Document, chunk_documents
from veriloop.knowledge.corpus_index import CorpusIndex
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import get_models

pytestmark = [pytest.mark.integration, pytest.mark.served_engine, pytest.mark.full]

QUESTION = "What is the main adverse effect of warfarin?"
PASSAGES = {
    "warfarin": "Warfarin is an anticoagulant. Its most important adverse effect is bleeding. "
    "Aspirin taken with warfarin increases the risk of bleeding.",
    "metformin": "Metformin treats type 2 diabetes. Nausea and diarrhoea are common adverse "
    "effects; lactic acidosis is rare but serious.",
}
VERIFY_INPUT = {
    "question": QUESTION,
    "answer": "The main adverse effect of warfarin is bleeding. Warfarin cures diabetes.",
    "sources": [PASSAGES["warfarin"]],
}


def served_usage(result: dict[str, Any]) -> dict[str, Any]:
    """Return the run's usage after checking it went to the server and nothing failed."""
    models = result["trace"]["settings"]["models"]
    assert "capabilities" in models and "json_object" in models["capabilities"]
    usage = result["trace"]["usage"]
    failed = [c for c in result["trace"]["calls"] if c["error"] is not None]
    assert usage["failed_calls"] == 0, failed
    return dict(usage)


def cli(*args: str, served: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the installed `veriloop` CLI against the server (settings from the environment)."""
    env = {
        **os.environ,
        "VERILOOP_BACKEND": "openai",
        "VERILOOP_BASE_URL": served["base_url"],
        "VERILOOP_MODEL_NAME": served["model_name"],
        "VERILOOP_CACHE_DIR": str(cwd / "cache"),
    }
    veriloop = str(Path(sys.executable).parent / "veriloop")
    return subprocess.run(
        [veriloop, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=900
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("served_corpus") / "corpus"
    embedder = get_models(ModelSettings()).embedder  # the served backend embeds locally too
    documents = [Document(name, text) for name, text in PASSAGES.items()]
    CorpusIndex.build(directory, chunk_documents(documents), embedder)
    return directory


def ask(served: dict[str, str], cwd: Path, question: str, *args: str) -> dict[str, Any]:
    """Run `veriloop ask --json` on the server; return the output state."""
    done = cli("ask", question, "--json", *args, served=served, cwd=cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout))


def test_ask_grounded_generates_and_checks_every_sentence(
    served: dict[str, str], tmp_path: Path
) -> None:
    result = ask(served, tmp_path, "Is Noonan syndrome inherited?", "--set", "answer_mode=generate")
    assert served_usage(result)["chat_calls"] == 1
    assert result["sentences"] and all(s["origin"] == "generated" for s in result["sentences"])
    kept = [s for s in result["sentences"] if s["supported"]]
    if kept:
        assert result["answer"] and result["answer"].count("[") >= len(kept)
    else:
        assert result["refusal"]["kind"] == "soft"


def test_ask_self_reflection_scores_through_the_server(
    served: dict[str, str], tmp_path: Path
) -> None:
    caps = ("max_rounds=1", "max_knowledge_loops=1", "max_answer_loops=1", "factuality_demos=0")
    settings = [arg for cap in caps for arg in ("--set", cap)]
    result = ask(served, tmp_path, "Is Noonan syndrome inherited?", "-m", "sr", *settings)
    served_usage(result)
    scored = [c for c in result["trace"]["candidates"] if c["stage"] in ("knowledge", "answer")]
    values = [v for c in scored for v in c["scores"].values() if v is not None]
    assert values and all(math.isfinite(v) and v <= 0 for v in values)  # mean log-probs
    assert result["trace"]["settings"]["models"]["scorer"].endswith("+bos<|im_start|>")


def test_ask_l2r_gets_a_parsed_structured_reply(served: dict[str, str], tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    base = KnowledgeBase.create(kb, get_models(ModelSettings()).embedder)
    base.add(
        [new_entry("Noonan syndrome is inherited in an autosomal dominant pattern.", 0.9)],
        get_models(ModelSettings()).embedder,
    )
    base.save()
    result = ask(served, tmp_path, "Is Noonan syndrome inherited?", "-m", "l2r", "--kb", str(kb))
    served_usage(result)
    answer = result["trace"]["candidates"][1]
    assert answer["error"] is None  # json_object + schema: the reply parsed
    assert answer["scores"]["can_answer"] in (0.0, 1.0)


def test_ask_direct_and_rag_answer_in_one_served_call(
    served: dict[str, str], corpus: Path, tmp_path: Path
) -> None:
    direct = ask(served, tmp_path, QUESTION, "-m", "direct")
    assert served_usage(direct)["chat_calls"] == 1 and direct["answer"].strip()
    rag = ask(served, tmp_path, QUESTION, "-m", "rag", "--corpus", str(corpus), "--set", "top_k=2")
    assert served_usage(rag)["chat_calls"] == 1 and rag["answer"].strip()
    assert rag["context_units"][0]["id"] == "PID-1"  # the warfarin passage


def test_ask_factual_evidence_verifies_and_cites_only_retrieved_units(
    served: dict[str, str], corpus: Path, tmp_path: Path
) -> None:
    result = ask(
        served,
        tmp_path,
        QUESTION,
        "-m",
        "fe",
        "--corpus",
        str(corpus),
        "--set",
        "top_paragraphs=2",
        "--set",
        "max_refinements=1",
    )
    served_usage(result)
    purposes = [call["purpose"] for call in result["trace"]["calls"]]
    assert purposes[:2] == ["retrieval", "rationale"] and "verification" in purposes
    ids = {unit["id"] for unit in result["context_units"]}
    assert {item["id"] for item in result["rationale"]} <= ids
    if result["answer"]:
        assert set(re.findall(r"[PTW]ID-\d+", result["answer"])) <= ids


def test_verifiers_critique_and_revise_through_the_server(served: dict[str, str]) -> None:
    factored = method("factored").invoke(VERIFY_INPUT, **served, max_revisions=1)
    served_usage(factored)
    first = [c for c in factored["claims"] if c["round"] == 0] or factored["claims"]
    assert first and all(c["error"] is None and c["p_supported"] is not None for c in first)
    purposes = {call["purpose"] for call in factored["trace"]["calls"]}
    if any(not c["supported"] for c in first):  # critiqued, then revised, all served
        assert "critique" in purposes, purposes
        if factored["critiques"]:
            assert "revision" in purposes, purposes
    corrected = method("self-correction").invoke(VERIFY_INPUT, **served)
    assert served_usage(corrected)["chat_calls"] == 2  # one feedback, one revision
    assert corrected["original_answer"] == VERIFY_INPUT["answer"]
    assert corrected["feedback"] and corrected["feedback"].strip()


def test_m_eval_reads_quality_and_stances_from_the_server(served: dict[str, str]) -> None:
    articles = [
        {
            "pmid": "A1",
            "title": "Warfarin and bleeding: a meta-analysis",
            "abstract": PASSAGES["warfarin"],
            "year": 2020,
            "publication_types": ["Meta-Analysis"],
        },
        {
            "pmid": "A2",
            "title": "Metformin adverse effects",
            "abstract": PASSAGES["metformin"],
            "year": 2015,
            "publication_types": ["Journal Article"],
        },
    ]
    result = method("m-eval").invoke(
        {"question": QUESTION, "answer": VERIFY_INPUT["answer"], "articles": articles},
        **served,
        stance_judge="llm",
        no_extra_evidence=True,
        claims_per_answer=1,
    )
    served_usage(result)
    assert {e["id"] for e in result["evidence"]} == {"A1", "A2"}
    assert all(e["reliability"]["reliability"] > 0 for e in result["evidence"])
    assert result["stances"] and result["unusable_stances"] == 0  # served stance JSON parsed
    assert result["claims"] and result["label"] in {"correct", "incorrect", "undetermined"}


def test_enrichment_writes_served_facts_into_the_base(
    served: dict[str, str], tmp_path: Path
) -> None:
    kb_dir = tmp_path / "kb"
    KnowledgeBase.create(kb_dir, get_models(ModelSettings()).embedder)
    result = method("enrichment").invoke(
        {"topic": "influenza", "target_facts": 2, "seed_questions": ["What causes influenza?"]},
        **served,
        kb_dir=str(kb_dir),
        batch_size=2,
        max_batches=1,
    )
    assert served_usage(result)["chat_calls"] >= 1
    asked = [c for c in result["trace"]["candidates"] if c["stage"] == "questions"]
    assert asked and all(c["error"] is None for c in asked)  # the served JSON parsed
    base = KnowledgeBase.open(kb_dir, get_models(ModelSettings()).embedder)
    assert len(base) == len(result["added"]) == result["facts_on_topic"]
    for entry in result["added"]:  # each fact keeps the served model's question and answer
        assert entry["knowledge"].strip() and entry["metadata"]["question"]


def test_verify_cli_shows_each_claims_probability_and_evidence(
    served: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(VERIFY_INPUT))
    done = cli("verify", str(path), "--set", "max_revisions=0", served=served, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "source says" in done.stdout and "verdict:" in done.stdout
    again = cli(
        "verify", str(path), "--json", "--set", "max_revisions=0", served=served, cwd=tmp_path
    )
    assert again.returncode == 0, again.stderr[-3000:]
    state = json.loads(again.stdout)
    served_usage(state)  # the same run's state: served, nothing failed
    assert all(c["p_supported"] is not None and c["evidence"] for c in state["claims"])


def test_kb_enrich_cli_adds_served_facts_that_export_lists(
    served: dict[str, str], tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    created = cli("kb", "create", str(kb), served=served, cwd=tmp_path)
    assert created.returncode == 0, created.stderr[-3000:]
    args = ("kb", "enrich", str(kb), "--topic", "influenza", "--target", "2")
    enriched = cli(*args, "--batch-size", "2", "--max-batches", "1", served=served, cwd=tmp_path)
    assert enriched.returncode == 0, enriched.stderr[-3000:]
    exported = cli("kb", "export", str(kb), str(tmp_path / "kb.jsonl"), served=served, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr[-3000:]
    entries = (tmp_path / "kb.jsonl").read_text().splitlines()
    added = re.search(r"added (\d+) fact\(s\)", enriched.stderr)
    assert added, enriched.stderr[-2000:]
    assert len(entries) == int(added.group(1))


def test_a_two_item_bench_runs_method_and_baseline_on_the_server(
    served: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "pubmedqa"
    data.mkdir()
    records = {
        "1": {
            "QUESTION": "Does warfarin increase the risk of bleeding?",
            "CONTEXTS": [PASSAGES["warfarin"]],
            "final_decision": "yes",
            "LONG_ANSWER": "Yes, warfarin increases bleeding risk.",
        },
        "2": {
            "QUESTION": "Does metformin cause lactic acidosis often?",
            "CONTEXTS": [PASSAGES["metformin"]],
            "final_decision": "no",
            "LONG_ANSWER": "No, lactic acidosis is rare.",
        },
    }
    (data / "ori_pqal.json").write_text(json.dumps(records))
    (data / "test_ground_truth.json").write_text(
        json.dumps({k: v["final_decision"] for k, v in records.items()})
    )
    out = tmp_path / "run"
    done = cli(
        "bench",
        "--dataset",
        "pubmedqa",
        "--data-dir",
        str(data),
        "-m",
        "grounded",
        "-b",
        "direct",
        "--out",
        str(out),
        served=served,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted((r["run"], r["item_id"]) for r in rows) == [
        ("direct", "1"),
        ("direct", "2"),
        ("grounded", "1"),
        ("grounded", "2"),
    ]
    assert all(r["error"] is None for r in rows), [r["error"] for r in rows]
    report = (out / "report.md").read_text()
    assert "grounded" in report and "direct" in report
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["environment"]["VERILOOP_BACKEND"] == "openai"  # recorded, not lost
    assert "openai:smollm2" in report  # the models line names the served model
