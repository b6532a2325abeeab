"""Answer classification and ranking measures, as MEDIQA 2019 Task 3 defines them.

Each question has several rated answers; an answer is correct when the experts scored it
3 or 4. A scorer gives every answer a number; answers scoring at least a threshold (fitted
on the training questions, `fit_threshold`) are predicted correct. Reported: accuracy and
precision of that prediction, mean reciprocal rank of the first correct answer when each
question's answers are sorted by score, and Spearman's rank correlation with the experts'
ranking, averaged over questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import spearmanr


@dataclass(frozen=True)
class ScoredAnswer:
    """One answer's score, whether the experts rated it correct, and their rank of it."""

    score: float
    correct: bool
    reference_rank: int


def top_mean(values: Sequence[float], top: int = 3) -> float:
    """Return the mean of the `top` largest values (all of them when fewer; 0.0 for none)."""
    best = sorted(values, reverse=True)[:top]
    return sum(best) / len(best) if best else 0.0


def fit_threshold(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Return the threshold that classifies `scores` (>= threshold: correct) most accurately.

    Candidates are the midpoints between consecutive distinct scores and the ends; ties in
    accuracy go to the lowest threshold.
    """
    ordered = sorted(set(scores))
    if not ordered:
        return 0.5
    candidates = [ordered[0] - 1e-9]
    candidates += [(a + b) / 2 for a, b in zip(ordered, ordered[1:], strict=False)]
    candidates.append(ordered[-1] + 1e-9)

    def accuracy(threshold: float) -> int:
        return sum((s >= threshold) == y for s, y in zip(scores, labels, strict=True))

    return max(candidates, key=lambda t: (accuracy(t), -t))


def classification(
    questions: Sequence[Sequence[ScoredAnswer]], threshold: float
) -> tuple[float, float | None]:
    """Return (accuracy, precision) of predicting `score >= threshold` as correct.

    Precision is None when nothing is predicted correct.
    """
    answers = [a for q in questions for a in q]
    predicted = [a.score >= threshold for a in answers]
    right = sum(p == a.correct for p, a in zip(predicted, answers, strict=True))
    chosen = [a for p, a in zip(predicted, answers, strict=True) if p]
    precision = sum(a.correct for a in chosen) / len(chosen) if chosen else None
    return right / max(len(answers), 1), precision


def reciprocal_rank(answers: Sequence[ScoredAnswer]) -> float:
    """Return 1 / the rank of the first correct answer by descending score (0 if none).

    Tied scores keep the answers' given order.
    """
    ranked = sorted(range(len(answers)), key=lambda i: -answers[i].score)
    for position, index in enumerate(ranked, start=1):
        if answers[index].correct:
            return 1.0 / position
    return 0.0


def mean_reciprocal_rank(questions: Sequence[Sequence[ScoredAnswer]]) -> float:
    """Return the mean reciprocal rank over the questions with a correct answer."""
    ranks = [reciprocal_rank(q) for q in questions if any(a.correct for a in q)]
    return sum(ranks) / max(len(ranks), 1)


def mean_spearman(questions: Sequence[Sequence[ScoredAnswer]]) -> float:
    """Return the mean over questions of Spearman's rho between score and the experts' order.

    The experts' rank 1 is their best answer, so rho is taken against the negated rank.
    Questions with fewer than two answers, or with constant scores or ranks, are skipped.
    """
    rhos = []
    for answers in questions:
        scores = [a.score for a in answers]
        ranks = [-a.reference_rank for a in answers]
        if len(answers) < 2 or len(set(scores)) < 2 or len(set(ranks)) < 2:
            continue
        rhos.append(float(spearmanr(scores, ranks).statistic))
    return sum(rhos) / max(len(rhos), 1)
