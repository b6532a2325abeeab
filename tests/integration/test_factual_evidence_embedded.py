"""Factual Evidence and corpus RAG on the real embedded model, offline, over a real corpus."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from veriloop.context import ModelSettings
from veriloop.graphs.factual_evidence import FactualEvidenceContext
from veriloop.graphs.factual_evidence import build_graph as build_fe
from veriloop.graphs.rag import RAGContext
from veriloop.graphs.rag import build_graph as build_rag
from veriloop.knowledge.corpus import Document, chunk_documents
from veriloop.knowledge.corpus_index import CorpusIndex
from veriloop.models import get_models
from veriloop.nodes.factual_evidence.rationale import LABELS

pytestmark = [pytest.mark.integration, pytest.mark.full]

PASSAGES = {
    "warfarin": "Warfarin is an anticoagulant. Its most important adverse effect is bleeding. "
    "Aspirin taken with warfarin increases the risk of bleeding.",
    "metformin": "Metformin treats type 2 diabetes. Nausea and diarrhoea are common adverse "
    "effects; lactic acidosis is rare but serious.",
    "isotretinoin": "Isotretinoin treats severe acne. It causes birth defects and must not be "
    "taken during pregnancy.",
}
QUESTION = "What is the main adverse effect of warfarin?"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fe") / "corpus"
    embedder = get_models(ModelSettings()).embedder
    documents = [Document(name, text) for name, text in PASSAGES.items()]
    CorpusIndex.build(directory, chunk_documents(documents), embedder)
    return directory


def test_fe_runs_the_verify_loop_and_cites_only_retrieved_units(corpus: Path) -> None:
    result = (
        build_fe()
        .compile()
        .invoke(
            {"question": QUESTION},
            context=FactualEvidenceContext(
                corpus_dir=str(corpus), top_paragraphs=2, max_refinements=1
            ),
        )
    )
    ids = [unit["id"] for unit in result["context_units"]]
    assert ids[0] == "PID-1"  # the warfarin passage ranks first (semantic and BM25)
    purposes = [call["purpose"] for call in result["trace"]["calls"]]
    assert purposes[:2] == ["retrieval", "rationale"]
    assert result["stop_reason"] in {
        "met",
        "cap_reached",
        "single_pass",
        "refused",
        "no_usable_output",
    }
    # the grammar keys the rationale by context id, so the embedded model always yields one
    assert [item["id"] for item in result["rationale"]] == ids
    assert "verification" in purposes
    for item in result["rationale"]:
        assert item["label"] is None or item["label"] in LABELS
    if result["answer"]:
        cited = re.findall(r"[PTW]ID-\d+", result["answer"])
        assert set(cited) <= set(ids)  # invented ids were removed
        assert set(result["citations"]) <= set(ids)
        assert not set(result["invalid_citations"]) & set(cited)


def test_rag_on_the_corpus_answers_in_one_call(corpus: Path) -> None:
    result = (
        build_rag()
        .compile()
        .invoke({"question": QUESTION}, context=RAGContext(corpus_dir=str(corpus), top_k=2))
    )
    assert [u["id"] for u in result["context_units"]][0] == "PID-1"
    assert result["trace"]["usage"]["chat_calls"] == 1
    assert result["answer"] and result["stop_reason"] == "single_pass"
