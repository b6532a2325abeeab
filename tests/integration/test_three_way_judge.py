"""The shipped three-way judge: it loads from the package and sees a contradiction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.nodes.judges import SupportQuery
from veriloop.nodes.judges.three_way import MismatchCheckedJudge, ThreeWayJudge

pytestmark = pytest.mark.integration

WARFARIN_SOURCE = (
    "The most common serious side effect of warfarin is bleeding. "
    "Hair loss is an uncommon side effect."
)
WARFARIN_ANSWER = (
    "The most common serious side effect of warfarin is bleeding. "
    "Warfarin also causes hair loss in most patients."
)


def test_the_model_alone_backs_denies_and_abstains() -> None:
    judge = ThreeWayJudge()
    verdicts, _ = judge.judge(
        [
            SupportQuery("Bleeding is a serious side effect of warfarin.", [WARFARIN_SOURCE]),
            SupportQuery("Bleeding is not a side effect of warfarin.", [WARFARIN_SOURCE]),
            SupportQuery("Warfarin is sold in blue tablets.", ["Paris is the capital of France."]),
        ]
    )
    backed, denied, elsewhere = verdicts
    assert backed.get("verdict") == "supported"
    assert denied.get("verdict") == "contradicted"
    assert (denied.get("p_contradicted") or 0.0) > (backed.get("p_contradicted") or 1.0)
    assert elsewhere.get("verdict") == "unsupported"
    for verdict in verdicts:
        p = [verdict["scores"][name] for name in ("entailed", "neither", "contradicted")]
        assert abs(sum(p) - 1.0) < 1e-4


def test_the_judge_with_rules_marks_the_hair_loss_claim_contradicted() -> None:
    judge = MismatchCheckedJudge(ThreeWayJudge())
    [hair], _ = judge.judge(
        [SupportQuery("Warfarin also causes hair loss in most patients.", [WARFARIN_SOURCE])]
    )
    assert hair.get("verdict") == "contradicted"
    assert hair.get("evidence_sentence") == "Hair loss is an uncommon side effect."


def test_verify_says_hallucinated_and_shows_what_the_source_says(tmp_path: Path) -> None:
    path = tmp_path / "warfarin.json"
    path.write_text(json.dumps({"answer": WARFARIN_ANSWER, "sources": [WARFARIN_SOURCE]}))
    result = CliRunner().invoke(app, ["verify", str(path), "--json"])
    assert result.exit_code == 0, result.output
    output = json.loads(result.stdout[result.stdout.index("{") :])
    assert output["verdict"] == "hallucinated"
    first_round = [c for c in output["claims"] if c["round"] == 0]
    hair = next(c for c in first_round if "hair loss" in c["claim"])
    assert hair["verdict"] == "contradicted" and hair["method"] == "three_way"
    assert hair["evidence_sentence"] == "Hair loss is an uncommon side effect."
    bleeding = next(c for c in first_round if "bleeding" in c["claim"])
    assert bleeding["verdict"] == "supported"
    critique = next(c for c in output["critiques"] if "hair loss" in c["claim"])
    assert critique["critique"].startswith(
        'The source says otherwise: "Hair loss is an uncommon side effect."'
    )


def test_meval_weighs_an_abstract_that_denies_the_claim() -> None:
    from veriloop.graphs.m_eval import MEvalContext, build_graph

    articles = [
        {
            "pmid": "W1",
            "title": "Warfarin safety",
            "abstract": "Bleeding is the most common serious side effect of warfarin therapy, "
            "including gastrointestinal and intracranial haemorrhage.",
            "year": 2019,
        },
        {
            "pmid": "W3",
            "title": "A contrary report",
            "abstract": "Bleeding is not the most common serious side effect of warfarin therapy.",
            "year": 2019,
        },
        {
            "pmid": "W2",
            "title": "Hip fractures",
            "abstract": "Hip fractures in older adults are followed by a loss of mobility.",
            "year": 2018,
        },
    ]
    out = (
        build_graph()
        .compile()
        .invoke(
            {
                "question": "What is the most common serious side effect of warfarin?",
                "answer": "The most common serious side effect of warfarin is bleeding.",
                "articles": articles,
            },
            context=MEvalContext(
                no_extra_evidence=True, quality_penalties=False, claims_per_answer=1
            ),
        )
    )
    by_article = {s["article"]: s for s in out["stances"] if s["claim"] == 0}
    assert by_article["W1"]["stance"] == 1
    # -1 from the mismatch rules' negation check (the model alone: P(contradicted) 0.32)
    assert by_article["W3"]["stance"] == -1
    assert by_article["W3"]["evidence_sentence"].startswith("Bleeding is not")
    assert by_article["W2"]["stance"] == 0
    main = out["claims"][0]
    assert (main["supporting"], main["contradicting"]) == (1, 1)


@pytest.mark.parametrize(
    ("answer", "source", "spans"),
    [
        (
            "Hyperthyroidism slows the body's metabolism.",
            "Hyperthyroidism speeds up the body's metabolism.",
            ("slows", "speeds up"),
        ),
        (
            "The usual adult dose is 50 mg twice a day.",
            "The usual adult dose is 5 mg twice a day.",
            ("50 mg", "5 mg"),
        ),
    ],
)
def test_verify_names_both_spans_of_an_inverted_claim(
    tmp_path: Path, answer: str, source: str, spans: tuple[str, str]
) -> None:
    """Issue 35's done-when: contradicted with both spans; the source's own sentence holds."""
    for text, verdict in ((answer, "contradicted"), (source, "supported")):
        path = tmp_path / "row.json"
        path.write_text(json.dumps({"answer": text, "sources": [source]}))
        result = CliRunner().invoke(
            app, ["verify", str(path), "--json", "--set", "max_revisions=0"]
        )
        assert result.exit_code == 0, result.output
        output = json.loads(result.stdout[result.stdout.index("{") :])
        [claim] = [c for c in output["claims"] if c["round"] == 0]
        assert claim["verdict"] == verdict, claim
        if verdict == "contradicted":
            [mismatch] = claim["mismatches"]
            assert (mismatch["claim_span"], mismatch["evidence_span"]) == spans
            assert spans[0] in mismatch["reason"] and spans[1] in mismatch["reason"]


ASPIRIN_QUESTION = "When was aspirin first synthesised?"
ASPIRIN_ANSWER = "Aspirin was first synthesised in 1897."
ASPIRIN_SOURCE = "Aspirin was first synthesised in 1897 by Felix Hoffmann at Bayer."


def test_a_question_never_flips_a_copied_answer(tmp_path: Path) -> None:
    """Issue 36: with its question or without, the copied answer stays supported everywhere."""
    import veriloop
    from veriloop.guard import GroundingGuard
    from veriloop.testing import assert_grounded

    plain = {"answer": ASPIRIN_ANSWER, "sources": [ASPIRIN_SOURCE]}
    asked = {"question": ASPIRIN_QUESTION, **plain}
    ragas = {
        "user_input": ASPIRIN_QUESTION,
        "response": ASPIRIN_ANSWER,
        "retrieved_contexts": [ASPIRIN_SOURCE],
    }
    deepeval = {
        "input": ASPIRIN_QUESTION,
        "actual_output": ASPIRIN_ANSWER,
        "retrieval_context": [ASPIRIN_SOURCE],
    }
    # veriloop.check and batch verify (plain, veriloop, RAGAS and DeepEval rows)
    results = veriloop.check([plain, asked, ragas, deepeval])
    verdicts = [(r["verdict"], r["claims"][0]["verdict"]) for r in results]
    assert verdicts == [("supported", "supported")] * 4, results
    same = {round(r["claims"][0]["p_supported"], 6) for r in results}
    assert len(same) == 1  # the question changed nothing the judge read
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in (plain, asked, ragas, deepeval)))
    out = tmp_path / "out"
    assert CliRunner().invoke(app, ["verify", str(rows), "--out", str(out)]).exit_code == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in records] == ["supported"] * 4
    # one answer through `veriloop verify`, with its question
    one = tmp_path / "one.json"
    one.write_text(json.dumps(asked))
    result = CliRunner().invoke(app, ["verify", str(one), "--json", "--set", "max_revisions=0"])
    output = json.loads(result.stdout[result.stdout.index("{") :])
    assert [c["verdict"] for c in output["claims"]] == ["supported"]
    # the pytest helper and the LangChain guard
    assert_grounded(ASPIRIN_ANSWER, [ASPIRIN_SOURCE], question=ASPIRIN_QUESTION)
    guard = GroundingGuard(sources=[ASPIRIN_SOURCE])
    checked = guard.check({"answer": ASPIRIN_ANSWER, "question": ASPIRIN_QUESTION})
    assert checked["verdict"] == "supported", checked["sentences"]
