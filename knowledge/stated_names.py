"""The other names a page gives its own subject ("... sometimes called hypertension").

MedQuAD names many pages by one name and a question by another: no page's focus is
"Hypertension", and a search for it finds pulmonary hypertension's pages first. The pages
say their other names themselves; retrieval reads them as names the page is found by
(`MedQuADIndex.named_openings`), and the judges' training data swaps them in for the
page's own name (`evaluation.judge_data.claim_edits`). Other pages name it too, glossing a
lay phrase with its name ("an irregular heartbeat (arrhythmia)"): `lay_names_of` reads
those from `LAY_NAMES`, built from MedQuAD by `benchmarks/lay_names.py`.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path

from veriloop.errors import InvalidInputError

_PHRASE = r"[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,4}?"
STATED_NAME = re.compile(
    rf"\b(?:also called|also known as|sometimes called)\s+({_PHRASE}(?:\s+or\s+{_PHRASE})?)"
    r"(?=[,.;)])",
)
"""'also called X', 'also known as X', 'sometimes called X', X ending at a clause's end;
'X or Y' gives both ("Hypoglycemia, also called low blood glucose or low blood sugar")."""

QUOTED_NAME = re.compile(
    r"(?:\bor\s+|\b(?:commonly\s+)?known\s+as\s+)?" r'"([A-Za-z][\w\' -]{1,38})"(?=[,.;)\s])'
)
"""A short name in quotes right after a page's own: 'Infectious mononucleosis, or "mono",'
'(commonly known as "mono")'; read only `adjacent` to the page's name, after "or", "known
as" or a comma or bracket (`_OPENS`)."""
_OPENS = re.compile(r"[,(]\s*$")

LAY_NAMES = Path(__file__).resolve().with_name("data") / "medquad" / "lay_names.txt"
"""Lay phrases MedQuAD glosses with a page's name: phrase, focus, subjects (tab-separated)."""

FIRST_WORD_NAMES = LAY_NAMES.with_name("first_word_names.txt")
"""Two-word pages MedQuAD names by their first word alone: word, focus, texts (tab-separated)."""

NEAR = 40
"""How many characters may stand between the page's own name and the phrase giving
another: further on, the other name is another condition's ("coronary heart disease (also
called coronary artery disease)" on atherosclerosis's page)."""


def own_name(focus: str) -> str:
    """Return a focus without its parenthesised part ("Noonan syndrome (NS)" -> ...)."""
    return re.sub(r"\s*\([^)]*\)", "", focus).strip()


@lru_cache(maxsize=1024)
def _right_after(name: str) -> re.Pattern[str]:
    """Return the pattern of text ending in `name`, its parenthesis, then a comma or "("."""
    return re.compile(rf"{re.escape(name)}(?:\s*\([^)]*\))?\s*[,(]?\s*$", re.IGNORECASE)


def stated_names(page_text: str, focus: str, adjacent: bool = False) -> list[str]:
    """Return the other names a page gives its subject, in the order it gives them.

    The phrase must follow the focus's own name closely (`NEAR` characters), or with
    `adjacent` at once (a parenthesis or a comma between at most: "High blood pressure,
    sometimes called hypertension"; not "Alzheimer's disease ... early (also called
    mild)", a stage's name), where a name in quotes counts too (`QUOTED_NAME`:
    'Infectious mononucleosis, or "mono", is ...'); the focus's name itself, and names of
    two letters or fewer, are not other names.
    """
    name = own_name(focus)
    if not name:
        return []
    found: list[str] = []
    quoted = QUOTED_NAME.finditer(page_text) if adjacent else iter(())
    for match in [*STATED_NAME.finditer(page_text), *quoted]:
        before = page_text[max(0, match.start() - len(name) - NEAR) : match.start()]
        if name.lower() not in before.lower():
            continue
        if adjacent and not _right_after(name).search(before):
            continue
        if match.re is QUOTED_NAME and not (match.group(0)[0] != '"' or _OPENS.search(before)):
            continue  # 'tremor "triggers" such as caffeine': a word in quotes, no name
        for other in _alternatives(match.group(1).strip()):
            if other.lower() != name.lower() and len(other) > 2 and other not in found:
                found.append(other)
    return found


def _alternatives(phrase: str) -> list[str]:
    """Return the names "X or Y" gives (X and Y), or the phrase when it gives one.

    "low blood glucose or low blood sugar", "CML or chronic granulocytic leukemia", "an EKG
    or ECG" (the article left off), "biotherapy or immunotherapy" give two; "a prolapsed or
    dropped bladder" gives one: a lone lower-case word before "or" and two words after it
    share the second's noun.
    """
    parts = re.split(r"\s+or\s+", phrase, maxsplit=1)
    if len(parts) < 2:
        return [phrase]
    first, second = (re.sub(r"^(?:a|an|the)\s+", "", part, flags=re.IGNORECASE) for part in parts)
    if len(first.split()) == 1 and first.islower() and len(second.split()) > 1:
        return [phrase]
    return [first, second]


def stated_synonym(page_text: str, focus: str) -> str | None:
    """Return the first other name a page gives its subject (None: it gives none)."""
    names = stated_names(page_text, focus)
    return names[0] if names else None


def _bundled_names(path: Path, fields: str, builder: str) -> dict[str, tuple[str, ...]]:
    """Return each focus's names in a bundled list of 'name<TAB>focus<TAB>count' lines.

    Args:
        path: The list, as a benchmark builds it from MedQuAD; "#" lines are comments.
        fields: What its three fields hold, for the error on a malformed line.
        builder: The benchmark that rebuilds it, for the same error.

    Returns:
        The names, keyed by the focus in lower case, in the list's order.

    Raises:
        InvalidInputError: A line does not hold three non-empty fields.
    """
    names: dict[str, list[str]] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not all(part.strip() for part in parts):
            raise InvalidInputError(
                f"{path}, line {number}: expected '{fields}', got {line!r}; "
                f"rebuild the file with `python {builder}`"
            )
        names.setdefault(parts[1].lower(), []).append(parts[0])
    return {focus: tuple(held) for focus, held in names.items()}


@cache
def _lay_names() -> dict[str, tuple[str, ...]]:
    """Return each focus's lay names (`LAY_NAMES`), keyed by the focus in lower case."""
    return _bundled_names(LAY_NAMES, "lay phrase<TAB>focus<TAB>subjects", "benchmarks/lay_names.py")


@cache
def _first_word_names() -> dict[str, tuple[str, ...]]:
    """Return each focus's first-word name (`FIRST_WORD_NAMES`), keyed by the focus, lowered."""
    return _bundled_names(
        FIRST_WORD_NAMES, "first word<TAB>focus<TAB>texts", "benchmarks/first_word_names.py"
    )


def lay_names_of(focus: str) -> tuple[str, ...]:
    """Return the lay phrases other pages gloss with this page's name ("irregular heartbeat").

    "Seizures, an irregular heartbeat (arrhythmia), and ..." on three subjects' pages or
    more (`benchmarks/lay_names.py`) makes "irregular heartbeat" a name of Arrhythmia,
    which no Arrhythmia answer writes.
    """
    return _lay_names().get(focus.lower(), ())


def first_word_name_of(focus: str) -> str | None:
    """Return the first word that names this two-word page alone ("canker"), or None.

    MedQuAD writes "canker" only ever before "sore" or "sores" and no other page's name
    holds it (`benchmarks/first_word_names.py`), so a question writing "mouth
    ulcer/canker" names Canker Sores.
    """
    words = _first_word_names().get(focus.lower(), ())
    return words[0] if words else None
