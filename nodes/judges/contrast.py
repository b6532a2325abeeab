"""The aligned contrast rule: a claim that says its evidence word for word but for one contrast.

`aligned_mismatches(claim, sentence)` compares a claim with one evidence sentence, clause by
clause ("..., but ...", "; ", "whereas"), and names a conflict only when the two *align*:
every content word of the claim but the contrasting span is in the clause (Snowball stems,
stop words out, any order), and the two share `MIN_ALIGNED_WORDS` content words. Then:

- `contrast`: the claim has one term of a pair of the medical contrast lexicon
  (`nodes/data/contrast_lexicon.tsv`: dominant / recessive, benign / malignant, speeds up /
  slows, children / adults, type 1 / type 2, ..., and prefix pairs such as hyper- / hypo-)
  where the clause has the other, and neither side has both;
- `negation`: the clause says what the claim says with a negation the claim lacks, or the
  other way round (an odd number of cues against an even one);
- `frequency`: a dosing or occurrence rate ("twice a day", "once a week", "every 8 hours",
  "daily") where the clause gives one other rate;
- `entity`: the one span that differs names another entity of the same kind: a disease
  (a MedQuAD focus), a gene (a symbol such as PTPN11, or a word before "gene"), or a drug
  (`nodes/data/drug_names.txt`).

What the clause does not mention is never a conflict here: that is "unsupported", the
judge's call. A claim that merely shares words with the clause is not compared: without the
alignment, "rare" in one and "common" in the other may be about different things. Measured
on held-out minimal pairs per edit type and on the real held-out sets by
`benchmarks/contrast_rule.py` (docs/benchmarks/contrast_rule.md).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from bm25s.stopwords import STOPWORDS_EN_PLUS

from veriloop.knowledge.corpus_index import snowball
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.knowledge.stated_names import own_name

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
LEXICON_FILE = DATA_DIR / "contrast_lexicon.tsv"
DRUG_FILE = DATA_DIR / "drug_names.txt"

AlignedKind = Literal["contrast", "negation", "frequency", "entity"]

MIN_ALIGNED_WORDS = 2
"""Content words the claim and the clause must share besides the contrast itself (all of
them when the claim has fewer: "Patients have hypokalemia")."""

ALIGNED_COVERAGE = 0.85
"""Share of the claim's other content words the clause must hold: the claim may be the
clause trimmed, but it may not add a subject of its own."""

NEGATION_OVERLAP = 0.6
"""For a negation, the share of the clause's content words the claim must also hold: a
long clause with a "not" somewhere else in it is no denial of a short claim."""

_WORD = re.compile(r"[a-z0-9µ]+(?:'[a-z]+)?")
_CLAUSE_BREAK = re.compile(
    r";|:|\s[–—-]\s|,\s*(?:but|whereas|while|although|though|yet)\b|"
    r"\s(?:but|whereas|while|although|though)\s",
    re.IGNORECASE,
)
_NEGATION_CUES = {
    "not", "no", "never", "none", "neither", "nor", "cannot", "without", "n't",
    "doesnt", "dont", "didnt", "isnt", "arent", "wasnt", "werent", "cant", "wont", "shouldnt",
}  # fmt: skip
"""Negation cues; the apostrophe-less spellings are MedQuAD's own ("doesnt")."""
_PARENTHESIS = re.compile(r"\([^()]*\)")
_NOT_NEGATION = re.compile(
    r"\bno (?:longer|more than|less than|fewer than|matter)\b|\bnot only\b", re.IGNORECASE
)
_STOP = {w for w in STOPWORDS_EN_PLUS if w not in {"most", "few", "many", "before", "after"}}


@dataclass(frozen=True)
class Contrast:
    """One conflict the aligned rule found: its kind, the claim's span and the clause's."""

    kind: AlignedKind
    claim_span: str
    evidence_span: str
    category: str = ""


@dataclass(frozen=True)
class _Term:
    stems: tuple[str, ...]
    text: str
    category: str
    prefix: bool


def _stem(word: str) -> str:
    return str(snowball().stemWord(word))


def words(text: str) -> list[str]:
    """Return the lower-case words of `text` ("doesn't" -> "does", "n't"; hyphens split)."""
    out: list[str] = []
    for word in _WORD.findall(text.lower().replace("’", "'")):
        if word.endswith("n't"):
            out += [word[:-3] or word, "n't"]
        elif "'" in word:
            out.append(word.split("'")[0])
        else:
            out.append(word)
    return out


def stems(text: str) -> list[str]:
    """Return the Snowball stems of `text`'s words, in order, stop words kept."""
    return [_stem(w) for w in words(text)]


