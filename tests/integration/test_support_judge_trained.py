"""The shipped trained support judge loads from the package and separates real pairs."""

from __future__ import annotations

from veriloop.nodes.support import CrossEncoderJudge, SupportQuery


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
