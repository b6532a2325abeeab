"""Deterministic contradiction checks: what a claim states that its evidence states otherwise.

A learned judge can miss an inverted dose or a flipped "rare"; a rule cannot, within what
it covers. `find_mismatches(claim, evidence)` compares a claim with the evidence sentence
that shares most of its content words and names every conflict it finds, each with both
spans:

- `number`: a number with a unit (dose, percentage, age, duration, count of times) where
  the evidence sentence gives one quantity in that unit, another value ("10 mg" vs
  "100 mg"); a sentence listing several is not compared.
- `date`: a year the claim gives where the evidence sentence gives one other year
  (decades, "the 1950s", are not years; a sentence with several years is not compared).
- `negation`: the claim and the sentence say nearly the same words (Jaccard similarity of
  content words >= 0.6) but one negates and the other does not ("does not reduce" vs
  "reduces").
- `quantifier`: a frequency the evidence puts in another band (never / rare / common /
  always: "in most patients" vs "an uncommon side effect"), about shared words.
- `direction`: a change the evidence states the other way (increased vs decreased, higher
  vs lower), the claim's own direction absent from the sentence.
- `contrast`, `frequency`, `entity` and a clause-level `negation`: the aligned contrast rule
  (`nodes.contrast`): the claim says an evidence clause word for word but for one pair of
  the medical contrast lexicon (benign / malignant, speeds up / slows, hyper- / hypo-),
  one rate ("twice a day" vs "once a week"), one entity of the same kind (disease, gene,
  drug) or one negation. It reads every evidence sentence the claim shares words with, not
  only the closest.

What the evidence does not mention is never a mismatch: that is "unsupported", the
judge's call. The rules are measured on held-out pairs by
`benchmarks/mismatch_rules.py` (docs/benchmarks/mismatch_rules.md): how many
contradictions they catch and how many supported claims they falsely flag. Every claim and
evidence sentence must share two content words before anything is compared.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from veriloop import quotable, standalone, text
from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.nodes.judges import contrast
from veriloop.nodes.judges.contrast import aligned_mismatches, clauses, content_stems, cues
from veriloop.quotable import clean_unit
from veriloop.standalone import item_sentence_starts, lost_stops
from veriloop.text import split_sentences

MismatchKind = Literal[
    "number", "date", "negation", "quantifier", "direction", "contrast", "frequency", "entity"
]

MIN_SHARED_WORDS = 2
"""Content words a claim and an evidence sentence must share before anything in one is
compared with the other (else they may be about different things)."""

NEGATION_SIMILARITY = 0.6
"""Jaccard similarity of the claim's and the sentence's content words from which a negation
in one and not the other counts: the two must say nearly the same thing, not merely share
a short claim's words ("tennis" in a long sentence with "No." in it)."""


@dataclass(frozen=True)
class Mismatch:
    """A conflict between a claim and its evidence, with the two spans that conflict."""

    kind: MismatchKind
    claim_span: str
    evidence_span: str
    evidence_sentence: str

    @property
    def reason(self) -> str:
        """Return one line a person can check: what each side says."""
        return (
            f"{self.kind}: the claim says {self.claim_span!r}, "
            f"the evidence says {self.evidence_span!r}"
        )

    def to_json(self) -> dict[str, Any]:
        """Return the mismatch as a JSON object (with its reason)."""
        return {**asdict(self), "reason": self.reason}


# ----------------------------------------------------------------------- numbers

