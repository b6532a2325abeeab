"""What a question asks about its subject: MedQuAD's question types, read by a classifier.

The classifier (`nodes/data/question_type/`, trained by benchmarks/train_question_type.py
on MedQuAD's labelled questions and consumer-worded templates) is a logistic regression
over the bundled all-MiniLM-L6-v2 embedding of the question. It reads the question with its
own encoder whatever embedding model a run uses, so its features are the ones it was
trained on. Its accuracy, held out, is in `training.json` and docs/benchmarks/
question_type.md: near perfect on MedQuAD's templated questions, much lower on long
consumer messages, which is why callers use its answer only when it is confident.

Each type also has its *cue stems*: the words MedQuAD's answers of that type use far more
than answers of other types (log-odds, computed at training time: "diagnos", "test" for
exams and tests). A sentence holding one is about that type; that is how an answer quotes
only sentences about what was asked when no passage of the type exists.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.knowledge.spelling import english_corrected
from veriloop.models import Models
from veriloop.nodes.linear_weights import LinearWeights, probabilities
from veriloop.text import split_sentences
from veriloop.trace import ModelCall

QUESTION_TYPE_DIR = Path(__file__).parent / "data" / "question_type"
QUESTION_TYPE_NAMES: dict[str, str] = {
    "information": "what it is",
    "symptoms": "its symptoms",
    "treatment": "how it is treated",
    "inheritance": "how it is inherited",
    "frequency": "how common it is",
    "genetic changes": "the genetic changes behind it",
    "causes": "what causes it",
    "exams and tests": "how it is diagnosed",
    "research": "research on it",
    "outlook": "its outlook",
    "susceptibility": "who is at risk",
    "considerations": "living with it",
    "prevention": "how to prevent it",
    "stages": "its stages",
    "complications": "its complications",
}
"""How an answer names each type ("MedQuAD ... says nothing about how it is diagnosed")."""

_lock = threading.Lock()


@dataclass(frozen=True)
class AskedType:
    """A question type with the classifier's probability."""

    qtype: str
    probability: float


