"""Metrics, each a small pure function tested on hand-computed cases.

- `unigram_f1`: SQuAD's normalisation (lower case, no punctuation or articles, single
  spaces) and token-overlap F1; with several references, the best.
- `rouge_l`: ROUGE-L F-measure from Google's `rouge-score` package (with stemming).
- `mc1`, `mc2`, `mc2_per_option`: TruthfulQA multiple choice from per-option scores.
- `coverage_report`, `risk_coverage`: for methods that refuse.
- `detection_report`: accuracy, recall and specificity of a hallucination detector.
- `hallucinations_per_answer`: mean count of unsupported claims.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Normalise text as the SQuAD evaluation script does."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def unigram_f1(prediction: str, references: Sequence[str]) -> float:
    """Return the best SQuAD unigram F1 (0-1) of `prediction` against any reference."""
    best = 0.0
    predicted = normalize_answer(prediction).split()
    for reference in references:
        gold = normalize_answer(reference).split()
        common = Counter(predicted) & Counter(gold)
        overlap = sum(common.values())
        if not predicted or not gold:
            score = float(predicted == gold)
        elif overlap == 0:
            score = 0.0
        else:
            precision, recall = overlap / len(predicted), overlap / len(gold)
            score = 2 * precision * recall / (precision + recall)
        best = max(best, score)
    return best


@cache
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(prediction: str, references: Sequence[str]) -> float:
    """Return the best ROUGE-L F-measure (0-1) of `prediction` against any reference."""
    if not references:
        return 0.0
    scorer = _rouge_scorer()
    return max(float(scorer.score(ref, prediction)["rougeL"].fmeasure) for ref in references)


def mc1(scores: Sequence[float], correct: Sequence[bool]) -> float:
    """TruthfulQA MC1: 1.0 if the single best-scored option is a correct one."""
    best = max(range(len(scores)), key=lambda i: scores[i])
    return float(correct[best])


def _softmax(values: Sequence[float]) -> list[float]:
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def mc2(logprobs: Sequence[float], correct: Sequence[bool]) -> float:
    """TruthfulQA MC2 (standard): probability mass on the true options, normalised.

    Options are scored by total log-prob; MC2 = sum P(true) / sum P(all).
    """
    probabilities = _softmax(logprobs)
    return sum(p for p, ok in zip(probabilities, correct, strict=True) if ok)


def mc2_per_option(chosen: Sequence[bool], correct: Sequence[bool]) -> float:
    """The L2R reference's per-option MC2: share of options judged right.

    The reference code asks the model about each option separately (true or false) and
    scores the fraction of options whose judgement matches the label.
    """
    if not correct:
        raise ValueError("no options")
    return sum(c == ok for c, ok in zip(chosen, correct, strict=True)) / len(correct)


def coverage_report(answered: Sequence[bool], correct: Sequence[bool]) -> dict[str, float]:
    """Coverage, accuracy on answered items, and overall accuracy (refusals count wrong)."""
    total = len(answered)
    if total == 0:
        raise ValueError("no items")
    answered_count = sum(answered)
    right = sum(a and c for a, c in zip(answered, correct, strict=True))
    return {
        "coverage": answered_count / total,
        "accuracy_on_answered": right / answered_count if answered_count else float("nan"),
        "overall_accuracy": right / total,
    }


def risk_coverage(
    confidences: Sequence[float], correct: Sequence[bool]
) -> list[tuple[float, float]]:
    """Return (coverage, risk) points answering the most confident items first.

    Risk is the error rate among the items answered at that coverage.
    """
    order = sorted(range(len(confidences)), key=lambda i: -confidences[i])
    points, errors = [], 0
    for rank, index in enumerate(order, start=1):
        errors += not correct[index]
        points.append((rank / len(order), errors / rank))
    return points


def detection_report(predicted: Sequence[bool], actual: Sequence[bool]) -> dict[str, float]:
    """Accuracy, recall (hallucinations caught) and specificity (faithful ones passed).

    `True` means "hallucinated" in both sequences.
    """
    pairs = list(zip(predicted, actual, strict=True))
    tp = sum(p and a for p, a in pairs)
    tn = sum(not p and not a for p, a in pairs)
    positives = sum(a for _, a in pairs)
    negatives = len(pairs) - positives
    return {
        "accuracy": (tp + tn) / len(pairs),
        "recall": tp / positives if positives else float("nan"),
        "specificity": tn / negatives if negatives else float("nan"),
    }


def hallucinations_per_answer(unsupported_counts: Iterable[int]) -> float:
    """Mean number of unsupported claims per answer."""
    counts = list(unsupported_counts)
    return sum(counts) / len(counts) if counts else float("nan")


def mean(values: Iterable[float | None]) -> float | None:
    """Average the values that are present; None when there are none (never NaN)."""
    present = [v for v in values if v is not None and not math.isnan(v)]
    return sum(present) / len(present) if present else None


def per_label_recall(predicted: Sequence[Any], actual: Sequence[Any]) -> Mapping[str, float]:
    """Recall of each gold label."""
    labels = sorted({str(a) for a in actual})
    result = {}
    for label in labels:
        hits = [str(p) == label for p, a in zip(predicted, actual, strict=True) if str(a) == label]
        result[label] = sum(hits) / len(hits)
    return result
