"""Self-Reflection's three scorers: factuality, consistency and question entailment.

The arithmetic is in small pure functions (`weighted_mean`, `cosine`); the scorers call
the model gateway and turn an unscoreable text into a failed score (None, read as -inf:
it forces refinement) with the reason, never into NaN. A model server that does not
answer is not a scoring failure: its `ModelUnavailableError` propagates.

- Factuality (Ji et al. eq. 1, normalised as the reference code does): the mean log-prob
  per knowledge token under the scoring prompt T(D, Q) with D demonstrations.
- Consistency (CTRL-Eval's consistency aspect, rebuilt for an offline causal LM): two
  infilling evaluators, knowledge -> answer and answer -> knowledge, each the mean token
  log-likelihood of the masked side given the other, combined by a weighted average
  (equal weights by default; CTRL-Eval's inverse-word-frequency weights need PEGASUS and
  corpus statistics that are not available offline, so the weights are pluggable).
- Entailment: cosine similarity of the question's and the answer's sentence embeddings
  (the paper uses sentence-BERT similarity, not NLI).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from veriloop.errors import ModelUnavailableError
from veriloop.models import Models, ScoreError
from veriloop.nodes.claims import NO_TARGETS, YES_TARGETS, probability_from_logprobs
from veriloop.prompts import demonstrations, render
from veriloop.trace import ModelCall


@dataclass(frozen=True)
class ScoreOutcome:
    """A score (None when it failed), why it failed, and the calls it took."""

    value: float | None
    error: str | None = None
    calls: list[ModelCall] = field(default_factory=list)


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    """Return sum(w*v)/sum(w).

    Raises:
        ValueError: Lengths differ, a weight is negative, or all weights are zero.
    """
    if len(values) != len(weights):
        raise ValueError(f"{len(values)} values but {len(weights)} weights")
    if any(weight < 0 for weight in weights) or sum(weights) == 0:
        raise ValueError("weights must be non-negative and not all zero")
    return float(sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights))


def cosine(first: npt.ArrayLike, second: npt.ArrayLike) -> float:
    """Return the cosine similarity of two vectors (0.0 when either is all zeros)."""
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return 0.0 if norm == 0 else float(a @ b / norm)


def require_token_scores(models: Models, *, method: str, why: str) -> None:
    """Stop a run before it starts when its backend cannot give token log-probs.

    Raises:
        ModelUnavailableError: `models` has no token scorer (a chat-only server, a server
            started without logits, or echoed log-probs that failed the alignment check);
            the message says why and what to set.
    """
    if not models.can_score:
        raise ModelUnavailableError(
            f"{method} needs token log-probs ({why}), but {models.scoring_unavailable_reason()}"
        )


@dataclass(frozen=True)
class YesNoReading:
    """What the scorer's " Yes" / " No" continuations say about a claim.

    Attributes:
        probability: P(Yes) / (P(Yes) + P(No)) (0.5 when both vanish), or P(Yes) alone
            when the reading was not normalised.
        p_yes: P(" Yes") summed over its spellings.
        p_no: P(" No") summed over its spellings; None when it was not read.
        calls: The scoring calls made.
    """

    probability: float
    p_yes: float
    p_no: float | None
    calls: list[ModelCall]

    def scores(self) -> dict[str, float]:
        """Return the readings a verdict records (P(No) only when it was read)."""
        out = {"p_yes": self.p_yes}
        if self.p_no is not None:
            out["p_no"] = self.p_no
        return out


def yes_no_probability(
    models: Models, prompt: str, *, purpose: str, normalise: bool = True
) -> YesNoReading:
    """Read P(supported) from the scorer's " Yes" / " No" continuations after `prompt`.

    Args:
        models: The models; the scorer must return token log-probs.
        prompt: The judging prompt, ending where " Yes" or " No" would follow.
        purpose: The purpose recorded on the scoring calls.
        normalise: Read P(No) too and return P(Yes) / (P(Yes) + P(No)); otherwise P(Yes).

    Raises:
        ScoreError: A target cannot be scored.
    """
    targets = YES_TARGETS + (NO_TARGETS if normalise else ())
    scored, calls = models.score_targets(prompt, targets, purpose=purpose)
    values = [s.logprobs for s in scored]
    p_yes = probability_from_logprobs(values[: len(YES_TARGETS)])
    if not normalise:
        return YesNoReading(p_yes, p_yes, None, calls)
    p_no = probability_from_logprobs(values[len(YES_TARGETS) :])
    p = p_yes / (p_yes + p_no) if p_yes + p_no > 0 else 0.5
    return YesNoReading(p, p_yes, p_no, calls)


def factuality(
    models: Models,
    question: str,
    knowledge: str,
    *,
    demo_count: int,
    overrides: Mapping[str, str] | None = None,
) -> ScoreOutcome:
    """Score knowledge by its mean token log-prob under the factuality prompt."""
    prompt = render(
        "factuality_scorer",
        overrides,
        demos=demonstrations(demo_count, overrides),
        question=question,
    )
    try:
        scored = models.score(prompt, knowledge, purpose="factuality")
    except ScoreError as exc:
        return ScoreOutcome(None, f"factuality could not be scored: {exc}")
    return ScoreOutcome(scored.logprobs.mean, None, [scored.call])


def consistency(
    models: Models,
    knowledge: str,
    answer: str,
    *,
    weights: Sequence[float] = (0.5, 0.5),
    overrides: Mapping[str, str] | None = None,
) -> ScoreOutcome:
    """Score how consistent an answer is with the knowledge, in both infilling directions."""
    forward_prompt = render("consistency_forward", overrides, prefix=knowledge)
    backward_prompt = render("consistency_backward", overrides, continuation=answer)
    calls: list[ModelCall] = []
    try:
        forward = models.score(forward_prompt, answer, purpose="consistency_forward")
        calls.append(forward.call)
        backward = models.score(backward_prompt, knowledge, purpose="consistency_backward")
        calls.append(backward.call)
    except ScoreError as exc:
        return ScoreOutcome(None, f"consistency could not be scored: {exc}", calls)
    value = weighted_mean([forward.logprobs.mean, backward.logprobs.mean], weights)
    return ScoreOutcome(value, None, calls)


def entailment(models: Models, question: str, answer: str) -> ScoreOutcome:
    """Score an answer by the cosine similarity of its embedding to the question's."""
    if not answer.strip():
        return ScoreOutcome(None, "entailment could not be scored: the answer is empty")
    vectors, call = models.embed([question, answer], purpose="entailment")
    return ScoreOutcome(cosine(vectors[0], vectors[1]), None, [call])