def content_stems(text: str) -> set[str]:
    """Return the stems of `text`'s content words (stop words and negation cues out)."""
    raw = words(text)
    return set(content([_stem(w) for w in raw], raw))


def content(stemmed: Sequence[str], raw: Sequence[str]) -> list[str]:
    """Return the stems whose word is not a stop word or a negation cue."""
    return [s for s, w in zip(stemmed, raw, strict=True) if w not in _STOP | _NEGATION_CUES]


@cache
def lexicon() -> tuple[tuple[_Term, _Term], ...]:
    """Return the contrast lexicon's pairs, each term stemmed (`LEXICON_FILE`).

    Raises:
        ValueError: A line of the file does not have three tab-separated fields.
    """
    pairs = []
    for number, line in enumerate(LEXICON_FILE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{LEXICON_FILE}:{number}: expected term_a, term_b, category")
        a, b, category = (f.strip() for f in fields)
        terms = tuple(
            _Term(
                (t[:-1].lower(),) if t.endswith("-") else tuple(stems(t)),
                t,
                category,
                t.endswith("-"),
            )
            for t in (a, b)
        )
        pairs.append((terms[0], terms[1]))
    return tuple(pairs)


def _find(sequence: Sequence[str], term: _Term, raw: Sequence[str]) -> list[tuple[int, int]]:
    if term.prefix:
        return [(i, i + 1) for i, w in enumerate(raw) if w.startswith(term.stems[0])]
    n = len(term.stems)
    return [
        (i, i + n) for i in range(len(sequence) - n + 1) if tuple(sequence[i : i + n]) == term.stems
    ]


@dataclass(frozen=True)
class _Side:
    text: str
    raw: list[str]
    stems: list[str]
    content: list[str]

    @classmethod
    def of(cls, text: str) -> _Side:
        raw = words(text)
        stemmed = [_stem(w) for w in raw]
        return cls(text, raw, stemmed, content(stemmed, raw))


def _aligned(claim_rest: Sequence[str], clause: _Side, clause_drop: set[str]) -> bool:
    """Return whether the claim's other content words sit in the clause (the alignment)."""
    rest = [s for s in claim_rest if s]
    if not rest:
        return False
    clause_words = set(clause.content) - clause_drop
    shared = sum(1 for s in rest if s in clause_words)
    return shared >= min(MIN_ALIGNED_WORDS, len(rest)) and shared / len(rest) >= ALIGNED_COVERAGE


def _prefix_rest(word: str, prefix: str) -> str:
    return word[len(prefix) :] if word.startswith(prefix) else ""


@cache
def _pairs_by_first_stem() -> dict[str, tuple[tuple[_Term, _Term], ...]]:
    """Return the lexicon's (mine, theirs) pairs, both ways, by the first stem of `mine`."""
    out: dict[str, list[tuple[_Term, _Term]]] = {}
    for a, b in lexicon():
        for mine, theirs in ((a, b), (b, a)):
            if not mine.prefix:
                out.setdefault(mine.stems[0], []).append((mine, theirs))
    return {k: tuple(v) for k, v in out.items()}


def _candidate_pairs(claim: _Side) -> list[tuple[_Term, _Term]]:
    found = [p for s in dict.fromkeys(claim.stems) for p in _pairs_by_first_stem().get(s, ())]
    for a, b in lexicon():
        for mine, theirs in ((a, b), (b, a)):
            if mine.prefix and any(w.startswith(mine.stems[0]) for w in claim.raw):
                found.append((mine, theirs))
    return found


def _contrasts(claim: _Side, clause: _Side) -> list[Contrast]:
    found: list[Contrast] = []
    for mine, theirs in _candidate_pairs(claim):
        claim_spans = _find(claim.stems, mine, claim.raw)
        clause_spans = _find(clause.stems, theirs, clause.raw)
        if not claim_spans or not clause_spans:
            continue
        if _find(clause.stems, mine, clause.raw) or _find(claim.stems, theirs, claim.raw):
            continue  # both sides name both terms (or a prefix pair's shared words)
        if mine.prefix:
            # hyperkalemia / hypokalemia: the same word but for the prefix
            rests = {_prefix_rest(claim.raw[i], mine.stems[0]) for i, _ in claim_spans}
            matched = [
                (i, j)
                for i, j in clause_spans
                if _prefix_rest(clause.raw[i], theirs.stems[0]) in rests - {""}
            ]
            if not matched or min(len(r) for r in rests) < 3:
                continue
            clause_spans = matched
            claim_spans = [
                (i, j)
                for i, j in claim_spans
                if _prefix_rest(claim.raw[i], mine.stems[0])
                in {_prefix_rest(clause.raw[k], theirs.stems[0]) for k, _ in matched}
            ]
        in_span = {k for i, j in claim_spans for k in range(i, j)}
        claim_rest = content(
            [s for k, s in enumerate(claim.stems) if k not in in_span],
            [w for k, w in enumerate(claim.raw) if k not in in_span],
        )
        clause_drop = {clause.stems[k] for i, j in clause_spans for k in range(i, j)}
        if not _aligned(claim_rest, clause, clause_drop):
            continue
        (ci, cj), (ei, ej) = claim_spans[0], clause_spans[0]
        found.append(
            Contrast(
                "contrast",
                " ".join(claim.raw[ci:cj]),
                " ".join(clause.raw[ei:ej]),
                mine.category,
            )
        )
    return _unique(found)


def _unique(found: list[Contrast]) -> list[Contrast]:
    """Keep one contrast per claim span: the longest evidence span first ("speeds up")."""
    out: dict[str, Contrast] = {}
    for item in sorted(found, key=lambda c: -len(c.claim_span) - len(c.evidence_span)):
        if not any(item.claim_span in k or k in item.claim_span for k in out):
            out[item.claim_span] = item
    return list(out.values())


def cues(text: str) -> list[str]:
    """Return the negation cues of `text`, outside parentheses.

    "benign (not cancer)" has none; "no longer", "not only" and the like are no cues.
    """
    cleaned = _NOT_NEGATION.sub(" ", _PARENTHESIS.sub(" ", text))
    return [w for w in words(cleaned) if w in _NEGATION_CUES]


def _negation(claim: _Side, clause: _Side) -> list[Contrast]:
    claim_cues, clause_cues = cues(claim.text), cues(clause.text)
    if len(claim_cues) % 2 == len(clause_cues) % 2:
        return []
    if not _aligned(claim.content, clause, set()):
        return []
    clause_set = set(clause.content)
    if len(set(claim.content) & clause_set) / max(1, len(clause_set)) < NEGATION_OVERLAP:
        return []
    return [
        Contrast(
            "negation",
            " ".join(claim_cues) or "(no negation)",
            " ".join(clause_cues) or "(no negation)",
        )
    ]


# ------------------------------------------------------------------ frequencies

_TIMES = {"once": 1.0, "twice": 2.0, "thrice": 3.0, "one": 1.0, "two": 2.0, "three": 3.0,
          "four": 4.0, "five": 5.0, "six": 6.0}  # fmt: skip
_PER_DAY = {"hour": 24.0, "day": 1.0, "night": 1.0, "week": 1 / 7, "month": 1 / 30,
            "year": 1 / 365}  # fmt: skip
_ADVERBS = {"hourly": 24.0, "daily": 1.0, "nightly": 1.0, "weekly": 1 / 7,
            "monthly": 1 / 30, "yearly": 1 / 365, "annually": 1 / 365}  # fmt: skip
_RATE = re.compile(
    r"\b(?:(?P<times>once|twice|thrice|(?:\d+|one|two|three|four|five|six)\s+times?)\s+"
    r"(?:a|an|per|each|every)\s+(?P<per>hour|day|night|week|month|year)"
    r"|every\s+(?:(?P<n>\d+|other|two|three|four|six|eight|twelve)\s+)?"
    r"(?P<every>hours?|days?|nights?|weeks?|months?|years?)"
    r"|(?P<adverb>hourly|daily|nightly|weekly|monthly|yearly|annually))\b",
    re.IGNORECASE,
)
_EVERY_N = {"other": 2.0, "two": 2.0, "three": 3.0, "four": 4.0, "six": 6.0, "eight": 8.0,
            "twelve": 12.0}  # fmt: skip


def rates(text: str) -> list[tuple[str, float]]:
    """Return (span, times per day) for each rate in `text` ("twice a day" -> 2.0)."""
    out = []
    for match in _RATE.finditer(text):
        if match.group("adverb"):
            out.append((match.group(0), _ADVERBS[match.group("adverb").lower()]))
        elif match.group("times"):
            count = match.group("times").lower().split()[0]
            times = float(count) if count.isdigit() else _TIMES[count]
            out.append((match.group(0), times * _PER_DAY[match.group("per").lower()]))
        else:
            n_text = (match.group("n") or "1").lower()
            n = float(n_text) if n_text.isdigit() else _EVERY_N[n_text]
            unit = match.group("every").lower().rstrip("s")
            out.append((match.group(0), _PER_DAY[unit] / n if n else 0.0))
    return out


def _frequency(claim: _Side, clause: _Side) -> list[Contrast]:
    claim_rates, clause_rates = rates(claim.text), rates(clause.text)
    if len(claim_rates) != 1 or len({r for _, r in clause_rates}) != 1:
        return []
    (span, rate), (other, other_rate) = claim_rates[0], clause_rates[0]
    if abs(rate - other_rate) <= 1e-9 * max(rate, other_rate, 1.0):
        return []
    rate_words = set(stems(span)) | set(stems(other)) | {_stem(w) for w in (*_TIMES, *_PER_DAY)}
    rest = [s for s in claim.content if s not in rate_words]
    if not _aligned(rest, clause, rate_words):
        return []
    return [Contrast("frequency", span, other)]


# --------------------------------------------------------------------- entities

_GENE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\d[A-Z0-9]*\b|\b[A-Z][A-Za-z0-9-]{1,12}(?= genes?\b)")


@cache
def disease_names() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Return MedQuAD's focus names (diseases) as stem sequences, by first stem.

    Longest first, then alphabetical: the first name matched at a word is the longest
    ("blood clot" before "blood"), the same in every process (a set's order follows the
    process's hash seed, and two processes once named different spans for one claim).
    """
    by_first: dict[str, set[tuple[str, ...]]] = {}
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as handle:
        for line in handle:
            focus = json.loads(line).get("focus") or ""
            name = own_name(focus).split(",")[0]
            seq = tuple(stems(name))
            if seq and len(seq) <= 6 and not all(w in _STOP for w in words(name)):
                by_first.setdefault(seq[0], set()).add(seq)
    return {k: tuple(sorted(v, key=lambda seq: (-len(seq), seq))) for k, v in by_first.items()}


@cache
def drug_names() -> frozenset[str]:
    """Return the drug names of `DRUG_FILE` as stems (one name a line, # comments)."""
    lines = DRUG_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(_stem(w.strip().lower()) for w in lines if w.strip() and w[0] != "#")


def _named(side: _Side, only: set[str]) -> list[tuple[str, str, tuple[int, int]]]:
    """Return (kind, span, (start, end)) for each entity in `side` that holds a stem of `only`."""
    out = []
    names = disease_names()
    for i, stem in enumerate(side.stems):
        for seq in names.get(stem, ()):
            j = i + len(seq)
            if tuple(side.stems[i:j]) == seq and only & set(seq):
                out.append(("disease", " ".join(side.raw[i:j]), (i, j)))
        if stem in drug_names() and stem in only:
            out.append(("drug", side.raw[i], (i, i + 1)))
    for match in _GENE.finditer(side.text):
        stem = _stem(match.group(0).lower())
        if stem in only:
            index = side.stems.index(stem) if stem in side.stems else -1
            out.append(("gene", match.group(0), (index, index + 1)))
    return out


def _entity(claim: _Side, clause: _Side) -> list[Contrast]:
    claim_only = set(claim.content) - set(clause.content)
    clause_only = set(clause.content) - set(claim.content)
    if not claim_only or not clause_only or len(claim_only) > 4:
        return []
    found = []
    for kind, span, (i, j) in _named(claim, claim_only):
        others = [
            e for e in _named(clause, clause_only) if e[0] == kind and e[1].lower() != span.lower()
        ]
        if not others:
            continue
        in_span = set(range(i, j))
        rest = content(
            [s for k, s in enumerate(claim.stems) if k not in in_span],
            [w for k, w in enumerate(claim.raw) if k not in in_span],
        )
        drop = set(clause.stems[others[0][2][0] : others[0][2][1]])
        if _aligned(rest, clause, drop):
            found.append(Contrast("entity", span, others[0][1], kind))
    return found[:1]


# ------------------------------------------------------------------------ check


def clauses(sentence: str) -> list[str]:
    """Return the clauses of `sentence` (itself when it has one)."""
    parts = [p.strip(" ,") for p in _CLAUSE_BREAK.split(sentence) if p and p.strip(" ,")]
    return parts if len(parts) > 1 else [sentence]


def aligned_mismatches(claim: str, sentence: str) -> list[Contrast]:
    """Return the conflicts between `claim` and `sentence` where the two align.

    The whole sentence and then each of its clauses are compared in turn; the first with
    a conflict gives the result (a claim is one statement, so one clause answers it). A
    negation is read per clause only: "X is A, but Y is not" does not deny "X is A".
    """
    claim_side = _Side.of(claim)
    if len(claim_side.content) < MIN_ALIGNED_WORDS:
        return []
    parts = clauses(sentence)
    for text in dict.fromkeys([sentence, *parts]):
        clause = _Side.of(text)
        flipped = len(cues(claim)) % 2 != len(cues(text)) % 2
        found = [
            # "not common" against "rare" is agreement: a negation undoes a contrast
            *([] if flipped else _contrasts(claim_side, clause)),
            *(_negation(claim_side, clause) if text in parts else []),
            *_frequency(claim_side, clause),
        ]
        if not found:
            found = _entity(claim_side, clause)
        if found:
            return found
    return []
