"""Contradicted sentences and claims: the coverage gate's rule and the grounded default's policy."""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.knowledge.sources import SourcePassage
from veriloop.nodes.grounding import check_sentences, cited_answer
from veriloop.nodes.judges import CoverageGatedJudge, Judged, SupportQuery, SupportVerdict

BACKS = "Warfarin thins the blood and the most common serious side effect is bleeding."
DENIES = "Warfarin hair loss is an uncommon side effect in patients."
SILENT = "Warfarin patients should keep their hair loss diary and blood tests."


class ByPassage:
    """A three-way judge scripted per evidence text: backs, denies or neither."""

    name = "by passage"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        out = []
        for query in queries:
            [text] = query.evidence
            if text == BACKS and "bleeding" in query.claim:
                verdict, p, pc = "supported", 0.9, 0.02
            elif text == DENIES and "hair" in query.claim:
                verdict, p, pc = "contradicted", 0.03, 0.85
            else:
                verdict, p, pc = "unsupported", 0.2, 0.1
            out.append(
                SupportVerdict(
                    probability=p,
                    evidence_index=0,
                    evidence_span=text,
                    scores={},
                    error=None,
                    verdict=verdict,  # type: ignore[typeddict-item]
                    p_contradicted=pc,
                    evidence_sentence=text,
                )
            )
        return out, []


def passage(pid: str, text: str) -> SourcePassage:
    return SourcePassage(id=pid, title=pid, url="", text=text, relevance=1.0)  # type: ignore[typeddict-item]


def test_the_gate_keeps_a_denial_when_no_passage_backs_the_claim() -> None:
    judge = CoverageGatedJudge(ByPassage(), min_coverage=0.0)
    [hair, bleeding], _ = judge.judge(
        [
            SupportQuery("Warfarin causes hair loss in most patients.", [SILENT, DENIES]),
            SupportQuery("Warfarin's main serious side effect is bleeding.", [DENIES, BACKS]),
        ]
    )
    # the silent passage has the higher P(supported) (0.2), but the other one denies it
    assert hair.get("verdict") == "contradicted" and hair["evidence_index"] == 1
    assert hair["scores"]["coverage"] >= 0.0 and hair["probability"] == 0.03
    # backed by one passage: supported, whatever another says
    assert bleeding.get("verdict") == "supported" and bleeding["evidence_index"] == 1


def test_grounded_drops_or_marks_contradicted_sentences() -> None:
    judge = CoverageGatedJudge(ByPassage(), min_coverage=0.0)
    passages = [passage("P1", BACKS), passage("P2", DENIES)]
    sentences = [
        ("The most common serious side effect of warfarin is bleeding.", "extracted"),
        ("Warfarin causes hair loss in most patients.", "extracted"),
        ("Warfarin is sold in Paris.", "extracted"),
    ]
    checked = check_sentences(judge, sentences, passages, "")  # type: ignore[arg-type]
    assert [c.get("verdict") for c in checked] == ["supported", "contradicted", "unsupported"]
    assert checked[1]["supported"] is False and checked[1]["passage_id"] == "P2"
    assert checked[1]["reason"] == f'contradicted: the passage says "{DENIES}"'
    dropped, order = cited_answer(checked)
    assert (
        dropped == "The most common serious side effect of warfarin is bleeding [1]."
        and order == ["P1"]
    )
    marked, _ = cited_answer(checked, mark_unsupported=True)
    assert marked.endswith(
        "Warfarin causes hair loss in most patients. [contradicted] "
        "Warfarin is sold in Paris. [unsupported]"
    )
