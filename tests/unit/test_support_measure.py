"""Support-judge measurement: metrics on hand-computed cases, resumable records, splits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriloop.evaluation.judge_data.support_sets import (
    LabelledPair,
    halueval_pairs,
    healthver_pairs,
    training_pairs,
)
from veriloop.evaluation.support_measure import (
    auroc,
    balanced_accuracy,
    expected_calibration_error,
    markdown_table,
    measure,
    paired_against,
    read_records,
    sample_by_item,
    summarise,
)
from veriloop.nodes.judges import SupportQuery, SupportVerdict

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def test_metrics_on_hand_computed_cases() -> None:
    probabilities = [0.9, 0.6, 0.4, 0.2, 0.7, 0.1]
    supported = [True, True, True, False, False, False]
    # supported recall 2/3, unsupported recall 2/3
    assert balanced_accuracy(probabilities, supported) == pytest.approx(2 / 3)
    # positive-negative pairs ranked right: 0.9 > all 3; 0.6 > 0.2, 0.1; 0.4 > 0.2, 0.1 -> 7/9
    assert auroc(probabilities, supported) == pytest.approx(7 / 9)
    assert auroc([0.5, 0.6], [True, True]) is None
    # bins: [0.9]->|0.9-1|, [0.6]->0.4, [0.4]->0.6, [0.2]->0.2, [0.7]->0.7, [0.1]->0.1
    expected = (0.1 + 0.4 + 0.6 + 0.2 + 0.7 + 0.1) / 6
    assert expected_calibration_error(probabilities, supported) == pytest.approx(expected)


class CountingJudge:
    """Says P = 0.8 for claims containing 'true', 0.2 otherwise; counts the queries."""

    name = "counting"

    def __init__(self) -> None:
        self.seen = 0

    def judge(self, queries):  # type: ignore[no-untyped-def]
        self.seen += len(queries)
        verdicts = [
            SupportVerdict(
                probability=0.8 if "true" in q.claim else 0.2,
                evidence_index=0,
                evidence_span=q.evidence[0],
                scores={},
                error=None,
            )
            for q in queries
        ]
        return verdicts, []


def test_measure_resumes_and_summarises(tmp_path: Path) -> None:
    pairs = [
        LabelledPair(SupportQuery("a true claim", ["e"]), True, "1"),
        LabelledPair(SupportQuery("a made-up claim", ["e"]), False, "1"),
        LabelledPair(SupportQuery("another true claim", ["e"]), False, "2"),
    ]
    path = tmp_path / "records.jsonl"
    judge = CountingJudge()
    measure("counting", judge, "toy", pairs[:2], path)
    measure("counting", judge, "toy", pairs, path)  # resumes: only the third is judged
    assert judge.seen == 3
    [row] = summarise(read_records(path))
    assert row["pairs"] == 3 and row["items"] == 2 and row["unusable"] == 0
    assert row["balanced_accuracy"] == pytest.approx((1.0 + 0.5) / 2)
    table = markdown_table([row], lambda judge, set_name: (judge, set_name) == ("counting", "toy"))
    assert table[2].startswith("| toy | counting (in-sample) | 3 (2) | 0.750")
    assert "in-sample" not in markdown_table([row])[2]


def test_a_bigger_sample_in_another_order_resumes_by_pair_not_position(tmp_path: Path) -> None:
    pairs = [
        LabelledPair(SupportQuery(f"claim {n}{side}", ["e"]), side == "a", str(n))
        for n in range(6)
        for side in "ab"
    ]
    path = tmp_path / "records.jsonl"
    judge = CountingJudge()
    measure("counting", judge, "toy", pairs[4:6], path)  # a small sample: item 2 only
    measure("counting", judge, "toy", pairs, path)  # item 2 now sits at positions 4 and 5
    assert judge.seen == 2 + 10  # every pair judged once: item 2 was not judged again
    records = read_records(path)
    assert sorted((r["item"], r["supported"]) for r in records) == sorted(
        (p.item, p.supported) for p in pairs
    )
    # a file written when positions were the key may hold a pair twice: it counts once
    with path.open("a") as out:
        out.write(json.dumps({**records[0], "probability": 0.99}) + "\n")
    assert len(read_records(path)) == 12 and read_records(path)[0] == records[0]


def test_compacted_records_resume_from_the_archive_and_lose_nothing(tmp_path: Path) -> None:
    from veriloop.evaluation.support_measure import archive_of, compact_records

    pairs = [
        LabelledPair(SupportQuery(f"claim {n}{side}", ["e"]), side == "a", str(n))
        for n in range(3)
        for side in "ab"
    ]
    path = tmp_path / "records.jsonl"
    judge = CountingJudge()
    measure("counting", judge, "toy", pairs[:4], path)
    before = read_records(path)
    assert compact_records(path) == 4
    assert not path.exists() and archive_of(path).exists()
    assert read_records(path) == before  # the archive is read back whole
    measure("counting", judge, "toy", pairs, path)  # resumes: only the two new pairs
    assert judge.seen == 4 + 2 and len(read_records(path)) == 6
    assert compact_records(path) == 6 and len(read_records(path)) == 6


def test_sample_by_item_keeps_both_answers_of_an_item() -> None:
    pairs = [
        LabelledPair(SupportQuery(f"c{n}{side}", ["e"]), side == "a", str(n))
        for n in range(10)
        for side in "ab"
    ]
    kept = sample_by_item(pairs, 4)
    assert len(kept) == 8 and len({p.item for p in kept}) == 4
    assert sample_by_item(pairs, 4) == kept  # seeded


@pytest.mark.skipif(not (SHARED / "halueval").is_dir(), reason="shared HaluEval not present")
def test_halueval_train_and_test_items_are_disjoint() -> None:
    train = {p.item for p in halueval_pairs(SHARED / "halueval", "train")}
    test = {p.item for p in halueval_pairs(SHARED / "halueval", "test")}
    assert len(train) == 400 and len(test) == 600 and not train & test


@pytest.mark.skipif(not (SHARED / "healthver").is_dir(), reason="shared HealthVer not present")
def test_healthver_training_pairs_come_from_test_never_dev() -> None:
    training = training_pairs(SHARED, ("healthver",))
    dev = healthver_pairs(SHARED / "healthver", "dev", neutral_as_unsupported=True)
    test = healthver_pairs(SHARED / "healthver", "test", neutral_as_unsupported=True)
    assert training == test
    assert {p.supported for p in training} == {True, False}
    assert not {p.query.claim for p in training} & {p.query.claim for p in dev}


def test_an_unknown_training_source_is_refused_not_trained_on_as_zero_pairs() -> None:
    from veriloop.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="healthver_negate;.*healthver_negated"):
        training_pairs(SHARED, ("halueval", "healthver_negate"))


def test_paired_difference_uses_only_shared_pairs_against_the_reference() -> None:
    def record(judge: str, item: str, supported: bool, p: float | None) -> dict[str, object]:
        return {"judge": judge, "set": "s", "item": item, "supported": supported, "probability": p}

    records = [
        # the head is right on a and wrong on b; the other judge is right on both
        record("head", "a", True, 0.9),
        record("head", "a", False, 0.1),
        record("head", "b", True, 0.2),
        record("head", "b", False, 0.8),
        record("head", "c", True, 0.9),  # only the head judged c: not compared
        record("good", "a", True, 0.7),
        record("good", "a", False, 0.3),
        record("good", "b", True, 0.6),
        record("good", "b", False, None),  # unusable: scored just below 0.5, as in summarise
    ]
    [row] = paired_against(records, "head", resamples=200)
    assert (row["judge"], row["items"], row["pairs"]) == ("good", 2, 4)
    # good: recall supported 2/2, unsupported 2/2 (None -> just below 0.5) = 1.0; head 0.5
    assert row["difference"] == pytest.approx(0.5)
    low, high = row["ci"]
    assert 0.0 <= low <= row["difference"] <= high <= 1.0


def test_swapped_pairs_take_another_items_evidence_as_the_negative() -> None:
    from veriloop.evaluation.judge_data.support_sets import swapped

    pairs = [
        LabelledPair(SupportQuery("aspirin thins blood", ["aspirin text"], "q1"), True, "1"),
        LabelledPair(SupportQuery("aspirin cures colds", ["aspirin text"], "q1"), False, "1"),
        LabelledPair(SupportQuery("statins lower LDL", ["statin text"], "q2"), True, "2"),
        LabelledPair(SupportQuery("statins lower LDL", ["other statin text"], "q3"), True, "3"),
    ]
    out = swapped(pairs)
    assert [p.supported for p in out] == [True, False] * 3  # only supported pairs, each doubled
    by_claim = {(p.item, p.supported): p.query for p in out}
    # the other item is a seeded draw: the same seed, the same pairs; another seed, another
    assert by_claim[("1", False)].evidence == ["other statin text"]
    assert swapped(pairs, seed=1)[1].query.evidence == ["statin text"]
    assert swapped(pairs) == out
    assert by_claim[("1", False)].question == "q1"  # the claim keeps its own question
    # an item is never paired with evidence of the same claim (items 2 and 3 share one)
    assert by_claim[("2", False)].evidence == ["aspirin text"]
    assert by_claim[("3", False)].evidence == ["aspirin text"]
    assert swapped(pairs[:1]) == []  # no other item to swap in


def test_records_of_a_name_made_by_other_weights_stop_the_run(tmp_path: Path) -> None:
    from veriloop.errors import InvalidInputError

    pairs = [
        LabelledPair(SupportQuery("a true claim", ["e"]), True, "1"),
        LabelledPair(SupportQuery("a made-up claim", ["e"]), False, "1"),
    ]
    path = tmp_path / "records.jsonl"
    judge = CountingJudge()
    measure("counting", judge, "toy", pairs[:1], path, identity="aaaa")
    measure("counting", judge, "toy", pairs, path, identity="aaaa")  # same weights: resumes
    assert judge.seen == 2
    assert {r["identity"] for r in read_records(path)} == {"aaaa"}
    with pytest.raises(InvalidInputError, match="other weights"):
        measure("counting", judge, "other set", pairs, path, identity="bbbb")
    assert judge.seen == 2  # nothing judged, nothing reused
    measure("counting_b", judge, "toy", pairs, path, identity="bbbb")  # another name is fine
    assert judge.seen == 4


def test_a_cross_encoders_identity_is_its_weights(tmp_path: Path) -> None:
    from veriloop.nodes.judges import CrossEncoderJudge

    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_model.safetensors").write_bytes(b"weights one")
    (folder / "head.safetensors").write_bytes(b"head")
    judge = CrossEncoderJudge.__new__(CrossEncoderJudge)  # no model load: identity only
    judge.adapter_dir = folder
    first = judge.identity
    other = CrossEncoderJudge.__new__(CrossEncoderJudge)
    other.adapter_dir = folder
    (folder / "adapter_model.safetensors").write_bytes(b"weights two")
    assert len(first) == 16 and other.identity != first


def test_perturbed_claims_flip_polarity_by_one_edit() -> None:
    from veriloop.evaluation.judge_data.support_sets import perturbed_claim

    # an existing negation is removed, first
    assert perturbed_claim("WHO does not recommend against ibuprofen") == (
        "WHO does recommend against ibuprofen"
    )
    assert (
        perturbed_claim("Vitamin D doesn't prevent COVID-19") == "Vitamin D does prevent COVID-19"
    )
    assert perturbed_claim("Masks can't stop droplets") == "Masks can stop droplets"
    assert perturbed_claim("There is no evidence that 5G spreads it") == (
        "There is evidence that 5G spreads it"
    )
    # else "not" goes after the first auxiliary that does not open the claim
    assert perturbed_claim("Dogs can test positive for the virus.") == (
        "Dogs can not test positive for the virus."
    )
    assert perturbed_claim("Does a mask help? Masks are useful") == (
        "Does a mask help? Masks are not useful"
    )
    # else a direction word flips, keeping its case
    assert perturbed_claim("Masks reduce transmission") == "Masks increase transmission"
    assert perturbed_claim("Higher doses help") == "Lower doses help"
    # else the first number changes; a year moves by one
    assert perturbed_claim("About 40 patients died") == "About 81 patients died"
    assert perturbed_claim("Outbreak in December 2019") == "Outbreak in December 2020"
    assert perturbed_claim("Paris") is None


def test_negated_pairs_keep_the_evidence_and_drop_unperturbable_claims() -> None:
    from veriloop.evaluation.judge_data.support_sets import negated

    pairs = [
        LabelledPair(SupportQuery("Aspirin is an NSAID", ["aspirin text"], "q1"), True, "1"),
        LabelledPair(SupportQuery("Aspirin cures colds", ["aspirin text"], "q1"), False, "1"),
        LabelledPair(SupportQuery("Paris", ["France text"], "q2"), True, "2"),
    ]
    out = negated(pairs)
    assert [(p.item, p.supported) for p in out] == [("1", True), ("1", False)]
    assert out[1].query == SupportQuery("Aspirin is not an NSAID", ["aspirin text"], "q1")
