"""Corpus ingestion, the triplet graph, the corpus index and hybrid retrieval, on fakes."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from veriloop.evaluation.adapters import documents_from_items
from veriloop.evaluation.items import Item
from veriloop.knowledge.corpus import (
    CorpusError,
    CorpusWarning,
    Document,
    chunk_documents,
    read_folder,
)
from veriloop.knowledge.corpus_index import CorpusIndex, CorpusIndexError
from veriloop.knowledge.hybrid import (
    CrossEncoderReranker,
    HybridRetriever,
    LangChainWebSearch,
    RetrievalSettings,
    reciprocal_rank_fusion,
)
from veriloop.knowledge.triplets import (
    TripletError,
    TripletGraph,
    canonical_entity,
    read_triplet_file,
)
from veriloop.models.fakes import ScriptedEmbedder


def test_folder_reads_text_markdown_and_jsonl_and_skips_binary_with_a_named_warning(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("Aspirin thins the blood.")
    (tmp_path / "b.md").write_text("# Ibuprofen\n\nIbuprofen is an NSAID.")
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"id": "d1", "text": "Warfarin is an anticoagulant.", "title": "W"}) + "\n\n"
    )
    (tmp_path / "img.txt").write_bytes(b"\x89PNG\x00\x00binary")
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "notes.pdf").write_bytes(b"%PDF-1.4")
    with pytest.warns(CorpusWarning) as caught:
        report = read_folder(tmp_path)
    assert [d.doc_id for d in report.documents] == ["a.txt", "b.md", "d1"]
    assert report.documents[1].title == "Ibuprofen"
    skipped = dict(report.skipped)
    assert skipped["img.txt"] == "binary or not UTF-8 text"
    assert skipped["latin.txt"] == "binary or not UTF-8 text"
    assert "unsupported file type .pdf" in skipped["notes.pdf"]
    assert any("img.txt" in str(w.message) for w in caught)


def test_malformed_jsonl_row_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "c.jsonl").write_text('{"text": "ok"}\n{"title": "no text"}\n')
    with pytest.raises(CorpusError, match=r"c.jsonl:2: expected an object with a \"text\""):
        read_folder(tmp_path)


def test_empty_corpus_is_a_clear_error(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        (tmp_path / "x.bin").write_bytes(b"\x00")
        report = read_folder(tmp_path)
    with pytest.raises(CorpusError, match="the corpus is empty"):
        chunk_documents(report.documents)
    with pytest.raises(CorpusError, match="does not exist"):
        read_folder(tmp_path / "missing")


def test_chunks_have_sequential_pids_offsets_and_overlap() -> None:
    text = "\n\n".join(f"Paragraph {n} " + "word " * 40 for n in range(6))
    chunks = chunk_documents([Document("doc", text)], chunk_size=300, chunk_overlap=50)
    assert [c["id"] for c in chunks] == [f"PID-{n}" for n in range(1, len(chunks) + 1)]
    assert len(chunks) >= 6 and all(len(c["text"]) <= 300 for c in chunks)
    for chunk in chunks:
        assert text[chunk["start"] :].startswith(chunk["text"][:20])


def test_dataset_items_become_one_document_each_without_repeats() -> None:
    items = [
        Item(id="1", question="q1", documents=["Background.", "Results."]),
        Item(id="2", question="q2", documents=["Background.", "Results."]),
        Item(id="3", question="q3"),
    ]
    docs = documents_from_items(items, "pubmedqa")
    assert [(d.doc_id, d.text) for d in docs] == [("1", "Background.\n\nResults.")]


def test_entity_names_are_canonicalised_and_duplicates_merged() -> None:
    assert canonical_entity("  The  Aspirin. ") == "aspirin"
    assert canonical_entity("A") == "a"
    graph = TripletGraph()
    assert graph.add("The Aspirin", "CAUSES", "stomach bleeding", "d1") is not None
    assert graph.add("aspirin.", "causes", "Stomach  bleeding", "d2") is None
    assert graph.add("aspirin", "treats", "aspirin", "d3") is None  # self-loop
    graph.add("stomach bleeding", "is treated with", "proton pump inhibitors", "d4")
    graph.add("warfarin", "interacts with", "aspirin", "d5")
    graph.add("insulin", "lowers", "blood glucose", "d6")
    assert [t["id"] for t in graph.triplets] == ["TID-1", "TID-2", "TID-3", "TID-4"]
    assert graph.display_name("aspirin") == "The Aspirin"
    assert graph.mentioned_entities("Does Aspirin cause stomach bleeding?") == [
        "stomach bleeding",
        "aspirin",
    ]
    one_hop = graph.neighbourhood_rows(["aspirin"], 1)
    assert one_hop == [0, 2]  # both directions; not PPIs (2 hops) nor insulin
    assert graph.neighbourhood_rows(["warfarin"], 1) == [2]
    assert graph.neighbourhood_rows(["warfarin"], 2) == [0, 2]
    assert graph.neighbourhood_rows(["aspirin"], 2) == [0, 1, 2]
    drawn = graph.subgraph(one_hop)
    assert drawn.number_of_edges() == 2 and "The Aspirin" in drawn


def test_triplet_file_formats_and_errors(tmp_path: Path) -> None:
    tsv = tmp_path / "t.tsv"
    tsv.write_text("# comment\naspirin\tcauses\tbleeding\nwarfarin\tis a\tanticoagulant\tsrc9\n")
    rows = read_triplet_file(tsv)
    assert rows[0]["source"] == "t.tsv:2" and rows[1]["source"] == "src9"
    bad = tmp_path / "bad.tsv"
    bad.write_text("aspirin\tcauses\n")
    with pytest.raises(TripletError, match=r"bad.tsv:1: expected subject"):
        read_triplet_file(bad)
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('{"subject": "a b", "relation": "r", "object": ""}\n')
    with pytest.raises(TripletError, match=r"t.jsonl:1: subject, relation and object"):
        read_triplet_file(jsonl)


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion({"semantic": [7, 3], "lexical": [3, 9]}, {}, rrf_k=60)
    # row 3: 1/62 + 1/61; row 7: 1/61; row 9: 1/62
    assert [row for row, _, _ in fused] == [3, 7, 9]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0][2] == {"semantic": 2, "lexical": 1}
    weighted = reciprocal_rank_fusion({"semantic": [7], "lexical": [9]}, {"lexical": 2.0})
    assert [row for row, _, _ in weighted] == [9, 7]


TEXTS = [
    "Aspirin can cause stomach bleeding in older patients.",
    "Paris is the capital of France and a large city.",
    "Ibuprofen is a non-steroidal anti-inflammatory drug.",
]


def build(tmp_path: Path, triplets: list[dict[str, str]] | None = None) -> CorpusIndex:
    chunks = chunk_documents([Document(f"d{n}", t) for n, t in enumerate(TEXTS)])
    embedder = ScriptedEmbedder(
        {
            TEXTS[0]: [1, 0, 0, 0],
            TEXTS[1]: [0, 1, 0, 0],
            TEXTS[2]: [0.6, 0, 0.8, 0],
            "Which drug causes bleeding?": [0.8, 0, 0.6, 0],
        },
        dim=4,
    )
    return CorpusIndex.build(tmp_path / "idx", chunks, embedder, triplet_rows=triplets or [])


def test_index_round_trip_and_searches(tmp_path: Path) -> None:
    built = build(
        tmp_path,
        [
            {"subject": "aspirin", "relation": "causes", "object": "stomach bleeding"},
            {"subject": "paris", "relation": "capital of", "object": "france"},
        ],
    )
    embedder = ScriptedEmbedder({"Which drug causes bleeding?": [0.8, 0, 0.6, 0]}, dim=4)
    index = CorpusIndex.open(tmp_path / "idx", embedder)
    assert index.manifest["chunks"] == 3 and len(index.graph) == 2
    query = embedder.embed(["Which drug causes bleeding?"])[0]
    semantic = index.search_semantic(query, 2)
    assert [row for row, _ in semantic] == [2, 0]
    assert [cos for _, cos in semantic] == pytest.approx([0.96, 0.8], abs=1e-5)
    lexical = index.search_lexical("Which drug causes bleeding?", 5)
    # "causes"/"cause" and "bleeding" stem alike (row 0); "drug" matches row 2 only
    assert [row for row, _ in lexical] == [0, 2] and lexical[0][1] > lexical[1][1]
    assert index.search_lexical("zzz qqq", 5) == []
    ranked, seeds, rows = index.search_triplets("Does aspirin cause harm?", query, 5)
    assert seeds == ["aspirin"] and [row for row, _ in ranked] == [0] and rows == [0]
    assert built.version == 1
    rebuilt = build(tmp_path)
    assert rebuilt.version == 2 and len(CorpusIndex.open(tmp_path / "idx").graph) == 0


def test_open_errors_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(CorpusIndexError, match="veriloop index"):
        CorpusIndex.open(tmp_path)
    build(tmp_path)
    with pytest.raises(CorpusIndexError, match="built with embeddings"):
        CorpusIndex.open(tmp_path / "idx", _renamed(ScriptedEmbedder(dim=4), "other"))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    chunks = chunk_documents([Document("d", "text here")])
    with pytest.raises(CorpusIndexError, match="not a corpus index"):
        CorpusIndex.build(tmp_path / "full", chunks, ScriptedEmbedder(dim=4))


def test_hybrid_fuses_paragraphs_adds_triplets_and_web_with_ids(tmp_path: Path) -> None:
    index = build(tmp_path, [{"subject": "aspirin", "relation": "causes", "object": "bleeding"}])

    class Tool:
        name = "fake"

        def invoke(self, query: str) -> list[dict[str, str]]:
            return [{"link": "https://x", "title": "X", "snippet": "Aspirin news."}]

    retriever = HybridRetriever(index, web=LangChainWebSearch(Tool()))
    query = np.asarray([0.8, 0, 0.6, 0], dtype=np.float32)
    result = retriever.retrieve(
        "Which drug causes bleeding? aspirin",
        query,
        RetrievalSettings(mode="both", top_paragraphs=2),
    )
    ids = [u["id"] for u in result.units]
    assert ids == ["PID-1", "PID-3", "TID-1", "WID-1"]
    assert result.units[0]["ranks"] == {"semantic": 2, "lexical": 1}  # 1/62 + 1/61
    assert result.units[3]["source"] == "https://x" and result.reranker == "rrf"
    no_web = HybridRetriever(index).retrieve("x", query, RetrievalSettings(mode="paragraphs"))
    assert all(u["kind"] == "paragraph" for u in no_web.units)


def test_cross_encoder_reranker_reorders_fused_candidates(tmp_path: Path) -> None:
    index = build(tmp_path)

    class Model:
        def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
            return [1.0 if "Ibuprofen" in passage else 0.0 for _, passage in pairs]

    retriever = HybridRetriever(index, reranker=CrossEncoderReranker(Model(), name="ce:fake"))
    query = np.asarray([0.8, 0, 0.6, 0], dtype=np.float32)
    result = retriever.retrieve("bleeding", query, RetrievalSettings(top_paragraphs=1))
    assert [u["id"] for u in result.units] == ["PID-3"] and result.reranker == "ce:fake"


def _renamed(embedder: ScriptedEmbedder, name: str) -> ScriptedEmbedder:
    embedder.name = name
    return embedder
