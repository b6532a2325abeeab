"""Faithfulness, the Auto-Grader and decision accuracy on hand-computed cases."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from veriloop.evaluation.grounding import (
    answer_claims,
    auto_grade,
    faithfulness,
    first_decision,
)
from veriloop.evaluation.grounding_report import grounding_section
from veriloop.models import Models
from veriloop.nodes.judges import Judged, SupportQuery, SupportVerdict, unusable


class WordJudge:
    """P(supported) 1 when every word of the claim occurs in an evidence text, else 0."""

    name = "word-judge"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        verdicts = []
        for query in queries:
            if "BOOM" in query.claim:
                verdicts.append(unusable("judge failed"))
                continue
            words = {w.strip(".,").lower() for w in query.claim.split()}
            backed = [
                i
                for i, text in enumerate(query.evidence)
                if words <= {w.strip(".,").lower() for w in text.split()}
            ]
            verdicts.append(
                SupportVerdict(
                    probability=1.0 if backed else 0.0,
                    evidence_index=backed[0] if backed else 0,
                    evidence_span="",
                    scores={},
                    error=None,
                )
            )
        return verdicts, []


def test_claims_are_sentences_without_citations() -> None:
    assert answer_claims("Yes [PID-1]. Aspirin thins blood [PID-2, TID-3]! ok") == [
        "Yes.",
        "Aspirin thins blood!",
        "ok",
    ]
    assert answer_claims(None) == [] and answer_claims("[PID-1]") == []


def test_faithfulness_counts_supported_unsupported_and_undetermined() -> None:
    context = ["aspirin thins blood", "paris is in france"]
    claims = ["Aspirin thins blood.", "Paris is in France.", "Aspirin cures cancer.", "BOOM"]
    result = faithfulness(WordJudge(), claims, context)
    checks = result.pop("checks")
    assert [c["verdict"] for c in checks] == ["supported", "supported", "unsupported", None]
    assert [c["claim"] for c in checks] == claims
    assert result == {
        "claims": 4,
        "supported": 2,
        "unsupported": 1,
        "contradicted": 0,  # a support-only judge never says contradicted
        "undetermined": 1,
        "faithfulness": 0.5,  # 2 of 4 claims; the undetermined one is not counted supported
    }
    empty = faithfulness(WordJudge(), [], context)
    assert empty["faithfulness"] is None and empty["claims"] == 0
    no_context = faithfulness(WordJudge(), ["x"], [])
    assert no_context["faithfulness"] is None and no_context["undetermined"] == 1


def test_first_decision_reads_only_the_first_sentence() -> None:
    assert first_decision("Yes, it does. No doubt.") == "yes"
    assert first_decision("The answer is maybe. Yes.") == "maybe"
    assert first_decision("It is known. Yes.") is None
    assert first_decision("Nobody knows.") is None  # whole words only
    assert first_decision(None) is None


def test_auto_grade_parses_and_reports_unusable_replies(
    fake_backend: Callable[..., tuple[str, Models]],
) -> None:
    good = json.dumps({"justification": "matches", "grade": 4, "verdict": "CORRECT"})
    _, models = fake_backend([good, "no", '{"grade": 9}'])
    graded = auto_grade(models, "q?", "Yes. Because.", "Yes.", [])
    assert graded == {"grade": 4, "correct": True, "justification": "matches", "error": None}
    failed = auto_grade(models, "q?", "Yes.", "No.", [])
    assert failed["grade"] is None and failed["correct"] is None and failed["error"]


def _record(run: str, role: str, item: str, answer: str | None, units: list[Any]) -> dict:
    return {
        "run": run,
        "role": role,
        "item_id": item,
        "question": "Does aspirin thin blood?",
        "references": ["yes. aspirin thins blood"],
        "gold": "yes",
        "answer": answer,
        "refusal": None,
        "outputs": {"context_units": units},
        "trace": {"usage": {"tokens_in": 100}},
    }


def test_grounding_section_by_hand(
    fake_backend: Callable[..., tuple[str, Models]], tmp_path: Path
) -> None:
    unit = {"id": "PID-1", "kind": "paragraph", "text": "yes aspirin thins blood", "source": "d"}
    grade = json.dumps({"justification": "ok", "grade": 5, "verdict": "CORRECT"})
    wrong = json.dumps({"justification": "no", "grade": 1, "verdict": "INCORRECT"})
    # fe 1, rag 1, rag 2, then the judge check: own / swapped reference for items 1 and 2
    _, models = fake_backend([grade, wrong, grade, grade, wrong, grade, wrong])
    records = [
        _record("fe", "method", "1", "Yes [PID-1]. Aspirin thins blood.", [unit]),
        _record("fe", "method", "2", None, [unit]),
        _record("rag", "baseline", "1", "No. Aspirin cures colds.", [unit]),
        _record("rag", "baseline", "2", "Yes. Aspirin thins blood.", [unit]),
    ]
    lines, summaries = grounding_section(
        tmp_path, {"settings": {"corpus_dir": "unused"}}, records, WordJudge(), models, models
    )
    fe, rag = summaries["fe"], summaries["rag"]
    assert fe["faithful"] == pytest.approx(100.0) and fe["answered"] == 1
    assert fe["decision_accuracy"] == pytest.approx(50.0) and fe["no_decision"] == 1
    assert rag["faithful"] == pytest.approx(50.0)  # item 1: 0/2, item 2: 2/2
    assert rag["supported"] == 2 and rag["unsupported"] == 2
    assert rag["grader_accuracy"] == pytest.approx(50.0) and rag["grade"] == pytest.approx(3.0)
    assert rag["decision_accuracy"] == pytest.approx(50.0)
    assert any(line.startswith("| fe − rag | faithful % | 1 | +100.0") for line in lines)
    own = summaries["reference answer (judge check)"]
    swapped = summaries["another item's reference (judge check)"]
    assert own["grader_accuracy"] == pytest.approx(100.0)
    assert swapped["grader_accuracy"] == pytest.approx(0.0)
    assert own["items"] == 2 and own["faithful"] == pytest.approx(
        100.0
    )  # "yes aspirin thins blood"
    assert not any("judge check) −" in line for line in lines)  # no paired rows for checks
    cached = (tmp_path / "grounding.jsonl").read_text().splitlines()
    assert len(cached) == 8
    again, _ = grounding_section(  # no model call: everything comes from grounding.jsonl
        tmp_path, {"settings": {"corpus_dir": "unused"}}, records, WordJudge(), models, models
    )
    assert again == lines


class DenyingJudge:
    """Backs claims without "never"; says the context contradicts those with it."""

    name = "denying"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        out = []
        for query in queries:
            denied = "never" in query.claim
            verdict = SupportVerdict(
                probability=0.1 if denied else 0.9,
                evidence_index=0,
                evidence_span=query.evidence[0],
                scores={},
                error=None,
            )
            if denied:
                verdict["verdict"] = "contradicted"
            out.append(verdict)
        return out, []


def test_faithfulness_counts_contradicted_claims_among_the_unsupported() -> None:
    result = faithfulness(
        DenyingJudge(), ["Aspirin thins blood.", "Aspirin never thins blood."], ["aspirin"]
    )
    assert (result["supported"], result["unsupported"], result["contradicted"]) == (1, 1, 1)
    assert result["faithfulness"] == 0.5


def test_passages_holding_the_asked_types_words_are_preferred_among_those_kept() -> None:
    from veriloop.nodes.grounding import type_words_first
    from veriloop.nodes.type_cues import asked_cues

    def passage(pid: str, text: str, title: str = "Macular Degeneration") -> Any:
        return {"id": pid, "title": title, "text": text, "relevance": 0.6}

    ranked = [  # closest first: what it is, who gets it, then how it is found
        passage("what", "Macular degeneration is an eye disease that blurs central vision."),
        passage("who", "It is most common in people over 60. Smoking raises the risk."),
        passage(
            "found",
            "A common early symptom is crooked lines. Regular eye exams can "
            "detect macular degeneration before the disease causes vision loss.",
        ),
        passage("retina", "The retina is the tissue at the back of the eye that detects light."),
    ]
    says = asked_cues("exams and tests")
    assert says is not None

    def kept(passages: list[Any], keep: int, children: bool = False) -> list[str]:
        return [p["id"] for p in type_words_first(passages, says, keep, children)]

    # the passage saying how it is found is kept over closer ones, in its own place
    assert kept(ranked, 2) == ["what", "found"]
    assert kept(ranked, 1) == ["found"]
    assert kept(ranked, 9) == ["what", "who", "found", "retina"]
    assert kept([], 3) == []
    # a kind's passage ("Childhood Ovarian Cancer" for ovarian cancer) is not preferred
    kind = {**passage("kind", "An exam can detect childhood macular degeneration."), "kin": True}
    assert kept([ranked[0], kind, ranked[2]], 2) == ["what", "found"]
    # nor a children's page ("Childhood ovarian cancer"), unless children are asked about
    young = passage("young", "An exam can detect it.", "Childhood Glaucoma")
    assert kept([ranked[0], young], 1) == ["what"]
    assert kept([ranked[0], young], 1, children=True) == ["young"]
    # the words in a sentence leaning on one left out do not count ("Is depression
    # genetic?" kept a far part: "If this happens, an older adult with no family history")
    leaning = passage("leaning", "If this happens, an exam can detect it.")
    assert kept([ranked[0], leaning], 1) == ["what"]
