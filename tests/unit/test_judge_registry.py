"""One registry of judges, one claim check, one name per threshold (issue 37)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import veriloop
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.graphs.factored_verification import FactoredVerificationContext
from veriloop.graphs.grounded import GroundedContext, build_graph
from veriloop.graphs.m_eval import MEvalContext
from veriloop.guard import GroundingGuard
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models
from veriloop.nodes.judges import (
    JUDGES,
    DecidedJudge,
    Judged,
    JudgeEntry,
    SupportQuery,
    SupportVerdict,
    register_judge,
    support_judge,
    unregister_judge,
)
from veriloop.nodes.judges.claim_check import check_claims

NOONAN = "Noonan syndrome is inherited in an autosomal dominant manner."
PARIS = "Paris is the capital of France."
QUESTION = "Is Noonan syndrome inherited?"
Make = Callable[..., tuple[str, Models]]


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


class WordsJudge:
    """A toy judge: P(supported) 1 when every word of the claim is in the evidence, else 0."""

    name = "words"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        verdicts = []
        for query in queries:
            held = [words(query.claim) <= words(text) for text in query.evidence]
            index = held.index(True) if any(held) else 0
            verdicts.append(
                SupportVerdict(
                    probability=1.0 if any(held) else 0.0,
                    evidence_index=index,
                    evidence_span=query.evidence[index],
                    scores={},
                    error=None,
                )
            )
        return verdicts, []


@pytest.fixture
def words_judge() -> Iterator[None]:
    register_judge(
        "words",
        JudgeEntry(
            lambda models, thresholds: DecidedJudge(WordsJudge(), thresholds.supported_at),
            can_contradict=False,
            summary="every claim word in the source",
            benchmark_row="-",
        ),
    )
    yield
    unregister_judge("words")


def test_a_judge_added_by_one_entry_runs_through_verify_grounded_and_the_guard(
    words_judge: None, fake_backend: Make, tmp_path: Path
) -> None:
    answer = "Noonan syndrome is inherited. Paris is in Texas."
    # verify (the engine of `veriloop verify`, its batch mode and `veriloop.check`)
    [row] = veriloop.check(
        [{"id": "r1", "answer": answer, "sources": [NOONAN]}], verifier="words", report=False
    )
    assert [(c["claim"], c["verdict"]) for c in row["claims"]] == [
        ("Noonan syndrome is inherited.", "supported"),
        ("Paris is in Texas.", "unsupported"),
    ]
    # the guard
    checked = GroundingGuard(judge="words", sources=[NOONAN]).check(answer)
    assert [s["verdict"] for s in checked["sentences"]] == [
        "supported",
        "unsupported",
    ]
    # the grounded graph, with a scripted chat model and a two-entry knowledge base
    vectors = {
        NOONAN: [1, 0, 0, 0, 0, 0, 0, 0],
        PARIS: [0, 1, 0, 0, 0, 0, 0, 0],
        QUESTION: [0.8, 0, math.sqrt(1 - 0.64), 0, 0, 0, 0, 0],
    }
    backend, models = fake_backend([answer], vectors=vectors)
    base = KnowledgeBase.create(tmp_path / "kb", models.embedder)
    base.add([new_entry(NOONAN, 1.0, "nih"), new_entry(PARIS, 1.0, "atlas")], models.embedder)
    base.save()
    context = GroundedContext(
        backend=backend,
        kb_dir=str(tmp_path / "kb"),
        top_k=2,
        answer_mode="generate",
        judge="words",  # type: ignore[arg-type]
        min_coverage=0.0,
    )
    result = build_graph().compile().invoke({"question": QUESTION}, context=context)
    assert [(s["text"], s["verdict"]) for s in result["sentences"]] == [
        ("Noonan syndrome is inherited.", "supported"),
        ("Paris is in Texas.", "unsupported"),
    ]
    assert result["answer"] == "Noonan syndrome is inherited [1]."


def test_an_unknown_judge_is_refused_with_the_names_there_are() -> None:
    with pytest.raises(InvalidInputError, match="three_way, three_way_model"):
        support_judge("oracle", Models.__new__(Models))
    with pytest.raises(InvalidInputError, match="'oracle' is not one of"):
        GroundedContext(judge="oracle")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="no such judge"):
        GroundingGuard(judge="oracle", sources=[NOONAN])


def test_every_judge_names_its_benchmark_row_and_whether_it_can_contradict() -> None:
    assert JUDGES["three_way"].can_contradict and JUDGES["three_way_model"].can_contradict
    assert not any(JUDGES[n].can_contradict for n in ("trained", "gated", "likelihood", "head"))
    assert all(entry.summary and entry.benchmark_row for entry in JUDGES.values())


def test_a_support_only_judge_decides_at_the_threshold_it_was_given() -> None:
    class Fixed:
        name = "fixed"

        def judge(self, queries: Sequence[SupportQuery]) -> Judged:
            return [
                SupportVerdict(
                    probability=0.4, evidence_index=0, evidence_span="", scores={}, error=None
                )
                for _ in queries
            ], []

    query = [SupportQuery("a claim", ["a source"])]
    assert DecidedJudge(Fixed(), None).judge(query)[0][0].get("verdict") == "unsupported"
    assert DecidedJudge(Fixed(), 0.3).judge(query)[0][0].get("verdict") == "supported"


def test_check_claims_reads_one_source_list_or_one_per_claim() -> None:
    judge = DecidedJudge(WordsJudge(), None)
    shared, _ = check_claims(judge, ["Paris is the capital", "Noonan syndrome"], [PARIS, NOONAN])
    assert [(c["verdict"], c["source_index"]) for c in shared] == [
        ("supported", 0),
        ("supported", 1),
    ]
    own, _ = check_claims(judge, ["Paris is the capital", "Noonan syndrome"], [[NOONAN], [PARIS]])
    assert [c["verdict"] for c in own] == ["unsupported", "unsupported"]
    assert own[0]["span"] == NOONAN and own[0]["p_supported"] == 0.0
    assert set(own[0]) == {
        "claim",
        "verdict",
        "p_supported",
        "p_contradicted",
        "mismatches",
        "source_index",
        "span",
        "evidence_sentence",
        "scores",
        "error",
    }
    with pytest.raises(ValueError, match="2 claims but 1 source lists"):
        check_claims(judge, ["a", "b"], [[PARIS]])


@pytest.mark.parametrize(
    ("context_class", "old", "new"),
    [
        (FactoredVerificationContext, "claim_threshold", "supported_at"),
        (MEvalContext, "stance_supports_at", "supported_at"),
    ],
)
def test_an_old_threshold_name_still_works_and_says_its_new_name(
    context_class: type[ModelSettings], old: str, new: str
) -> None:
    with pytest.warns(DeprecationWarning, match=f"{old} is now called {new}"):
        context: Any = context_class(**{old: 0.3})
    assert getattr(context, new) == 0.3
    with pytest.raises(InvalidInputError, match=f"{old} and {new} are one setting"):
        context_class(**{old: 0.3, new: 0.4})
    from veriloop.cli.common import build_context

    with pytest.warns(DeprecationWarning, match=f"--set {context_class.__name__}.{old}"):
        built: Any = build_context(context_class, [f"{old}=0.2"])
    assert getattr(built, new) == 0.2


def test_each_threshold_has_one_name_in_the_contexts() -> None:
    for context_class in (GroundedContext, FactoredVerificationContext, MEvalContext):
        names = {spec for spec in context_class.__dataclass_fields__}
        assert {"supported_at", "contradicted_at"} <= names
        assert not names & {"claim_threshold", "stance_supports_at"}
