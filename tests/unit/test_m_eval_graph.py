"""M-Eval on fakes: reliability parts, stances, DerSimonian–Laird, labels, the report."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from veriloop.errors import InvalidInputError
from veriloop.graphs.m_eval import MEvalContext, build_graph
from veriloop.models import Models
from veriloop.nodes.m_eval.reliability import evidence_level, recency_bonuses, reliability_parts

Make = Callable[..., tuple[str, Models]]
QUESTION = "Does aspirin reduce heart attacks?"
ANSWER = "Aspirin reduces heart attacks. It is sold in shops."
VECTORS = {
    QUESTION: [1, 0, 0, 0],
    "Aspirin reduces heart attacks.": [0.9, 0.436, 0, 0],
    "It is sold in shops.": [0, 0, 1, 0],
}
ARTICLES = [
    {
        "pmid": "G1",
        "title": "Meta-analysis",
        "abstract": "Aspirin lowers infarction risk.",
        "year": 2020,
        "publication_types": ["Meta-Analysis"],
    },
    {
        "pmid": "G2",
        "title": "A case",
        "abstract": "One patient had an infarction on aspirin.",
        "year": 2010,
        "publication_types": ["Case Reports"],
    },
]
GOOD = json.dumps(
    {
        "random_selection": True,
        "complete_data": True,
        "unbiased_conclusions": True,
        "blinding": True,
    }
)
WEAK = json.dumps(
    {
        "random_selection": False,
        "complete_data": True,
        "unbiased_conclusions": True,
        "blinding": False,
    }
)


def stance(value: str) -> str:
    return json.dumps({"stance": value})


def run(backend: str, payload: dict[str, Any], **settings: Any) -> dict[str, Any]:
    settings = {
        "stance_judge": "llm",
        "no_extra_evidence": True,
        "claims_per_answer": 1,
        **settings,
    }
    return (
        build_graph().compile().invoke(payload, context=MEvalContext(backend=backend, **settings))
    )


def test_reliability_parts_by_hand() -> None:
    assert evidence_level(["Journal Article", "Randomized Controlled Trial"]) == (
        6,
        "Randomized Controlled Trial",
    )
    assert evidence_level([]) == (3, "default")
    assert recency_bonuses([2020, 2010, None, 2020, 2015]) == [1.0, 0.6, 0.0, 1.0, 0.8]
    parts = reliability_parts(["Case Reports"], 0.8, ["blinding", "random_selection"])
    assert parts["level"] == 2 and parts["penalty"] == pytest.approx(0.6)
    assert parts["reliability"] == pytest.approx(2.2)


def test_weighted_claims_label_the_answer_and_report_misleading_articles(
    fake_backend: Make,
) -> None:
    replies = [
        GOOD,
        WEAK,
        stance("supports"),
        stance("contradicts"),
        stance("supports"),
        "garbage",
        "still garbage",
    ]
    backend, _ = fake_backend(replies, vectors=VECTORS, dim=4)
    result = run(backend, {"question": QUESTION, "answer": ANSWER, "articles": ARTICLES})
    reliability = {r["id"]: r["reliability"] for r in result["evidence"]}
    assert reliability["G1"]["reliability"] == pytest.approx(8.0)  # level 7 + newest 1.0
    assert reliability["G2"]["reliability"] == pytest.approx(2.2)  # 2 + 0.8 - 2 x 0.3
    assert reliability["G2"]["flagged"] == ["random_selection", "blinding"]
    main, chosen = result["claims"]
    assert main["main"] and main["claim"] == f"{QUESTION} Aspirin reduces heart attacks."
    assert chosen["claim"] == "Aspirin reduces heart attacks."  # closest to the question
    assert main["score"] == pytest.approx(8.0 - 2.2) and main["label"] == "correct"
    # DL by hand: w = (8, 2.2), fixed mean 5.8 / 10.2, Q = 6.90196, C = 3.45098
    assert main["q"] == pytest.approx(6.90196, abs=1e-4)
    assert main["tau2"] == pytest.approx(1.71023, abs=1e-4)
    assert main["i2"] == pytest.approx(5.90196 / 6.90196, abs=1e-4)
    assert chosen["score"] == pytest.approx(8.0) and chosen["supporting"] == 1
    assert result["unusable_stances"] == 1 and result["label"] == "correct"
    verdicts = {v["id"]: v["verdict"] for v in result["evidence_report"]}
    assert verdicts == {"G1": "agreed", "G2": "misled"}


def test_no_heterogeneity_ablation_fails_on_any_contradiction(fake_backend: Make) -> None:
    replies = [
        GOOD,
        WEAK,
        stance("supports"),
        stance("contradicts"),
        stance("supports"),
        stance("neither"),
    ]
    backend, _ = fake_backend(replies, vectors=VECTORS, dim=4)
    result = run(
        backend,
        {"question": QUESTION, "answer": ANSWER, "articles": ARTICLES},
        no_heterogeneity=True,
    )
    assert result["claims"][0]["label"] == "incorrect" and result["label"] == "incorrect"


def test_random_reliability_ablation_skips_quality_calls(fake_backend: Make) -> None:
    replies = [stance("neither")] * 4
    backend, _ = fake_backend(replies, vectors=VECTORS, dim=4)
    result = run(
        backend,
        {"question": QUESTION, "answer": ANSWER, "articles": ARTICLES},
        random_reliability=True,
    )
    values = [r["reliability"]["reliability"] for r in result["evidence"]]
    assert all(1.0 <= v <= 8.0 for v in values)
    assert result["label"] == "undetermined" and result["stop_reason"] == "no_usable_output"
    assert {v["verdict"] for v in result["evidence_report"]} == {"irrelevant"}


def test_extra_evidence_from_a_local_corpus(fake_backend: Make, tmp_path: Path) -> None:
    corpus = tmp_path / "pubmed.jsonl"
    rows = [
        {
            "pmid": "E1",
            "title": "Aspirin and heart attacks",
            "abstract": "Aspirin reduces heart attacks in trials.",
            "year": 2022,
            "publication_types": ["Randomized Controlled Trial"],
            "mesh": ["Aspirin", "Myocardial Infarction"],
        },
        {"pmid": "E2", "title": "Potatoes", "abstract": "Potatoes grow in soil.", "year": 2021},
        {"pmid": "G1", "title": "dup", "abstract": "Aspirin heart attacks duplicate", "year": 2000},
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    replies = [GOOD, GOOD, *[stance("supports")] * 4]
    backend, _ = fake_backend(replies, vectors=VECTORS, dim=4)
    result = run(
        backend,
        {"question": QUESTION, "answer": ANSWER, "articles": ARTICLES[:1]},
        no_extra_evidence=False,
        evidence_corpus=str(corpus),
        extra_evidence=1,
    )
    assert [(r["id"], r["role"]) for r in result["evidence"]] == [("G1", "given"), ("E1", "extra")]
    assert result["evidence"][1]["reliability"]["level"] == 6
    assert result["label"] == "correct"


def test_bad_input_is_explained(fake_backend: Make) -> None:
    backend, _ = fake_backend([], vectors=VECTORS, dim=4)
    with pytest.raises(InvalidInputError, match="no answer to validate"):
        run(backend, {"question": QUESTION, "articles": ARTICLES})
    with pytest.raises(InvalidInputError, match="needs the question"):
        run(backend, {"answer": ANSWER, "articles": ARTICLES})
    with pytest.raises(InvalidInputError, match="cited article 1 has no abstract"):
        run(backend, {"question": QUESTION, "answer": ANSWER, "articles": [{"pmid": "x"}]})
    with pytest.raises(InvalidInputError, match="extra evidence needs an article corpus"):
        run(
            backend,
            {"question": QUESTION, "answer": ANSWER, "articles": ARTICLES},
            no_extra_evidence=False,
            quality_penalties=False,
        )


def test_no_corpus_match_and_undated_untyped_articles(fake_backend: Make, tmp_path: Path) -> None:
    from veriloop.knowledge.articles import ArticleIndex, article_from_dict

    index = ArticleIndex([article_from_dict({"pmid": "1", "abstract": "Potatoes grow."}, 1)])
    assert index.search("aspirin infarction", 5) == []
    corpus = tmp_path / "pubmed.jsonl"
    corpus.write_text(json.dumps({"pmid": "P", "title": "Potatoes", "abstract": "Potatoes grow."}))
    untyped = [{"id": "U1", "abstract": "Aspirin lowers infarction risk."}]
    backend, _ = fake_backend(
        [GOOD, stance("supports"), stance("supports")], vectors=VECTORS, dim=4
    )
    result = run(
        backend,
        {"question": QUESTION, "answer": ANSWER, "articles": untyped},
        no_extra_evidence=False,
        evidence_corpus=str(corpus),
    )
    assert [r["id"] for r in result["evidence"]] == ["U1"]  # nothing in the corpus matched
    parts = result["evidence"][0]["reliability"]
    assert (parts["level"], parts["level_from"], parts["recency"]) == (3, "default", 0.0)
    assert result["label"] == "correct"
