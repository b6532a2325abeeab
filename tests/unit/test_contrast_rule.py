"""The aligned contrast rule (nodes/judges/contrast.py) on hand-written pairs, both ways."""

from __future__ import annotations

import pytest

from veriloop.nodes.judges.contrast import (
    aligned_mismatches,
    clauses,
    lexicon,
    rates,
)
from veriloop.nodes.judges.mismatch import find_mismatches


def found(claim: str, evidence: str) -> list[tuple[str, str, str]]:
    return [(m.kind, m.claim_span, m.evidence_span) for m in find_mismatches(claim, evidence)]


def test_the_lexicon_has_at_least_150_pairs_each_with_two_terms() -> None:
    pairs = lexicon()
    assert len(pairs) >= 150
    assert all(a.stems and b.stems and a.stems != b.stems for a, b in pairs)
    categories = {a.category for a, _ in pairs}
    assert {"inheritance", "severity", "population", "type", "organism", "prefix"} <= categories


@pytest.mark.parametrize(
    ("claim", "evidence", "claim_span", "evidence_span"),
    [
        # the done-when example: a multi-word term on one side
        (
            "Hyperthyroidism slows the body's metabolism.",
            "Hyperthyroidism speeds up the body's metabolism.",
            "slows",
            "speeds up",
        ),
        (
            "Noonan syndrome is inherited in an autosomal recessive pattern.",
            "Noonan syndrome is inherited in an autosomal dominant pattern.",
            "recessive",
            "dominant",
        ),
        (
            "The growth is usually malignant.",
            "The growth is usually benign.",
            "malignant",
            "benign",
        ),
        (
            "The disease mostly affects children.",
            "The disease mostly affects adults.",
            "children",
            "adults",
        ),
        (
            "It is a complication of type 1 diabetes.",
            "It is a complication of type 2 diabetes.",
            "type 1",
            "type 2",
        ),
        (
            "Most cases of this pneumonia are viral.",
            "Most cases of this pneumonia are bacterial.",
            "viral",
            "bacterial",
        ),
        # a prefix pair: the same word but for hyper- / hypo-
        (
            "Patients often develop hypokalemia.",
            "Patients often develop hyperkalemia.",
            "hypokalemia",
            "hyperkalemia",
        ),
        # paraphrase around the contrast: stems, stop words and word order may differ
        (
            "Acute pancreatitis mostly affects older men.",
            "In older men, the pancreatitis is usually chronic and mostly affects them.",
            "acute",
            "chronic",
        ),
        # the contrast inside one clause of a longer sentence
        (
            "The rash is painless.",
            "The rash is painful, but it fades within a week.",
            "painless",
            "painful",
        ),
    ],
)
def test_contrasts_are_named_with_both_spans(
    claim: str, evidence: str, claim_span: str, evidence_span: str
) -> None:
    assert ("contrast", claim_span, evidence_span) in found(claim, evidence)
    # the source's own sentence is no conflict
    assert found(evidence, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # both terms on one side: which applies is not a word-for-word matter
        (
            "Type 1 diabetes is more common in children.",
            "Type 1 diabetes is more common in children; type 2 in adults.",
        ),
        # a negation undoes a contrast: "not common" agrees with "rare"
        ("Headaches are not common with this drug.", "Headaches are rare with this drug."),
        # the claim adds a subject of its own: not aligned, so not compared
        ("Malignant melanoma spreads to the liver.", "Benign moles are common in adults."),
        # the contrast word is there but the rest is about something else
        ("Children with asthma need inhalers.", "Adults should get a flu vaccine every year."),
        # hyper- and hypo- words that are not the same word
        ("Hypothyroidism causes tiredness.", "Hypertension causes headaches."),
    ],
)
def test_what_is_not_aligned_is_not_flagged(claim: str, evidence: str) -> None:
    assert [k for k in found(claim, evidence) if k[0] in ("contrast", "entity")] == []


def test_a_number_and_a_rate_each_name_their_spans() -> None:
    assert found(
        "The usual adult dose is 50 mg twice a day.", "The usual adult dose is 5 mg twice a day."
    ) == [("number", "50 mg", "5 mg")]
    assert found("The drug is taken twice a day.", "The drug is taken once a week.") == [
        ("frequency", "twice a day", "once a week")
    ]
    assert found("The drug is taken daily.", "The drug is taken once a day.") == []
    # the number rule names this one first ("8 hours" vs "12 hours"); named once
    assert found("Take one tablet every 8 hours.", "Take one tablet every 12 hours.") == [
        ("number", "8 hours", "12 hours")
    ]


def test_rates_in_times_per_day() -> None:
    assert rates("twice a day") == [("twice a day", 2.0)]
    assert rates("Once a week") == [("Once a week", pytest.approx(1 / 7))]
    assert rates("every other day") == [("every other day", 0.5)]
    assert rates("three times per day and weekly") == [
        ("three times per day", 3.0),
        ("weekly", pytest.approx(1 / 7)),
    ]
    assert rates("every 6 hours") == [("every 6 hours", 4.0)]


def test_entities_of_one_kind_swapped() -> None:
    assert found(
        "Noonan syndrome is caused by mutations in the KRAS gene.",
        "Noonan syndrome is caused by mutations in the PTPN11 gene.",
    ) == [("entity", "KRAS", "PTPN11")]
    assert found(
        "Warfarin increases the risk of bleeding.", "Heparin increases the risk of bleeding."
    ) == [("entity", "warfarin", "heparin")]
    assert found(
        "Marfan syndrome is inherited in an autosomal dominant manner.",
        "Noonan syndrome is inherited in an autosomal dominant manner.",
    ) == [("entity", "marfan syndrome", "noonan syndrome")]
    # a drug named beside the one the source names is no swap
    assert (
        found(
            "Warfarin increases the risk of bleeding.",
            "Warfarin increases the risk of bleeding, as does aspirin.",
        )
        == []
    )


def test_a_negation_is_read_per_clause() -> None:
    assert clauses("It spreads fast, but it is not deadly.") == [
        "It spreads fast",
        "it is not deadly.",
    ]
    # "... but lymphoma is not" does not deny the first clause
    assert (
        found(
            "Leukemia is a cancer of the blood.",
            "Leukemia is a cancer of the blood and bone marrow, but lymphoma is not.",
        )
        == []
    )
    assert ("negation", "not", "(no negation)") in found(
        "The virus is not contagious.", "The virus is contagious."
    )


def test_short_or_empty_claims_find_nothing() -> None:
    assert aligned_mismatches("Benign.", "Malignant.") == []
    assert aligned_mismatches("", "The tumor is benign.") == []


def test_the_rules_name_the_same_spans_whatever_the_processs_hash_seed() -> None:
    """A Ray worker and the driver are different processes: sets must not pick a span."""
    import json
    import subprocess
    import sys

    script = (
        "import json\n"
        "from veriloop.nodes.judges.mismatch import find_mismatches\n"
        "claims = ['Most heart attacks are caused by cardiac arrest.']\n"
        "evidence = 'Most heart attacks are caused by a blood clot that blocks one of the "
        "coronary arteries.'\n"
        "print(json.dumps([[m.to_json() for m in find_mismatches(c, evidence)] for c in claims]))\n"
    )
    seen = set()
    for seed in ("1", "8"):  # the spans differed between these two seeds before the fix
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        seen.add(done.stdout)
    assert len(seen) == 1, seen
    found = json.loads(seen.pop())
    assert any(m["evidence_span"] == "blood clot" for row in found for m in row)
