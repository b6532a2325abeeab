"""Pages of the asked type and of the type standing in for it (`nodes.page_types`)."""

from __future__ import annotations

from veriloop.knowledge.sources import SourcePassage
from veriloop.nodes.page_types import stand_in_pages


class ByType:
    """A source filing each page under its title and question type, as MedQuAD does."""

    name = "by type"

    def __init__(self, pages: dict[tuple[str, str], str]) -> None:
        self.pages = pages

    def typed(self, title: str, qtype: str) -> list[SourcePassage]:
        text = self.pages.get((title, qtype))
        if text is None:
            return []
        return [
            SourcePassage(
                id=f"{title}/{qtype}", text=text, title=title, url="u", relevance=0.0, qtype=qtype
            )
        ]


def test_a_subjects_risk_factors_stand_in_for_what_causes_it() -> None:
    source = ByType(
        {
            ("Colon Cancer", "susceptibility"): "Risk factors for colon cancer include age.",
            ("Colon Cancer", "treatment"): "Colon cancer is treated with surgery.",
        }
    )
    own = [
        SourcePassage(
            id="C-1",
            text="Colon cancer is a disease.",
            title="Colon Cancer",
            url="u",
            relevance=1.0,
        )
    ]
    found = stand_in_pages(source, own, "causes")  # type: ignore[arg-type]
    assert [p["id"] for p in found] == ["Colon Cancer/susceptibility"]
    # no type stands in for treatment, or for no type asked
    assert stand_in_pages(source, own, "treatment") == []  # type: ignore[arg-type]
    assert stand_in_pages(source, own, None) == []  # type: ignore[arg-type]
    # a page the search already returned is not looked up twice
    have = [*own, *found]
    assert stand_in_pages(source, have, "causes") == []  # type: ignore[arg-type]
