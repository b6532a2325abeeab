"""Lay names: phrases MedQuAD's pages gloss with another page's name (benchmarks/lay_names.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from benchmarks.lay_names import MIN_PAGES, lay_names, list_file
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.knowledge.stated_names import LAY_NAMES, lay_names_of


def _rows(*answers: tuple[str, str]) -> list[dict[str, str]]:
    return [{"focus": focus, "answer": answer} for focus, answer in answers]


ARRHYTHMIA = ("Arrhythmia", "An arrhythmia is a problem with the rate or rhythm of the heartbeat.")


def test_a_phrase_glossed_with_a_pages_name_on_three_subjects_pages_names_that_page() -> None:
    rows = _rows(
        ARRHYTHMIA,
        ("Long QT syndrome", "It can cause sudden, irregular heartbeats (arrhythmia)."),
        ("Timothy syndrome", "Seizures, an irregular heartbeat (arrhythmia), and fainting."),
        ("Salih myopathy", "Signs include an irregular heartbeat (arrhythmia) and fatigue."),
        ("Brugada syndrome", "It can cause an irregular heartbeat (arrhythmia) in adults."),
    )
    assert lay_names(rows) == [("irregular heartbeat", "Arrhythmia", 3)]


def test_a_phrase_on_fewer_subjects_pages_or_split_between_names_names_none() -> None:
    two = _rows(
        ARRHYTHMIA,
        ("Long QT syndrome", "Signs include an irregular heartbeat (arrhythmia)."),
        ("Long QT syndrome", "It causes an irregular heartbeat (arrhythmia) at night."),
        ("Timothy syndrome", "Seizures, an irregular heartbeat (arrhythmia), and fainting."),
    )
    assert MIN_PAGES == 3 and lay_names(two) == []  # one subject's two pages count once
    split = _rows(
        ARRHYTHMIA,
        ("Tachycardia", "A fast heartbeat."),
        *[(f"Syndrome {n}", "It causes an irregular heartbeat (arrhythmia).") for n in range(3)],
        *[(f"Disease {n}", "It causes an irregular heartbeat (tachycardia).") for n in range(3)],
    )
    assert lay_names(split) == []  # half each: neither name is the phrase's


def test_a_bracket_glossing_a_longer_phrase_or_one_word_or_an_abbreviation_names_nothing() -> None:
    rows = _rows(
        ("Cataract", "A cataract is a clouding of the lens."),
        ("Cancer", "Cancer is a disease."),
        ("COPD", "COPD is a lung disease."),
        *[
            (
                f"Syndrome {n}",
                "Some have clouding of the lens of the eye (cataract). It is a disease in "
                "which malignant (cancer) cells form. Some have swelling (edema).",
            )
            for n in range(4)
        ],
    )
    assert lay_names(rows) == []


def test_an_abbreviation_glosses_a_name_spelled_out_not_a_lay_name() -> None:
    rows = _rows(
        ("COPD", "COPD is a lung disease."),
        *[(f"Syndrome {n}", "Some have chronic lung disease (COPD).") for n in range(4)],
    )
    assert lay_names(rows) == []


def test_a_malformed_lay_names_line_is_named_with_its_file_and_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriloop.errors import InvalidInputError
    from veriloop.knowledge import stated_names

    broken = tmp_path / "lay_names.txt"
    broken.write_text("# header\nirregular heartbeat\tArrhythmia\t6\nringing only\n")
    monkeypatch.setattr(stated_names, "LAY_NAMES", broken)
    stated_names._lay_names.cache_clear()
    try:
        with pytest.raises(InvalidInputError, match="line 3"):
            stated_names.lay_names_of("Arrhythmia")
    finally:
        stated_names._lay_names.cache_clear()


def test_the_bundled_lay_names_are_a_fresh_build_from_medquad() -> None:
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        built = lay_names(json.loads(line) for line in lines)
    assert LAY_NAMES.read_text(encoding="utf-8") == list_file(built)
    assert "irregular heartbeat" in lay_names_of("Arrhythmia")
    assert "ringing in the ears" in lay_names_of("tinnitus")
    assert lay_names_of("Noonan syndrome") == ()
