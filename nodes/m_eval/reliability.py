"""Article reliability for M-Eval: evidence level + recency bonus − quality penalties.

Sun et al. (2025), Fig. 4: reliability = base score from the publication type (the
evidence level) + a date score (newest +1.0, next +0.8, ...) − 0.3 per quality aspect the
LLM flags (random selection, complete data, unbiased conclusions, blinding). The paper
lists only the top levels (7: systematic review / meta-analysis; 6: randomized controlled
trial, clinical trial phase I...); the rest of the ladder is **ours** and follows the usual
evidence pyramid. Every part is returned separately so a reader sees why an article
weighs what it does.
"""

from __future__ import annotations

from collections.abc import Sequence

from typing_extensions import TypedDict

LEVELS: dict[str, int] = {
    "systematic review": 7,
    "meta-analysis": 7,
    "randomized controlled trial": 6,
    "clinical trial, phase i": 6,
    "clinical trial, phase ii": 6,
    "clinical trial, phase iii": 6,
    "clinical trial, phase iv": 6,
    "controlled clinical trial": 6,
    "pragmatic clinical trial": 6,
    "clinical trial": 5,
    "multicenter study": 5,
    "observational study": 4,
    "comparative study": 4,
    "evaluation study": 4,
    "validation study": 4,
    "practice guideline": 4,
    "guideline": 4,
    "review": 3,
    "journal article": 3,
    "case reports": 2,
    "letter": 1,
    "editorial": 1,
    "comment": 1,
    "news": 1,
}
DEFAULT_LEVEL = 3
"""Level of an article with no (known) publication type: an ordinary journal article."""
RECENCY_BONUS = (1.0, 0.8, 0.6, 0.4, 0.2)
QUALITY_PENALTY = 0.3
QUALITY_ASPECTS = ("random_selection", "complete_data", "unbiased_conclusions", "blinding")


class ReliabilityParts(TypedDict):
    """An article's reliability and where it comes from."""

    level: int
    level_from: str
    """The publication type that set the level, or 'default' when none was known."""
    recency: float
    penalty: float
    flagged: list[str]
    """Quality aspects the LLM found lacking (each costs QUALITY_PENALTY)."""
    reliability: float


def evidence_level(publication_types: Sequence[str]) -> tuple[int, str]:
    """Return the highest level among the types and the type that gave it (or the default)."""
    best, source = DEFAULT_LEVEL, "default"
    found = False
    for kind in publication_types:
        level = LEVELS.get(kind.strip().casefold())
        if level is not None and (not found or level > best):
            best, source, found = level, kind.strip(), True
    return best, source


def recency_bonuses(years: Sequence[int | None]) -> list[float]:
    """Give the newest year +1.0, the next +0.8, ... (ties share; unknown years get 0)."""
    distinct = sorted({y for y in years if y is not None}, reverse=True)
    rank = {year: index for index, year in enumerate(distinct)}
    return [
        RECENCY_BONUS[rank[y]] if y is not None and rank[y] < len(RECENCY_BONUS) else 0.0
        for y in years
    ]


def reliability_parts(
    publication_types: Sequence[str], recency: float, flagged: Sequence[str]
) -> ReliabilityParts:
    """Combine the parts: level + recency − 0.3 × flagged aspects (never below 0.1)."""
    level, source = evidence_level(publication_types)
    penalty = QUALITY_PENALTY * len(flagged)
    return ReliabilityParts(
        level=level,
        level_from=source,
        recency=recency,
        penalty=round(penalty, 6),
        flagged=list(flagged),
        reliability=round(max(0.1, level + recency - penalty), 6),
    )
