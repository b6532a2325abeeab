"""`LikelihoodJudge`: the small model as a scorer, not a judge.

How much the evidence raises the scorer model's likelihood of the claim, P(claim |
evidence, question) against P(claim | question), teacher-forced, as a mean log-prob gain per
claim token (pointwise mutual information). A logistic calibration fitted on a training
split turns the gain into a probability. The evidence comes first in the prompt, so the
llama.cpp scorer's prefix reuse scores several claims against one evidence text cheaply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veriloop.models import Models, ScoreError
from veriloop.nodes.judges.calibration import (
    Calibration,
    Feature,
    load_calibration,
    sigmoid,
)
from veriloop.nodes.judges.evidence import clip
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportQuery,
    SupportVerdict,
    check_queries,
    unusable,
)
from veriloop.prompts import render
from veriloop.text import split_sentences
from veriloop.trace import ModelCall

Unit = Literal["text", "sentence"]


def likelihood_prompts(question: str) -> tuple[str, str]:
    """Return the (with evidence, prior) prompt names for a claim with or without a question."""
    if question.strip():
        return "support_answer_given_evidence", "support_answer_prior"
    return "support_claim_given_evidence", "support_claim_prior"


class LikelihoodJudge:
    """How much the evidence raises the scorer model's likelihood of the claim."""

    def __init__(
        self,
        models: Models,
        *,
        calibration: Calibration | None = None,
        feature: Feature | None = None,
        unit: Unit = "text",
        max_evidence_chars: int = 800,
    ) -> None:
        """Judge with `models.scorer`.

        Args:
            models: Where the scorer comes from.
            calibration: Raw score -> probability; default: the shipped calibration for this
                scorer (of `feature`, when given), if any. Without one, the raw score goes
                through a unit sigmoid and the judge's name says it is uncalibrated.
            feature: Which score decides (default: the calibration's, else `mean_gain`):
                `mean_gain` (mean per-token log-prob gain), `min_gain` (the least raised
                token), `conditional` (mean log-prob given the evidence, no contrast).
            unit: Score each evidence `text` whole, or each `sentence` of it (best kept).
            max_evidence_chars: Evidence texts are cut to this many characters.
        """
        self.models = models
        self.calibration = calibration or load_calibration(
            "likelihood", models.scorer.name, feature or ""
        )
        self.feature: Feature = feature or (
            self.calibration.feature if self.calibration else "mean_gain"
        )
        self.unit = unit
        self.max_evidence_chars = max_evidence_chars
        state = "calibrated" if self.calibration else "uncalibrated"
        self.name = (
            f"evidence likelihood gain ({self.feature}, {unit}s, {state}) on {models.scorer.name}"
        )

    def _units(self, evidence: Sequence[str]) -> list[tuple[int, str]]:
        units: list[tuple[int, str]] = []
        for index, text in enumerate(evidence):
            clipped = clip(text, self.max_evidence_chars)
            if not clipped:
                continue
            if self.unit == "sentence":
                units.extend((index, sentence) for sentence in split_sentences(clipped))
            else:
                units.append((index, clipped))
        return units

    def raw_scores(
        self, query: SupportQuery, calls: list[ModelCall]
    ) -> tuple[int, str, dict[str, float]]:
        """Return the most supportive evidence unit and its scores (all features).

        Raises:
            ScoreError: The claim cannot be scored.
        """
        with_evidence, prior_name = likelihood_prompts(query.question)
        target = " " + " ".join(query.claim.split())
        prior = self.models.score(
            render(prior_name, question=query.question.strip()).rstrip(),
            target,
            purpose="support_prior",
        )
        calls.append(prior.call)
        best: tuple[int, str, dict[str, float]] | None = None
        for index, text in self._units(query.evidence):
            prompt = render(with_evidence, evidence=text, question=query.question.strip()).rstrip()
            scored = self.models.score(prompt, target, purpose="support_evidence")
            calls.append(scored.call)
            gains = [
                c - p
                for c, p in zip(scored.logprobs.logprobs, prior.logprobs.logprobs, strict=False)
            ]
            scores = {
                "conditional": scored.logprobs.mean,
                "prior": prior.logprobs.mean,
                "mean_gain": scored.logprobs.mean - prior.logprobs.mean,
                "min_gain": min(gains) if gains else 0.0,
            }
            if best is None or scores[self.feature] > best[2][self.feature]:
                best = (index, text, scores)
        if best is None:
            raise ScoreError("no evidence text left to score")
        return best

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the calibrated probability of its best evidence."""
        check_queries(queries)
        calls: list[ModelCall] = []
        verdicts: list[SupportVerdict] = []
        for query in queries:
            try:
                index, text, scores = self.raw_scores(query, calls)
            except ScoreError as exc:
                verdicts.append(unusable(f"cannot score the claim: {exc}"))
                continue
            value = scores[self.feature]
            probability = (
                self.calibration.probability(value) if self.calibration else sigmoid(value)
            )
            verdicts.append(
                SupportVerdict(
                    probability=round(probability, 6),
                    evidence_index=index,
                    evidence_span=text,
                    scores={k: round(v, 6) for k, v in scores.items()},
                    error=None,
                )
            )
        return verdicts, calls
