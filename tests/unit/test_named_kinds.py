"""The kinds a subject's own pages name: lists of its types or causes, read from text."""

from __future__ import annotations

from veriloop.nodes.named_kinds import named_kinds

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


def test_a_list_about_another_subject_names_no_kind_of_this_one() -> None:
    assert named_kinds("Stroke", NINDS) == []  # causes of dementia, not of stroke
    assert named_kinds("dementia", "Dementia can cause falls, including hip fractures.") == []
    assert named_kinds("", MEDLINEPLUS) == []


def test_list_items_that_are_no_names_are_left_out() -> None:
    text = (
        "Conditions that can cause anemia include (rarely) 2 rare forms, long-standing "
        "kidney disease with high blood pressure and its many complications of the body, "
        "and lead poisoning."
    )
    assert named_kinds("anemia", text) == ["lead poisoning"]
