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

import difflib
import json
import re
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from bm25s.stopwords import STOPWORDS_EN_PLUS

from veriloop.knowledge.corpus_index import lexical_tokens, snowball
from veriloop.knowledge.spelling import english_words
from veriloop.models import Models
from veriloop.nodes.linear_weights import LinearWeights
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


STOP_STEMS = frozenset(str(snowball().stemWord(word)) for word in STOPWORDS_EN_PLUS) - {"should"}
"""The stems of the stop words: learned cue stems among them ("you", "your", "who", "had",
"were") are words of any sentence, which the type's meaning must back up. Not "should",
considerations' stem: advice is given with it ("If you use your asthma medicines as your
doctor directs, you should be able to take part in any physical activity" answered the
199's asthma exercise question, rated good, and was lost without it)."""


@dataclass(frozen=True)
class QuestionTypeClassifier:
    """The trained question-type classifier and each type's cue stems."""

    weights: LinearWeights
    cues: dict[str, frozenset[str]]
    thin: dict[str, frozenset[str]] = field(default_factory=dict)
    """Each type's learned stems that count only beside the unit-type classifier, not where
    the words decide alone (`CUE_WORDS`' "_thin": complications' chance words)."""

    @property
    def classes(self) -> tuple[str, ...]:
        """Return the types it tells apart, in its weights' order."""
        return self.weights.classes

    @property
    def encoder(self) -> str:
        """Return the embedding model the classifier reads (the bundled MiniLM)."""
        return self.weights.encoder

    @classmethod
    def load(cls, folder: Path = QUESTION_TYPE_DIR) -> QuestionTypeClassifier:
        """Read a classifier written by benchmarks/train_question_type.py.

        Raises:
            InvalidInputError: The folder holds no classifier.
        """
        read = LinearWeights.read(folder, "question-type", "benchmarks/train_question_type.py")
        stems = {k: frozenset(v) for k, v in read.notes["cue_stems"].items()}
        path = folder / CUE_WORDS
        return cls(read, _with_named_words(stems, path), _stems_listed(path, "_thin"))

    def probabilities(self, vectors: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Return P(type) per row of unit question embeddings (rows sum to 1)."""
        return self.weights.probabilities(vectors)

    def classify(self, vector: npt.NDArray[Any]) -> list[AskedType]:
        """Return every type with its probability for one question embedding, best first."""
        probs = self.probabilities(np.asarray(vector)[None, :])[0]
        order = np.argsort(-probs)
        return [AskedType(self.classes[i], round(float(probs[i]), 6)) for i in order]

    def mentions(self, qtype: str, text: str, *, alone: bool = False) -> bool:
        """Tell whether `text` holds one of `qtype`'s cue stems (it is about that type).

        A stem that is a word of any sentence counts only in its sense
        (`CUES_IN_CONTEXT`): "affects" with a count, "passes" down a family. Where the
        words decide `alone` (no classifier backs them), the learned stems that are stop
        words (`STOP_STEMS`: prevention's "you", "your") and the type's thin stems
        (`thin`: complications' "fever", "bacteri") do not count.
        """
        cues = self.cues.get(qtype, frozenset())
        if alone:
            cues = cues - STOP_STEMS - self.thin.get(qtype, frozenset())
        held = cues & set(lexical_tokens([text])[0])
        context = _in_context().get(qtype)
        if held and context and held <= context[0]:
            return bool(context[1].search(text))
        return bool(held)


NUMBER = (
    r"(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|hundreds?|"
    r"thousands?|millions?|billions?|percent)\b)"
)
"""A number, in digits or words."""

CUES_IN_CONTEXT: dict[str, tuple[str, re.Pattern[str]]] = {
    "frequency": (
        "affects",
        re.compile(
            rf"\baffect\w*\s+(?:[\w,.-]+\s+){{0,4}}?{NUMBER}"
            rf"|{NUMBER}[\w,.-]*(?:\s+[\w,.-]+){{0,5}}?\s+(?:(?:are|is|were|was|be|been)\s+)?"
            r"affected\b",
            re.IGNORECASE,
        ),
    ),
    "inheritance": (
        "passes carries parent",
        re.compile(
            r"\bpass(?:es|ed|ing)?\s+(?:[\w-]+\s+){0,4}?(?:down|along|on\s+to|from\s+"
            r"(?:an?\s+|the\s+|one\s+|their\s+|his\s+|her\s+)?(?:parents?|mothers?|fathers?|"
            r"generation)|to\s+(?:[\w-]+\s+)?(?:children|child|offspring|sons?|daughters?|"
            r"bab(?:y|ies)|next\s+generation))\b|"
            r"\bcarr(?:y|ies|ied|ying)\s+(?:[\w-]+\s+){0,3}?(?:genes?|mutations?|traits?|"
            r"cop(?:y|ies)|alleles?|variants?|chromosomes?|(?:\w+\s+)?translocations?)\b|"
            r"\b(?:an?|one|both|either|each|the\s+other|(?:the\s+)?(?:un)?affected)\s+"
            r"(?:of\s+(?:his|her|their|the)\s+)?parents?\s+(?:with|who\s+(?:has|have|had|"
            r"carr(?:y|ies))|(?:is|are|was|were)\s+(?:also\s+)?(?:(?:mildly\s+)?affected|"
            r"carriers?|a\s+carrier)|ha(?:s|ve|d)\s+(?:the|this|a|an)\b)|"
            r"\b(?:un)?affected\s+parents?\b|\bparents?\s+of\s+origin\b|"
            r"\bparents?\s+(?:may|might|can)\s+(?:\w+\s+){0,3}?(?:un)?affected\b|"
            r"\bparents?\s+of\s+(?:individuals|people|children|a\s+child|those)\s+with\b|"
            r"\bparents?\s+or\s+(?:siblings?|brothers?|sisters?|children)\b|"
            r"\bfrom\s+(?:an?\s+|one\s+|each\s+|both\s+|either\s+|their\s+|a\s+single\s+)?"
            r"parents?\b|"
            r"\bin\s+(?:a|either|one)\s+parent\b|"
            r"\bparents?,\s+(?:children|siblings?|brothers?|sisters?)\b|"
            r"\b(?:brother|sister|sibling|relative)\s*,?\s*(?:or\s+)?\(?(?:such\s+as\s+)?"
            r"(?:a\s+)?parent",
            re.IGNORECASE,
        ),
    ),
    "exams and tests": (
        "detect",
        re.compile(
            r"^(?!.*(?:\b(?:cells?|tissues?|photoreceptors?|receptors?|buds?|nerve\s+endings|"
            r"organs?)"
            r"\s+(?:that|which)\s+|\bability\s+to\s+)detect\w*"
            r"|.*\bdetect\w*\s+(?:by\s+(?:the\s+)?(?:taste|sensory|nerve|smell)"
            r"|(?:any\s+|certain\s+|the\s+|food\s+)?(?:light|colou?rs?|odou?rs?|smells?|"
            r"tastes?|sensations?|sounds?|touch|heat|vibrations?|motion|movements?)\b"
            r"(?!\s+(?:chains?|blindness|vision|deficien\w*|conduction|disorders?))))"
            r".*\bdetect",
            re.IGNORECASE | re.DOTALL,
        ),
    ),
    "outlook": (
        "die",
        re.compile(
            r"^(?!.*(?:\b(?:cells?|tissues?|neurons?|muscles?|fibers?|blasts|bacteria|germs?|"
            r"lice|mites?|worms?|eggs?|parasites?|nerves?)\b(?:\s+[\w'-]+){0,3}?|"
            r"\bcaus\w*\s+(?:it|them)\s+to)\s+d(?:ie|ies|ied|ying)\b).*\bd(?:ie|ies|ied|ying)\b",
            re.IGNORECASE | re.DOTALL,
        ),
    ),
}
"""Cue words of a type that are words of any sentence, each with the context it must have
to count when it is the only cue a unit holds. Frequency's "affects" needs a count within
a few words ("affects about 1 in 5,000 people", "About 2 percent of people are
affected"; not "disorders that affect the brain", quoted for "How many people get
dementia?", nor "Type 2 diabetes affects how the body uses sugar"): on 20,000 MedQuAD
units (benchmarks/cue_words.py's sample, seed 0) recall 0.77 -> 0.75, precision 0.12 ->
0.31 (any number in the unit: 0.76 / 0.26; without "affects": 0.71 / 0.35).
Inheritance's learned "pass" needs something passed down a family ("pass the faulty
CFTR gene to their children"; not "light passes through the transparent lens", quoted
for "are cataracts hereditary"; 5 of the sample's 92 units whose only inheritance stem
is "pass" are of the type): recall 0.920 unchanged, precision 0.274 -> 0.284.
Its learned "carri" likewise needs something carried in the genes ("people who
carry this type of balanced translocation"; not "insulin to carry glucose into the
body's cells", quoted for "Is type 2 diabetes hereditary?"): of MedQuAD's 634 distinct
units whose only inheritance stem it is, 1 is of the type, and 9 keep it (2026-11-27).
Its learned "parent" needs a parent as a relative who has, passes or lacks the condition
("an affected person has one parent with the condition", "one from each parent", "a
parent, brother, or sister with diabetes"; not "Parent training may also help", quoted
for "Is ADHD genetic?", nor "Parents can help their child cope"): on the sample, 24 units
lose the cue, 1 of the type; recall 0.927 -> 0.926, precision 0.295 -> 0.298
(2026-11-28).
Outlook's learned "die" needs a person to die, not cells or tissue ("Most babies with
this condition die soon after birth"; not "a rubber band ... that causes the tissue to
die and fall off", quoted for "What is the outlook for people with cirrhosis?", nor
"brain cells begin to die", "causes it to die"; "dying" too): on the sample (drawn from
the units of 4e54a39's review mends), 13 units lose the cue, none of the type; recall
0.549 unchanged, precision 0.103 -> 0.104 (2026-11-29).
Exams' learned "detect" needs a condition found, not a sense ("AMD is detected during a
comprehensive eye exam"; not the retina "that detects light and color", quoted for "How
is macular degeneration diagnosed?", nor "can't detect odor", "taste buds", "the ability to
detect"): of MedQuAD's 273 distinct units whose only exams stem is "detect", 43 lose it,
1 of the type; on the sample recall 0.695 unchanged, precision 0.459 -> 0.460
(2026-11-29, second session)."""


@cache
def _in_context() -> dict[str, tuple[frozenset[str], re.Pattern[str]]]:
    """Return `CUES_IN_CONTEXT` with each word as the index stems it."""
    return {
        qtype: (frozenset(lexical_tokens([word])[0]), pattern)
        for qtype, (word, pattern) in CUES_IN_CONTEXT.items()
    }


CUE_WORDS = "cue_words.json"
"""The words naming each type, added to its learned cue stems (why: in the file)."""


@cache
def _cue_file(path: Path) -> dict[str, Any]:
    """Return `CUE_WORDS` as read, once per process (empty when the file is missing)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


@cache
def _named_words(path: Path = QUESTION_TYPE_DIR / CUE_WORDS) -> dict[str, list[str]]:
    """Return the words naming each type (`CUE_WORDS`; none when the file is missing)."""
    words = _cue_file(path)
    return {qtype: list(listed) for qtype, listed in words.items() if not qtype.startswith("_")}


def _stems_listed(path: Path, key: str) -> dict[str, frozenset[str]]:
    """Return the learned stems `CUE_WORDS` lists per type under `key` ("_dropped", "_thin")."""
    listed = _cue_file(path).get(key, {})
    return {qtype: frozenset(stems) for qtype, stems in listed.items() if not qtype.startswith("_")}


def _with_named_words(cues: dict[str, frozenset[str]], path: Path) -> dict[str, frozenset[str]]:
    """Return the learned cue stems with the stems of the words naming each type added.

    The stems the file drops (words of any sentence: treatment's "might") are left out.
    """
    named = {
        qtype: frozenset(lexical_tokens([" ".join(listed)])[0])
        for qtype, listed in _named_words(path).items()
    }
    dropped = _stems_listed(path, "_dropped")
    return {
        qtype: (stems - dropped.get(qtype, frozenset())) | named.get(qtype, frozenset())
        for qtype, stems in cues.items()
    }


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


def classifier_vectors(
    models: Models, texts: list[str], purpose: str, encoder: str
) -> tuple[npt.NDArray[Any], list[ModelCall]]:
    """Embed texts as a classifier trained on `encoder`'s embeddings reads them.

    The run's embedder does it when it is that encoder (one accounted call, its vectors
    reusable by the caller); otherwise the classifiers' own encoder does (`own_vectors`).
    """
    if models.embedder.name == encoder:
        vectors, call = models.embed(texts, purpose=purpose)
        return vectors, [call]
    return own_vectors(texts), []


def asked_type(models: Models, question: str, confident_at: float) -> Asked:
    """Classify what a question asks; say whether the classifier is confident enough to use.

    The run's embedder reads the question when it is the classifier's encoder (its vector
    reused by retrieval); otherwise the classifier's own encoder does.
    """
    classifier = question_types()
    vectors, calls = classifier_vectors(models, [question], "question_type", classifier.encoder)
    best = classifier.classify(vectors[0])[0]
    return Asked(best, best.probability >= confident_at, calls, vectors[0] if calls else None)


ASKING = re.compile(
    r"(?:(?:and|also|so|but|or|then)\b[\s,]*)*"
    r"(?:what|how|why|when|where|which|who|is|are|can|could|should|would|will|do|does|did|"
    r"(?:could you |can you |please )*tell me|i (?:want|need) to know|"
    r"i(?: would|['’]d) like to know|i(?: was| am|['’]m)? wonder(?:ing)?(?: if| whether)?)\b",
    re.IGNORECASE,
)
"""How a part of a message that asks something opens ("and what steps should ...", "I'd
like to know ...")."""

_ASKS = r"(?=(?:what|how|why|when|where|which|is|are|can|should|do|does)\b)"
PART_BREAK = re.compile(
    rf"(?:,\s*|\s+)and(?:\s+also)?[\s,]+{_ASKS}|(?:,\s*also,?|\s+also,)\s+{_ASKS}",
    re.IGNORECASE,
)
"""Where one sentence asks a second question: "... in newborns and what steps should ...",
"... as they become older) also, how to diagnose ...". Only before a question word: "what
can I also do to prevent it?" is one question."""

PART_MIN_WORDS = 3
"""A part shorter than this is a follow-up of the one before ("when?"), not a part ("if so,
when?" opens like no question)."""

PART_CONFIDENT_AT = 0.6
"""The classifier's probability from which a part's own type is asked too: on the 199
MEDIQA questions, parts read at 0.5 to 0.6 were mostly statements' echoes ("can find no
help with exercise" as considerations)."""

MAX_ASKED = 3
"""Types one question is answered for, the whole question's first."""


@cache
def type_words() -> list[str]:
    """Return the words that name the question types (cue_words.json) and their plurals."""
    named = {w for words in _named_words().values() for phrase in words for w in phrase.split()}
    return sorted(named | {f"{w}s" for w in named})


def names_type(qtype: str, text: str) -> bool:
    """Tell whether a text writes one of the words that name a type (cue_words.json).

    Stricter than the learned cue stems (`QuestionTypeClassifier.mentions`, whose stems
    for exams and tests hold "presenc"): "treated", "diagnosis", "prevents" name theirs.
    """
    words = _named_words().get(qtype, [])
    return any(re.search(rf"\b{re.escape(word)}", text, re.IGNORECASE) for word in words)


TYPE_WORD_MIN_LENGTH = 6
"""Words shorter than this are left as written by `with_type_words_spelled`."""


def with_type_words_spelled(text: str) -> str:
    """Return `text` with misspelt words that name a question type spelled right.

    "how to diognose the disorder" was read as a treatment question. Only a word of
    `TYPE_WORD_MIN_LENGTH` letters or more that is no English word (pyspellchecker's list)
    is changed, and only to a type's word close to it (difflib ratio 0.85: "diognose" ->
    "diagnose", "treatmnet" -> "treatment"); names and other words stay as written
    ("statins" is never made "stations").
    """
    words, english = type_words(), english_words()

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        if len(word) < TYPE_WORD_MIN_LENGTH or lowered in english:
            return word
        close = difflib.get_close_matches(lowered, words, n=1, cutoff=0.85)
        return close[0] if close else word

    return re.sub(r"[A-Za-z]+", fix, text)


def question_parts(question: str) -> list[str]:
    """Return the parts of a message that ask something, each one question.

    A part is a sentence, or a clause after "and"/"also" that opens a second question, that
    opens the way a question does (`ASKING`) and has `PART_MIN_WORDS` words; statements
    ("My son is 4 months old.") and thanks are no parts.
    """
    pieces = [
        re.sub(r"(?:[\s,]+(?:and|also))+$", "", piece.strip(" ,."), flags=re.IGNORECASE)
        for sentence in message_sentences(question)  # "... worse.How do I ...": two
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
    number: int
    """Its place among the message's parts (`question_parts`), from 1."""


def more_asked(
    models: Models, question: str, primary: str | None
) -> tuple[list[AskedPart], list[ModelCall]]:
    """Return the types a question's other parts ask, besides `primary`, and the calls made.

    "What are the reasons for hypoglycemia in newborns, and what steps should a pregnant
    woman take to avoid this?" asks causes, then prevention. Each part (`question_parts`,
    two or more) is classified; a part read at `PART_CONFIDENT_AT` or more whose type is
    neither `primary` nor "information" nor an earlier part's is asked too, up to
    `MAX_ASKED` types with the primary. With no confident `primary`, the first part's
    type leads. The parts are read with the words naming a type spelled right
    (`with_type_words_spelled`), by the run's embedder when it is the classifier's encoder.
    """
    parts = question_parts(question)
    if len(parts) < 2:
        return [], []
    classifier = question_types()
    read = [with_type_words_spelled(part) for part in parts]  # "how to diognose"
    vectors, calls = classifier_vectors(models, read, "question_type", classifier.encoder)
    seen = {primary, "information"}
    asked = []
    for number, (part, vector) in enumerate(zip(parts, vectors, strict=True), start=1):
        best = classifier.classify(vector)[0]
        if best.probability >= PART_CONFIDENT_AT and best.qtype not in seen:
            seen.add(best.qtype)
            asked.append(AskedPart(part, best.qtype, best.probability, number))
    return asked[: MAX_ASKED - (primary is not None)], calls


@dataclass(frozen=True)
class AskedTypes:
    """What a question asks: its first type and its other parts' (`asked_types`)."""

    asked: Asked | None
    """The whole question as the classifier read it (None: types not read)."""
    first: str | None
    """The type the answer is for first (None: no confident type)."""
    more: list[AskedPart]
    """The other parts' types, in the message's order."""
    calls: list[ModelCall]


ABOUT_AND_ITS = re.compile(
    r"\b(?:know|learn|read|information|info|tell (?:me|us))\b(?:\s+more)?\s+"
    r"(?:about|on|regarding)\s+(?P<subject>[^.?!;,]{2,60}?)\s+(?:and|&)\s+(?:its|their|the)\s+"
    r"(?P<aspect>\w{4,}(?:\s+\w+){0,2}?)\s*(?:[.?!;,]|$)",
    re.IGNORECASE,
)
"""A message asking about a subject and one of its aspects ("I want to know about Lupus
and its treatment"): two asks, what it is and the aspect."""


TYPE_NOUNS = {
    "symptoms": "symptoms",
    "signs": "symptoms",
    "causes": "causes",
    "cause": "causes",
    "diagnosis": "exams and tests",
    "tests": "exams and tests",
    "treatment": "treatment",
    "treatments": "treatment",
    "therapy": "treatment",
    "therapies": "treatment",
    "cure": "treatment",
    "remedy": "treatment",
    "remedies": "treatment",
    "prevention": "prevention",
    "outlook": "outlook",
    "prognosis": "outlook",
    "complications": "complications",
    "inheritance": "inheritance",
    "risk factors": "susceptibility",
    "research": "research",
}
"""Nouns naming a question type, as a message lists the things it asks ("the causes and
treatments of gout")."""

_NOUN = "|".join(sorted(map(re.escape, TYPE_NOUNS), key=len, reverse=True))
_THEN = r"(?:the\s+|its\s+)?"
_AND = rf"\s*,?\s+(?:and|or|&)\s+{_THEN}"
TYPES_NAMED_TOGETHER = re.compile(
    rf"\b(?:{_NOUN})(?:(?:\s*,\s*{_THEN}|{_AND})(?:{_NOUN}))*{_AND}(?:{_NOUN})\b",
    re.IGNORECASE,
)
"""Type nouns listed together in one clause, by commas or "and"s, the last by "and" or "or":
each is asked ("treatment and prevention protocol for mite infestation", "signs and
symptoms and treatment")."""

ONE_TYPE_NOUN = re.compile(rf"\b(?:{_NOUN})\b", re.IGNORECASE)


REQUEST = re.compile(
    r"\b(?:inform|tell|know|learn|information|explain|describe|recommend\w*|"
    r"(?:looking|look|searching|search) for|seeking)\b",
    re.IGNORECASE,
)
"""Words of a sentence that asks without a question mark ("Please inform me of ...", "We are
looking for the current research and treatments available.")."""


GLUED_SENTENCE_END = re.compile(r"(?<=[a-z])\.(?=[A-Z][a-z])")
"""A full stop with no space after it ("did not have the measles vaccination.Could SSPE")."""


def message_sentences(question: str) -> list[str]:
    """Return a message's sentences, split too where a full stop lost its space."""
    return [
        piece.strip()
        for sentence in split_sentences(question)
        for piece in GLUED_SENTENCE_END.split(sentence)
        if piece.strip()
    ]


def asking_sentences(question: str) -> list[str]:
    """Return the sentences of a message that ask: a question, or a request (`REQUEST`)."""
    return [
        sentence
        for sentence in message_sentences(question)
        if "?" in sentence or ASKING.match(sentence) or REQUEST.search(sentence)
    ]


VACCINE = re.compile(
    r"\b(?:un)?(?:vacc?in(?:e|es|ation|ations|ated|ate)|immuni[sz](?:e|ed|ation|ations))\b",
    re.IGNORECASE,
)
"""Words naming a vaccine ("vacine" as users write it). "vaccin" is one of prevention's
learned cue stems: MedQuAD's prevention answers are where vaccines are described."""

ASKS_CAUSE = re.compile(r"\b(?:caus\w*|due to|lead to|leads to|trigger\w*)\b", re.IGNORECASE)
"""A sentence asking what a vaccine causes ("Is autism caused by vaccines?"): no
prevention ask."""

SUBJECT_LINE_WORDS = 4
"""A message's first sentence of at most this many words is its subject line ("Shingles
vacine."), as consumer messages open: what the message is about."""

STATES = re.compile(
    r"\b(?:i|we|you|he|she|they|my|our|got|get|had|have|has|was|were|is|are|am|did|do)\b",
    re.IGNORECASE,
)
"""Words of a statement or a question, which a subject line (a noun phrase) has none of."""


def subject_line(question: str) -> str | None:
    """Return a message's subject line: a first sentence of a few words stating nothing."""
    sentences = message_sentences(question)
    if len(sentences) < 2 or len(sentences[0].split()) > SUBJECT_LINE_WORDS:
        return None
    return None if STATES.search(sentences[0]) else sentences[0]


WHO_GETS = re.compile(
    r"^\W*who(?:['\u2019]s|\s+is|\s+are)?\s+(?:usually\s+|most\s+often\s+|typically\s+)?"
    r"(?:gets?|develops?|can\s+(?:get|develop)|(?:is|are)\s+affected\s+by|"
    r"(?:most\s+|more\s+)?likely\s+to\s+(?:get|develop|have))\s+"
    r"(?!(?:tested|screened|treated|checked|vaccinated|immuni[sz]ed|better|worse|a|an|the|"
    r"genetic|side|vaccines?|shots?|screening|testing|treatment)\b)",
    re.IGNORECASE,
)
"""A question asking who is susceptible in other words than "at risk" ("Who gets
shingles?", "Who develops Parkinson disease?"), which the classifier read as causes or
below its confidence (susceptibility 0.43 for shingles, causes 0.67 for kidney stones).
Not where what follows is a test, a treatment, a vaccine or an article ("Who gets tested
for HIV?", "Who can get a flu shot?", "who gets better faster?"): the classifier decides."""


def who_gets_asked(question: str) -> bool:
    """Tell whether a message's first asking sentence asks who gets it (`WHO_GETS`)."""
    sentences = asking_sentences(question)
    return bool(sentences) and WHO_GETS.search(sentences[0]) is not None


def vaccine_asked(question: str) -> int | None:
    """Return where a message asks about a vaccine: 0 first, 1 after another ask; None: not.

    Read in its subject line and its asking sentences (`asking_sentences`), those asking
    what a vaccine causes left out (`ASKS_CAUSE`). "Shingles vacine. At what age should you
    get the Shingles shot." asks prevention first (the classifier read "at what age" as
    who gets shingles); "What are the symptoms of shingles? Should I get the vaccine?"
    asks it second; "My son did not have the measles vaccination. Could SSPE occur at his
    age?" states the vaccine and asks who gets SSPE; "I got vaccinated." is no subject line.
    """
    line = subject_line(question)
    asking = [*([line] if line else []), *asking_sentences(question)]
    for at, sentence in enumerate(asking):
        if VACCINE.search(sentence) and not ASKS_CAUSE.search(sentence):
            return min(at, 1)
    return None


_EFFECTS = r"(?:side|adverse)[\s-]+effects?"
SIDE_EFFECTS = re.compile(rf"\b{_EFFECTS}\b", re.IGNORECASE)
"""Words naming a treatment's side effects: MedQuAD says them on its treatment pages (202
of the 369 answers that write them)."""


NAMES_SIGNS = re.compile(r"\b(?:symptoms?|signs?)\b", re.IGNORECASE)
"""Words naming symptoms: a part holding one asks them, side effects named or not."""


ASKS_SIDE_EFFECTS = re.compile(
    r"(?<!without )(?<!without any )(?<!with no )(?<!no )(?<!minimal )(?<!fewer )"
    r"(?<!few )(?<!less )(?<!least )(?<!mild )\b(?:"
    rf"{_EFFECTS}\s+(?:of|from|with|for|does|do|are|is|can|to)\b|"
    rf"(?:what|which|any|its|their|the)\s+(?:\w+\s+)?{_EFFECTS}\s*(?:[?.!]|$)|"
    rf"(?:what|which)\s+(?:\w+\s+)?{_EFFECTS}|"
    rf"(?:have|has|cause|causes)\s+(?:any\s+)?{_EFFECTS}\s*(?:[?.!]|$))",
    re.IGNORECASE,
)
"""Side effects asked for ("the side effects of chemotherapy", "what side effects does it
have", "What are its side effects?", "Does metformin have side effects?"), not a wish
about them ("a treatment that has minimal side effects", "a cure without any side
effects")."""


def side_effects_asked(question: str) -> bool:
    """Tell whether a message asks about a treatment's side effects.

    Read in its asking sentences (`asking_sentences`): "What are the side effects of
    chemotherapy for breast cancer?" asks it (the classifier read it as symptoms), "The
    prednisone was causing other side effects." states it, "Please inform me of the
    treatment ..., particularly one that has minimal side effects." wishes for few
    (`ASKS_SIDE_EFFECTS`).
    """
    return any(ASKS_SIDE_EFFECTS.search(sentence) for sentence in asking_sentences(question))


def types_named_together(question: str) -> list[str]:
    """Return the types a message's listed type nouns name, in its order, each once.

    Only sentences that ask are read (a question, or a request: `REQUEST`): "My blood
    tests and symptoms suggest anemia." lists no asks. Fewer than two types (one type
    named twice, "signs and symptoms"): none.
    """
    named: list[str] = []
    asking = asking_sentences(question)
    for listed in (m for sentence in asking for m in TYPES_NAMED_TOGETHER.finditer(sentence)):
        for noun in ONE_TYPE_NOUN.finditer(listed.group(0)):
            qtype = TYPE_NOUNS[" ".join(noun.group(0).lower().split())]
            if qtype not in named:
                named.append(qtype)
    return named if len(named) > 1 else []


def asked_types(models: Models, question: str, confident_at: float) -> AskedTypes:
    """Read the type a question asks first and the types its other parts ask.

    The whole question's type when the classifier is confident of it; else the first
    part's that asks one (`more_asked`), the rest after it. A message asking about a
    subject and its aspect (`ABOUT_AND_ITS`) asks what it is first, then the aspect's type
    (the classifier's reading of "What are the <aspect> of <subject>?", at
    `PART_CONFIDENT_AT` or more), whatever type the whole message was read as. Type nouns
    listed together (`types_named_together`: "the causes and treatments of gout") are each
    asked, in the message's order. A message asking about a vaccine (`vaccine_asked`) asks
    prevention: first when that is its first ask, else after the others. A message asking
    about side effects (`side_effects_asked`) asks treatment, where a treatment's side
    effects are said, in the place of the classifier's symptoms reading of a part naming
    them and no symptom (after the other asks when there is none). A message whose first
    asking sentence asks who gets its subject (`who_gets_asked`) asks susceptibility first.
    """
    asked = asked_type(models, question, confident_at)
    first = asked.qtype
    more, part_calls = more_asked(models, question, first)
    if first is None and more:  # the whole message is unclear; its first part is not
        first, more = more[0].qtype, more[1:]
    asks = [*([AskedPart(question, first, asked.best.probability, 1)] if first else []), *more]
    told = 0  # how many asks lead because the message says so (what it is, then the aspect)
    if about := ABOUT_AND_ITS.search(question):
        classifier = question_types()
        phrased = f"What are the {about['aspect']} of {about['subject']}?"
        read = [with_type_words_spelled(phrased)]
        vectors, aspect_calls = classifier_vectors(
            models, read, "question_type", classifier.encoder
        )
        part_calls = [*part_calls, *aspect_calls]
        best = classifier.classify(vectors[0])[0]
        if best.probability >= PART_CONFIDENT_AT and best.qtype != "information":
            what = AskedPart(question, "information", best.probability, 1)
            asks = [what, AskedPart(question, best.qtype, best.probability, 1), *asks]
            told = 1
    if listed := types_named_together(question):  # "the causes and treatments of gout"
        named = [AskedPart(question, qtype, asked.best.probability, 1) for qtype in listed]
        lead = asks[:told] or [p for p in asks[:1] if p.qtype not in listed]  # asked before
        asks = [*lead, *named, *asks[len(lead) :]]
    if side_effects_asked(question):  # "What are the side effects of chemotherapy ...?"
        misread = [  # symptoms read from "side effects" alone, no symptom named
            p
            for p in asks
            if p.qtype == "symptoms"
            and SIDE_EFFECTS.search(p.text)
            and not NAMES_SIGNS.search(p.text)
        ]
        treatment = AskedPart(question, "treatment", asked.best.probability, 1)
        at = asks.index(misread[0]) if misread else len(asks)  # in the place it was asked
        asks = [p for p in asks if p not in misread]
        asks.insert(min(at, len(asks)), treatment)
    if who_gets_asked(question):  # "Who gets shingles?": who is susceptible, first
        asks = [AskedPart(question, "susceptibility", asked.best.probability, 1), *asks]
    vaccine = vaccine_asked(question)  # "At what age should you get the shingles shot"
    if vaccine is not None:
        prevention = AskedPart(question, "prevention", asked.best.probability, 1)
        asks = [prevention, *asks] if vaccine == 0 else [*asks, prevention]
    kept: list[AskedPart] = []
    for part in asks:  # each type once, in the order asked
        if part.qtype not in {p.qtype for p in kept}:
            kept.append(part)
    if kept:
        first, more = kept[0].qtype, kept[1:MAX_ASKED]
    return AskedTypes(asked, first, more, [*asked.calls, *part_calls])
