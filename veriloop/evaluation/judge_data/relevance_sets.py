"""Data for the answer-relevance judge: does this sentence address the question asked?

Training pairs come from the bundled MedQuAD question-answer pairs only
(`medquad_relevance_pairs`): a question with sentences of its own answer (relevant), and
with sentences of answers it did not ask for (not relevant):

- **other question type, same focus**: "What are the treatments for Anal Fissure?" against
  a sentence of the anal-fissure *symptoms* answer (on topic, does not answer it);
- **neighbouring focus**: against a sentence of an answer of the same question type whose
  page is about a neighbouring condition (`nodes.grounding.off_focus`: "Anal Cancer");
- **another focus**: against a sentence of a random other page.

Sentences are `standalone_units` (what the grounded default quotes). The split is by
focus: every question of a held-out focus (about 1 in 10, by a hash of the focus) is kept
out of training and measured (`split="held_out"`).

MedQuAD's questions are templates ("What are the treatments for X ?"); consumers write
long messages. `mediqa_relevance_pairs` adds consumer questions from the MEDIQA 2019
Task 3 *training* sets: the first sentences of each expert-rated answer, relevant when
the experts rated the answer correct (3-4). Left out: the validation set (where the judge
is measured) and every question among the grounded benchmark's MEDIQA items
(`GROUNDED_BENCH`, the 120 items the before/after tables are measured on).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from veriloop.evaluation.items import DatasetError
from veriloop.evaluation.loaders.mediqa import FILES as MEDIQA_FILES
from veriloop.files import text_of, xml_root
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.nodes.grounding import focus_words, off_focus
from veriloop.standalone import standalone_units

MIN_WORDS = 6
"""A training sentence has at least this many words (headings and labels say nothing)."""

NegativeKind = Literal["own", "other_type", "neighbour", "other_focus"]


@dataclass(frozen=True)
class RelevancePair:
    """One (question, sentence) pair with whether the sentence addresses the question."""

    question: str
    sentence: str
    relevant: bool
    kind: NegativeKind
    """Where the sentence came from: `own` answer, or a negative's kind."""
    qid: str


@dataclass(frozen=True)
class MedQuADAnswer:
    """One MedQuAD question with its answer's quotable sentences."""

    qid: str
    focus: str
    qtype: str
    question: str
    units: tuple[str, ...]


GROUNDED_BENCH_LIMIT = 120
GROUNDED_BENCH_SEED = 0
GROUNDED_BENCH: dict[str, object] = {
    "split": "all",
    "limit": GROUNDED_BENCH_LIMIT,
    "shuffle": True,
    "seed": GROUNDED_BENCH_SEED,
}
"""The MEDIQA 2019 items of the committed grounded benchmarks (docs/results/mediqa_grounded_*):
`veriloop bench --dataset mediqa2019 --split all --shuffle --seed 0 --limit 120`."""


def grounded_bench_ids(data_dir: Path) -> set[str]:
    """Return the item ids (`<file stem>:<QID>`) of the grounded benchmark's MEDIQA items."""
    from veriloop.evaluation.bench import select_items
    from veriloop.evaluation.loaders.mediqa import load_mediqa2019

    items = load_mediqa2019(data_dir, str(GROUNDED_BENCH["split"]))
    chosen = select_items(
        items,
        limit=GROUNDED_BENCH_LIMIT,
        shuffle=bool(GROUNDED_BENCH["shuffle"]),
        seed=GROUNDED_BENCH_SEED,
    )
    return {item.id for item in chosen}


def held_out_focus(focus: str) -> bool:
    """Tell whether a focus is in the held-out tenth (sha1 of the case-folded focus)."""
    digest = hashlib.sha1(focus.strip().lower().encode()).digest()
    return digest[0] % 10 == 0


def medquad_answers(path: Path = MEDQUAD_FILE) -> list[MedQuADAnswer]:
    """Read the bundled MedQuAD pairs with the quotable sentences of each answer."""
    answers = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            units = tuple(
                u
                for u in standalone_units(" ".join(row["answer"].split()))
                if len(u.split()) >= MIN_WORDS and not u.rstrip().endswith("?")
            )
            if units:
                answers.append(
                    MedQuADAnswer(row["qid"], row["focus"], row["qtype"], row["question"], units)
                )
    return answers


def _negatives(
    answer: MedQuADAnswer,
    by_focus: dict[str, list[MedQuADAnswer]],
    by_word: dict[str, list[str]],
    foci: list[str],
    rng: random.Random,
) -> Iterator[tuple[NegativeKind, MedQuADAnswer]]:
    """Yield one answer per negative kind that exists for `answer`."""
    other_types = [
        a for a in by_focus[answer.focus] if a.qtype not in (answer.qtype, "information")
    ]
    if other_types:
        yield "other_type", rng.choice(other_types)
    near = sorted(
        {f for w in focus_words(answer.focus) for f in by_word.get(w, []) if f != answer.focus}
    )
    near = [f for f in near if off_focus(answer.question, f)]
    if near:
        pages = by_focus[rng.choice(near)]
        same_type = [a for a in pages if a.qtype == answer.qtype]
        yield "neighbour", rng.choice(same_type or pages)
    while True:
        focus = rng.choice(foci)
        if focus != answer.focus:
            yield "other_focus", rng.choice(by_focus[focus])
            return


