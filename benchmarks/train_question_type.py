r"""Train the question-type classifier: MiniLM embedding -> MedQuAD question type.

    .venv/bin/python benchmarks/train_question_type.py \
        --labels docs/benchmarks/mediqa_question_labels.jsonl \
        --mediqa ../shared/data/mediqa2019 --out nodes/data/question_type

Data (`veriloop.evaluation.judge_data.question_types.typed_questions`): MedQuAD's 16,406
typed questions as written and with their focus masked, plus consumer-worded templates
filled with training foci; foci in the held-out tenth are never trained on. Model: a
multinomial logistic regression (scikit-learn, C=4) over the unit embedding of the bundled
all-MiniLM-L6-v2. Also writes each type's *cue stems*: the 25 stems whose log-odds of
appearing in that type's MedQuAD answers (their quotable units, training foci) against
the other types' is highest (at least 1.5), among stems in at least 15% of the type's
answers and at most 20% of all answers, after the few stems that name the type in its
questions (`question_cues`).

Measured and written to `training.json` (and printed): accuracy on the held-out foci's
MedQuAD questions, and, with `--labels`, top-1 and any-of accuracy on hand-labelled MEDIQA
2019 Task 3 consumer questions (their `qtypes`, primary first; "other" left out), apart
for the templated Alexa set and the consumer LiveQA messages.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.evaluation.judge_data.question_types import (
    QUESTION_TYPES,
    masked,
    medquad_rows,
    typed_questions,
)
from veriloop.evaluation.judge_data.relevance_sets import held_out_focus
from veriloop.evaluation.loaders.mediqa import load_mediqa2019
from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.nodes.linear_weights import write_weights
from veriloop.nodes.question_type import QUESTION_TYPE_DIR, _encoder
from veriloop.quotable import clean_unit, unquotable_reason
from veriloop.standalone import standalone_units

C = 4.0
CUES_PER_TYPE = 25
MIN_SHARE = 0.15
"""A cue stem is in at least this share of its type's answers."""
MIN_LOG_ODDS = 1.5
MAX_ALL_SHARE = 0.2
"""A stem in more than this share of all answers says nothing about one type."""
QUESTION_WORDS = frozenset(
    "how who what which when why where whi mani peopl done come affect relat follow".split()
)
"""Words of MedQuAD's question templates that say nothing about the type in an answer."""


