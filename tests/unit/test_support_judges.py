"""Claim-support judges on scripted scorers: gains, best evidence, calibration, bad input."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from veriloop.errors import InvalidInputError
from veriloop.models.fakes import fake_models
from veriloop.nodes.judges import (
    Calibration,
    Judged,
    LikelihoodJudge,
    SupportQuery,
    SupportStances,
    SupportVerdict,
    YesNoJudge,
    fit_calibration,
    unusable,
)
from veriloop.nodes.judges import calibration as support


def scorer_rule(prompt: str, target: str) -> float | None:
    """The claim is likely after evidence mentioning 'warfarin', unlikely otherwise."""
    if "FAIL" in target:
        return None
    if "Answer:" in prompt and "warfarin" in prompt.split("Question:")[0].lower():
        return -0.5
    if "statement the text above supports" in prompt and "aspirin" in prompt:
        return -1.0
    return -3.0


def test_gain_is_conditional_minus_prior_and_best_evidence_wins() -> None:
    judge = LikelihoodJudge(fake_models([], score_rule=scorer_rule), calibration=None)
    query = SupportQuery(
        claim="It causes bleeding.",
        evidence=["Unrelated text about kidneys.", "Warfarin thins the blood; warfarin bleeds."],
        question="Does warfarin cause bleeding?",
    )
    [verdict], calls = judge.judge([query])
    assert verdict["evidence_index"] == 1  # the supportive text, not the first
    assert verdict["scores"]["conditional"] == -0.5
    assert verdict["scores"]["prior"] == -3.0
    assert verdict["scores"]["mean_gain"] == pytest.approx(2.5)
    assert verdict["probability"] == pytest.approx(1 / (1 + math.exp(-2.5)), abs=1e-6)
    assert "uncalibrated" in judge.name
    assert len(calls) == 3  # one prior, one per evidence text


def test_without_a_question_the_claim_prompts_are_used() -> None:
    judge = LikelihoodJudge(fake_models([], score_rule=scorer_rule))
    [verdict], _ = judge.judge([SupportQuery("Aspirin thins blood.", ["aspirin data"])])
    assert verdict["scores"]["mean_gain"] == pytest.approx(2.0)  # -1.0 - (-3.0)


def test_sentence_unit_keeps_the_most_supportive_sentence() -> None:
    judge = LikelihoodJudge(fake_models([], score_rule=scorer_rule), unit="sentence")
    text = "Kidneys filter blood. Warfarin is an anticoagulant."
    [verdict], _ = judge.judge(
        [SupportQuery("It causes bleeding.", [text], question="Does warfarin cause bleeding?")]
    )
    assert verdict["evidence_span"] == "Warfarin is an anticoagulant."


def test_calibration_maps_the_gain_and_is_recorded() -> None:
    calibration = Calibration(slope=2.0, intercept=-1.0, scorer="fake-scorer")
    judge = LikelihoodJudge(fake_models([], score_rule=scorer_rule), calibration=calibration)
    [verdict], _ = judge.judge(
        [SupportQuery("Yes.", ["warfarin"], question="Does warfarin cause bleeding?")]
    )
    assert verdict["probability"] == pytest.approx(1 / (1 + math.exp(-(2.0 * 2.5 - 1.0))))
    assert "calibrated" in judge.name and "uncalibrated" not in judge.name
    assert Calibration.from_json(calibration.to_json()) == calibration


def test_fitted_calibration_orders_and_separates() -> None:
    gains = [-1.0, -0.5, 0.0, 0.2, 1.0, 1.5, 2.0, 2.5]
    supported = [False, False, False, True, False, True, True, True]
    fitted = fit_calibration(gains, supported, scorer="s", fitted_on="toy")
    assert fitted.slope > 0
    assert fitted.probability(2.5) > 0.8 > 0.2 > fitted.probability(-1.0)
    assert fitted.pairs == 8 and fitted.fitted_on == "toy"
    with pytest.raises(InvalidInputError, match="supported and unsupported"):
        fit_calibration([1.0, 2.0], [True, True])


def test_a_feature_variant_loads_its_own_calibration_else_a_matching_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(support, "CALIBRATION_DIR", tmp_path)
    models = fake_models([], score_rule=scorer_rule)
    default = Calibration(slope=1.0, intercept=0.0, feature="min_gain", scorer="s")
    support.calibration_file("likelihood", models.scorer.name).write_text(
        json.dumps(default.to_json())
    )
    assert LikelihoodJudge(models).feature == "min_gain"  # the default decides the feature
    assert LikelihoodJudge(models, feature="min_gain").calibration == default
    assert LikelihoodJudge(models, feature="mean_gain").calibration is None  # not its feature
    variant = Calibration(slope=2.0, intercept=-1.0, feature="mean_gain", scorer="s")
    support.calibration_file("likelihood", models.scorer.name, "mean_gain").write_text(
        json.dumps(variant.to_json())
    )
    judge = LikelihoodJudge(models, feature="mean_gain")
    assert judge.calibration == variant and "uncalibrated" not in judge.name


def test_unscorable_claim_is_an_unusable_verdict_not_a_crash() -> None:
    judge = LikelihoodJudge(fake_models([], score_rule=scorer_rule))
    verdicts, _ = judge.judge(
        [SupportQuery("FAIL", ["warfarin"]), SupportQuery("fine", ["warfarin"])]
    )
    assert verdicts[0]["probability"] is None and "cannot score" in str(verdicts[0]["error"])
    assert verdicts[1]["probability"] is not None


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (SupportQuery("  ", ["e"]), "claim is empty"),
        (SupportQuery("c", []), "list of non-empty texts"),
        (SupportQuery("c", "a bare string"), "list of non-empty texts"),
        (SupportQuery("c", ["", "  "]), "list of non-empty texts"),
    ],
)
def test_bad_queries_are_refused_clearly(query: SupportQuery, message: str) -> None:
    judge = LikelihoodJudge(fake_models([]))
    with pytest.raises(InvalidInputError, match=message):
        judge.judge([query])


def test_yes_no_judge_normalises_yes_against_no() -> None:
    def rule(prompt: str, target: str) -> float:
        return math.log(0.3) if target.strip().lower() == "yes" else math.log(0.1)

    [verdict], calls = YesNoJudge(fake_models([], score_rule=rule)).judge(
        [SupportQuery("Aspirin thins blood.", ["Aspirin inhibits platelets."])]
    )
    assert verdict["probability"] == pytest.approx(0.75)  # 0.6 / (0.6 + 0.2)
    assert len(calls) == 4


class TableJudge:
    """A support judge that looks the probability up by claim."""

    name = "table"

    def __init__(self, table: dict[str, float | None]) -> None:
        self.table = table
        self.seen: list[SupportQuery] = []

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        self.seen += list(queries)
        return [
            unusable("no score")
            if self.table[q.claim] is None
            else SupportVerdict(
                probability=self.table[q.claim],
                evidence_index=0,
                evidence_span=q.evidence[0],
                scores={},
                error=None,
            )
            for q in queries
        ], []


def test_stances_map_probability_bands_and_gate_contradiction_by_topic() -> None:
    table: dict[str, float | None] = {"backed": 0.9, "middle": 0.3, "low": 0.05, "bad": None}
    vectors = {
        "on topic": [1, 0, 0, 0],
        "off topic": [0, 1, 0, 0],
        "backed": [1, 0, 0, 0],
        "middle": [1, 0, 0, 0],
        "low": [1, 0, 0, 0],
        "bad": [1, 0, 0, 0],
    }
    plain = SupportStances(TableJudge(table))
    assert plain.judge_pairs(["on topic"] * 4, ["backed", "middle", "low", "bad"]) == [1, 0, -1, 0]
    gated = SupportStances(TableJudge(table), models=fake_models([], vectors=vectors, dim=4))
    assert gated.judge_pairs(["on topic", "off topic"], ["low", "low"]) == [-1, 0]
    assert gated.stance(None) is None  # unusable stays unusable for M-Eval to count
    assert "cosine >= 0.5" in gated.name


def test_stances_pass_the_question_and_refuse_bad_thresholds() -> None:
    judge = TableJudge({"backed": 0.9})
    SupportStances(judge).verdicts(["text"], ["backed"], "Why?")
    assert judge.seen[0].question == "Why?" and list(judge.seen[0].evidence) == ["text"]
    SupportStances(judge).verdicts(["a", "b"], ["backed", "backed"], ["", "How?"])
    assert [q.question for q in judge.seen[1:]] == ["", "How?"]  # one question per pair
    with pytest.raises(InvalidInputError, match="contradicts_below"):
        SupportStances(judge, supports_at=0.2, contradicts_below=0.4)
    with pytest.raises(InvalidInputError, match="2 premises but 1"):
        SupportStances(judge).verdicts(["a", "b"], ["backed"])


def test_a_long_question_never_pushes_the_claim_out_of_the_cross_encoder_input() -> None:
    from veriloop.nodes.judges import QUESTION_CHARS, SupportQuery, cross_encoder_input

    question = "My mother has a question about her treatment. " * 40
    text = cross_encoder_input(SupportQuery("Warfarin causes bleeding.", ["e"], question))
    assert text.endswith("Warfarin causes bleeding.")
    assert len(text) <= QUESTION_CHARS + len(" Warfarin causes bleeding.")
    short = cross_encoder_input(SupportQuery("It does.", ["e"], "Does it?"))
    assert short == "Does it? It does."


def test_the_adapter_label_names_a_recorded_version_only(tmp_path) -> None:
    from veriloop.nodes.judges import adapter_label

    folder = tmp_path / "support_cross_encoder"
    folder.mkdir()
    assert adapter_label(folder) == "support_cross_encoder"  # no training.json
    (folder / "training.json").write_text('{"version": null}')
    assert adapter_label(folder) == "support_cross_encoder"  # the first adapter's record
    (folder / "training.json").write_text('{"version": 2}')
    assert adapter_label(folder) == "support_cross_encoder v2"
    (folder / "training.json").write_text("{cut off")
    assert adapter_label(folder) == "support_cross_encoder"


def test_claim_pooling_appends_the_mean_over_the_second_segment_only() -> None:
    import torch

    from veriloop.nodes.judges import pooled

    # one pair: two evidence tokens, two claim tokens, one padding token
    hidden = torch.tensor([[[1.0, 0.0], [3.0, 0.0], [0.0, 2.0], [0.0, 4.0], [9.0, 9.0]]])
    batch = {
        "attention_mask": torch.tensor([[1, 1, 1, 1, 0]]),
        "token_type_ids": torch.tensor([[0, 0, 1, 1, 1]]),  # padding's type is ignored
    }
    assert pooled(hidden, batch, "mean").tolist() == [[1.0, 1.5]]
    assert pooled(hidden, batch, "mean+claim").tolist() == [[1.0, 1.5, 0.0, 3.0]]


def test_an_adapter_pooling_is_read_from_its_training_record(tmp_path) -> None:
    from veriloop.nodes.judges import adapter_pooling

    assert adapter_pooling(tmp_path) == "mean"  # no training.json: v1 and v2 predate it
    (tmp_path / "training.json").write_text('{"version": 2}')
    assert adapter_pooling(tmp_path) == "mean"
    (tmp_path / "training.json").write_text('{"pooling": "mean+claim"}')
    assert adapter_pooling(tmp_path) == "mean+claim"
    (tmp_path / "training.json").write_text('{"pooling": "max"}')
    with pytest.raises(InvalidInputError, match="pooling 'max'.*mean, mean\\+claim"):
        adapter_pooling(tmp_path)
