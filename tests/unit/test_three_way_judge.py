"""The three-way judge: its data splits, its verdict rule, the rules beside it, its metrics."""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from veriloop.evaluation.judge_data.nli_sets import (
    NLI_FOLDERS,
    as_labelled,
    nli_held_out_sets,
    nli_training_pairs,
)
from veriloop.evaluation.support_measure import three_way_accuracy, verdict_rate
from veriloop.nodes.judges import (
    CONTRADICTED,
    ENTAILED,
    NEITHER,
    Judged,
    SupportQuery,
    SupportVerdict,
    claim_verdict,
)
from veriloop.nodes.judges.pair_classifier import PairReading
from veriloop.nodes.judges.three_way import MismatchCheckedJudge, ThreeWayJudge

HELD_OUT_PREMISE = "A dog runs on the beach."


def write_pairs(root: Path, folder: str, rows: list[dict[str, str]]) -> None:
    path = root / "nli" / NLI_FOLDERS[folder]
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for number, row in enumerate(rows):
            handle.write(json.dumps({"id": str(number), **row}) + "\n")


@pytest.fixture
def nli_root(tmp_path: Path) -> Path:
    for folder in NLI_FOLDERS:
        write_pairs(tmp_path, folder, [])
    write_pairs(
        tmp_path,
        "snli",
        [
            {
                "premise": HELD_OUT_PREMISE,
                "hypothesis": "A dog is outside.",
                "label": "entailment",
                "split": "test",
            },
            {
                "premise": "A man sings.",
                "hypothesis": "A man is silent.",
                "label": "contradiction",
                "split": "dev",
            },
        ],
    )
    write_pairs(
        tmp_path,
        "cad",
        [
            # reuses the held-out SNLI premise (case and spacing differ): must not train
            {
                "premise": "a dog  runs on the beach.",
                "hypothesis": "A cat runs.",
                "label": "contradiction",
                "split": "train",
            },
            # the same pair as SNLI dev: a duplicate
            {
                "premise": "A man sings.",
                "hypothesis": "A man is silent.",
                "label": "contradiction",
                "split": "train",
            },
            {
                "premise": "Two kids play.",
                "hypothesis": "Kids play.",
                "label": "entailment",
                "split": "train",
            },
        ],
    )
    write_pairs(
        tmp_path,
        "negation",
        [
            {
                "premise": "It is not raining.",
                "hypothesis": "It rains.",
                "label": "not_entailment",
                "split": "test",
            }
        ],
    )
    write_pairs(
        tmp_path,
        "scifact",
        [
            {
                "premise": "Drug X raised mortality.",
                "hypothesis": "Drug X lowers mortality.",
                "label": "not_entailment",
                "split": "train",
            }
        ],
    )
    return tmp_path


def test_training_pairs_are_disjoint_by_premise_and_deduplicated(nli_root: Path) -> None:
    pairs, counts = nli_training_pairs(nli_root)
    premises = [p.query.evidence[0] for p in pairs]
    assert premises == ["A man sings.", "Two kids play.", "Drug X raised mortality."]
    assert counts["duplicate"] == 1
    assert counts["held_out_premise"] == 1
    assert counts == {"duplicate": 1, "held_out_premise": 1, "snli": 1, "cad": 1, "scifact": 1}


def test_labels_map_to_the_classes_they_allow(nli_root: Path) -> None:
    pairs, _ = nli_training_pairs(nli_root)
    scifact = [p for p in pairs if p.source == "scifact"][0]
    assert scifact.allowed == {CONTRADICTED}  # SciFact's not_entailment is CONTRADICT
    negation = nli_held_out_sets(nli_root)["negation_nli"][0]
    assert negation.allowed == {NEITHER, CONTRADICTED}  # RTE's: either
    assert negation.label is None
    [labelled] = as_labelled([negation])
    assert labelled.supported is False and labelled.label is None
    snli = as_labelled(nli_held_out_sets(nli_root)["snli_test"])
    assert [(p.supported, p.label) for p in snli] == [(True, ENTAILED)]


