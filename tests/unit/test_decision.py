"""The one decision (nodes/judges/decision.py): hand-computed cases and its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriloop.errors import InvalidInputError
from veriloop.nodes.judges.decision import Decision, decide, decision_of, load_decision

AT = Decision(supported_at=0.56, contradicted_at=0.2)


@pytest.mark.parametrize(
    ("p_e", "p_c", "about", "conflicts", "expected"),
    [
        (0.9, 0.05, True, 0, "supported"),
        (0.9, 0.05, True, 1, "contradicted"),  # a rule's conflict overrides the model
        # issue 36: P(supported) 0.515 with P(contradicted) 0.711 is not supported
        (0.515, 0.711, True, 0, "contradicted"),
        (0.515, 0.711, False, 0, "unsupported"),  # a text about something else denies nothing
        (0.1, 0.25, True, 0, "contradicted"),
        (0.3, 0.25, True, 0, "unsupported"),  # P(contradicted) must be above P(entailed)
        (0.55, 0.1, True, 0, "unsupported"),  # below supported_at
        (0.56, 0.1, True, 0, "supported"),
    ],
)
def test_decide_by_hand(p_e: float, p_c: float, about: bool, conflicts: int, expected: str) -> None:
    assert decide(p_e, p_c, AT, about_it=about, conflicts=conflicts) == expected


def test_more_likely_denied_is_never_supported() -> None:
    """Issue 36: P(supported) 0.515 beside P(contradicted) 0.711 came back supported."""
    strict = Decision(supported_at=0.44, contradicted_at=0.8)
    assert decide(0.515, 0.711, strict) == "unsupported"
    assert decide(0.515, 0.3, strict) == "supported"
    assert decide(0.1, 0.85, strict) == "contradicted"


def test_the_decision_file_is_read_and_bad_ones_are_named(tmp_path: Path) -> None:
    assert load_decision(tmp_path) == Decision()  # none: 0.5 / 0.5
    (tmp_path / "decision.json").write_text(
        json.dumps({"supported_at": 0.6, "contradicted_at": 0.3, "fitted_on": "dev"})
    )
    assert load_decision(tmp_path) == Decision(0.6, 0.3, "dev")
    (tmp_path / "decision.json").write_text(json.dumps({"supported_at": 0.6}))
    with pytest.raises(InvalidInputError, match="is not a decision file"):
        load_decision(tmp_path)
    with pytest.raises(InvalidInputError, match="must lie in"):
        Decision(1.5, 0.2)


def test_the_shipped_judge_has_a_fitted_decision() -> None:
    from veriloop.nodes.judges.cross_encoder import THREE_WAY_DIR

    fitted = load_decision(THREE_WAY_DIR)
    assert fitted.fitted_on.startswith("worst balanced three-way accuracy")
    data = json.loads((THREE_WAY_DIR / "decision.json").read_text())
    assert set(data["dev_accuracy"]) == {
        "cannot_dev",
        "clinifact_dev",
        "scone_dev",
        "medquad_mp_dev",
    }


def test_decision_of_finds_the_thresholds_inside_wrappers() -> None:
    class Inner:
        supported_at, contradicted_at = 0.6, 0.3

    class Wrapper:
        def __init__(self, inner: object) -> None:
            self.inner = inner

    assert decision_of(Wrapper(Wrapper(Inner()))) == Decision(0.6, 0.3)
    assert decision_of(Wrapper(object())) is None
