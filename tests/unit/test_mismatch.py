"""The deterministic contradiction checks, on hand-written claims and evidence."""

from __future__ import annotations

import pytest

from veriloop.nodes.judges.mismatch import closest_sentence, find_mismatches, quantities

WARFARIN = (
    "The most common serious side effect of warfarin is bleeding. "
    "Hair loss is an uncommon side effect."
)


def kinds(claim: str, evidence: str) -> list[str]:
    return [m.kind for m in find_mismatches(claim, evidence)]


def test_quantities_normalise_units_and_ranges() -> None:
    assert quantities("Take 5-10 milligrams twice, for 3 yrs; 20% improved") == [
        ("5-10 milligrams", "mg", 5.0, 10.0),
        ("3 yrs", "years", 3.0, 3.0),
        ("20%", "%", 20.0, 20.0),
    ]


def test_micro_signs_and_case_read_as_one_unit() -> None:
    # the micro sign (U+00B5) and Greek mu (U+03BC, U+039C) are all micrograms
    assert [q[1] for q in quantities("5 \u00b5g, 5 \u03bcg, 5 \u039cg, 2 mmol/L")] == [
        "mcg",
        "mcg",
        "mcg",
        "mmol/l",
    ]


def test_the_warfarin_claim_conflicts_on_its_quantifier() -> None:
    found = find_mismatches("Warfarin also causes hair loss in most patients.", WARFARIN)
    assert [m.kind for m in found] == ["quantifier"]
    assert found[0].claim_span == "most"
    assert found[0].evidence_span == "uncommon"
    assert found[0].evidence_sentence == "Hair loss is an uncommon side effect."
    assert "'most'" in found[0].reason and "'uncommon'" in found[0].reason


def test_a_superlative_most_is_not_a_share() -> None:
    # "most common" in the evidence must not read as "most patients"
    assert kinds("Bleeding is the most common serious side effect of warfarin.", WARFARIN) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        ("The usual dose is 10 mg a day.", "The usual dose is 100 mg a day.", ["number"]),
        ("The usual dose is 10 mg a day.", "The usual dose is 10 mg a day.", []),
        ("The usual dose is 10 mg a day.", "Doses range from 5-20 mg a day.", []),
        (
            "About 30% of patients relapse.",
            "About 13% of patients relapse within a year.",
            ["number"],
        ),
        ("Symptoms last 2 weeks.", "Symptoms usually last about two weeks.", []),
        # several percentages in the sentence: which one the claim means is unsure
        ("About 30% of patients relapse.", "About 13% relapse and 20% of patients die.", []),
        # decades are not years
        ("The war dates to the early 1800s.", "The war dates to 1832.", []),
        # a short answer inside a long sentence with a "no" in it is not a negation
        (
            "Jack Sock plays tennis.",
            "Jack Sock is a tennis player, ranked world No. 8 in doubles and singles.",
            [],
        ),
        # a unit the evidence never uses is unsupported, not contradicted
        ("The usual dose is 10 mg a day.", "The drug is taken once a day.", []),
        ("The vaccine was approved in 1995.", "The vaccine was approved in 2005.", ["date"]),
        ("The vaccine was approved in 1995.", "It was licensed in 1995 after trials.", []),
        # several years in the sentence: which event the claim dates is unsure
        (
            "The vaccine was approved in 1995.",
            "The vaccine, tested in 1990, was approved in 2005.",
            [],
        ),
        ("Aspirin does not reduce fever.", "Aspirin does reduce fever.", ["negation"]),
        ("Aspirin reduces fever.", "Aspirin does not reduce fever.", ["negation"]),
        ("Aspirin reduces fever.", "Aspirin reduces fever in adults.", []),
        # double negation, and "no longer" is no negation
        ("It is not uncommon.", "It is not uncommon in children.", []),
        ("Statins lower LDL cholesterol.", "Statins no longer lower LDL cholesterol.", []),
        (
            "Exercise increases insulin sensitivity.",
            "Exercise decreases insulin sensitivity.",
            ["direction"],
        ),
        ("Exercise increases insulin sensitivity.", "Exercise increases insulin sensitivity.", []),
        # both directions stated: nothing to compare
        (
            "The drug increases heart rate.",
            "The drug increases heart rate and decreases blood pressure.",
            [],
        ),
        (
            "Seizures are rare after the vaccine.",
            "Seizures are common after the vaccine.",
            ["quantifier"],
        ),
        # neighbouring bands are not a conflict
        ("Headaches are common with this drug.", "Headaches always occur with this drug.", []),
        # a negated frequency has no clear band
        ("Headaches are not common with this drug.", "Headaches are rare with this drug.", []),
        # different subjects: no shared content, no comparison of quantifiers
        ("Nausea is rare.", "Most patients recover fully.", []),
    ],
)
def test_rules_on_hand_written_pairs(claim: str, evidence: str, expected: list[str]) -> None:
    assert kinds(claim, evidence) == expected


