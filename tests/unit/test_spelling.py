"""Misspelt condition names corrected to the names a source's pages use."""

from __future__ import annotations

from veriloop.knowledge.spelling import NameSpeller

NAMES = [
    "Beckwith-Wiedemann syndrome",
    "Familial Mediterranean fever",
    "Birth Defects",
    "Antiphospholipid Syndrome",
]


def test_a_misspelt_page_name_is_corrected_to_it() -> None:
    speller = NameSpeller(NAMES)
    assert speller.corrected("Beckwith-Wieddeman Syndrome.") == "Beckwith-Wiedemann Syndrome."
    assert speller.corrected("more about Familial Mediterean Fever") == (
        "more about Familial Mediterranean Fever"
    )
    assert speller.corrected("antiphosoholipid sydrome") == "antiphospholipid syndrome"


def test_english_words_and_names_stay_as_written() -> None:
    speller = NameSpeller(NAMES)
    # English words, however close to a name word; a short word; a name word itself
    for question in ["my husband has weight loss", "is it a defect", "Mediterranean diet"]:
        assert speller.corrected(question) == question
    # a misspelt English word closer to one ("defecates") than to a name word ("defects")
    assert speller.corrected("side efectes") == "side efectes"