def medquad_relevance_pairs(
    answers: list[MedQuADAnswer],
    *,
    split: Literal["train", "held_out"],
    questions: int,
    positives: int = 2,
    seed: int = 0,
) -> list[RelevancePair]:
    """Return (question, sentence) pairs of `split`: positives and one negative of each kind.

    Args:
        answers: `medquad_answers()`.
        split: `train` (foci not held out) or `held_out` (the held-out tenth of foci).
        questions: At most this many questions of the split (seeded sample; 0: all).
        positives: Sentences of the question's own answer per question.
        seed: The sample's and the negatives' seed.
    """
    rng = random.Random(seed)
    in_split = [a for a in answers if held_out_focus(a.focus) == (split == "held_out")]
    by_focus: dict[str, list[MedQuADAnswer]] = defaultdict(list)
    for answer in in_split:
        by_focus[answer.focus].append(answer)
    by_word: dict[str, list[str]] = defaultdict(list)
    for focus in by_focus:
        for word in focus_words(focus):
            by_word[word].append(focus)
    foci = sorted(by_focus)
    chosen = rng.sample(in_split, min(questions, len(in_split))) if questions else in_split
    pairs: list[RelevancePair] = []
    for answer in chosen:
        for unit in rng.sample(answer.units, min(positives, len(answer.units))):
            pairs.append(RelevancePair(answer.question, unit, True, "own", answer.qid))
        for kind, other in _negatives(answer, by_focus, by_word, foci, rng):
            pairs.append(
                RelevancePair(answer.question, rng.choice(other.units), False, kind, answer.qid)
            )
    return pairs


@dataclass(frozen=True)
class RatedAnswer:
    """One MEDIQA 2019 Task 3 answer with the experts' score and rank."""

    aid: str
    text: str
    score: int
    """ReferenceScore 1-4; 3 and 4 count as correct."""
    reference_rank: int
    system_rank: int
    """The rank CHiQA (the organisers' retrieval system) gave it."""

    @property
    def correct(self) -> bool:
        """Return whether the experts rated the answer correct (score 3 or 4)."""
        return self.score >= 3


@dataclass(frozen=True)
class RatedQuestion:
    """One MEDIQA 2019 Task 3 question with all its rated answers."""

    qid: str
    file: str
    question: str
    answers: tuple[RatedAnswer, ...]


def mediqa_answers(data_dir: Path, split: Literal["train", "validation"]) -> list[RatedQuestion]:
    """Read MEDIQA 2019 Task 3 questions with every rated answer (correct or not).

    Raises:
        DatasetError: A file is missing or an answer has no numeric score or rank.
    """
    questions = []
    for name in MEDIQA_FILES[split]:
        path = Path(data_dir) / name
        if not path.is_file():
            raise DatasetError(f"{path} does not exist; point --data-dir at the MEDIQA2019 folder")
        for question in xml_root(path).iter("Question"):
            answers = []
            for answer in question.iter("Answer"):
                try:
                    answers.append(
                        RatedAnswer(
                            aid=answer.get("AID", ""),
                            text=" ".join(text_of(answer.find("AnswerText")).split()),
                            score=int(answer.get("ReferenceScore", "")),
                            reference_rank=int(answer.get("ReferenceRank", "")),
                            system_rank=int(answer.get("SystemRank", "")),
                        )
                    )
                except ValueError as exc:
                    raise DatasetError(
                        f"{path}: question {question.get('QID')} answer {answer.get('AID')} "
                        "has no numeric ReferenceScore / ReferenceRank / SystemRank"
                    ) from exc
            questions.append(
                RatedQuestion(
                    qid=question.get("QID", ""),
                    file=path.name,
                    question=text_of(question.find("QuestionText")),
                    answers=tuple(answers),
                )
            )
    return questions


def mediqa_relevance_pairs(
    data_dir: Path, *, units: int = 10, exclude: set[str] | None = None
) -> list[RelevancePair]:
    """Return (consumer question, answer sentence) pairs from the MEDIQA Task 3 training sets.

    Each rated answer gives its first `units` quotable sentences (`MIN_WORDS` words or
    more), relevant when the answer was rated correct. Questions whose item id is in
    `exclude` (default: `grounded_bench_ids`) are left out.
    """
    excluded = grounded_bench_ids(data_dir) if exclude is None else exclude
    pairs = []
    for question in mediqa_answers(data_dir, "train"):
        qid = f"{Path(question.file).stem}:{question.qid}"
        if qid in excluded:
            continue
        for answer in question.answers:
            kept = [u for u in standalone_units(answer.text) if len(u.split()) >= MIN_WORDS]
            for unit in kept[:units]:
                pairs.append(
                    RelevancePair(
                        question.question,
                        unit,
                        answer.correct,
                        "own" if answer.correct else "other_focus",
                        qid,
                    )
                )
    return pairs


RQE_FILES = {
    "train": "MEDIQA2019-Task2-RQE-TrainingSet-AMIA2016.xml",
    "validation": "MEDIQA2019-Task2-RQE-ValidationSet-AMIA2016.xml",
}


@dataclass(frozen=True)
class QuestionPair:
    """A consumer question, an FAQ question, and whether answering the FAQ answers it."""

    consumer: str
    faq: str
    entails: bool


def rqe_pairs(data_dir: Path, split: Literal["train", "validation"]) -> list[QuestionPair]:
    """Read MEDIQA 2019 Task 2 (question entailment) pairs from `data_dir/rqe/`.

    Raises:
        DatasetError: The file is missing or a pair has no true/false value.
    """
    path = Path(data_dir) / "rqe" / RQE_FILES[split]
    if not path.is_file():
        raise DatasetError(f"{path} does not exist; point --mediqa at the MEDIQA2019 folder")
    pairs = []
    for pair in xml_root(path).iter("pair"):
        value = (pair.get("value") or "").strip().lower()
        if value not in ("true", "false"):
            raise DatasetError(
                f"{path}: pair {pair.get('pid')} has value {value!r}, not true/false"
            )
        pairs.append(
            QuestionPair(
                " ".join(text_of(pair.find("chq")).split()),
                " ".join(text_of(pair.find("faq")).split()),
                value == "true",
            )
        )
    return pairs
