"""Sentence-pair judges (+1 entailed, 0 neutral, -1 contradicted) that nodes and graphs use.

- `EmbeddingNLI` (default): an MLP head over all-MiniLM-L6-v2 pair features
  [u, v, |u - v|, u * v], trained on HealthVer's test split by
  `benchmarks/train_nli_head.py`; its weights ship in `nodes/data/nli_head_minilm.npz`
  (numpy arrays, no pickle) with its measured accuracy in `nli_head_minilm.json`.
- `LogprobNLI`: zero-shot, calibrated verdict-word log-probs on the scorer model.

How well each judges is measured in `veriloop.evaluation.nli` (`measure_on_healthver`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from veriloop.models import Models, ScoreError
from veriloop.prompts import render

VERBALIZERS: Mapping[int, str] = {1: " supports", -1: " refutes", 0: " neither"}


class NLIJudge(Protocol):
    """Anything that labels (premise, hypothesis) pairs +1, 0 or -1."""

    name: str

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return +1 (entailed), 0 (neutral) or -1 (contradicted) for each pair."""
        ...


HEAD_FILE = Path(__file__).resolve().parents[1] / "data" / "nli_head_minilm.npz"


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

    def logits(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Return the head's logits (refutes, neutral, supports) for pair-feature rows."""
        hidden = features
        for index, (weight, bias) in enumerate(self.layers):
            hidden = hidden @ weight.T + bias
            if index < len(self.layers) - 1:
                hidden = np.maximum(hidden, 0)
        return hidden

    def probabilities(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """Return softmax probabilities (refutes, neutral, supports) for pair-feature rows."""
        logits = self.logits(features).astype(np.float64)
        if logits.size == 0:
            return logits.reshape(0, 3)
        shifted: npt.NDArray[np.float64] = np.exp(logits - logits.max(axis=1, keepdims=True))
        normalised: npt.NDArray[np.float64] = shifted / shifted.sum(axis=1, keepdims=True)
        return normalised

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return a verdict per pair (one batched embedding call for all of them)."""
        if not premises:
            return []
        hidden = self.logits(pair_features(self.models, premises, hypotheses))
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