# fmt: off
_UNITS: dict[str, str] = {
    "mg": "mg", "milligram": "mg", "milligrams": "mg",
    "g": "g", "gram": "g", "grams": "g",
    "kg": "kg", "kilogram": "kg", "kilograms": "kg",
    "mcg": "mcg", "µg": "mcg", "ug": "mcg", "microgram": "mcg", "micrograms": "mcg",
    "ml": "ml", "milliliter": "ml", "milliliters": "ml", "millilitre": "ml", "millilitres": "ml",
    "l": "l", "liter": "l", "liters": "l", "litre": "l", "litres": "l",
    "iu": "iu", "units": "units", "unit": "units",
    "%": "%", "percent": "%", "per cent": "%",
    "mmhg": "mmhg", "mmol": "mmol", "mmol/l": "mmol/l", "mg/dl": "mg/dl",
    "cm": "cm", "mm": "mm", "m": "m", "km": "km", "inches": "inches", "inch": "inches",
    "year": "years", "years": "years", "yr": "years", "yrs": "years", "year-old": "years",
    "years-old": "years", "month": "months", "months": "months",
    "week": "weeks", "weeks": "weeks", "day": "days", "days": "days",
    "hour": "hours", "hours": "hours", "hr": "hours", "hrs": "hours", "h": "hours",
    "minute": "minutes", "minutes": "minutes", "min": "minutes",
    "second": "seconds", "seconds": "seconds",
    "time": "times", "times": "times", "fold": "times", "-fold": "times",
    "dose": "doses", "doses": "doses", "tablet": "tablets", "tablets": "tablets",
    "patient": "patients", "patients": "patients", "people": "people", "cases": "cases",
}
_UNIT_OF = {word.casefold(): unit for word, unit in _UNITS.items()}
"""Units by case-folded word: casefold() maps the micro sign (µ) and Greek mu (μ, Μ) to one
letter, as the regular expression's IGNORECASE matching does."""
_COUNT_NOUNS = {"doses", "tablets", "patients", "people", "cases", "times"}
_MEASURE_WORDS = {word for word, unit in _UNIT_OF.items() if unit not in _COUNT_NOUNS}
"""Unit words that say nothing of a subject ("mg", "years"); "dose" or "patients" do."""
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "half": 0.5,
}
# fmt: on
_UNIT_PATTERN = "|".join(
    sorted((re.escape(u) for u in {*_UNITS, *_UNIT_OF}), key=len, reverse=True)
)
_QUANTITY = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:[.,]\d+)*|" + "|".join(_NUMBER_WORDS) + r")"
    r"(?:\s*(?:-|to|–)\s*(?P<upper>\d+(?:[.,]\d+)*))?"
    r"\s*-?\s*(?P<unit>" + _UNIT_PATTERN + r")(?![\w])",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\d.,])(1[89]\d\d|20\d\d)(?![\d%]|'?s\b)")


def _value(text: str) -> float:
    word = _NUMBER_WORDS.get(text.lower())
    return float(word) if word is not None else float(text.replace(",", ""))


def quantities(text: str) -> list[tuple[str, str, float, float]]:
    """Return (span, unit, low, high) for each number with a unit in `text`.

    Units are normalised ("milligrams" -> "mg", "yrs" -> "years"); a range "5-10 mg" is one
    quantity from 5 to 10.
    """
    out = []
    for match in _QUANTITY.finditer(text):
        try:
            low = _value(match.group("value"))
            high = _value(match.group("upper")) if match.group("upper") else low
        except ValueError:
            continue
        out.append((match.group(0).strip(), _UNIT_OF[match.group("unit").casefold()], low, high))
    return out


def _number_mismatches(claim: str, sentence: str) -> list[Mismatch]:
    found = []
    evidence = quantities(sentence)
    for span, unit, low, high in quantities(claim):
        same_unit = [q for q in evidence if q[1] == unit]
        if len(same_unit) != 1:  # none to compare, or several: which one the claim means is unsure
            continue
        if any(
            e_low <= low and high <= e_high or (e_low, e_high) == (low, high)
            for _, _, e_low, e_high in same_unit
        ):
            continue
        found.append(Mismatch("number", span, "; ".join(q[0] for q in same_unit), sentence))
    return found


def _date_mismatches(claim: str, sentence: str) -> list[Mismatch]:
    evidence_years = set(_YEAR.findall(sentence))
    if len(evidence_years) != 1:  # none, or several: which event the claim dates is unsure
        return []
    return [
        Mismatch("date", year, ", ".join(sorted(evidence_years)), sentence)
        for year in dict.fromkeys(_YEAR.findall(claim))
        if year not in evidence_years
    ]


# ----------------------------------------------------------------------- words


# fmt: off
_BANDS: dict[str, int] = {
    # 0: never/none, 1: rare, 3: common/most, 4: always (frequency words only: "all",
    # "few", "likely" say other things too often)
    "never": 0, "none": 0,
    "rare": 1, "rarely": 1, "uncommon": 1, "uncommonly": 1, "infrequent": 1, "infrequently": 1,
    "seldom": 1, "unusual": 1,
    "common": 3, "commonly": 3, "frequent": 3, "frequently": 3, "often": 3, "usually": 3,
    "most": 3, "majority": 3, "typically": 3, "mostly": 3,
    "always": 4, "invariably": 4,
}
# fmt: on
_BAND_WORD = re.compile(r"\b(" + "|".join(_BANDS) + r")\b", re.IGNORECASE)
_MOST_OF = re.compile(
    r"\bmost\s+(?:common|commonly|frequent|frequently|often|likely|serious|important|\w+est)\b",
    re.IGNORECASE,
)

# fmt: off
_DIRECTIONS: dict[str, int] = {
    "increase": 1, "increases": 1, "increased": 1, "increasing": 1, "higher": 1, "raise": 1,
    "raises": 1, "raised": 1, "elevated": 1, "elevates": 1, "more": 1, "greater": 1,
    "improve": 1, "improves": 1, "improved": 1, "rise": 1, "rises": 1, "rose": 1,
    "decrease": -1, "decreases": -1, "decreased": -1, "decreasing": -1, "lower": -1,
    "lowers": -1, "lowered": -1, "reduce": -1, "reduces": -1, "reduced": -1, "reducing": -1,
    "less": -1, "fewer": -1, "smaller": -1, "worsen": -1, "worsens": -1, "worsened": -1,
    "decline": -1, "declines": -1, "declined": -1, "fall": -1, "falls": -1, "fell": -1,
}
# fmt: on
_DIRECTION_WORD = re.compile(r"\b(" + "|".join(_DIRECTIONS) + r")\b", re.IGNORECASE)


def _negated(text: str) -> tuple[bool, str]:
    found = cues(text)
    return len(found) % 2 == 1, " ".join(found)


_NEGATED_BAND = re.compile(
    r"\b(?:not|n't|never|no)\s+(?:\w+\s+)?(?:" + "|".join(_BANDS) + r")\b", re.IGNORECASE
)


def _bands(text: str) -> dict[int, str]:
    cleaned = _MOST_OF.sub(" ", text)  # "most common" is a superlative, not a share
    cleaned = _NEGATED_BAND.sub(" ", cleaned)  # "not common", "isn't always": no clear band
    out: dict[int, str] = {}
    for match in _BAND_WORD.finditer(cleaned):
        word = match.group(1).lower()
        out.setdefault(_BANDS[word], match.group(1))
    return out


def _directions(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for match in _DIRECTION_WORD.finditer(text):
        out.setdefault(_DIRECTIONS[match.group(1).lower()], match.group(1))
    return out


def _word_mismatches(claim: str, sentence: str, shared: int, similarity: float) -> list[Mismatch]:
    found = []
    claim_negated, claim_cues = _negated(claim)
    sentence_negated, sentence_cues = _negated(sentence)
    if (
        claim_negated != sentence_negated
        and similarity >= NEGATION_SIMILARITY
        and len(clauses(sentence)) == 1  # several clauses: the aligned rule reads each
    ):
        found.append(
            Mismatch(
                "negation",
                claim_cues or "(no negation)",
                sentence_cues or "(no negation)",
                sentence,
            )
        )
    claim_bands, sentence_bands = _bands(claim), _bands(sentence)
    if claim_bands and sentence_bands and not set(claim_bands) & set(sentence_bands):
        gap = min(abs(a - b) for a in claim_bands for b in sentence_bands)
        if gap >= 2:  # "rare" vs "common", not "common" vs "always"
            found.append(
                Mismatch(
                    "quantifier",
                    ", ".join(claim_bands.values()),
                    ", ".join(sentence_bands.values()),
                    sentence,
                )
            )
    claim_dirs, sentence_dirs = _directions(claim), _directions(sentence)
    if (
        len(claim_dirs) == 1
        and len(sentence_dirs) == 1
        and set(claim_dirs) != set(sentence_dirs)
        and not (claim_negated or sentence_negated)  # "not increased" is no decrease
    ):
        found.append(
            Mismatch(
                "direction",
                next(iter(claim_dirs.values())),
                next(iter(sentence_dirs.values())),
                sentence,
            )
        )
    return found


# ----------------------------------------------------------------------- the check


def closest_sentence(claim: str, evidence: str) -> tuple[str, int, float]:
    """Return the evidence sentence sharing most content words with the claim.

    Numbers and units are not content words here: a shared "mg" is no shared subject.
    Returns (sentence, shared content words, Jaccard similarity of the two sets of content
    words); ("", 0, 0.0) for evidence with no sentence.
    """
    sentences = split_sentences(evidence)
    if not sentences:
        return "", 0, 0.0
    tokens = [
        {t for t in words if not t.isdigit() and t not in _MEASURE_WORDS}
        for words in lexical_tokens([claim, *sentences], stopwords="en_plus")
    ]
    claim_words = tokens[0]
    best = ("", 0, 0.0)
    for sentence, words in zip(sentences, tokens[1:], strict=True):
        shared = len(claim_words & words)
        if shared > best[1] or not best[0]:
            union = len(claim_words | words)
            best = (sentence, shared, shared / union if union else 0.0)
    return best


def find_mismatches(claim: str, evidence: str) -> list[Mismatch]:
    """Return every conflict between `claim` and the evidence.

    The word-level rules compare the claim with the evidence sentence closest to it: nothing
    is compared unless the two share `MIN_SHARED_WORDS` content words (numbers and units
    aside); a negation needs the two to be nearly the same sentence (`NEGATION_SIMILARITY`);
    a number is compared only with a sentence that gives exactly one quantity in its unit.
    The aligned contrast rule (`nodes.contrast`) then reads the sentences the claim shares
    words with, closest first, and adds what it finds that the others did not name. Empty
    when nothing conflicts or the evidence has no sentence, or when the claim copies the
    evidence (`copied_sentence`): a sentence never conflicts with itself (the aligned rule
    read "There is no cure, but there are many medicines ..." against its own second clause).
    """
    if copied_sentence(claim, evidence) is not None:
        return []
    sentence, shared, similarity = closest_sentence(claim, evidence)
    found: list[Mismatch] = []
    if sentence and shared >= MIN_SHARED_WORDS:
        found = [
            *_number_mismatches(claim, sentence),
            *_date_mismatches(claim, sentence),
            *_word_mismatches(claim, sentence, shared, similarity),
        ]
    return found + _aligned(claim, evidence, found)


ALIGNED_SENTENCES = 3
"""Evidence sentences (those sharing most content words with the claim) the aligned rule
reads."""


def _aligned(claim: str, evidence: str, found: list[Mismatch]) -> list[Mismatch]:
    """Return the aligned rule's conflicts that the word-level rules did not already name."""
    claim_stems = content_stems(claim)
    ranked = sorted(
        (
            (len(claim_stems & content_stems(sentence)), -index, sentence)
            for index, sentence in enumerate(split_sentences(evidence))
        ),
        reverse=True,
    )
    spans = [m.claim_span.lower() for m in found]
    negated = any(m.kind == "negation" for m in found)
    out: list[Mismatch] = []
    for overlap, _, sentence in ranked[:ALIGNED_SENTENCES]:
        if overlap < 1:
            break
        for item in aligned_mismatches(claim, sentence):
            span = item.claim_span.lower()
            if (item.kind == "negation" and negated) or any(s in span or span in s for s in spans):
                continue  # the word-level rules named it already
            out.append(Mismatch(item.kind, item.claim_span, item.evidence_span, sentence))
        if out:
            break
    return out


def _copy_form(text: str) -> str:
    return " ".join(re.sub(r"[^\w%]+", " ", text.lower()).split())


@lru_cache(maxsize=1024)
def _sentences_by_form(evidence: str) -> dict[str, str]:
    """Return the evidence's sentences keyed by their copy form (first one kept).

    Cached per text, bounded: a batch judges many claims against the same sources, and
    splitting a long source once per claim was most of the copy rule's cost.
    """
    forms: dict[str, str] = {}
    sentences = split_sentences(evidence)
    for sentence in sentences:
        forms.setdefault(_copy_form(sentence), sentence)
    for sentence in sentences:  # as quoted: a glued heading or footnote gone
        forms.setdefault(_copy_form(clean_unit(sentence)), sentence)
    return forms


# Where a copied run of the evidence may start (after a sentence's end, a line break or a
# list bullet) and end (a sentence's end, a semicolon, a bullet): never mid-sentence, so a
# copy cannot drop the words that open or close a sentence ("It is a myth that ...").
_STARTS_AFTER = re.compile(r"[.!?\n\u2022]|(?:^|\s)[-*](?:\s|$)")
_ENDS_BEFORE = re.compile(r"[.!?;\n\u2022]|(?:^|\s)[-*](?:\s|$)")
_WORD = re.compile(r"[\w%]+")


@lru_cache(maxsize=1024)
def _evidence_words(evidence: str) -> tuple[tuple[str, ...], frozenset[int], frozenset[int]]:
    """Return the evidence's words (copy form), and where a copy may start and end."""
    lowered = evidence.lower()
    spans = [(match.start(), match.end()) for match in _WORD.finditer(lowered)]
    words = tuple(lowered[start:end] for start, end in spans)
    lost = _lost_in_lists(evidence)  # a bullet or stop the scrape lost: a unit starts there
    lost |= _heading_ends(evidence)  # a quote starts after a heading the cleaner removed
    starts, ends = set(), set()
    for index, (start, end) in enumerate(spans):
        before = lowered[spans[index - 1][1] : start] if index else "\n"
        after = lowered[end : spans[index + 1][0]] if index + 1 < len(spans) else "\n"
        if _STARTS_AFTER.search(before) or start in lost:
            starts.add(index)
        if _ENDS_BEFORE.search(after) or (index + 1 < len(spans) and spans[index + 1][0] in lost):
            ends.add(index)
    return words, frozenset(starts), frozenset(ends)


def _lost_in_lists(evidence: str) -> set[int]:
    """Return the lost bullets and stops of the evidence's lists (`lost_stops`).

    With the sentences that open after an item written as a name
    (`item_sentence_starts`), where `standalone_units` cuts too.

    Only inside a list: after a lead-in's colon or a bullet in the same sentence. A
    capitalised word after a lower-case one elsewhere is a name ("It is not known whether
    Alzheimer disease is inherited."), and a copy may not start there: "Alzheimer disease
    is inherited." is no copy of that sentence.
    """
    found = set()
    for point in lost_stops(evidence):
        start = max(evidence.rfind(mark, 0, point) for mark in (". ", "! ", "? ", "\n"))
        before = evidence[start + 1 : point]
        if ": " in before or " - " in before or before.lstrip().startswith("- "):
            found.add(point)
    return found | set(item_sentence_starts(evidence))  # "- Impulsivity No one knows"


def _heading_ends(evidence: str) -> set[int]:
    """Return where the evidence's sentences start once a glued heading is removed.

    "What Standard Treatments Do Here is what ..." is quoted from "Here" on
    (`veriloop.quotable.clean_unit`), so a quoted run may start there.
    """
    ends = set()
    at = 0
    for sentence in split_sentences(evidence):
        start = evidence.find(sentence, at)
        at = max(at, start)
        cleaned = clean_unit(sentence)
        head = cleaned[:40]
        offset = sentence.find(head) if head and cleaned != sentence else -1
        if start >= 0 and offset > 0:
            ends.add(start + offset)
    return ends


def _copied_run(wanted: list[str], evidence: str) -> str | None:
    """Return the evidence's text the claim's words copy as a whole run of units, or None."""
    words, starts, ends = _evidence_words(evidence)
    size = len(wanted)
    for start in sorted(starts):
        end = start + size - 1
        if end in ends and list(words[start : end + 1]) == wanted:
            spans = [(m.start(), m.end()) for m in _WORD.finditer(evidence)]
            return evidence[spans[start][0] : spans[end][1]]
    return None


def copied_sentence(claim: str, evidence: str) -> str | None:
    """Return the evidence text the claim copies word for word, or None.

    Case, spacing and punctuation aside, the claim is one of the evidence's sentences (as
    the extractive answer quotes it: `veriloop.quotable.clean_unit` removes a heading glued
    before it, "Early Signs and Symptoms If a person has ..."), or
    a run of them (a list's lead-in and its items quoted as one "Lead: a; b" sentence):
    what the source says, so the claim is backed whatever a model reads into the sentences
    around it (the three-way judges, small as they are, were seen calling such copies
    contradicted). A run must start and end where the evidence's sentences or list items
    do, so a copy never drops a sentence's opening or closing words; where the scrape lost a
    list's bullets ("may include: Sudden weakness Confusion ..."), the items start and end
    where `veriloop.standalone` cuts them.
    """
    wanted = _copy_form(claim)
    if len(wanted.split()) < 3:
        return None
    exact = _sentences_by_form(evidence).get(wanted)
    return exact if exact is not None else _copied_run(wanted.split(), evidence)


def rules_fingerprint() -> str:
    """Return a fingerprint of the rules: sha256 of their code and data files, 16 hex.

    Results that a rule changed (a benchmark's records, a batch's resumed rows) carry it, so
    a run after an edit to a rule or to the lexicon is never served the old verdicts.
    """
    digest = hashlib.sha256()
    for path in (
        Path(__file__),
        Path(__file__).with_name("three_way.py"),  # the order of the copy check and rules
        Path(contrast.__file__),
        contrast.LEXICON_FILE,
        contrast.DRUG_FILE,
        Path(standalone.__file__),  # where the copy rule's units start and end
        Path(quotable.__file__),
        Path(text.__file__),  # the sentence splitter
    ):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
