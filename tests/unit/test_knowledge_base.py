"""The knowledge base: entries, duplicates, search distances, persistence and its faults."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from veriloop.errors import InvalidInputError
from veriloop.knowledge.entries import new_entry, read_entries, write_entries
from veriloop.knowledge.index import IndexSpec
from veriloop.knowledge.store import KnowledgeBase, KnowledgeBaseError
from veriloop.models.fakes import ScriptedEmbedder

E1 = [1, 0, 0, 0, 0, 0, 0, 0]
E2 = [0, 1, 0, 0, 0, 0, 0, 0]
Q = [0.8, 0.6, 0, 0, 0, 0, 0, 0]


def embedder() -> ScriptedEmbedder:
    return ScriptedEmbedder(
        {"Aspirin thins blood.": E1, "Water boils at 100 C.": E2, "what about aspirin?": Q}
    )


def test_search_reports_squared_l2_and_refusal_score(tmp_path: Path) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb", embedder())
    kb.add(
        [new_entry("Aspirin thins blood.", 0.5), new_entry("Water boils at 100 C.", 1.0)],
        embedder(),
    )
    hits = kb.search("what about aspirin?", embedder(), k=4)
    assert [h["id"] for h in hits] == ["K-1", "K-2"]
    # d = 2 - 2 cos: cos(Q, E1) = 0.8 -> 0.4 ; cos(Q, E2) = 0.6 -> 0.8
    assert hits[0]["distance"] == pytest.approx(0.4, abs=1e-5)
    assert hits[1]["distance"] == pytest.approx(0.8, abs=1e-5)
    assert hits[0]["refusal_score"] == pytest.approx(0.4 / 0.5, rel=1e-5)
    assert hits[1]["refusal_score"] == pytest.approx(0.8, rel=1e-5)
    assert [h["rank"] for h in hits] == [1, 2]


def test_duplicates_are_skipped_and_reported(tmp_path: Path) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb", embedder())
    first = kb.add([new_entry("Aspirin thins blood.")], embedder())
    report = kb.add(
        [
            new_entry("aspirin   THINS blood"),  # same text once normalised
            new_entry("Water boils at 100 C."),
            new_entry("Water boils at 100 C!"),  # duplicate within the batch
        ],
        embedder(),
    )
    assert [e.id for e in first.added] == ["K-1"]
    assert [e.knowledge for e in report.added] == ["Water boils at 100 C."]
    assert [dup for _, dup in report.duplicates] == ["K-1", "K-2"]
    assert len(kb) == 2


def test_near_duplicate_vectors_are_detected(tmp_path: Path) -> None:
    vectors = {"A fact.": E1, "A fact, reworded.": [0.999, 0.04, 0, 0, 0, 0, 0, 0]}
    kb = KnowledgeBase.create(tmp_path / "kb", ScriptedEmbedder(vectors))
    kb.add([new_entry("A fact.")], ScriptedEmbedder(vectors))
    report = kb.add([new_entry("A fact, reworded.")], ScriptedEmbedder(vectors))
    assert report.added == [] and report.duplicates[0][1] == "K-1"


def test_update_delete_and_ids_stay_stable(tmp_path: Path) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb", embedder())
    kb.add([new_entry(f"fact {i}") for i in range(5)], embedder())
    kb.delete(["K-2", "K-4"])
    assert [e.id for e in kb.entries] == ["K-1", "K-3", "K-5"]
    kb.update("K-3", embedder(), knowledge="Aspirin thins blood.", confidence=0.25)
    assert kb.get("K-3").confidence == 0.25
    assert kb.search("what about aspirin?", embedder(), k=1)[0]["id"] == "K-3"
    kb.add([new_entry("another")], embedder())
    assert kb.entries[-1].id == "K-6"  # ids are never reused
    with pytest.raises(InvalidInputError, match="no entry 'K-2'"):
        kb.delete(["K-2"])
    with pytest.raises(InvalidInputError, match="outside"):
        kb.update("K-1", embedder(), confidence=1.5)


def test_save_and_reopen_round_trip(tmp_path: Path) -> None:
    directory = tmp_path / "kb"
    kb = KnowledgeBase.create(directory, embedder(), IndexSpec(kind="hnsw", ef_search=32))
    kb.add([new_entry("Aspirin thins blood.", 0.7, "manual")], embedder())
    kb.save()
    again = KnowledgeBase.open(directory, embedder())
    assert again.index_spec.kind == "hnsw" and again.index_spec.ef_search == 32
    assert again.get("K-1").confidence == 0.7
    assert again.search("what about aspirin?", embedder())[0]["id"] == "K-1"
    versions = [p.name for p in directory.iterdir() if p.name.startswith("v")]
    assert versions == [(directory / "CURRENT").read_text().strip()]  # old versions removed


def test_empty_base_searches_to_nothing(tmp_path: Path) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb", embedder())
    assert kb.search("anything", embedder()) == []
    assert KnowledgeBase.open(tmp_path / "kb").stats()["entries"] == 0


def test_tabs_and_newlines_are_collapsed_and_exports_stay_one_line(tmp_path: Path) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb", embedder())
    kb.add([new_entry("line one\nline\ttwo ", 0.5)], embedder())
    assert kb.entries[0].knowledge == "line one line two"
    text = tmp_path / "out.txt"
    write_entries(kb.entries, text)
    assert text.read_text() == "0.5\tline one line two\n"
    assert read_entries(text)[0].knowledge == "line one line two"


@pytest.mark.parametrize("value", [-0.1, 1.01, "high", float("nan")])
def test_confidence_outside_unit_interval_is_rejected(value: object) -> None:
    with pytest.raises(InvalidInputError, match="confidence"):
        new_entry("a fact", value)


def test_import_formats_and_malformed_rows_name_file_and_line(tmp_path: Path) -> None:
    jsonl = tmp_path / "facts.jsonl"
    jsonl.write_text('{"knowledge": "a", "confidence": 0.5}\n{"text": "b"}\n')
    assert [(e.knowledge, e.confidence) for e in read_entries(jsonl)] == [("a", 0.5), ("b", 1.0)]
    csv_file = tmp_path / "facts.csv"
    csv_file.write_text("fact,confidence,source\nc,0.25,book\n")
    entry = read_entries(csv_file)[0]
    assert (entry.knowledge, entry.confidence, entry.source) == ("c", 0.25, "book")
    tsv = tmp_path / "facts.txt"
    tsv.write_text("0.9\td\n\n0.3\te\n")
    assert [e.confidence for e in read_entries(tsv)] == [0.9, 0.3]
    bad = tmp_path / "bad.txt"
    bad.write_text("0.9\tok\nno tab here\n")
    with pytest.raises(InvalidInputError, match=r"bad.txt:2: expected 'confidence<TAB>fact'"):
        read_entries(bad)
    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"knowledge": "x"}\n{"knowledge": "y", "confidence": 7}\n')
    with pytest.raises(InvalidInputError, match=r"bad.jsonl:2: confidence 7 is outside"):
        read_entries(bad_json)
    with pytest.raises(InvalidInputError, match="unknown file kind"):
        read_entries(_touch(tmp_path / "facts.pdf"))


def _touch(path: Path) -> Path:
    path.write_text("x")
    return path


def test_open_rejects_other_embeddings_and_damage(tmp_path: Path) -> None:
    directory = tmp_path / "kb"
    kb = KnowledgeBase.create(directory, embedder())
    kb.add([new_entry("Aspirin thins blood.")], embedder())
    kb.save()
    other = ScriptedEmbedder(dim=8)
    other.name = "other-model"
    with pytest.raises(KnowledgeBaseError, match="built with embeddings 'fake-embedder'"):
        KnowledgeBase.open(directory, other)
    with pytest.raises(KnowledgeBaseError, match="not a veriloop knowledge base"):
        KnowledgeBase.open(tmp_path / "nowhere")
    live = directory / (directory / "CURRENT").read_text().strip()
    (live / "entries.jsonl").write_text("")  # entries lost, vectors remain
    with pytest.raises(KnowledgeBaseError, match="damaged"):
        KnowledgeBase.open(directory)
    (live / "manifest.json").write_text("{not json")
    with pytest.raises(KnowledgeBaseError, match="damaged"):
        KnowledgeBase.open(directory)


def test_create_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "notes.txt").write_text("mine")
    with pytest.raises(KnowledgeBaseError, match="not empty"):
        KnowledgeBase.create(tmp_path / "kb", embedder())


def test_editing_block_that_fails_leaves_the_base_unchanged(tmp_path: Path) -> None:
    directory = tmp_path / "kb"
    KnowledgeBase.create(directory, embedder())
    with pytest.raises(RuntimeError), KnowledgeBase.editing(directory, embedder()) as kb:
        kb.add([new_entry("half-way fact")], embedder())
        raise RuntimeError("interrupted")
    assert len(KnowledgeBase.open(directory)) == 0
    with KnowledgeBase.editing(directory, embedder()) as kb:
        kb.add([new_entry("kept fact")], embedder())
    assert [e.knowledge for e in KnowledgeBase.open(directory).entries] == ["kept fact"]


def test_stale_writer_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "kb"
    KnowledgeBase.create(directory, embedder())
    first = KnowledgeBase.open(directory)
    second = KnowledgeBase.open(directory)
    first.add([new_entry("one")], embedder())
    first.save()
    second.add([new_entry("two")], embedder())
    with pytest.raises(KnowledgeBaseError, match="changed by another writer"):
        second.save()


def test_killed_import_leaves_the_old_base(tmp_path: Path) -> None:
    """SIGKILL a process mid-save: the base reopens as before, or fully updated."""
    directory = tmp_path / "kb"
    kb = KnowledgeBase.create(directory, embedder())
    kb.add([new_entry("survivor")], embedder())
    kb.save()
    script = textwrap.dedent(
        f"""
        import os, signal
        import numpy as np
        import veriloop.knowledge.versioned as versioned
        from veriloop.knowledge.entries import new_entry
        from veriloop.knowledge.store import KnowledgeBase
        from veriloop.models.fakes import ScriptedEmbedder
        real_write_index = versioned.write_index
        def dying_write_index(index, path):
            real_write_index(index, path)
            os.kill(os.getpid(), signal.SIGKILL)   # after entries and vectors, before switch
        versioned.write_index = dying_write_index
        kb = KnowledgeBase.open({str(directory)!r})
        kb.add([new_entry(f"fact {{i}}") for i in range(500)], ScriptedEmbedder())
        kb.save()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=Path(__file__).parents[2], check=False
    )
    assert done.returncode == -signal.SIGKILL
    reopened = KnowledgeBase.open(directory, embedder())
    assert [e.knowledge for e in reopened.entries] == ["survivor"]
    reopened.add([new_entry("after the crash")], embedder())
    reopened.save()  # the stale staging folder is cleaned, not mixed in
    assert len(KnowledgeBase.open(directory)) == 2
    assert not [p for p in directory.iterdir() if p.name.startswith(".staging")]
    assert os.listdir(directory)


def test_vectors_are_unit_length_so_distances_stay_in_range(tmp_path: Path) -> None:
    kb = KnowledgeBase.create(tmp_path / "kb", embedder())
    kb.add([new_entry(f"random fact {i}") for i in range(20)], embedder())
    norms = np.linalg.norm(kb.vectors, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5)
    hits = kb.search("unrelated query", embedder(), k=20)
    assert all(0.0 <= h["distance"] <= 4.0 for h in hits)
    assert all(a["distance"] <= b["distance"] for a, b in zip(hits, hits[1:], strict=False))
    assert not math.isnan(hits[0]["refusal_score"])
    assert json.loads(json.dumps(hits))  # hits are plain JSON (they live in graph state)