def test_the_closest_sentence_is_compared() -> None:
    evidence = (
        "Warfarin is an anticoagulant. The usual dose is 5 mg a day. It was approved in 1954."
    )
    sentence, shared, similarity = closest_sentence("The usual warfarin dose is 50 mg.", evidence)
    assert sentence == "The usual dose is 5 mg a day."
    assert shared == 2  # usual, dose ("warfarin" is in another sentence)
    # Jaccard: {usual, dose} of {usual, warfarin, dose}; "day" and "mg" are unit words
    assert similarity == pytest.approx(2 / 3)
    assert kinds("The usual warfarin dose is 50 mg.", evidence) == ["number"]


def test_no_evidence_or_nothing_shared_finds_nothing() -> None:
    assert find_mismatches("The dose is 10 mg.", "") == []
    # a unit and a number in common are no shared subject
    assert find_mismatches("The dose is 10 mg.", "Completely unrelated words here 100 mg.") == []


def test_a_list_whose_bullets_the_scrape_lost_is_copied_item_by_item() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    evidence = (
        "Signs of a stroke may include: Sudden weakness Confusion Trouble speaking Sudden "
        "headache A transient ischemic attack has the same signs as a stroke."
    )
    listed = "Signs of a stroke may include: sudden weakness; confusion; trouble speaking."
    assert copied_sentence(listed, evidence)
    assert copied_sentence("A transient ischemic attack has the same signs as a stroke.", evidence)
    # a run must still end where an item does
    assert (
        copied_sentence("Signs of a stroke may include: sudden weakness; trouble", evidence) is None
    )


def test_a_list_quoted_after_its_glued_heading_was_removed_is_a_copy() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    evidence = (
        "What Standard Treatments Do Here is what the standard treatments are designed to do. "
        "- Surgery takes out the cancer. - Hormone therapy keeps cancer cells from growing."
    )
    quote = (
        "Here is what the standard treatments are designed to do: surgery takes out the cancer; "
        "hormone therapy keeps cancer cells from growing."
    )
    assert copied_sentence(quote, evidence)
    assert copied_sentence("is what the standard treatments are designed to do.", evidence) is None


def test_a_name_after_a_lower_case_word_is_no_place_a_copy_may_start() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    evidence = "It is not known whether Alzheimer disease is inherited."
    assert copied_sentence("Alzheimer disease is inherited.", evidence) is None
    assert (
        copied_sentence("Metformin is safe for you.", "Ask whether Metformin is safe for you.")
        is None
    )


def test_a_sentence_cut_after_a_list_item_written_as_a_name_is_a_copy() -> None:
    from veriloop.nodes.judges.mismatch import copied_sentence

    evidence = (
        "The main features of ADHD are - Inattention - Hyperactivity - Impulsivity No one "
        "knows exactly what causes ADHD. It sometimes runs in families."
    )
    assert copied_sentence("No one knows exactly what causes ADHD.", evidence)
    assert copied_sentence(
        "The main features of ADHD are: inattention; hyperactivity; impulsivity.", evidence
    )