class ScriptedThreeWay(ThreeWayJudge):
    """The judge's verdict rule over scripted window probabilities (no model)."""

    def __init__(self, table: dict[str, tuple[float, float, float]]) -> None:
        self.table = table
        self.supported_at = 0.5
        self.contradicted_at = 0.5
        self.reading = PairReading()
        self.name = "scripted"

    def probabilities(
        self, evidence: Sequence[str], second: Sequence[str]
    ) -> list[tuple[float, float, float]]:
        return [self.table[text] for text in evidence]


def test_the_verdict_rule_over_evidence_texts() -> None:
    judge = ScriptedThreeWay(
        {
            "backs": (0.8, 0.1, 0.1),
            "denies": (0.05, 0.15, 0.8),
            "other": (0.2, 0.7, 0.1),
            "weak": (0.3, 0.3, 0.4),
        }
    )
    verdicts, calls = judge.judge(
        [
            SupportQuery("denies backs", ["other", "backs", "denies"]),  # backed wins
            SupportQuery("denies", ["other", "denies"]),
            SupportQuery("weak", ["other", "weak"]),  # nothing reaches a threshold
            SupportQuery("bird", ["other", "denies"]),  # shares no word with the denial
        ]
    )
    assert verdicts.pop().get("verdict") == "unsupported"
    assert calls == []
    assert [v.get("verdict") for v in verdicts] == ["supported", "contradicted", "unsupported"]
    assert [v["evidence_index"] for v in verdicts] == [1, 1, 1]
    assert verdicts[0]["probability"] == 0.8 and verdicts[0]["p_contradicted"] == 0.8
    # P(supported) is the most entailing window's, whatever the verdict rests on
    assert verdicts[1]["probability"] == 0.2
    assert verdicts[1]["scores"] == {"entailed": 0.05, "neither": 0.15, "contradicted": 0.8}
    assert verdicts[2]["evidence_span"] == "weak" and verdicts[2]["p_contradicted"] == 0.4


class FixedJudge:
    """A support-only judge that backs every claim with its first evidence text."""

    name = "fixed"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        return [
            SupportVerdict(
                probability=0.97,
                evidence_index=0,
                evidence_span=q.evidence[0],
                scores={},
                error=None,
            )
            for q in queries
        ], []


def test_rules_turn_a_passed_claim_contradicted_and_name_both_spans() -> None:
    evidence = "The most common serious side effect of warfarin is bleeding. Hair loss is an uncommon side effect."
    judge = MismatchCheckedJudge(FixedJudge())
    [hair, bleeding], _ = judge.judge(
        [
            SupportQuery("Warfarin also causes hair loss in most patients.", [evidence]),
            SupportQuery(
                "The most common serious side effect of warfarin is bleeding.", [evidence]
            ),
        ]
    )
    assert hair.get("verdict") == "contradicted" and hair["probability"] == 0.0
    assert hair["scores"]["model_p_supported"] == 0.97
    assert hair.get("evidence_sentence") == "Hair loss is an uncommon side effect."
    [mismatch] = hair.get("mismatches", [])
    assert (mismatch["kind"], mismatch["claim_span"], mismatch["evidence_span"]) == (
        "quantifier",
        "most",
        "uncommon",
    )
    # a sentence of the evidence copied word for word is backed, whatever the model said
    assert bleeding.get("verdict") == "supported" and bleeding["probability"] == 1.0
    assert bleeding["scores"]["model_p_supported"] == 0.97 and bleeding["scores"]["copied"] == 1
    paraphrase, _ = judge.judge(
        [SupportQuery("Bleeding is the most common serious side effect.", [evidence])]
    )
    assert paraphrase[0]["probability"] == 0.97 and "verdict" not in paraphrase[0]


def test_a_copy_is_backed_before_any_rule_reads_it() -> None:
    # the scrape glued the next sentence to the list: read against that run, the entity
    # rule found "anemia" against "blood" and called a word-for-word copy contradicted
    evidence = (
        "Other signs of anemia include: Shortness of breath Dizziness Headache Pale skin "
        "Chest pain These signs can occur because your heart pumps oxygen-rich blood harder."
    )
    claim = "Other signs of anemia include: shortness of breath; dizziness; headache; pale skin; chest pain."
    [verdict], _ = MismatchCheckedJudge(FixedJudge()).judge([SupportQuery(claim, [evidence])])
    assert verdict.get("verdict") == "supported" and verdict["scores"]["copied"] == 1
    # a sentence never conflicts with itself, whatever the model said of it
    from veriloop.nodes.judges.mismatch import find_mismatches

    itself = "There is no cure, but there are many medicines to fight both HIV infection and it."
    assert find_mismatches(itself, itself) == []


