r"""Measure the answer-relevance judge: MedQuAD held-out foci and MEDIQA 2019 Task 3.

    .venv/bin/python benchmarks/answer_relevance.py --mediqa ../shared/data/mediqa2019 \
        --out docs/benchmarks/answer_relevance.md

Scorers, side by side in the same run:
- `relevance`: the trained relevance judge (`nodes/judges/relevance.py`), P(sentence addresses
  the question);
- `cosine`: MiniLM cosine between the question and the sentence (what the grounded default
  picked sentences by before the relevance judge);
- `system` (MEDIQA ranking only): the organisers' CHiQA retrieval rank.

1. MedQuAD held-out foci (never trained on): (question, sentence) pairs, the question's
   own answer against each negative kind (another question type of the same page, a
   neighbouring condition's page, an unrelated page): AUROC, with a 95% bootstrap interval
   over questions.
2. MEDIQA 2019 Task 3 (consumer questions, never trained on): each answer's score is the
   mean of its 3 best sentence scores among its first `--units` quotable sentences; the
   correct/incorrect threshold is fitted on the two training sets (accuracy-maximising)
   and applied to the validation set. Accuracy, precision, MRR and Spearman's rho, each
   with a 95% bootstrap interval over validation questions, next to the share of correct
   answers (predicting all correct) and the best reported test accuracy (78.3%, validation
   is not the test set). Per-answer scores go to `--records` (JSON lines).
3. MEDIQA 2019 Task 2, question entailment (consumer question vs FAQ question): how well
   each scorer matches a consumer's question to a FAQ question that answers it (the
   grounded default matches questions to MedQuAD's own); threshold fitted on the training
   pairs, accuracy on the validation pairs, next to the best reported 74.9%.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.context import ModelSettings
from veriloop.evaluation.answer_ranking import (
    ScoredAnswer,
    classification,
    fit_threshold,
    mean_reciprocal_rank,
    mean_spearman,
    top_mean,
)
from veriloop.evaluation.judge_data.relevance_sets import (
    MIN_WORDS,
    RatedQuestion,
    RelevancePair,
    mediqa_answers,
    medquad_answers,
    medquad_relevance_pairs,
    rqe_pairs,
)
from veriloop.models import get_models
from veriloop.nodes.judges.relevance import RelevanceJudge
from veriloop.standalone import standalone_units

PairScorer = Callable[[Sequence[str], Sequence[str]], list[float]]
BEST_REPORTED_TEST_ACCURACY = 0.783
BEST_REPORTED_RQE_ACCURACY = 0.749


def cosine_scorer() -> PairScorer:
    """Return MiniLM cosine between each question and sentence."""
    embedder = get_models(ModelSettings()).embedder

    def score(questions: Sequence[str], sentences: Sequence[str]) -> list[float]:
        distinct = sorted(set(questions))
        q_vectors = dict(zip(distinct, embedder.embed(distinct), strict=True))
        s_vectors = embedder.embed(list(sentences))
        return [float(q_vectors[q] @ s) for q, s in zip(questions, s_vectors, strict=True)]

    return score


def interval(values: Callable[[np.ndarray], float], count: int, seed: int = 0) -> str:
    """Return a percentile-bootstrap 95% interval of a statistic over resampled groups."""
    rng = np.random.default_rng(seed)
    draws = [values(rng.integers(0, count, size=count)) for _ in range(2000)]
    low, high = np.percentile(draws, [2.5, 97.5])
    return f"[{low:.3f}, {high:.3f}]"


def medquad_rows(scorers: dict[str, PairScorer], questions: int) -> list[str]:
    """Return the MedQuAD held-out table: AUROC of own-answer vs each negative kind."""
    pairs = medquad_relevance_pairs(medquad_answers(), split="held_out", questions=questions)
    qids = sorted({p.qid for p in pairs})
    lines = [
        f"### MedQuAD held-out foci ({len(qids)} questions, {len(pairs)} pairs)",
        "",
        "AUROC of the question's own answer sentences against each kind of negative "
        "(95% bootstrap interval over questions).",
        "",
        "| scorer | all negatives | other question type | neighbouring condition "
        "| unrelated page | s per 1k pairs |",
        "|---|---|---|---|---|---|",
    ]
    for name, scorer in scorers.items():
        started = time.perf_counter()
        scores = scorer([p.question for p in pairs], [p.sentence for p in pairs])
        seconds = time.perf_counter() - started
        cells = [name]
        for kind in (None, "other_type", "neighbour", "other_focus"):
            cells.append(auroc_cell(pairs, scores, qids, kind))
        cells.append(f"{1000 * seconds / len(pairs):.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def auroc_cell(
    pairs: Sequence[RelevancePair], scores: Sequence[float], qids: list[str], kind: str | None
) -> str:
    """Return 'AUROC [interval]' of own vs `kind` negatives (None: every negative)."""
    index = {q: i for i, q in enumerate(qids)}
    rows = [
        (index[p.qid], p.relevant, s)
        for p, s in zip(pairs, scores, strict=True)
        if p.relevant or kind is None or p.kind == kind
    ]
    group = np.array([r[0] for r in rows])
    labels = np.array([r[1] for r in rows])
    values = np.array([r[2] for r in rows])
    members = [np.flatnonzero(group == g) for g in range(len(qids))]

    def statistic(sample: np.ndarray) -> float:
        picked = np.concatenate([members[g] for g in sample])
        if labels[picked].all() or not labels[picked].any():
            return float("nan")
        return float(roc_auc_score(labels[picked], values[picked]))

    point = roc_auc_score(labels, values)
    rng = np.random.default_rng(0)
    draws = [statistic(rng.integers(0, len(qids), size=len(qids))) for _ in range(500)]
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return f"{point:.3f} [{low:.3f}, {high:.3f}]"


def statistic(
    measured: list[list[ScoredAnswer]], threshold: float, which: str, sample: np.ndarray
) -> float:
    """Return one MEDIQA measure on a resample of the questions."""
    picked = [measured[i] for i in sample]
    if which == "accuracy":
        return classification(picked, threshold)[0]
    if which == "precision":
        return classification(picked, threshold)[1] or 0.0
    if which == "mrr":
        return mean_reciprocal_rank(picked)
    return mean_spearman(picked)


def answer_units(text: str, limit: int) -> list[str]:
    """Return the first `limit` quotable sentences of an answer page."""
    units = [u for u in standalone_units(text) if len(u.split()) >= MIN_WORDS]
    return units[:limit] or [text[:600]]


def scored_questions(
    questions: Sequence[RatedQuestion], scorer: PairScorer, units: int
) -> list[list[ScoredAnswer]]:
    """Return each question's answers scored by the mean of their 3 best sentences."""
    flat_q: list[str] = []
    flat_s: list[str] = []
    owners: list[tuple[int, int]] = []
    for qi, question in enumerate(questions):
        for ai, answer in enumerate(question.answers):
            for unit in answer_units(answer.text, units):
                flat_q.append(question.question)
                flat_s.append(unit)
                owners.append((qi, ai))
    scores = scorer(flat_q, flat_s)
    per_answer: dict[tuple[int, int], list[float]] = {}
    for owner, score in zip(owners, scores, strict=True):
        per_answer.setdefault(owner, []).append(score)
    return [
        [
            ScoredAnswer(top_mean(per_answer[(qi, ai)]), a.correct, a.reference_rank)
            for ai, a in enumerate(q.answers)
        ]
        for qi, q in enumerate(questions)
    ]


