"""`SupportStances`: a support judge read as a stance judge (+1 / 0 / -1), for M-Eval."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veriloop.errors import InvalidInputError
from veriloop.models import Models
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportJudge,
    SupportQuery,
)


class SupportStances:
    """A support judge read as a stance judge: +1 supports, -1 contradicts, 0 neither.

    A support judge estimates P(supported); it does not tell "contradicts" from "is about
    something else". This adapter maps P >= `supports_at` to +1 and P < `contradicts_below`
    to -1 *only when the evidence is on the claim's topic* (MiniLM cosine of claim and
    evidence >= `relevant_at`, when `models` are given); everything else is 0. So an
    off-topic abstract is neutral, as M-Eval's stance prompt asks. It satisfies
    `nodes.judges.nli.NLIJudge`.
    """

    def __init__(
        self,
        judge: SupportJudge,
        *,
        supports_at: float = 0.5,
        contradicts_below: float = 0.1,
        models: Models | None = None,
        relevant_at: float = 0.5,
    ) -> None:
        """Wrap `judge`; the thresholds need 0 <= contradicts_below <= supports_at <= 1."""
        if not 0.0 <= contradicts_below <= supports_at <= 1.0:
            raise InvalidInputError(
                f"stance thresholds must satisfy 0 <= contradicts_below ({contradicts_below}) "
                f"<= supports_at ({supports_at}) <= 1"
            )
        self.judge = judge
        self.supports_at = supports_at
        self.contradicts_below = contradicts_below
        self.models = models
        self.relevant_at = relevant_at
        gate = f" on evidence with cosine >= {relevant_at}" if models else ""
        self.name = (
            f"{judge.name} as stances (+1 at P >= {supports_at}, -1 below "
            f"{contradicts_below}{gate})"
        )

    def stance(self, probability: float | None, relevance: float | None = None) -> int | None:
        """Return +1, 0 or -1 for a probability (None stays None: unusable)."""
        if probability is None:
            return None
        if probability >= self.supports_at:
            return 1
        on_topic = relevance is None or relevance >= self.relevant_at
        return -1 if probability < self.contradicts_below and on_topic else 0

    def verdicts(
        self,
        premises: Sequence[str],
        hypotheses: Sequence[str],
        questions: str | Sequence[str] = "",
    ) -> Judged:
        """Return the judge's verdict for each (premise, hypothesis) pair, in one batch.

        `questions` is one question for every pair, or one per pair.
        """
        if len(premises) != len(hypotheses):
            raise InvalidInputError(
                f"{len(premises)} premises but {len(hypotheses)} hypotheses; give one each"
            )
        if not premises:
            return [], []
        asked = [questions] * len(premises) if isinstance(questions, str) else list(questions)
        return self.judge.judge(
            [SupportQuery(h, [p], q) for p, h, q in zip(premises, hypotheses, asked, strict=True)]
        )

    def relevances(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float | None]:
        """Return the claim-evidence cosine per pair (None each without `models`).

        Each distinct text is embedded once, however many pairs it is in.
        """
        if self.models is None or not premises:
            return [None] * len(premises)
        texts = list(dict.fromkeys([*premises, *hypotheses]))
        vectors, _ = self.models.embed(texts, purpose="stance relevance")
        row = {text: np.asarray(vectors[i]) for i, text in enumerate(texts)}
        return [round(float(row[p] @ row[h]), 6) for p, h in zip(premises, hypotheses, strict=True)]

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return +1 / 0 / -1 per pair (an unusable verdict counts as 0, neither)."""
        verdicts, _ = self.verdicts(premises, hypotheses)
        relevances = self.relevances(premises, hypotheses)
        return [
            self.stance(v["probability"], r) or 0 for v, r in zip(verdicts, relevances, strict=True)
        ]
