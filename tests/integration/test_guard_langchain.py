"""The LangChain guard on a real retrieval chain: FAISS over MiniLM, SmolLM2 through llama.cpp."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda, RunnableParallel

from veriloop.guard import GroundingGuard
from veriloop.models.locate import bundled_chat_model_path, bundled_embedding_model_path

pytestmark = [pytest.mark.integration, pytest.mark.full]

DOCUMENTS = [
    Document(
        page_content="The most common serious side effect of warfarin is bleeding. "
        "Hair loss is an uncommon side effect.",
        metadata={"source": "warfarin.txt"},
    ),
    Document(
        page_content="Aspirin irreversibly inhibits cyclooxygenase and reduces platelet "
        "aggregation.",
        metadata={"source": "aspirin.txt"},
    ),
]
QUESTION = "What is the most common serious side effect of warfarin?"


@pytest.fixture(scope="module")
def rag_chain() -> Runnable[Any, Any]:
    """A LangChain RAG chain as its docs build one: retriever | prompt | chat model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.chat_models import ChatLlamaCpp
        from langchain_community.embeddings import HuggingFaceEmbeddings
        from langchain_community.vectorstores import FAISS

        embeddings = HuggingFaceEmbeddings(model_name=str(bundled_embedding_model_path()))
    retriever = FAISS.from_documents(DOCUMENTS, embeddings).as_retriever(search_kwargs={"k": 1})
    llm = ChatLlamaCpp(
        model_path=str(bundled_chat_model_path()),
        temperature=0.0,
        max_tokens=48,
        n_ctx=1024,
        seed=0,
        verbose=False,
    )
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Answer from the context only, in one sentence.\nContext: {context}"),
            ("human", "{question}"),
        ]
    )
    join = RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs))
    return RunnableParallel(context=retriever, question=RunnableLambda(lambda q: q)).assign(
        answer=(
            {"context": lambda x: join.invoke(x["context"]), "question": lambda x: x["question"]}
            | prompt
            | llm
            | StrOutputParser()
        )
    )


def test_the_guard_checks_the_chains_answer_against_the_documents_it_used(
    rag_chain: Runnable[Any, Any],
) -> None:
    out = GroundingGuard(rag_chain).invoke(QUESTION)
    assert out["context"][0].metadata["source"] == "warfarin.txt"  # the chain's own output kept
    assert out["answer"] == out["original_answer"]  # policy "check": text unchanged
    assert out["sentences"], "the model's answer held no sentence"
    for sentence in out["sentences"]:
        assert sentence["verdict"] in ("supported", "unsupported", "contradicted")
        assert sentence["supported"] == (sentence["verdict"] == "supported")
    expected = "supported" if all(s["supported"] for s in out["sentences"]) else "hallucinated"
    assert out["verdict"] == expected


def test_composed_with_a_pipe_it_marks_a_denied_sentence_and_cites_the_backed_one(
    rag_chain: Runnable[Any, Any],
) -> None:
    # The chain's documents, with an answer we know: one sentence backed, one denied.
    fixed = rag_chain | RunnableLambda(
        lambda out: {
            **out,
            "answer": "The most common serious side effect of warfarin is bleeding. "
            "Warfarin causes hair loss in most patients.",
        }
    )
    out = (fixed | GroundingGuard(policy="mark")).invoke(QUESTION)
    verdicts = [s["verdict"] for s in out["sentences"]]
    assert verdicts == ["supported", "contradicted"]
    assert out["verdict"] == "hallucinated" and out["contradicted"] == 1
    assert out["answer"].startswith("The most common serious side effect of warfarin is bleeding")
    assert "[1]" in out["answer"] and out["answer"].endswith("[contradicted]")
    assert out["cited"][0]["url"] == "warfarin.txt"
    dropped = (fixed | GroundingGuard(policy="drop")).invoke(QUESTION)
    assert "hair loss" not in dropped["answer"].lower()


def test_streaming_yields_the_answer_before_the_check(rag_chain: Runnable[Any, Any]) -> None:
    chunks = list(GroundingGuard(rag_chain).stream(QUESTION))
    answer_at = [i for i, c in enumerate(chunks) if "answer" in c]
    check_at = [i for i, c in enumerate(chunks) if "check" in c]
    assert answer_at and check_at == [len(chunks) - 1] and max(answer_at) < check_at[0]
    streamed = "".join(c["answer"] for c in chunks if isinstance(c.get("answer"), str))
    assert chunks[-1]["check"]["original_answer"] == streamed