def cue_stems(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Return each type's stems most particular to its MedQuAD answers (log-odds).

    Read on the quotable units of each answer (resource lists and symptom tables left
    out), training foci only; a stem must be in `MIN_SHARE` of the type's answers and its
    log-odds against the other types' answers at least `MIN_LOG_ODDS`.
    """
    per_type: dict[str, Counter[str]] = {t: Counter() for t in QUESTION_TYPES}
    answers: Counter[str] = Counter()
    for row in rows:
        if held_out_focus(row.get("focus") or ""):
            continue
        units = [clean_unit(u) for u in standalone_units(" ".join(row["answer"].split()))]
        text = " ".join(u for u in units if unquotable_reason(u) is None)
        answers[row["qtype"]] += 1
        per_type[row["qtype"]].update(
            {w for w in lexical_tokens([text])[0] if len(w) > 2 and not w.isdigit()}
        )
    total = Counter[str]()
    for counts in per_type.values():
        total.update(counts)
    n_all = sum(answers.values())
    cues: dict[str, list[str]] = {}
    for qtype, counts in per_type.items():
        n_in, n_out = answers[qtype], n_all - answers[qtype]
        scored = []
        for word, k in counts.items():
            if k < MIN_SHARE * n_in or total[word] > MAX_ALL_SHARE * n_all:
                continue
            out = total[word] - k
            log_odds = math.log((k + 0.5) / (n_in - k + 0.5)) - math.log(
                (out + 0.5) / (n_out - out + 0.5)
            )
            if log_odds >= MIN_LOG_ODDS:
                scored.append((log_odds, word))
        asked = question_cues(rows, qtype)
        cues[qtype] = asked + [
            w for _, w in sorted(scored, reverse=True)[:CUES_PER_TYPE] if w not in asked
        ]
    return cues


def question_cues(rows: list[dict[str, Any]], qtype: str, most: int = 4) -> list[str]:
    """Return the stems that name a type in MedQuAD's questions ("symptom", "diagnos").

    Log-odds of a stem in the type's questions (focus masked) against the other types',
    at least 2.0 and in half the type's questions.
    """
    mine: Counter[str] = Counter()
    other: Counter[str] = Counter()
    n_in = n_out = 0
    for row in rows:
        words = set(lexical_tokens([masked(row["question"], row.get("focus") or "")])[0])
        if row["qtype"] == qtype:
            mine.update(words)
            n_in += 1
        else:
            other.update(words)
            n_out += 1
    scored = []
    for word, k in mine.items():
        if k < 0.5 * n_in or len(word) < 3 or word in QUESTION_WORDS:
            continue
        log_odds = math.log((k + 0.5) / (n_in - k + 0.5)) - math.log(
            (other[word] + 0.5) / (n_out - other[word] + 0.5)
        )
        if log_odds >= 2.0:
            scored.append((log_odds, word))
    return [w for _, w in sorted(scored, reverse=True)[:most]]


def consumer_accuracy(
    labels_path: Path, mediqa_dir: Path, classify: Any
) -> dict[str, dict[str, float]]:
    """Return top-1 and any-of accuracy on the hand-labelled MEDIQA questions, by set."""
    questions = {item.id: item.question for item in load_mediqa2019(mediqa_dir, "all")}
    labels = [json.loads(line) for line in labels_path.read_text(encoding="utf-8").splitlines()]
    rows = [(questions[x["id"]], x["qtypes"], x["id"]) for x in labels if x["qtypes"][0] != "other"]
    predicted = classify([q for q, _, _ in rows])
    out: dict[str, dict[str, float]] = {}
    for name, keep in (
        ("all", lambda i: True),
        ("alexa (templated)", lambda i: "Alexa" in i),
        ("liveqa (consumer messages)", lambda i: "Alexa" not in i),
    ):
        chosen = [(p, gold) for p, (_, gold, i) in zip(predicted, rows, strict=True) if keep(i)]
        out[name] = {
            "questions": len(chosen),
            "top1": round(sum(p == g[0] for p, g in chosen) / len(chosen), 3),
            "any_of": round(sum(p in g for p, g in chosen) / len(chosen), 3),
        }
    return out


def main() -> None:
    """Train, measure, and save the classifier and training.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=QUESTION_TYPE_DIR)
    parser.add_argument("--labels", type=Path, help="hand-labelled MEDIQA questions (jsonl)")
    parser.add_argument("--mediqa", type=Path, default=Path("../shared/data/mediqa2019"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cues-only", action="store_true", help="recompute the cue stems of --out's classifier"
    )
    args = parser.parse_args()
    if args.cues_only:
        meta = args.out / "training.json"
        notes = json.loads(meta.read_text(encoding="utf-8"))
        notes["cue_stems"] = cue_stems(medquad_rows())
        meta.write_text(json.dumps(notes, indent=2) + "\n", encoding="utf-8")
        for qtype, stems in notes["cue_stems"].items():
            print(f"{qtype}: {' '.join(stems[:15])}")
        return

    from sklearn.linear_model import LogisticRegression

    started = time.time()
    examples = typed_questions(seed=args.seed)
    train = [e for e in examples if not e.held_out]
    test = [e for e in examples if e.held_out and e.origin == "medquad"]
    encoder = _encoder()
    x_train = encoder.embed([e.text for e in train])
    model = LogisticRegression(max_iter=3000, C=C, random_state=args.seed)
    model.fit(x_train, [e.qtype for e in train])
    classes = [str(c) for c in model.classes_]

    def classify(texts: list[str]) -> list[str]:
        return [str(c) for c in model.predict(encoder.embed(texts))]

    held_out = sum(
        p == e.qtype for p, e in zip(classify([e.text for e in test]), test, strict=True)
    )
    notes: dict[str, Any] = {
        "version": 1,
        "kind": "question_type",
        "encoder": encoder.name,
        "classes": classes,
        "model": f"multinomial logistic regression, C={C}, over the unit MiniLM embedding",
        "examples": dict(Counter(e.origin for e in train)),
        "per_type": dict(Counter(e.qtype for e in train)),
        "held_out": "MedQuAD questions whose focus is in the held-out tenth "
        "(relevance_sets.held_out_focus); templates are filled with training foci only",
        "held_out_medquad_accuracy": round(held_out / len(test), 4),
        "held_out_medquad_questions": len(test),
        "cue_stems": cue_stems(medquad_rows()),
        "seed": args.seed,
        "command": " ".join(["benchmarks/train_question_type.py", *sys.argv[1:]]),
        "licences": {"medquad": "MedQuAD (Ben Abacha & Demner-Fushman 2019), CC BY 4.0"},
    }
    if args.labels:
        notes["mediqa_hand_labelled"] = consumer_accuracy(args.labels, args.mediqa, classify)
    notes["seconds"] = round(time.time() - started, 1)
    write_weights(args.out, model.coef_, model.intercept_, notes)
    print(json.dumps({k: v for k, v in notes.items() if k != "cue_stems"}, indent=2))
    for qtype, stems in notes["cue_stems"].items():
        print(f"{qtype}: {' '.join(stems[:15])}")


if __name__ == "__main__":
    main()