def test_a_copy_is_read_case_space_and_punctuation_aside() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    source = "Graves disease is the most common cause. The condition is  not contagious!"
    assert copied_sentence("the condition is not contagious", source) == (
        "The condition is  not contagious!"
    )
    assert copied_sentence("The condition is contagious.", source) is None
    assert copied_sentence("Graves disease.", "Graves disease. It is common.") is None  # < 3 words


def test_a_sentence_quoted_without_its_glued_heading_is_a_copy() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    source = (
        "Early Signs and Symptoms If a person has sickle cell disease (SCD), it is present at "
        "birth. It is a myth that vaccines cause autism."
    )
    quoted = "If a person has sickle cell disease (SCD), it is present at birth."
    assert copied_sentence(quoted, source) == source.split(" It is a myth")[0]
    # only a heading the quote cleaner removes: not any cut opening
    assert copied_sentence("vaccines cause autism.", source) is None
    assert copied_sentence("a person has sickle cell disease (SCD), it is present", source) is None


def test_a_list_quoted_as_one_sentence_is_a_copy_but_a_cut_sentence_is_not() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    source = (
        "Early prostate cancer usually does not cause symptoms. However, if it is not "
        "treated, it can cause these symptoms: - painful urination - blood in urine. Rest."
    )
    merged = "However, if it is not treated, it can cause these symptoms: painful urination; blood in urine."
    assert copied_sentence(merged, source) is not None
    # fewer items, still whole items
    assert copied_sentence(merged.replace("; blood in urine", ""), source) is not None
    # a run that starts or ends mid-sentence is not a copy: it drops words that matter
    assert copied_sentence("prostate cancer usually does not cause symptoms", source) is None
    assert (
        copied_sentence("vaccines cause autism", "It is a myth that vaccines cause autism.") is None
    )
    assert copied_sentence("Early prostate cancer usually does not cause", source) is None


def test_claim_verdict_reads_support_only_judges_too() -> None:
    base = SupportVerdict(
        probability=0.7, evidence_index=0, evidence_span="e", scores={}, error=None
    )
    assert claim_verdict(base) == "supported"
    assert claim_verdict({**base, "probability": 0.2}) == "unsupported"  # type: ignore[typeddict-item]
    assert claim_verdict({**base, "probability": None}) is None  # type: ignore[typeddict-item]
    assert claim_verdict({**base, "verdict": "contradicted"}) == "contradicted"  # type: ignore[typeddict-item]


def test_three_way_metrics_by_hand() -> None:
    records = [
        {"item": "a", "label": 0, "verdict": "supported"},
        {"item": "b", "label": 2, "verdict": "contradicted"},
        {"item": "c", "label": 2, "verdict": "unsupported"},
        {"item": "d", "label": 1, "verdict": "contradicted"},
        {"item": "e", "label": 0, "verdict": None},  # unusable: wrong
        {"item": "f", "label": None, "verdict": "supported"},  # no three-way gold: not scored
    ]
    assert three_way_accuracy(records) == pytest.approx(2 / 5)
    assert verdict_rate(records, 2, "contradicted") == pytest.approx(1 / 2)
    assert verdict_rate(records, 0, "contradicted") == 0.0
    assert three_way_accuracy([{"item": "x", "label": None}]) is None


def test_the_allowed_set_loss_by_hand() -> None:
    torch = pytest.importorskip("torch")
    from benchmarks.train_three_way_judge import allowed_loss

    logits = torch.tensor(
        [[0.0, math.log(2.0), math.log(3.0)], [0.0, math.log(2.0), math.log(3.0)]]
    )
    allowed = torch.tensor([[True, False, False], [False, True, True]])
    # -log(1/6) for the first row, -log(5/6) for the second
    expected = (-math.log(1 / 6) - math.log(5 / 6)) / 2
    assert float(allowed_loss(logits, allowed)) == pytest.approx(expected)
