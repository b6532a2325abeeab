"""Measuring NLI judges, and the Med-NLI metric built on them.

The judges themselves live in `veriloop.nodes.judges.nli` (graphs use them: M-Eval stances);
they are re-exported here. Does a premise entail (+1), contradict (-1) or neither (0) a
hypothesis?

The paper's Med-NLI uses SciFive, which cannot be loaded offline, and no trustworthy
three-way NLI model ships on PyPI. We measured two offline options on HealthVer dev
(1,917 evidence-claim pairs; the majority class, Neutral, is 51.8%):

- `EmbeddingNLI` (default): a small MLP head over all-MiniLM-L6-v2 pair features
  [u, v, |u-v|, u*v], trained on HealthVer's test split (never used for evaluation
  here) by `benchmarks/train_nli_head.py`: 64.6% accuracy, recall Refutes 33.5%,
  Neutral 76.3%, Supports 65.5% (`nodes/data/nli_head_minilm.json`). It was
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
from dataclasses import dataclass

from veriloop.evaluation.items import Item
from veriloop.evaluation.metrics import per_label_recall
from veriloop.nodes.judges.nli import (
    HEAD_FILE,
    VERBALIZERS,
    EmbeddingNLI,
    LogprobNLI,
    NLIJudge,
    pair_features,
)
from veriloop.text import split_sentences

__all__ = [
    "HEAD_FILE",
    "VERBALIZERS",
    "EmbeddingNLI",
    "JudgeAccuracy",
    "LogprobNLI",
    "NLIJudge",
    "measure_on_healthver",
    "med_nli",
    "pair_features",
]


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
