"""First-word names: two-word pages MedQuAD names by their first word alone."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from benchmarks.first_word_names import MIN_TEXTS, common_words, first_word_names, list_file
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.knowledge.stated_names import FIRST_WORD_NAMES, first_word_name_of

CANKER = [
    {"focus": "Canker Sores", "answer": "Canker sores are small sores in the mouth."},
    {"focus": "Canker Sores", "answer": "Avoid spicy food while you have a canker sore."},
    {"focus": "Mouth Disorders", "answer": "Mouth problems include canker sores."},
]


def test_a_first_word_written_only_before_the_names_last_names_the_page() -> None:
    assert first_word_names(CANKER, frozenset()) == [("canker", "Canker Sores", 3)]
    # the same text twice counts once: fewer than MIN_TEXTS distinct texts name nothing
    assert MIN_TEXTS == 3 and first_word_names([*CANKER[:2], CANKER[1]], frozenset()) == []


def test_a_word_written_alone_held_by_another_name_or_common_names_nothing() -> None:
    alone = [*CANKER, {"focus": "Mouth Disorders", "answer": "A canker can hurt."}]
    assert first_word_names(alone, frozenset()) == []
    held = [*CANKER, {"focus": "Canker Rash", "answer": "A rash."}]
    assert first_word_names(held, frozenset()) == []
    assert first_word_names(CANKER, frozenset({"canker"})) == []
    # a possessive is read without its "'s" against the common words ("todd" is one)
    todd = [
        {"focus": "Todd's Paralysis", "answer": f"Todd's paralysis follows a seizure {n}."}
        for n in range(3)
    ]
    assert first_word_names(todd, frozenset())[0][0] == "todd's"
    assert first_word_names(todd, frozenset({"todd"})) == []
    # a name of one specific word or three has no first word to name it by
    three = [
        {"focus": "Canker Mouth Sores", "answer": f"Canker mouth sores hurt {n}."} for n in range(3)
    ]
    assert first_word_names(three, frozenset()) == []


def test_a_malformed_first_word_names_line_is_named_with_its_file_and_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriloop.errors import InvalidInputError
    from veriloop.knowledge import stated_names

    broken = tmp_path / "first_word_names.txt"
    broken.write_text("# header\ncanker\tCanker Sores\t10\nwhooping\tWhooping Cough\n")
    monkeypatch.setattr(stated_names, "FIRST_WORD_NAMES", broken)
    stated_names._first_word_names.cache_clear()
    try:
        with pytest.raises(InvalidInputError, match="line 3.*first_word_names.py"):
            stated_names.first_word_name_of("Canker Sores")
    finally:
        stated_names._first_word_names.cache_clear()


def test_the_bundled_first_word_names_are_a_fresh_build_from_medquad() -> None:
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        built = first_word_names((json.loads(line) for line in lines), common_words())
    assert FIRST_WORD_NAMES.read_text(encoding="utf-8") == list_file(built)
    assert first_word_name_of("Canker Sores") == "canker"
    assert first_word_name_of("Whooping Cough") == "whooping"
    # common English words name no page: a person's name, a city, an adjective
    assert first_word_name_of("Todd's Paralysis") is None
    assert first_word_name_of("Warsaw breakage syndrome") is None
    assert first_word_name_of("Marine Toxins") is None
    assert first_word_name_of("Cold Sores") is None  # MedQuAD writes "cold" alone