@dataclass(frozen=True)
class QuestionTypeClassifier:
    """The trained question-type classifier and each type's cue stems."""

    classes: tuple[str, ...]
    coef: npt.NDArray[np.float32]
    intercept: npt.NDArray[np.float32]
    cues: dict[str, frozenset[str]]
    encoder: str
    """The embedding model the classifier reads (the bundled MiniLM)."""

    @classmethod
    def load(cls, folder: Path = QUESTION_TYPE_DIR) -> QuestionTypeClassifier:
        """Read a classifier written by benchmarks/train_question_type.py.

        Raises:
            InvalidInputError: The folder holds no classifier.
        """
        read = LinearWeights.read(folder, "question-type", "benchmarks/train_question_type.py")
        return cls(
            classes=read.classes,
            coef=read.coef,
            intercept=read.intercept,
            cues=_with_named_words(
                {k: frozenset(v) for k, v in read.notes["cue_stems"].items()},
                folder / CUE_WORDS,
            ),
            encoder=read.encoder,
        )

    def probabilities(self, vectors: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Return P(type) per row of unit question embeddings (rows sum to 1)."""
        return probabilities(vectors, self.coef, self.intercept)

    def classify(self, vector: npt.NDArray[Any]) -> list[AskedType]:
        """Return every type with its probability for one question embedding, best first."""
        probs = self.probabilities(np.asarray(vector)[None, :])[0]
        order = np.argsort(-probs)
        return [AskedType(self.classes[i], round(float(probs[i]), 6)) for i in order]

    def mentions(self, qtype: str, text: str) -> bool:
        """Tell whether `text` holds one of `qtype`'s cue stems (it is about that type)."""
        cues = self.cues.get(qtype, frozenset())
        return bool(cues & set(lexical_tokens([text])[0]))


CUE_WORDS = "cue_words.json"
"""The words naming each type, added to its learned cue stems (why: in the file)."""


def _with_named_words(cues: dict[str, frozenset[str]], path: Path) -> dict[str, frozenset[str]]:
    """Return the learned cue stems with the stems of the words naming each type added."""
    if not path.is_file():
        return cues
    words = json.loads(path.read_text(encoding="utf-8"))
    named = {
        qtype: frozenset(lexical_tokens([" ".join(listed)])[0])
        for qtype, listed in words.items()
        if not qtype.startswith("_")
    }
    return {qtype: stems | named.get(qtype, frozenset()) for qtype, stems in cues.items()}


@cache
def question_types() -> QuestionTypeClassifier:
    """Return the bundled classifier (read once per process)."""
    return QuestionTypeClassifier.load()


@cache
def _encoder() -> Any:
    from veriloop.models.backends import bundled_embedder

    return bundled_embedder()


def classify_questions(questions: list[str]) -> list[list[AskedType]]:
    """Classify questions with the bundled classifier and its own encoder (the bundled MiniLM).

    Raises:
        InvalidInputError: The classifier's weights are missing.
    """
    classifier = question_types()
    return [classifier.classify(v) for v in own_vectors(questions)]


def own_vectors(texts: list[str]) -> npt.NDArray[Any]:
    """Embed texts with the classifiers' own encoder, the bundled MiniLM (loaded once)."""
    with _lock:
        encoder = _encoder()
    return encoder.embed(texts)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Asked:
    """What a question asks, as the classifier read it."""

    best: AskedType
    confident: bool
    """The best type's probability reaches the caller's `confident_at`."""
    calls: list[ModelCall]
    question_vector: npt.NDArray[Any] | None
    """The question embedded by the run's own embedder (None when the classifier's own
    encoder read it): retrieval re-ranks with it instead of embedding the question again."""

    @property
    def qtype(self) -> str | None:
        """Return the type when the classifier is confident, else None."""
        return self.best.qtype if self.confident else None


def asked_type(models: Models, question: str, confident_at: float) -> Asked:
    """Classify what a question asks; say whether the classifier is confident enough to use.

    The run's embedder reads the question when it is the classifier's encoder (one
    accounted call, its vector reused by retrieval); otherwise the classifier's own encoder
    does.
    """
    classifier = question_types()
    if models.embedder.name == classifier.encoder:
        vectors, call = models.embed([question], purpose="question_type")
        best = classifier.classify(vectors[0])[0]
        return Asked(best, best.probability >= confident_at, [call], vectors[0])
    best = classifier.classify(own_vectors([question])[0])[0]
    return Asked(best, best.probability >= confident_at, [], None)


ASKING = re.compile(
    r"(?:(?:and|also|so|but|or|then)\b[\s,]*)*"
    r"(?:what|how|why|when|where|which|who|is|are|can|could|should|would|will|do|does|did|"
    r"(?:could you |can you |please )*tell me|i (?:want|would like|need) to know|"
    r"i (?:was )?wonder(?:ing)?(?: if| whether)?)\b",
    re.IGNORECASE,
)
"""How a part of a message that asks something opens ("and what steps should ...")."""

PART_BREAK = re.compile(
    r"(?:,\s*|\s+)(?:and|also)[\s,]+(?=(?:what|how|why|when|where|which|is|are|can|should|"
    r"do|does)\b)|,?\s+also,?\s+(?=\w)",
    re.IGNORECASE,
)
"""Where one sentence asks a second question: "... in newborns and what steps should ...",
"... as they become older) also, how to diagnose ..."."""

PART_MIN_WORDS = 4
"""A part shorter than this is a follow-up of the one before ("if so, when?"), not a part."""

PART_CONFIDENT_AT = 0.6
"""The classifier's probability from which a part's own type is asked too: on the 199
MEDIQA questions, parts read at 0.5 to 0.6 were mostly statements' echoes ("can find no
help with exercise" as considerations)."""

MAX_ASKED = 3
"""Types one question is answered for, the whole question's first."""


def question_parts(question: str) -> list[str]:
    """Return the parts of a message that ask something, each one question.

    A part is a sentence, or a clause after "and"/"also" that opens a second question, that
    opens the way a question does (`ASKING`) and has `PART_MIN_WORDS` words; statements
    ("My son is 4 months old.") and thanks are no parts.
    """
    pieces = [
        piece.strip(" ,.")
        for sentence in split_sentences(question)
        for piece in PART_BREAK.split(sentence)
    ]
    return [
        piece for piece in pieces if len(piece.split()) >= PART_MIN_WORDS and ASKING.match(piece)
    ]


@dataclass(frozen=True)
class AskedPart:
    """A part of a question asking a type of its own, as the classifier read it."""

    text: str
    qtype: str
    probability: float


def more_asked(
    models: Models, question: str, primary: str | None
) -> tuple[list[AskedPart], list[ModelCall]]:
    """Return the types a question's other parts ask, besides `primary`, and the calls made.

    "What are the reasons for hypoglycemia in newborns, and what steps should a pregnant
    woman take to avoid this?" asks causes, then prevention. Each part (`question_parts`,
    two or more) is classified; a part read at `PART_CONFIDENT_AT` or more whose type is
    neither `primary` nor "information" nor an earlier part's is asked too, up to
    `MAX_ASKED` types with the primary. With no confident `primary`, the first part's
    type leads. The parts are read with their misspelt English words corrected
    (`english_corrected`), by the run's embedder when it is the classifier's encoder.
    """
    parts = question_parts(question)
    if len(parts) < 2:
        return [], []
    classifier = question_types()
    calls: list[ModelCall] = []
    read = [english_corrected(part) for part in parts]  # "how to diognose": not treatment
    if models.embedder.name == classifier.encoder:
        vectors, call = models.embed(read, purpose="question_type")
        calls.append(call)
    else:
        vectors = own_vectors(read)
    seen = {primary, "information"}
    asked = []
    for part, vector in zip(parts, vectors, strict=True):
        best = classifier.classify(vector)[0]
        if best.probability >= PART_CONFIDENT_AT and best.qtype not in seen:
            seen.add(best.qtype)
            asked.append(AskedPart(part, best.qtype, best.probability))
    return asked[: MAX_ASKED - (primary is not None)], calls
