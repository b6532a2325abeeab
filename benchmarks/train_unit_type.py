r"""Train the unit-type classifier: MiniLM embedding of a quotable unit -> its answer's type.

    .venv/bin/python benchmarks/train_unit_type.py --out nodes/data/unit_type

When the subject's pages hold no passage of the asked type, the grounded default quotes
only the units of its other pages that say the asked type. The cue stems
(`nodes.question_type`) decide that by words and miss what is said without them ("HIV most
often spreads through unprotected sex" for what causes HIV/AIDS; "here are a few things to
look for - Tugging at ears ..." for ear infection symptoms) or pass what only holds one
("Breast cancer is the second leading cause of death ..." for what causes it). This
classifier reads the unit's meaning instead.

Data: the quotable units (`veriloop.quotable.quotable_texts`) of MedQuAD's 16,406 typed
answers, a list's items merged into one unit as an answer quotes them
(`veriloop.quotable.merge_items`), each labelled with its answer's question type; the
same unit text under two types is dropped (site boilerplate), at most `--per-type` units
a type are sampled from the training foci. Held out: every unit of the foci in the held-out tenth
(`relevance_sets.held_out_focus`), sampled to `--test`. Model: a multinomial logistic
regression (scikit-learn) over the unit embedding of the bundled all-MiniLM-L6-v2.

Measured on the held-out units and written to `training.json` (and printed): per type,
recall and precision of the cue stems alone (the test before), of one threshold pair for
all types, and of the shipped rule (`nodes.unit_type.is_about`: the classifier's
probability at least the type's `alone_at`, or its `with_cue_at` when the unit holds a cue
stem). Each type's pair (`thresholds` in training.json, read at run time) is chosen on a
grid (`ALONE_AT` x `WITH_CUE_AT`): of the pairs whose F1 is within `F1_TIE` of the best,
the one with the highest recall, since a refusal where the page answers is a failure too;
a type with fewer than `MIN_TYPE_UNITS` tuning units takes the pair chosen for all
types. The held-out foci are split in two (`tuning_half`): the pairs are chosen on one
half's units and every figure is reported on the other's, so the shipped figures are not
chosen on the units that report them. Labels are the answer's type, so a symptom named in
a treatment answer counts as "treatment": every test is scored against the same noisy
labels.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.evaluation.judge_data.question_types import medquad_rows
from veriloop.evaluation.judge_data.relevance_sets import held_out_focus
from veriloop.nodes.linear_weights import write_weights
from veriloop.nodes.question_type import _encoder, question_types
from veriloop.nodes.unit_type import UNIT_TYPE_DIR, is_about
from veriloop.quotable import merge_items, quotable_texts

C = 2.0
ALONE_AT = (0.3, 0.4, 0.5, 0.6, 1.01)
"""Candidate `UNIT_TYPE_AT` values (1.01: the classifier never passes a unit alone)."""
WITH_CUE_AT = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3)
"""Candidate `UNIT_TYPE_WITH_CUE_AT` values (0.0: every unit holding a cue passes)."""
F1_TIE = 0.01
"""Pairs whose F1 is this close to the best are ties: the higher recall wins."""
MIN_TYPE_UNITS = 40
"""A type with fewer tuning units than this takes the pair chosen for all types."""


def tuning_half(focus: str) -> bool:
    """Tell whether a held-out focus is in the half that chooses the thresholds.

    The other half reports them. The halves split on a byte of the focus's sha1 that
    `held_out_focus` does not read.
    """
    return hashlib.sha1(focus.strip().lower().encode()).digest()[1] % 2 == 0


def labelled_units() -> tuple[list[tuple[str, str]], list[tuple[str, str]], set[str]]:
    """Return (training, held-out) units as (text, type), each text under one type.

    And the held-out units that choose the thresholds (`tuning_half`): a unit is there when
    a focus of the tuning half holds it.
    """
    types: dict[str, set[str]] = defaultdict(set)
    held: dict[str, bool] = {}
    tuning: set[str] = set()
    for row in medquad_rows():
        focus = row.get("focus") or ""
        units = quotable_texts(" ".join(row["answer"].split()))
        for unit, _ in merge_items([(u, "") for u in units]):
            types[unit].add(row["qtype"])
            held[unit] = held.get(unit, False) or held_out_focus(focus)
            if held_out_focus(focus) and tuning_half(focus):
                tuning.add(unit)
    single = sorted((unit, next(iter(t))) for unit, t in types.items() if len(t) == 1)
    return (
        [(u, t) for u, t in single if not held[u]],
        [(u, t) for u, t in single if held[u]],
        tuning,
    )


def per_type_scores(
    labels: list[str], passed: dict[str, list[bool]]
) -> dict[str, dict[str, float]]:
    """Return each type's recall and precision of a test's verdicts against the labels."""
    scores = {}
    for qtype, verdicts in passed.items():
        positives = sum(label == qtype for label in labels)
        caught = sum(v and label == qtype for v, label in zip(verdicts, labels, strict=True))
        scores[qtype] = {
            "units": positives,
            "recall": round(caught / max(positives, 1), 3),
            "precision": round(caught / max(sum(verdicts), 1), 3),
        }
    return scores


def means(scores: dict[str, dict[str, float]]) -> dict[str, float]:
    """Return the mean over types of F1, recall and precision."""
    f1 = [
        2 * s["recall"] * s["precision"] / (s["recall"] + s["precision"])
        if s["recall"] + s["precision"]
        else 0.0
        for s in scores.values()
    ]
    return {
        "f1": round(float(np.mean(f1)), 3),
        "recall": round(float(np.mean([s["recall"] for s in scores.values()])), 3),
        "precision": round(float(np.mean([s["precision"] for s in scores.values()])), 3),
    }


def embedded(
    encoder: Any, train: list[tuple[str, str]], test: list[tuple[str, str]], keep: Path | None
) -> tuple[np.ndarray, np.ndarray]:
    """Return the units' embeddings, read from `keep` when it holds these units'."""
    digest = hashlib.sha256(json.dumps([train, test]).encode()).hexdigest()
    if keep is not None and keep.is_file():
        saved = np.load(keep)
        if str(saved["digest"]) == digest:
            return saved["train"], saved["test"]
    x_train, x_test = encoder.embed([u for u, _ in train]), encoder.embed([u for u, _ in test])
    if keep is not None:
        np.savez(keep, train=x_train, test=x_test, digest=np.array(digest))
    return x_train, x_test


def with_f1(scores: dict[str, float]) -> dict[str, float]:
    """Return one type's scores with their F1."""
    recall, precision = scores["recall"], scores["precision"]
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return {**scores, "f1": f1}


