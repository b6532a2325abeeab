"""The one list of claim-support judges, each declared once (as `graphs.registry.METHODS`).

Every Context's judge setting is typed from `JudgeName`, every command and graph builds
its judge with `support_judge(name, models, supported_at=, contradicted_at=)`, and each
threshold has this one owner: the factory gives it to the judge, and every verdict the
judge returns carries its decision (`verdict`), so no caller applies a threshold of its
own. A three-way judge takes the one decision of `nodes.judges.decision` (None: the
thresholds fitted for its weights); a support-only judge says `supported` at P(supported)
>= `supported_at` (None: 0.5) and never `contradicted`.

Adding a judge: one module under `nodes/judges/` with a class that has `name` and
`judge(queries)`, and one entry here (its name in `JudgeName` too, so Studio and `--set`
offer it). `register_judge` adds one at run time (a plug-in, a test) without editing this
file; such a judge is accepted wherever a judge name is (`check_judge_name`).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from veriloop.context import open_choices
from veriloop.errors import InvalidInputError
from veriloop.models import Models
from veriloop.nodes.judges.cross_encoder import CrossEncoderJudge
from veriloop.nodes.judges.gated import CoverageGatedJudge
from veriloop.nodes.judges.head import HeadJudge
from veriloop.nodes.judges.likelihood import LikelihoodJudge
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportJudge,
    SupportQuery,
    SupportVerdict,
)
from veriloop.nodes.judges.yesno import YesNoJudge

JudgeName = Literal[
    "three_way", "three_way_model", "trained", "gated", "likelihood", "yesno", "head"
]
"""The judges a Context may name (Studio's drop-down, `--set judge=...`)."""


@dataclass(kw_only=True)
class DecisionSettings:
    """The judge's two thresholds as Context settings (mixin): one name, one owner.

    Mixed into every Context whose method decides with a claim-support judge (grounded,
    Factored Verification, M-Eval); the values go to `support_judge(name, models,
    supported_at=, contradicted_at=)`, which owns them. Old names (FV's `claim_threshold`,
    M-Eval's `stance_supports_at`) are accepted with a warning (`RENAMED` on the Context).
    """

    supported_at: float | None = field(
        default=None,
        metadata={
            "ge": 0.0,
            "le": 1.0,
            "description": "P(supported) a sentence or claim needs to be supported (an "
            "article, to support a claim). Unset: the three_way judge takes the decision "
            "fitted for its weights (nodes/judges/decision.py), the other judges 0.5.",
        },
    )
    contradicted_at: float | None = field(
        default=None,
        metadata={
            "ge": 0.0,
            "le": 1.0,
            "description": "P(contradicted) a three-way judge needs to call a sentence or "
            "claim contradicted (an article, to contradict it). Unset: the decision fitted "
            "for its weights.",
        },
    )


@dataclass(frozen=True)
class Thresholds:
    """The two thresholds of a judge's decision; None: the judge's own (fitted or 0.5)."""

    supported_at: float | None = None
    contradicted_at: float | None = None

    def __post_init__(self) -> None:
        """Refuse a threshold outside [0, 1].

        Raises:
            InvalidInputError: A threshold outside [0, 1].
        """
        for name in ("supported_at", "contradicted_at"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise InvalidInputError(f"{name} must lie in [0, 1] (got {value})")


Factory = Callable[[Models, "Thresholds"], SupportJudge]
"""Builds a judge from the models and its thresholds."""


@dataclass(frozen=True)
class JudgeEntry:
    """One judge: how to build it and what the tools say of it."""

    factory: Factory
    can_contradict: bool
    """Whether its verdicts can say `contradicted` (a three-way judge or the rules)."""
    summary: str
    benchmark_row: str
    """Its row in docs/benchmarks/support_judges.md (`benchmarks/support_judges.py`)."""


class DecidedJudge:
    """A support-only judge whose verdicts carry their decision at `supported_at`.

    P(supported) >= `supported_at` (None: 0.5) is `supported`, below it `unsupported`; a
    verdict without a probability keeps no decision (it is unusable).
    """

    def __init__(self, inner: SupportJudge, supported_at: float | None) -> None:
        """Decide `inner`'s verdicts at `supported_at` (None: 0.5)."""
        self.inner = inner
        self.supported_at = 0.5 if supported_at is None else supported_at
        self.name = getattr(inner, "name", "judge")

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return the inner judge's verdicts with `verdict` set from their probability."""
        verdicts, calls = self.inner.judge(queries)
        decided: list[SupportVerdict] = []
        for verdict in verdicts:
            p = verdict["probability"]
            if p is not None and verdict.get("verdict") is None:
                verdict = SupportVerdict(
                    **{
                        **verdict,
                        "verdict": "supported" if p >= self.supported_at else "unsupported",
                    }
                )
            decided.append(verdict)
        return decided, calls


def _three_way(models: Models, thresholds: Thresholds) -> SupportJudge:
    from veriloop.nodes.judges.three_way import MismatchCheckedJudge, ThreeWayJudge

    return MismatchCheckedJudge(
        ThreeWayJudge(
            supported_at=thresholds.supported_at, contradicted_at=thresholds.contradicted_at
        )
    )


def _three_way_model(models: Models, thresholds: Thresholds) -> SupportJudge:
    from veriloop.nodes.judges.three_way import ThreeWayJudge

    return ThreeWayJudge(
        supported_at=thresholds.supported_at, contradicted_at=thresholds.contradicted_at
    )


def _support_only(
    build: Callable[[Models], SupportJudge],
) -> Callable[[Models, Thresholds], SupportJudge]:
    def factory(models: Models, thresholds: Thresholds) -> SupportJudge:
        return DecidedJudge(build(models), thresholds.supported_at)

    return factory


JUDGES: dict[str, JudgeEntry] = {
    "three_way": JudgeEntry(
        _three_way,
        can_contradict=True,
        summary="the MiniLM three-way judge (supported / contradicted / not in the source) "
        "with the deterministic number, negation, contrast and entity checks beside it",
        benchmark_row="three_way",
    ),
    "three_way_model": JudgeEntry(
        _three_way_model,
        can_contradict=True,
        summary="the MiniLM three-way judge alone, without the deterministic checks",
        benchmark_row="three_way_model",
    ),
    "trained": JudgeEntry(
        _support_only(lambda models: CrossEncoderJudge()),
        can_contradict=False,
        summary="the MiniLM support cross-encoder (supported or not; cannot say contradicted)",
        benchmark_row="cross_encoder",
    ),
    "gated": JudgeEntry(
        _support_only(lambda models: CoverageGatedJudge(CrossEncoderJudge())),
        can_contradict=False,
        summary="the support cross-encoder, gated on the claim's content words in the source",
        benchmark_row="gated",
    ),
    "likelihood": JudgeEntry(
        _support_only(LikelihoodJudge),
        can_contradict=False,
        summary="how much the source raises the scorer model's likelihood of the claim, calibrated",
        benchmark_row="likelihood_mean_gain",
    ),
    "yesno": JudgeEntry(
        _support_only(YesNoJudge),
        can_contradict=False,
        summary="the scorer model's P(Yes) after a verification prompt",
        benchmark_row="yesno",
    ),
    "head": JudgeEntry(
        _support_only(HeadJudge),
        can_contradict=False,
        summary="the MiniLM pair-feature MLP head",
        benchmark_row="head",
    ),
}
if set(JUDGES) != set(typing.get_args(JudgeName)):  # pragma: no cover - a coding error
    raise RuntimeError("JudgeName and JUDGES name different judges")
open_choices(JudgeName, lambda: JUDGES)  # a judge registered at run time is a valid setting


def register_judge(name: str, entry: JudgeEntry) -> None:
    """Add a judge at run time, to be named wherever a judge name is taken.

    Raises:
        InvalidInputError: The name is taken.
    """
    if name in JUDGES:
        raise InvalidInputError(f"a judge called {name!r} is already registered")
    JUDGES[name] = entry


def unregister_judge(name: str) -> None:
    """Remove a judge added by `register_judge` (the built-in ones stay)."""
    if name not in typing.get_args(JudgeName):
        JUDGES.pop(name, None)


def check_judge_name(name: str, setting: str = "judge") -> None:
    """Refuse a name no judge is registered under, listing the names there are.

    Raises:
        InvalidInputError: No judge has that name.
    """
    if name not in JUDGES:
        raise InvalidInputError(f"{setting}={name!r}: no such judge; choose {', '.join(JUDGES)}")


def supported_at_of(judge: object) -> float:
    """Return the P(supported) a (possibly wrapped) judge decides `supported` at.

    Wrappers (the coverage gate, the mismatch rules) keep the judge they wrap in `inner`;
    a judge that states no threshold decides at 0.5.
    """
    seen = 0
    while judge is not None and seen < 8:
        value = getattr(judge, "supported_at", None)
        if isinstance(value, float | int):
            return float(value)
        judge, seen = getattr(judge, "inner", None), seen + 1
    return 0.5


def support_judge(
    kind: str,
    models: Models,
    *,
    supported_at: float | None = None,
    contradicted_at: float | None = None,
) -> SupportJudge:
    """Return the judge registered as `kind`, deciding at the given thresholds.

    Args:
        kind: A name in `JUDGES`.
        models: The models a scoring judge reads (the MiniLM judges load their own).
        supported_at: P(supported) a supported claim needs (None: the judge's own: the
            fitted decision of a three-way judge, 0.5 for the others).
        contradicted_at: P(contradicted) a contradicted claim needs (three-way judges;
            None: the fitted decision).

    Raises:
        InvalidInputError: An unknown kind, a threshold outside [0, 1], or a judge's
            weights are missing.
    """
    check_judge_name(kind)
    return JUDGES[kind].factory(models, Thresholds(supported_at, contradicted_at))