def system_questions(questions: Sequence[RatedQuestion]) -> list[list[ScoredAnswer]]:
    """Return the answers scored by CHiQA's own rank (rank 1 scores highest)."""
    return [
        [ScoredAnswer(-float(a.system_rank), a.correct, a.reference_rank) for a in q.answers]
        for q in questions
    ]


def mediqa_rows(
    scorers: dict[str, PairScorer], data_dir: Path, units: int, records: Path | None
) -> list[str]:
    """Return the MEDIQA 2019 Task 3 table (threshold fitted on train, measured on validation)."""
    train, validation = mediqa_answers(data_dir, "train"), mediqa_answers(data_dir, "validation")
    answers = [a for q in validation for a in q.answers]
    share = sum(a.correct for a in answers) / len(answers)
    lines = [
        f"### MEDIQA 2019 Task 3 validation ({len(validation)} questions, {len(answers)} "
        f"answers; threshold fitted on the training sets: {len(train)} questions, "
        f"{sum(len(q.answers) for q in train)} answers)",
        "",
        f"Predicting every answer correct: accuracy {share:.3f}, precision {share:.3f}. "
        f"Best reported MEDIQA 2019 Task 3 *test* accuracy: {BEST_REPORTED_TEST_ACCURACY:.3f} "
        "(a larger system on the test set, for scale; validation is a different set).",
        "",
        "| scorer | threshold | accuracy | precision | MRR | Spearman rho |",
        "|---|---|---|---|---|---|",
    ]
    out = []
    for name, scorer in [*scorers.items(), ("system", None)]:
        if scorer is None:
            fit_on, measured = system_questions(train), system_questions(validation)
        else:
            fit_on = scored_questions(train, scorer, units)
            measured = scored_questions(validation, scorer, units)
        threshold = fit_threshold(
            [a.score for q in fit_on for a in q], [a.correct for q in fit_on for a in q]
        )
        accuracy, precision = classification(measured, threshold)

        lines.append(
            f"| {name} | {threshold:.3f} | "
            + " | ".join(
                f"{value:.3f} "
                + interval(partial(statistic, measured, threshold, which), len(measured))
                for which, value in (
                    ("accuracy", accuracy),
                    ("precision", precision or 0.0),
                    ("mrr", mean_reciprocal_rank(measured)),
                    ("rho", mean_spearman(measured)),
                )
            )
            + " |"
        )
        for q, scored in zip(validation, measured, strict=True):
            for a, s in zip(q.answers, scored, strict=True):
                out.append(
                    {
                        "scorer": name,
                        "qid": q.qid,
                        "aid": a.aid,
                        "score": round(s.score, 6),
                        "correct": a.correct,
                        "reference_rank": a.reference_rank,
                    }
                )
    if records:
        records.write_text("".join(json.dumps(r) + "\n" for r in out))
    return lines


