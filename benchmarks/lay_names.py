"""Build the lay names MedQuAD's pages gloss with another page's name (`knowledge.stated_names`).

A consumer asks about "an irregular heartbeat"; MedQuAD's page is "Arrhythmia", and no
Arrhythmia answer writes "irregular heartbeat". Other pages do, with the page's name
glossed after it: "Seizures, an irregular heartbeat (arrhythmia), and breathing problems
...", "... can cause irregular heartbeats (arrhythmia) ...". A lay phrase is a page's name
where MedQuAD writes it right before that name in brackets on `MIN_PAGES` pages of
different subjects or more, and for at least `SHARE` of all the names it glosses it with.

The phrase must open where a noun phrase opens (after a clause's punctuation, "a"/"an" or
a verb such as "cause", "include", "have": not after "the" or "of", where the bracket
glosses a longer phrase: "clouding of the lens of the eye (cataract)"), hold two words to
five, start on no small word, and hold no relative word ("a disease in which malignant
(cancer) cells form" glosses "malignant"). Writes `knowledge/data/medquad/lay_names.txt`
(`knowledge.stated_names.LAY_NAMES`).

    .venv/bin/python benchmarks/lay_names.py [--check]

`--check` writes nothing and fails when the committed list differs from a fresh build.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

if not __package__:  # run as a script (the documented way): let `benchmarks` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bundled_list import write_or_check  # noqa: E402
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.knowledge.stated_names import LAY_NAMES, own_name

MIN_PAGES = 3
SHARE = 0.75
OPENS = (
    r"(?:^|(?<=[,;:(.])|\b(?:a|an|causes?|caused|includes?|including|called|have|has|having|"
    r"develops?|developed|experiences?|had)\b)"
)
GLOSS = re.compile(
    OPENS
    + r"\s*(?P<lay>(?:[a-z][a-z'-]+\s+){1,4}[a-z][a-z'-]+)"
    + r"\s+\((?P<name>[A-Za-z][\w' -]{2,40})\)"
)
SMALL = frozenset(
    "a an the of and or to in with for is are can cause causes include called as such like "
    "have has may be by from that which also their his her its this these some other many "
    "most very severe mild".split()
)
RELATIVE = frozenset("which that who whose whom called".split())


def _page_of(name: str, foci: Mapping[str, str]) -> str | None:
    """Return the focus a bracketed name names (its plural or singular too), or None."""
    if name.isupper():  # an abbreviation glosses an abbreviation's words: "chronic obstructive
        return None  # pulmonary disease (COPD)" is the page's own name spelled out, no lay name
    lowered = name.lower()
    if lowered in foci:
        return foci[lowered]
    if len(lowered) >= 5:
        for form in (f"{lowered}s", lowered.removesuffix("s")):
            if form in foci:
                return foci[form]
    return None


def lay_names(rows: Iterable[Mapping[str, str]]) -> list[tuple[str, str, int]]:
    """Return (lay phrase, focus, pages) for each lay phrase MedQuAD glosses with a page's name.

    Args:
        rows: MedQuAD answers, each with its "focus" and "answer".

    Returns:
        The phrases in order, each with the focus it names and the number of subjects whose
        pages gloss it so.
    """
    rows = list(rows)
    foci: dict[str, str] = {}
    for row in rows:
        foci.setdefault(own_name(row["focus"]).lower(), row["focus"])
    glossed: dict[str, dict[str, set[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(set)
    )
    for row in rows:
        for match in GLOSS.finditer(row["answer"]):
            focus = _page_of(match.group("name"), foci)
            words = match.group("lay").split()
            while words and words[0] in SMALL:
                words = words[1:]
            if not focus or len(words) < 2 or RELATIVE & set(words):
                continue
            lay = " ".join(words)
            if lay != own_name(focus).lower():
                glossed[lay][focus].add(row["focus"].lower())
    found = []
    for lay, names in glossed.items():
        focus, pages = max(names.items(), key=lambda item: (len(item[1]), item[0]))
        if len(pages) >= MIN_PAGES and len(pages) >= SHARE * sum(map(len, names.values())):
            found.append((lay, focus, len(pages)))
    return sorted(found)


def list_file(names: list[tuple[str, str, int]]) -> str:
    """Return the list file's text: how it was built, then one phrase, focus, pages a line."""
    return (
        "# Lay names MedQuAD glosses with a page's name, 'an irregular heartbeat (arrhythmia)'\n"
        f"# (built by benchmarks/lay_names.py: on {MIN_PAGES}+ subjects' pages, {SHARE:.0%}+ of\n"
        "# the phrase's glosses); lay phrase <TAB> focus <TAB> subjects glossing it\n"
        + "".join(f"{lay}\t{focus}\t{pages}\n" for lay, focus, pages in names)
    )


def main() -> int:
    """Build (or check) the lay-name list and print how many phrases it holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed list")
    args = parser.parse_args()
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        names = lay_names(json.loads(line) for line in lines)
    text = list_file(names)
    return write_or_check(
        LAY_NAMES,
        text,
        args.check,
        f"{len(names)} lay names of {len({focus for _, focus, _ in names})} pages",
    )


if __name__ == "__main__":
    sys.exit(main())
