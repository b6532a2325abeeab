"""Correct a question's misspelt condition names to the names a source's pages use.

Consumers misspell the names they ask about: "Beckwith-Wieddeman Syndrome", "Familial
Mediterean Fever", "Antiphosoholipid Syndrome", "patau sydrome". BM25 then misses the
page, and the subject rule (`nodes.subject`), reading the question's words against the
pages' foci, finds no page on the subject: the answer came from a neighbour, or a refusal
said the source had no page. `NameSpeller` learns the words of the source's page names
and corrects a question word to the closest of them when

- the word is not one of those names' words and not an English word (pyspellchecker's
  list: "husband", "weight" stay as they are) and has at least `MIN_LENGTH` letters;
- a name word is close enough (difflib's ratio at least `CUTOFF`: "wieddeman" ->
  "wiedemann" 0.89, "mediterean" -> "mediterranean" 0.87), and no English word is
  closer ("side efectes" is not made "side defects": "defecates" is closer, so the word
  is a misspelt English word, not a name).

On the 199 MEDIQA 2019 Task 3 questions it corrects 12, each to the intended name (read
by hand: "Arrhthmia", "Cronic Lymphocytice", "Diahrrea", "Mediterean", "aeortic",
"sydrome", "chromosone", "Klippel-Tranaunay", "Antiphosoholipid", "diabete",
"Fasiciitis", "Beckwith-Wieddeman"), in about 10 ms a question.

Only the retrieval and the subject rule read the corrected question; the answer is
checked against the question as written.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import lru_cache

MIN_LENGTH = 6
CUTOFF = 0.85
_WORD = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Return pyspellchecker's English word list, lower case (read once per process)."""
    from spellchecker import SpellChecker

    return frozenset(SpellChecker().word_frequency.dictionary)


@lru_cache(maxsize=1)
def _english_sorted() -> list[str]:
    return sorted(english_words())  # only when a name word is close to a question word


class NameSpeller:
    """Correct misspelt words of a question to the words of a source's page names."""

    def __init__(self, names: Iterable[str]) -> None:
        """Learn the words of `names` (the pages' foci)."""
        words = {w.lower() for name in names for w in _WORD.findall(name)}
        self.words = frozenset(w for w in words if len(w) >= MIN_LENGTH - 1)
        self._sorted = sorted(self.words)

    def corrected(self, question: str) -> str:
        """Return the question with each misspelt name word replaced by the closest name word."""
        english = english_words()

        def fix(match: re.Match[str]) -> str:
            word = match.group(0)
            low = word.lower()
            if len(low) < MIN_LENGTH or low in self.words or low in english:
                return word
            close = difflib.get_close_matches(low, self._sorted, n=1, cutoff=CUTOFF)
            if not close:
                return word
            name = str(close[0])
            near = difflib.SequenceMatcher(None, low, name).ratio()
            other = difflib.get_close_matches(low, _english_sorted(), n=1, cutoff=near)
            if other and difflib.SequenceMatcher(None, low, other[0]).ratio() > near:
                return word  # a misspelt English word, closer to one than to any name
            return name[:1].upper() + name[1:] if word[:1].isupper() else name

        return _WORD.sub(fix, question)
