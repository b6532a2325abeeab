"""Pages of the asked question type: keep them, find those the search missed, open them.

MedQuAD files every answer under its page's focus and question type (`qtype`), and a page
answers its question in its first lines. The grounded default's retrieval
(`nodes.grounding.retrieve_ranked`) uses that structure three ways:

- `prefer_type`: keep only the passages whose page answers the asked type, when any does;
- `missing_typed`: the openings of the subject's own pages of the asked type that the
  search did not return (looked up by focus and type);
- `with_opening`: put the opening of the best passage's page first when retrieval found
  only a later part of it;
- `with_whole_pages`: when no page answers the asked type, the rest of the best pages'
  parts, where a sentence about the type may sit that the search did not return;
- `stand_in_pages`: when no page answers the asked type, the subject's pages of a type
  that says it in other words (its risk factors for what causes it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from veriloop.knowledge.sources import PassageSource, SourcePassage
from veriloop.quotable import has_quotable


def prefer_type(
    ranked: list[SourcePassage], asked: str | None
) -> tuple[list[SourcePassage], bool | None]:
    """Keep only the passages whose page answers the asked question type, when there are any.

    Returns:
        The passages (all of them, in rank order, when none is of the type), and whether
        they are of the asked type (None when no type was asked or the source has none).
    """
    if not asked or not any(p.get("qtype") for p in ranked):
        return ranked, None
    typed = [p for p in ranked if p.get("qtype") == asked]
    return (typed, True) if typed else (ranked, False)


SAYS_RISK = re.compile(r"\brisks?\b", re.IGNORECASE)
"""What a who-is-at-risk page says where it stands in for what causes a condition: a risk
("Risk factors for colorectal cancer include ...", "High estrogen levels over a long time
may increase the risk of breast cancer"); the type's learned stems ("women", "age") would
pass its every sentence."""

NOT_A_RISK = re.compile(
    r"\b(?:is|are|was|were)(?: not|n't) (?:considered |thought to be )?(?:an? )?(?:known |major )?"
    r"risk|\bnot at (?:an )?increased risk"
    r"|\b(?:does|do|did)(?: not|n't) (?:seem to |appear to )?(?:increase|raise|affect|change|add "
    r"to)\b[^.;]{0,40}\brisks?\b"
    r"|\b(?:has|have|had)(?: not|n't) been (?:found|shown|proven|proved) to\b[^.;]{0,60}\brisks?\b"
    r"|\b(?:proven|proved|shown|found) not to\b[^.;]{0,40}\brisks?\b"
    r"|\bnot found (?:any |clear )?evidence\b[^.;]{0,60}\brisks?\b"
    r"|\bno (?:clear )?evidence\b[^.;]{0,60}\brisks?\b"
    r"|\b(?:not (?:known|clear)|unclear|do not know) (?:if|whether)\b[^.;]{0,120}\brisks?\b"
    r"|\bno (?:known )?(?:increased |higher )?risk\b",
    re.IGNORECASE,
)
"""A risk denied or in doubt: "Pregnancy is not a risk factor for Hodgkin lymphoma", "...
do not appear to increase the risk of breast cancer", "vitamin D has not been found to
affect the risk of endometrial cancer", "It is not clear whether the following affect
the risk of breast cancer: oral contraceptives": no cause. Of the 1,299 distinct quotable
units of MedQuAD's who-is-at-risk (susceptibility) pages naming a risk, 6 are read so
(all read; `says_risk`); the pages that weigh factors against each other are CancerGov's
prevention pages, which stand in for nothing."""

CLAUSES = re.compile(r"(?<=[.;!?])\s+|,\s+but\s+")
"""Where a unit's statements part: sentence ends, list items' semicolons, ", but"."""


def says_risk(text: str) -> bool:
    """Tell whether a unit of a who-is-at-risk page names a risk, not one denied or in doubt.

    Read per statement (`CLAUSES`): "The following is a risk factor for oropharyngeal
    cancer: HPV infection; it is not clear whether avoiding certain risk factors ..."
    names one; "Obesity increases the risk of gout, but coffee does not increase the
    risk" names one.
    """
    return any(
        SAYS_RISK.search(clause) and not NOT_A_RISK.search(clause) for clause in CLAUSES.split(text)
    )


STANDS_IN_FOR: dict[str, tuple[str, Callable[[str], bool]]] = {
    "causes": ("susceptibility", says_risk)
}
"""A type MedQuAD answers on another type's pages where a subject has no page of its own,
and what those pages' units must say to answer it: what causes a cancer is said as its
risk factors ("Risk factors for colorectal cancer include: ..."): CancerGov files no
causes page, and 123 of MedQuAD's 4,742 foci have a who-is-at-risk page and no causes
page."""


def stand_in_type(asked: str | None) -> str | None:
    """Return the type whose pages stand in for the asked one (`STANDS_IN_FOR`), if any."""
    stand_in = STANDS_IN_FOR.get(asked or "")
    return stand_in[0] if stand_in else None


def stand_in_pages(
    source: PassageSource, own: Sequence[SourcePassage], asked: str | None
) -> list[SourcePassage]:
    """Return the subject's own pages of the type that stands in for the asked one.

    None of them when no type stands in for it (`STANDS_IN_FOR`); the caller asks only
    when the subject has no page of the asked type. Unranked, like `missing_typed`.
    """
    stand_in = stand_in_type(asked)
    return missing_typed(source, own, stand_in) if stand_in else []


def pages_about(source: PassageSource, title: str) -> list[SourcePassage]:
    """Return every passage of every page the source files under `title`, page by page."""
    return [
        part for opening in source.openings_of(title) for part in source.parts(opening) or [opening]
    ]


def missing_typed(
    source: PassageSource, own: Sequence[SourcePassage], asked: str
) -> list[SourcePassage]:
    """Return the openings of the subject's own pages of the asked type the search missed.

    BM25 over a long question can return a subject's overview and miss its page of the
    asked type (Leigh's Disease's treatment answer for a parent's message about Leigh
    disease); MedQuAD files each answer under its focus and type, so the page is looked up
    by both (the first two foci of `own`, the subject's own pages). Unranked: the caller
    ranks them like any candidate and holds them to its relevance gate.
    """
    have = {p["id"] for p in own}
    titles = list(dict.fromkeys(p["title"] for p in own if p["title"]))[:2]
    extra = [p for t in titles for p in source.typed(t, asked) if p["id"] not in have]
    return [p for p in extra if has_quotable(p["text"])]


def with_opening(source: PassageSource, ranked: list[SourcePassage]) -> list[SourcePassage]:
    """Put the opening of the best passage's answer first, when the best is a later part.

    A page of the asked type answers the question in its first lines ("Doctors have
    several techniques and imaging tools to help diagnose stroke ..."); a later part
    holds its details. The opening takes the best passage's title, relevance and kin flag.
    Passages without a `part` (knowledge bases, corpora) are left as they are.
    """
    if not ranked or ranked[0].get("part", 1) == 1:
        return ranked
    opening = source.opening(ranked[0])
    if opening is None or not has_quotable(opening["text"]):
        return ranked
    opening = _part_of(ranked[0], opening)
    return [opening, *(p for p in ranked if p["id"] != opening["id"])]


def _part_of(best: SourcePassage, part: SourcePassage) -> SourcePassage:
    """Return a copy of another part of `best`'s page with `best`'s title, relevance, kin."""
    part = part.copy()
    part["title"], part["relevance"] = best["title"], best["relevance"]
    if best.get("kin"):
        part["kin"] = True
    return part


WHOLE_PAGES = 2
"""Pages read whole when none answers the asked type (`with_whole_pages`)."""


def with_whole_pages(
    source: PassageSource, ranked: list[SourcePassage], pages: int = WHOLE_PAGES
) -> list[SourcePassage]:
    """Add the parts of the best `pages` pages the search did not return, after their best.

    When the subject's pages answer other questions only, the sentences about the asked
    type are quoted from wherever they sit on them: "There is no cure, but there are many
    medicines to fight both HIV infection ..." is the second part of the HIV/AIDS overview,
    which BM25 did not return for "What are the treatments of HIV/AIDS?". Only pages under
    the best passage's title are read whole: the subject's own, not a wider family's ("Ear
    Disorders" quoted Meniere's disease for ear infections). Each part added takes its
    page's best passage's title, relevance and kin flag.
    """
    have = {p["id"] for p in ranked}
    seen: list[str] = []
    out: list[SourcePassage] = []
    subject = ranked[0]["title"] if ranked else ""
    for passage in ranked:
        out.append(passage)
        page = passage.get("page")
        if not page or page in seen or len(seen) >= pages or passage["title"] != subject:
            continue  # a wider page ("Ear Disorders" for ear infections) is not read whole
        seen.append(page)
        for part in source.parts(passage):
            if part["id"] in have or not has_quotable(part["text"]):
                continue
            have.add(part["id"])
            out.append(_part_of(passage, part))
    return out