def rqe_rows(scorers: dict[str, PairScorer], data_dir: Path) -> list[str]:
    """Return the question-entailment table (threshold fitted on train, accuracy on validation)."""
    train, validation = rqe_pairs(data_dir, "train"), rqe_pairs(data_dir, "validation")
    share = sum(p.entails for p in validation) / len(validation)
    lines = [
        f"### MEDIQA 2019 Task 2 question entailment ({len(validation)} validation pairs; "
        f"threshold fitted on {len(train)} training pairs)",
        "",
        f"Majority class: {max(share, 1 - share):.3f}. Best reported accuracy: "
        f"{BEST_REPORTED_RQE_ACCURACY:.3f} (test set; for scale).",
        "",
        "| scorer | threshold | accuracy | AUROC |",
        "|---|---|---|---|",
    ]
    for name, scorer in scorers.items():
        fitted = scorer([p.consumer for p in train], [p.faq for p in train])
        threshold = fit_threshold(fitted, [p.entails for p in train])
        scores = scorer([p.consumer for p in validation], [p.faq for p in validation])
        right = [(s >= threshold) == p.entails for s, p in zip(scores, validation, strict=True)]
        labels = np.array([p.entails for p in validation])
        values = np.array(scores)

        def accuracy(sample: np.ndarray, hits: list[bool] = right) -> float:
            return float(np.mean([hits[i] for i in sample]))

        lines.append(
            f"| {name} | {threshold:.3f} | {np.mean(right):.3f} "
            f"{interval(accuracy, len(right))} | {roc_auc_score(labels, values):.3f} |"
        )
    return lines


def main() -> None:
    """Measure every scorer on both sets; write the markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mediqa", type=Path, default=Path("../shared/data/mediqa2019"))
    parser.add_argument("--questions", type=int, default=1000, help="MedQuAD held-out questions")
    parser.add_argument("--units", type=int, default=10, help="sentences read per MEDIQA answer")
    parser.add_argument("--judge-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks/answer_relevance.md"))
    parser.add_argument("--records", type=Path, default=None)
    args = parser.parse_args()
    judge = RelevanceJudge(**({"judge_dir": args.judge_dir} if args.judge_dir else {}))
    scorers: dict[str, PairScorer] = {"relevance": judge.pair_scores, "cosine": cosine_scorer()}
    started = time.perf_counter()
    lines = [
        "# Answer relevance: does a sentence address the question?",
        "",
        f"Command: `python benchmarks/answer_relevance.py {' '.join(sys.argv[1:])}`  ",
        f"Judge: {judge.name}, weights {judge.identity}; trained on MedQuAD only "
        f"({judge.training.get('relevant')} relevant / {judge.training.get('not_relevant')} "
        f"not relevant pairs, {judge.training.get('seconds')} s on "
        f"{judge.training.get('threads')} CPU threads).",
        "",
        *medquad_rows(scorers, args.questions),
        "",
        *mediqa_rows(scorers, args.mediqa, args.units, args.records),
        "",
        *rqe_rows(scorers, args.mediqa),
        "",
        f"Measured in {time.perf_counter() - started:.0f} s on this machine.",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
