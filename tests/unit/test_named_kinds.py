"""The kinds a subject's own pages name: lists of its types or causes, read from text."""

from __future__ import annotations

from veriloop.nodes.named_kinds import listed_kinds, named_kinds

MEDLINEPLUS = (
    "Although dementia is common in very elderly people, it is not part of normal aging. "
    "Many different diseases can cause dementia, including Alzheimer's disease and stroke."
)
NINDS = (
    "Some of the diseases that can cause symptoms of dementia are Alzheimers disease, "
    "vascular dementia, Lewy body dementia, frontotemporal dementia, Huntingtons disease, "
    "and Creutzfeldt-Jakob disease. Doctors have identified other conditions."
)


def test_the_diseases_a_page_lists_as_causing_its_subject_are_read_in_order() -> None:
    assert named_kinds("Dementia", MEDLINEPLUS) == ["Alzheimer's disease", "stroke"]
    assert named_kinds("dementia", NINDS) == [
        "Alzheimers disease",
        "vascular dementia",
        "Lewy body dementia",
        "frontotemporal dementia",
        "Huntingtons disease",
        "Creutzfeldt-Jakob disease",
    ]


def test_a_subjects_types_are_read_and_its_own_name_is_not_a_kind() -> None:
    text = "The main types of diabetes are type 1 diabetes, type 2 diabetes and diabetes."
    assert named_kinds("Diabetes", text) == ["type 1 diabetes", "type 2 diabetes"]
    # the most common kind, named alone: "Is eczema hereditary?" was refused, Eczema's
    # pages saying nothing on inheritance, atopic dermatitis's saying how it is inherited
    eczema = "Eczema is not contagious. The most common type of eczema is atopic dermatitis."
    assert named_kinds("Eczema", eczema) == ["atopic dermatitis"]
    assert named_kinds("Eczema", "One type of eczema is more common in babies.") == []


def test_a_list_about_another_subject_names_no_kind_of_this_one() -> None:
    assert named_kinds("Stroke", NINDS) == []  # causes of dementia, not of stroke
    assert named_kinds("dementia", "Dementia can cause falls, including hip fractures.") == []
    assert named_kinds("", MEDLINEPLUS) == []


def test_list_items_that_are_no_names_are_left_out() -> None:
    long_items = (
        "Conditions that can cause anemia include 2 rare forms, long-standing kidney "
        "disease with high blood pressure and its many complications of the body, and lead "
        "poisoning."
    )
    assert named_kinds("anemia", long_items) == ["lead poisoning"]  # too long, a digit first
    generic = (
        "Diseases that can cause anemia include infections, certain medicines, other "
        "conditions and kidney disease."
    )
    assert named_kinds("anemia", generic) == ["kidney disease"]  # no condition's names


def test_a_name_is_read_without_its_parenthesis_and_once_whatever_its_case() -> None:
    text = (
        "Many diseases can cause dementia, including Alzheimer\u2019s disease (AD), Stroke "
        "and stroke."
    )
    assert named_kinds("dementia", text) == ["Alzheimer's disease", "Stroke"]
    # the subject's page name in parentheses is no word the text must write
    subject = "Dementia (Major Neurocognitive Disorder)"
    assert named_kinds(subject, MEDLINEPLUS) == ["Alzheimer's disease", "stroke"]


def test_each_kind_keeps_the_sentence_that_lists_it() -> None:
    text = f"Vascular dementia can follow a stroke. {MEDLINEPLUS}"
    kinds = listed_kinds("dementia", text)
    assert [k.name for k in kinds] == ["Alzheimer's disease", "stroke"]
    assert {k.sentence for k in kinds} == {
        "Many different diseases can cause dementia, including Alzheimer's disease and stroke."
    }
