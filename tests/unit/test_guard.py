"""The LangChain guard on fakes: output shapes, policies, streaming order, clear errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.runnables import RunnableGenerator, RunnableLambda
from langchain_core.runnables.utils import AddableDict

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.guard import GroundingGuard, merge_chunk, source_texts, text_of
from veriloop.models import Models
from veriloop.nodes.judges import CoverageGatedJudge, SupportQuery

Make = Callable[..., tuple[str, Models]]
SOURCE = "Warfarin thins the blood. Hair loss is an uncommon side effect."


class DenyingJudge:
    """Backs a claim whose words the evidence holds; denies one that says 'most'."""

    name = "denying judge"

    def judge(self, queries: Sequence[SupportQuery]) -> tuple[list[dict[str, Any]], list[Any]]:
        out = []
        for query in queries:
            denied = " most " in f" {query.claim.lower()} "
            out.append(
                {
                    "probability": 0.0 if denied else 0.9,
                    "evidence_index": 0,
                    "evidence_span": query.evidence[0],
                    "scores": {},
                    "error": None,
                    "verdict": "contradicted" if denied else "supported",
                    "p_contradicted": 0.9 if denied else 0.0,
                    "evidence_sentence": "Hair loss is an uncommon side effect.",
                }
            )
        return out, []


@pytest.fixture
def guard_settings(monkeypatch: pytest.MonkeyPatch, fake_backend: Make) -> ModelSettings:
    monkeypatch.setattr(
        "veriloop.nodes.grounding.support_judge", lambda kind, models, **_: DenyingJudge()
    )
    fake, _ = fake_backend([])
    return ModelSettings(backend=fake)


ANSWER = "Warfarin thins the blood. Hair loss is the most common side effect."


def test_check_keeps_the_chains_output_and_adds_verdict_and_sentences(
    guard_settings: ModelSettings,
) -> None:
    chain = RunnableLambda(
        lambda q: {"answer": AIMessage(content=ANSWER), "context": [Document(SOURCE)], "x": 1}
    )
    out = GroundingGuard(chain, settings=guard_settings).invoke({"question": "q?"})
    assert out["x"] == 1 and out["answer"] == ANSWER  # policy "check": unchanged text
    assert [s["verdict"] for s in out["sentences"]] == ["supported", "contradicted"]
    assert out["verdict"] == "hallucinated" and out["contradicted"] == 1
    marked = GroundingGuard(chain, policy="mark", settings=guard_settings).invoke("q?")
    assert marked["answer"] == (
        "Warfarin thins the blood [1]. Hair loss is the most common side effect. [contradicted]"
    )
    dropped = GroundingGuard(chain, policy="drop", settings=guard_settings).invoke("q?")
    assert dropped["answer"] == "Warfarin thins the blood [1]."
    assert dropped["original_answer"] == ANSWER


def test_piped_after_a_chain_it_streams_the_chunks_then_the_check(
    guard_settings: ModelSettings,
) -> None:
    def produce(_: Iterator[Any]) -> Iterator[dict[str, Any]]:
        yield AddableDict(context=[SOURCE])  # LCEL's streamed-dict chunks
        for word in ANSWER.split(" "):
            yield AddableDict(answer=word + " ")

    chain = RunnableGenerator(produce) | GroundingGuard(settings=guard_settings)
    chunks = list(chain.stream("q?"))
    assert "check" in chunks[-1] and all("check" not in c for c in chunks[:-1])
    assert "".join(c.get("answer", "") for c in chunks[:-1]).strip() == ANSWER
    assert chunks[-1]["check"]["verdict"] == "hallucinated"
    assert chain.invoke("q?")["verdict"] == "hallucinated"


def test_a_bare_model_output_is_checked_against_given_sources(
    guard_settings: ModelSettings,
) -> None:
    model = RunnableLambda(lambda q: AIMessage(content="Warfarin thins the blood."))
    guarded = GroundingGuard(model, sources=[SOURCE], settings=guard_settings)
    assert guarded.invoke("q?")["verdict"] == "supported"
    with pytest.raises(InvalidInputError, match="no documents"):
        GroundingGuard(model, settings=guard_settings).invoke("q?")
    with pytest.raises(InvalidInputError, match="no answer"):
        GroundingGuard(settings=guard_settings).invoke({"context": [SOURCE]})


def test_bad_documents_and_options_say_what_to_give() -> None:
    # one string is one document, never one document per character
    [one] = source_texts("one text")
    assert one["text"] == "one text"
    assert GroundingGuard(sources="one text").sources == ["one text"]
    with pytest.raises(InvalidInputError, match="must be a list"):
        source_texts(None)
    with pytest.raises(InvalidInputError, match="must be a list"):
        source_texts(7)
    with pytest.raises(InvalidInputError, match="document 2 is int"):
        source_texts(["a", 3])
    with pytest.raises(InvalidInputError, match="policy must be"):
        GroundingGuard(policy="hide")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="not text or a chat message"):
        text_of(42)
    passage = source_texts([Document("t", metadata={"source": "a.txt"})])[0]
    assert passage["url"] == "a.txt" and passage["id"] == "1"


def test_merge_chunk_concatenates_text_and_message_chunks() -> None:
    total: dict[str, Any] = {}
    merge_chunk(total, {"answer": "Hel"})
    merge_chunk(total, {"answer": "lo", "context": ["a"]})
    merge_chunk(total, AIMessageChunk(content="x"))
    assert total["answer"] == AIMessageChunk(content="x") and total["context"] == ["a"]
    messages: dict[str, Any] = {}
    merge_chunk(messages, {"answer": AIMessageChunk(content="Hel")})
    merge_chunk(messages, {"answer": AIMessageChunk(content="lo")})
    assert text_of(messages["answer"]) == "Hello"


def test_the_coverage_gate_reads_a_half_covered_text_for_a_denial_only() -> None:
    gated = CoverageGatedJudge(DenyingJudge(), min_coverage=0.75, deny_coverage=0.5)
    [denied, invented], _ = gated.judge(
        [
            # 2 of 3 content words: too few to back it, enough to deny it
            SupportQuery("Hair loss is the most common side effect.", [SOURCE]),
            SupportQuery("Hair loss is rare.", [SOURCE]),  # the inner judge backs it
        ]
    )
    assert denied["verdict"] == "contradicted"  # type: ignore[typeddict-item]
    assert invented["probability"] == 0.0 and invented.get("verdict") != "supported"
