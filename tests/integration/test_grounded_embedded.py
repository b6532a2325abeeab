"""The grounded default on the real embedded models and the bundled MedQuAD source."""

from __future__ import annotations

import pytest

from veriloop.graphs.grounded import GroundedContext, build_graph

pytestmark = pytest.mark.integration


def test_noonan_is_answered_from_an_nih_page_and_nitrogen_is_refused() -> None:
    graph = build_graph().compile()
    noonan = graph.invoke({"question": "Is Noonan syndrome inherited?"}, context=GroundedContext())
    assert noonan["refusal"] is None and "autosomal dominant" in noonan["answer"]
    # GHR's "... an autosomal dominant pattern" and GARD's restatement of it ("... an
    # autosomal dominant manner. This means ...") are one fact, said once
    assert noonan["answer"].count("inherited in an autosomal dominant") == 1
    assert noonan["answer"].count("[1]") >= 1
    assert noonan["sources"][0]["url"].startswith("https://") and noonan["sources"][0]["id"]
    # extract: quoted, then checked; the judge reads each quote after the question, so a
    # quote that does not bear on it may be dropped, but every kept one is cited
    kept = [s for s in noonan["sentences"] if s["supported"]]
    assert kept and noonan["answer"].count("[") == len(kept)
    assert all(s["coverage"] >= 0.75 for s in kept)
    assert max(p["relevance"] for p in noonan["passages"]) >= 0.5
    nitrogen = graph.invoke(
        {"question": "What is the boiling point of liquid nitrogen in kelvin?"},
        context=GroundedContext(),
    )
    assert nitrogen["answer"] is None and nitrogen["refusal"]["kind"] == "hard"
    assert nitrogen["trace"]["usage"]["chat_calls"] == 0


def test_generated_answers_are_checked_sentence_by_sentence() -> None:
    graph = build_graph().compile()
    result = graph.invoke(
        {"question": "Is Noonan syndrome inherited?"},
        context=GroundedContext(answer_mode="generate"),
    )
    assert result["trace"]["usage"]["chat_calls"] == 1
    assert result["sentences"] and all(s["origin"] == "generated" for s in result["sentences"])
    for sentence in result["sentences"]:
        assert sentence["supported"] == (
            sentence["probability"] is not None and sentence["probability"] >= 0.5
        )
        assert sentence["reason"]
    kept = [s for s in result["sentences"] if s["supported"]]
    if kept:  # every kept sentence is in the answer with its passage's citation
        assert result["answer"] and result["sources"]
        assert all(s["coverage"] is not None and s["coverage"] >= 0.75 for s in kept)
    else:
        assert result["refusal"]["kind"] == "soft"


def test_an_anal_fissure_is_not_answered_from_anal_cancer_pages_nor_in_fragments() -> None:
    question = (
        "I have been battling anal fissure for close to two years and it has refused to heal. "
        "What should I do?"
    )
    result = build_graph().compile().invoke({"question": question}, context=GroundedContext())
    titles = {p["title"] for p in result["passages"]}
    assert "Anal Cancer" not in titles  # a neighbouring condition, dropped before re-ranking
    retrieval = next(c for c in result["trace"]["candidates"] if c["stage"] == "retrieval")
    assert "neighbouring condition, dropped" in retrieval["text"]
    for sentence in result["sentences"]:
        text = sentence["text"]
        assert text.rstrip()[-1] in ".!?:;)", f"a fragment was quoted: {text!r}"
        assert not text.startswith(("- ", "These ", "This ", "It ", "They ")), text
        assert "fissuressmall" not in text
