"""The shipped trained support judge loads from the package and separates real pairs."""

from __future__ import annotations

from veriloop.nodes.judges import CrossEncoderJudge, SupportQuery


def test_trained_judge_prefers_the_supported_answer_and_names_its_evidence() -> None:
    judge = CrossEncoderJudge()
    knowledge = (
        "Warfarin is an anticoagulant. Its most common serious side effect is bleeding, "
        "including gastrointestinal and intracranial haemorrhage."
    )
    question = "What is the most common serious side effect of warfarin?"
    verdicts, _ = judge.judge(
        [
            SupportQuery("Bleeding.", ["Paris is the capital of France.", knowledge], question),
            SupportQuery("Hair loss and weight gain.", [knowledge], question),
        ]
    )
    right, made_up = verdicts
    assert right["evidence_index"] == 1  # the warfarin text, not the unrelated one
    assert right["probability"] is not None and made_up["probability"] is not None
    assert right["probability"] > made_up["probability"]
    assert "logit" in right["scores"]


def test_meval_stances_from_the_trained_judge_carry_probabilities() -> None:
    from veriloop.graphs.m_eval import MEvalContext, build_graph

    articles = [
        {
            "pmid": "W1",
            "title": "Warfarin safety",
            "abstract": "Bleeding is the most common serious side effect of warfarin therapy, "
            "including gastrointestinal and intracranial haemorrhage.",
            "year": 2019,
            "publication_types": ["Review"],
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
                no_extra_evidence=True,
                quality_penalties=False,
                claims_per_answer=1,
                stance_judge="support",
            ),
        )
    )
    by_article = {s["article"]: s for s in out["stances"] if s["claim"] == 0}
    assert by_article["W1"]["stance"] == 1 and by_article["W1"]["probability"] >= 0.5
    assert by_article["W2"]["stance"] != 1 and by_article["W2"]["probability"] < 0.5
    assert out["label"] == "correct"
