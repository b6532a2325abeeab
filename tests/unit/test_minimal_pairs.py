"""The minimal-pair generator (veriloop/evaluation/judge_data: minimal_pairs, claim_edits) on hand-made pages."""

from __future__ import annotations

import random
from pathlib import Path

from veriloop.evaluation.judge_data.claim_edits import (
    contrast_edits,
    frequency_edit,
    negation_edit,
    number_edit,
    trimmed,
    with_synonym,
)
from veriloop.evaluation.judge_data.minimal_pairs import (
    cross_page_paraphrases,
    focus_split,
    generate,
    per_edit_sets,
    read_pairs,
    write_pairs,
)
from veriloop.knowledge.stated_names import stated_synonym
from veriloop.nodes.judges import CONTRADICTED, ENTAILED

PAGES = {
    # two sites' pages on one focus that state the inheritance twice, in other words
    "0001_1-1": (
        "Noonan syndrome",
        [
            "Noonan syndrome is a genetic disorder that affects many parts of the body.",
            "Noonan syndrome is inherited in an autosomal dominant pattern in most families.",
            "Affected people usually take 5 mg of the drug twice a day for several weeks.",
        ],
    ),
    "0002_1-1": (
        "Noonan syndrome",
        [
            "Noonan syndrome (also called Turner-like syndrome) has many features.",
            "In most families, Noonan syndrome is inherited in an autosomal dominant pattern.",
        ],
    ),
    "0003_1-1": (
        "Marfan syndrome",
        [
            "Marfan syndrome is a disorder of the connective tissue that supports the body.",
            "Mutations in the FBN1 gene cause Marfan syndrome in nearly all affected people.",
        ],
    ),
}


def test_cross_page_paraphrases_pair_two_sites_saying_one_fact() -> None:
    found = {(a.text, b.text) for a, b in cross_page_paraphrases(PAGES)}
    assert (
        "Noonan syndrome is inherited in an autosomal dominant pattern in most families.",
        "In most families, Noonan syndrome is inherited in an autosomal dominant pattern.",
    ) in found
    # never two sentences of one page, never two pages about different subjects
    for a, b in cross_page_paraphrases(PAGES):
        assert a.page != b.page and a.focus.lower() == b.focus.lower()


def test_entailed_forms_by_hand() -> None:
    assert trimmed("Small incisions (cuts) are made in the wall of the abdomen.") == (
        "Small incisions are made in the wall of the abdomen."
    )
    assert (
        trimmed("It affects the heart, which pumps blood through the body all day.")
        == ("It affects the heart.")
        or trimmed("It affects the heart, which pumps blood through the body all day.") is None
    )
    assert trimmed("Nothing to cut in this sentence at all.") is None
    page = " ".join(PAGES["0002_1-1"][1])
    assert stated_synonym(page, "Noonan syndrome") == "Turner-like syndrome"
    assert with_synonym("Noonan syndrome has many features.", "Noonan syndrome", "NS") == (
        "NS has many features."
    )


def test_each_edit_changes_one_span_and_names_it() -> None:
    edits = {new for _, _, new in contrast_edits("The tumor is usually benign in children.")}
    assert {"malignant", "adults"} <= edits
    assert ("The tumor is not benign.", "is", "is not") == negation_edit("The tumor is benign.")
    assert negation_edit("The tumor is not benign.") == ("The tumor is benign.", "is not", "is")
    assert negation_edit("It cannot spread.") == ("It can spread.", "cannot", "can")
    edited, old, new = number_edit("Take 5 mg a day.", random.Random(0)) or ("", "", "")
    assert old == "5 mg" and new != old and edited == f"Take {new} a day."
    edited, old, new = frequency_edit("Take it twice a day.", random.Random(0)) or ("", "", "")
    assert old == "twice a day" and new != old and new in edited
    assert frequency_edit("Take it with food.", random.Random(0)) is None
    assert number_edit("No numbers here.", random.Random(0)) is None


def test_generated_pairs_are_twins_split_by_focus(tmp_path: Path) -> None:
    pairs = generate(PAGES, seed=0)
    assert {p.label for p in pairs} >= {"entailed", "contradicted"}
    entailed = {(p.evidence, p.claim) for p in pairs if p.label == "entailed"}
    for pair in pairs:
        assert pair.split == focus_split(pair.focus)  # one focus, one split
        if pair.label == "contradicted":
            # one edit of an entailed claim, against the same evidence
            assert (pair.evidence, pair.twin) in entailed
            old, new = pair.spans
            assert old in pair.twin and new in pair.claim and pair.claim != pair.twin
    kinds = {p.kind for p in pairs if p.label == "entailed"}
    assert "cross_page" in kinds
    # written and read back unchanged
    path = tmp_path / "pairs.jsonl.gz"
    assert write_pairs(pairs, path) == len(pairs)
    assert read_pairs(path) == pairs


def test_per_edit_sets_put_each_contradiction_beside_its_twin() -> None:
    pairs = generate(PAGES, seed=0)
    split = pairs[0].split
    sets = per_edit_sets(pairs, split)
    assert sets
    for name, rows in sets.items():
        assert name.startswith("medquad_mp_")
        for twin, edited in zip(rows[::2], rows[1::2], strict=True):
            assert twin.item == edited.item and twin.label == ENTAILED and twin.supported
            assert not edited.supported
            if name != "medquad_mp_neither":
                assert edited.label == CONTRADICTED
                assert twin.query.evidence == edited.query.evidence
