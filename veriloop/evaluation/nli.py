"""NLI judges: does a premise entail (+1), contradict (-1) or neither (0) a hypothesis?

The paper's Med-NLI uses SciFive, which cannot be loaded offline, and no trustworthy
three-way NLI model ships on PyPI. We measured two offline options on HealthVer dev
(1,917 evidence-claim pairs; the majority class, Neutral, is 51.8%):

- `EmbeddingNLI` (default): a small MLP head over all-MiniLM-L6-v2 pair features
  [u, v, |u-v|, u*v], trained on HealthVer's test split (never used for evaluation
  here) by `benchmarks/train_nli_head.py`: 64.6% accuracy, recall Refutes 33.5%,
  Neutral 76.3%, Supports 65.5% (`veriloop/evaluation/data/nli_head_minilm.json`). It was
  trained on COVID-19 claims; how well it transfers to other medical QA is not measured.
- `LogprobNLI`: zero-shot, comparing the scorer model's log-probs of " supports",
  " refutes", " neither" after `prompts/nli_judge.txt`, calibrated on a content-free input
  (Zhao et al. 2021). On SmolLM2-135M: 30% on 150 dev pairs, below the majority class;
  it answers "supports" to almost everything. Kept for larger served scorer models.

Every report prints the judge's accuracy on HealthVer dev pairs, so a reader knows how far
to trust the NLI columns. Any other judge (a served model, a local cross-encoder) plugs in
through the `NLIJudge` protocol.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from veriloop.evaluation.items import Item
from veriloop.evaluation.metrics import per_label_recall, split_sentences
from veriloop.models import Models, ScoreError
from veriloop.prompts import render

VERBALIZERS: Mapping[int, str] = {1: " supports", -1: " refutes", 0: " neither"}


class NLIJudge(Protocol):
    """Anything that labels (premise, hypothesis) pairs +1, 0 or -1."""

    name: str

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return +1 (entailed), 0 (neutral) or -1 (contradicted) for each pair."""
        ...


HEAD_FILE = Path(__file__).with_name("data") / "nli_head_minilm.npz"


@cache
def _head_layers(head_file: Path) -> list[tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    with np.load(head_file, allow_pickle=False) as arrays:
        if "0_weight" in arrays:
            return [
                (arrays["0_weight"], arrays["0_bias"]),
                (arrays["2_weight"], arrays["2_bias"]),
            ]
        return [(arrays["weight"], arrays["bias"])]


class EmbeddingNLI:
    """MLP (or logistic) head over MiniLM pair features; weights ship with veriloop."""

    def __init__(self, models: Models, head_file: Path = HEAD_FILE) -> None:
        """Load the head from `head_file` (numpy arrays, no pickle; read once per process)."""
        self.layers = _head_layers(head_file)
        self.models = models
        self.name = f"MiniLM pair-feature head ({head_file.name}) on {models.embedder.name}"

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return a verdict per pair (one batched embedding call for all of them)."""
        if not premises:
            return []
        hidden: npt.NDArray[np.float32] = pair_features(self.models, premises, hypotheses)
        for index, (weight, bias) in enumerate(self.layers):
            hidden = hidden @ weight.T + bias
            if index < len(self.layers) - 1:
                hidden = np.maximum(hidden, 0)
        return [int(label) - 1 for label in hidden.argmax(axis=1)]


class LogprobNLI:
    """Zero-shot, calibrated verdict-word log-probs on the scorer model."""

    def __init__(self, models: Models, *, calibrate: bool = True) -> None:
        """Judge with `models.scorer`; `calibrate` subtracts content-free priors."""
        self.models = models
        self.calibrate = calibrate
        self.name = f"zero-shot log-prob NLI on {models.scorer.name}" + (
            " (calibrated)" if calibrate else ""
        )

    def label_logprobs(self, premise: str, hypothesis: str) -> dict[int, float]:
        """Return the total log-prob of each verdict word after the judge prompt."""
        prompt = render("nli_judge", premise=premise, hypothesis=hypothesis)
        return {
            label: sum(self.models.score(prompt, word, purpose="nli").logprobs.logprobs)
            for label, word in VERBALIZERS.items()
        }

    @cached_property
    def priors(self) -> dict[int, float]:
        """Verdict log-probs on a content-free pair (the model's bias per label)."""
        return self.label_logprobs("N/A", "N/A")

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return a verdict per pair."""
        return [self.judge(p, h) for p, h in zip(premises, hypotheses, strict=True)]

    def judge(self, premise: str, hypothesis: str) -> int:
        """Return the verdict with the highest (calibrated) log-prob; ties go to neutral."""
        try:
            scores = self.label_logprobs(premise, hypothesis)
        except ScoreError:
            return 0
        if self.calibrate:
            scores = {label: value - self.priors[label] for label, value in scores.items()}
        best = max(scores.values())
        return 0 if scores[0] == best else max(scores, key=lambda label: scores[label])


def pair_features(
    models: Models, premises: Sequence[str], hypotheses: Sequence[str]
) -> npt.NDArray[np.float32]:
    """Return [u, v, |u - v|, u * v] rows from the embeddings of premises and hypotheses."""
    u, _ = models.embed(list(premises), purpose="nli")
    v, _ = models.embed(list(hypotheses), purpose="nli")
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1).astype(np.float32)


def med_nli(judge: NLIJudge, reference: str, answer: str) -> tuple[int, float | None]:
    """Med-NLI with the reference as premise: (sample level, sentence level).

    Sample level judges the whole answer (+1/0/-1); sentence level is the mean verdict over
    the answer's sentences (None for an empty answer).
    """
    sentences = split_sentences(answer)
    verdicts = judge.judge_pairs([reference] * (1 + len(sentences)), [answer, *sentences])
    sentence_mean = sum(verdicts[1:]) / len(sentences) if sentences else None
    return verdicts[0], sentence_mean


@dataclass(frozen=True)
class JudgeAccuracy:
    """How well a judge agrees with HealthVer's human labels."""

    judge: str
    pairs: int
    accuracy: float
    majority_baseline: float
    recall_per_label: dict[str, float]


HEALTHVER_LABEL = {"Supports": 1, "Refutes": -1, "Neutral": 0}


def measure_on_healthver(
    judge: NLIJudge, items: list[Item], *, sample: int = 300, seed: int = 0
) -> JudgeAccuracy:
    """Measure the judge on a seeded random sample of HealthVer pairs (evidence, claim)."""
    chosen = random.Random(seed).sample(items, min(sample, len(items)))
    gold = [HEALTHVER_LABEL[str(item.gold)] for item in chosen]
    predicted = judge.judge_pairs([i.documents[0] for i in chosen], [i.question for i in chosen])
    counts = {label: gold.count(label) for label in set(gold)}
    names = {1: "Supports", -1: "Refutes", 0: "Neutral"}
    recall = per_label_recall([names[p] for p in predicted], [names[g] for g in gold])
    return JudgeAccuracy(
        judge=judge.name,
        pairs=len(chosen),
        accuracy=sum(p == g for p, g in zip(predicted, gold, strict=True)) / len(chosen),
        majority_baseline=max(counts.values()) / len(chosen),
        recall_per_label=dict(recall),
    )
