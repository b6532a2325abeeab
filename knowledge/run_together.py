"""Repair words a text clean-up ran together where a dash stood: "fissuressmall tears".

MedQuAD's answers lost their em dashes when the pages were scraped: "anal fissures—small
tears in the anus" reads "anal fissuressmall tears in the anus", and a quoted sentence
carries the defect. `RunTogetherRepair` learns the corpus's word frequencies and splits a
token back into two words, with " — " between them (a space after a function word:
"thannormal" -> "than normal"), when

- the token is rare in the corpus (at most `MAX_TOKEN_COUNT` times) and is not an English
  word (pyspellchecker's list: "tractor", "uppermost", "leftover" stay whole);
- it splits into a left word seen at least `MIN_LEFT_COUNT` times and a right word seen at
  least `MIN_RIGHT_COUNT` times (the right one is a common word: "small", "the", "may",
  or the article "a": "diarrheaa sign of ..." was "diarrhea—a sign of ..."; all 65 such
  tokens of the bundled MedQuAD read so, "gastroenterologista", "strokea", ...), the
  longest such left word winning;
- the left part is not a prefix ("non", "pre", "pseudo", ...) and the right not a suffix
  ("less", "like", ...).

On the bundled MedQuAD about 800 distinct tokens qualify before the word list; a hand check
of 60 of them found 9 false splits ("tractor", "uppermost", "survivorship", ...), of
which the word list removes 6 and the suffix list 1; "southcentral" and "tubeshaped" are
still split (tests/unit/test_standalone.py holds the cases).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from veriloop.knowledge.spelling import english_words

MAX_TOKEN_COUNT = 2
MIN_LEFT_COUNT = 20
MIN_RIGHT_COUNT = 200
MIN_LENGTH = 7
PREFIXES = frozenset(
    "non pre pseudo dis trans step anti multi sub over under out self post semi inter "
    "intra hyper hypo micro macro co re un man you club lobe".split()
)
SUFFIXES = frozenset("less like ness ly ful able is forms made ship hip".split())
FUNCTION_WORDS = frozenset(
    "than that this which while when where whether with from into about these those there "
    "their other because".split()
)
"""Left parts after which a space was lost, not a dash: "thannormal" was "than normal",
"thiscan" "this can" (6 of the bundled MedQuAD's 809 split tokens)."""
SPECIALIST_A = re.compile(r"[a-z]+ista")
"""A specialist run into "a" ("radiologista" 49 times, "gastroenterologista" 16): no English
word ends so, so such a token is split however often it occurs ("chronica", "occulta" and
"rheumatica", Latin names' words, occur often too and stay whole)."""
WORD = re.compile(rf"\b[a-z]{{{MIN_LENGTH},}}\b")


class RunTogetherRepair:
    """Split run-together words of a corpus, learnt from the corpus itself."""

    def __init__(self, texts: Iterable[str]) -> None:
        """Count the words of `texts` and find the run-together tokens among them."""
        counts = Counter(w for text in texts for w in re.findall(r"[a-z]+", text.lower()))
        english = english_words()
        self.splits: dict[str, tuple[str, str]] = {}
        for token, count in counts.items():
            if len(token) < MIN_LENGTH or token in english:
                continue
            if count > MAX_TOKEN_COUNT and not SPECIALIST_A.fullmatch(token):
                continue
            for cut in range(len(token) - 1, 3, -1):
                left, right = token[:cut], token[cut:]
                if (
                    (len(right) > 1 or right == "a")  # "diarrheaa sign": "diarrhea—a sign"
                    and counts[left] >= MIN_LEFT_COUNT
                    and counts[right] >= MIN_RIGHT_COUNT
                    and left not in PREFIXES
                    and right not in SUFFIXES
                ):
                    self.splits[token] = (left, right)
                    break

    def repair(self, text: str) -> str:
        """Return `text` with each known run-together token split by " — ".

        After a function word ("than", "this": `FUNCTION_WORDS`) the split is a space.
        """

        def split(match: re.Match[str]) -> str:
            found = self.splits.get(match.group(0))
            if found is None:
                return match.group(0)
            glue = " " if found[0] in FUNCTION_WORDS else " — "
            return f"{found[0]}{glue}{found[1]}"

        return WORD.sub(split, text)


GLUED_END = re.compile(r"(\S*?(?:[a-z]{2}|\w\))[.?!])([A-Z][a-z]+)(\S*)")
"""A sentence end run into the next sentence's first word: "complications.The goal"."""
WEB_PARTS = frozenset("gov net com org edu".split())
"""Domain endings: "Cancer.Net" and "www.Smokefree.gov" are no sentence ends."""


def spaced_sentence_ends(text: str) -> str:
    """Return `text` with a space put back where a scrape ran two sentences together.

    "... and treatment for complications.The goal of treatment is ..." (GARD's
    Hemochromatosis type 1) was one sentence to every splitter, and a quote of it carried
    both. A period, question or exclamation mark after two lower-case letters or a closing
    bracket ("(BMI).You") and before a capitalised word gets its space back, except in web
    addresses ("www.Smokefree.gov", "Cancer.Net", "http://...") and a word run into a word
    that ends on its own period ("the United.States."). 130 such ends after letters in the
    bundled MedQuAD and 7 after a bracket, all read.
    """

    def space(match: re.Match[str]) -> str:
        left, right, rest = match.groups()
        if "www." in left.lower() or "://" in left or right.lower() in WEB_PARTS:
            return match.group(0)
        if rest.startswith("."):  # "www.Smokefree.gov", "the United.States."
            return match.group(0)
        return f"{left} {right}{rest}"

    return GLUED_END.sub(space, text)