def choose(scores: dict[tuple[float, float], dict[str, float]]) -> tuple[float, float]:
    """Return the pair of the highest recall among those within `F1_TIE` of the best F1."""
    top = max(s["f1"] for s in scores.values())
    tied = [pair for pair, s in scores.items() if s["f1"] >= top - F1_TIE]
    return max(tied, key=lambda pair: (scores[pair]["recall"], pair))


def main() -> None:
    """Train, measure against the cue stems, and save the classifier and training.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=UNIT_TYPE_DIR)
    parser.add_argument("--per-type", type=int, default=6000)
    parser.add_argument("--test", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--embeddings", type=Path, help="an .npz to keep the embeddings in and reuse (same units)"
    )
    args = parser.parse_args()

    from sklearn.linear_model import LogisticRegression

    started = time.time()
    rng = random.Random(args.seed)
    training, held_out, tuning = labelled_units()
    by_type: dict[str, list[str]] = defaultdict(list)
    for unit, qtype in training:
        by_type[qtype].append(unit)
    train = [
        (unit, qtype)
        for qtype, units in sorted(by_type.items())
        for unit in rng.sample(units, min(args.per_type, len(units)))
    ]
    test = rng.sample(held_out, min(args.test, len(held_out)))
    encoder = _encoder()
    print(f"embedding {len(train)} training and {len(test)} held-out units", flush=True)
    x_train, x_test = embedded(encoder, train, test, args.embeddings)
    model = LogisticRegression(max_iter=3000, C=C, random_state=args.seed)
    model.fit(x_train, [t for _, t in train])
    classes = [str(c) for c in model.classes_]
    probs = model.predict_proba(x_test)
    labels = [t for _, t in test]
    cues = question_types()
    typed = [c for c in classes if c != "information"]
    column = {c: i for i, c in enumerate(classes)}
    has_cue = {t: [cues.mentions(t, u) for u, _ in test] for t in typed}
    tunes = [unit in tuning for unit, _ in test]

    def rule(thresholds: dict[str, tuple[float, float]], half: bool) -> dict[str, dict[str, float]]:
        """Score the rule on the tuning half's held-out units (half True) or the others."""
        return per_type_scores(
            [label for label, tune in zip(labels, tunes, strict=True) if tune is half],
            {
                t: [
                    is_about(float(p[column[t]]), cue, *thresholds[t])
                    for p, cue, tune in zip(probs, has_cue[t], tunes, strict=True)
                    if tune is half
                ]
                for t in typed
            },
        )

    pairs = [(a, c) for a in ALONE_AT for c in WITH_CUE_AT]
    grid = {pair: rule(dict.fromkeys(typed, pair), True) for pair in pairs}
    overall = choose({pair: means(scores) for pair, scores in grid.items()})
    thresholds = {
        t: choose({pair: with_f1(grid[pair][t]) for pair in pairs})
        if grid[overall][t]["units"] >= MIN_TYPE_UNITS
        else overall
        for t in typed
    }
    reported = [label for label, tune in zip(labels, tunes, strict=True) if not tune]
    measured = {
        "cue stems alone (before)": per_type_scores(
            reported,
            {
                t: [cue for cue, tune in zip(has_cue[t], tunes, strict=True) if not tune]
                for t in typed
            },
        ),
        f"one pair for all types {overall}": rule(dict.fromkeys(typed, overall), False),
        "shipped: each type's pair": rule(thresholds, False),
    }
    notes: dict[str, Any] = {
        "version": 1,
        "kind": "unit_type",
        "encoder": encoder.name,
        "classes": classes,
        "model": f"multinomial logistic regression, C={C}, over the unit MiniLM embedding",
        "examples": dict(Counter(t for _, t in train)),
        "held_out": "units of the MedQuAD answers whose focus is in the held-out tenth "
        f"(relevance_sets.held_out_focus), {len(test)} sampled: {sum(tunes)} of the foci "
        f"that choose the thresholds (tuning_half), {len(reported)} of the others, which "
        "report every figure here",
        "held_out_accuracy": round(
            float(
                np.mean(
                    [
                        classes[int(np.argmax(p))] == t
                        for p, t, tune in zip(probs, labels, tunes, strict=True)
                        if not tune
                    ]
                )
            ),
            4,
        ),
        "held_out_per_type": measured,
        "means": {name: means(scores) for name, scores in measured.items()},
        "thresholds": {t: list(pair) for t, pair in thresholds.items()},
        "thresholds_about": "per type [alone_at, with_cue_at]: a unit is about the type when "
        "P(type) >= alone_at, or >= with_cue_at and it holds a cue stem (nodes.unit_type)",
        "seed": args.seed,
        "command": " ".join(["benchmarks/train_unit_type.py", *sys.argv[1:]]),
        "licences": {"medquad": "MedQuAD (Ben Abacha & Demner-Fushman 2019), CC BY 4.0"},
        "seconds": round(time.time() - started, 1),
    }
    write_weights(args.out, model.coef_, model.intercept_, notes)
    print(json.dumps({k: v for k, v in notes.items() if k != "held_out_per_type"}, indent=2))
    print("means:", json.dumps(notes["means"]), "\nthresholds:", thresholds)
    for name, scores in measured.items():
        print(name)
        for qtype, s in scores.items():
            print(f"  {qtype:16} n={s['units']:5} R={s['recall']:.2f} P={s['precision']:.2f}")


if __name__ == "__main__":
    main()
