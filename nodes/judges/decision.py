"""One calibrated decision: P(entailed), P(contradicted) and the rules -> a claim's verdict.

Every place that checks a claim with the three-way judge (the grounded default's sentence
check, `veriloop verify` and its batch mode, `veriloop.check`, the guard, Factored
Verification, M-Eval's stances) takes the verdict `decide` gives:

1. a deterministic conflict (`nodes.judges.mismatch`: a number, a date, a negation, a lexicon
   contrast, a rate, a swapped entity) -> **contradicted**, both spans named;
2. else P(contradicted) >= `contradicted_at`, above P(entailed), from evidence that shares
   a content word with the claim -> **contradicted**;
3. else P(entailed) >= `supported_at`, and not below P(contradicted) -> **supported**;
4. else **unsupported** (a claim the model finds more likely denied than backed is never
   called supported, even where its P(contradicted) is short of `contradicted_at`).

The two thresholds are fitted (`benchmarks/fit_decision.py`) on dev parts that no table
reports and no training run saw (CANNOT dev, CliniFact dev, ScoNe dev and the MedQuAD
minimal pairs of dev pages), and shipped beside the weights they were fitted for
(`decision.json` in the judge's folder). A folder without one decides at 0.5 / 0.5.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriloop.errors import InvalidInputError
from veriloop.nodes.judges.protocol import ClaimVerdict

DECISION_FILE = "decision.json"


@dataclass(frozen=True)
class Decision:
    """The thresholds of the one decision, and where they were fitted."""

    supported_at: float = 0.5
    contradicted_at: float = 0.5
    fitted_on: str = "not fitted: the 0.5 defaults"

    def __post_init__(self) -> None:
        """Refuse thresholds outside [0, 1].

        Raises:
            InvalidInputError: A threshold outside [0, 1].
        """
        if not (0.0 <= self.supported_at <= 1.0 and 0.0 <= self.contradicted_at <= 1.0):
            raise InvalidInputError(
                "supported_at and contradicted_at must lie in [0, 1] "
                f"(got {self.supported_at}, {self.contradicted_at})"
            )


def load_decision(judge_dir: Path) -> Decision:
    """Return the decision fitted for the judge in `judge_dir` (0.5 / 0.5 when none is).

    Raises:
        InvalidInputError: The file exists but is not a decision.
    """
    path = Path(judge_dir) / DECISION_FILE
    if not path.is_file():
        return Decision()
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return Decision(
            float(data["supported_at"]), float(data["contradicted_at"]), str(data["fitted_on"])
        )
    except (ValueError, KeyError, TypeError) as error:
        raise InvalidInputError(
            f"{path} is not a decision file ({error}); re-run benchmarks/fit_decision.py"
        ) from error


def decide(
    p_entailed: float,
    p_contradicted: float,
    decision: Decision,
    *,
    about_it: bool = True,
    conflicts: int = 0,
) -> ClaimVerdict:
    """Return the claim's verdict (see the module docstring for the order of the steps).

    Args:
        p_entailed: The judge's P(entailed) on the evidence the claim is best backed by.
        p_contradicted: Its highest P(contradicted) over the evidence.
        decision: The thresholds.
        about_it: Whether the contradicting evidence shares a content word with the claim
            (a text about something else cannot deny it).
        conflicts: Deterministic conflicts the rules found.
    """
    if conflicts:
        return "contradicted"
    if p_contradicted >= decision.contradicted_at and p_contradicted > p_entailed and about_it:
        return "contradicted"
    if p_entailed >= decision.supported_at and p_entailed >= p_contradicted:
        return "supported"
    return "unsupported"


def decision_of(judge: object) -> Decision | None:
    """Return the decision a (possibly wrapped) three-way judge takes; None for other judges.

    Wrappers (the coverage gate, the mismatch rules) keep the judge they wrap in `inner`.
    """
    seen = 0
    while judge is not None and seen < 8:
        if hasattr(judge, "supported_at") and hasattr(judge, "contradicted_at"):
            return Decision(judge.supported_at, judge.contradicted_at)
        judge, seen = getattr(judge, "inner", None), seen + 1
    return None
