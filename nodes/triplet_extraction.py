"""Triplet extraction with the chat model: text -> (subject, relation, object) facts.

Used by `veriloop index --extract-triplets` to build a corpus's knowledge graph, and by
Factual Evidence's triplet mode to turn retrieved paragraphs into triplets on the fly when
the index has no graph (the paper's second variant). The reply is grammar-constrained on
the embedded model (a list of at most `max_triplets` objects with short strings); an
unusable reply yields no triplets and its error, never an exception.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from veriloop.knowledge.hybrid import ContextUnit, fence
from veriloop.knowledge.ranking import rank_rows
from veriloop.knowledge.triplets import TripletGraph, triplet_text
from veriloop.models import ChatTurn, Models
from veriloop.models.structured import ask_structured
from veriloop.prompts import render
from veriloop.trace import ModelCall

MAX_TRIPLETS = 6
MAX_PART_CHARS = 60


class _RawTriplet(BaseModel):
    model_config = ConfigDict(extra="ignore")
    subject: str = Field(max_length=MAX_PART_CHARS)
    relation: str = Field(max_length=MAX_PART_CHARS)
    object: str = Field(max_length=MAX_PART_CHARS)


def _reply_model(max_triplets: int) -> type[BaseModel]:
    class TripletReply(BaseModel):
        model_config = ConfigDict(extra="ignore")
        triplets: list[_RawTriplet] = Field(max_length=max_triplets)

    return TripletReply


def extract_triplets(
    models: Models,
    text: str,
    source: str,
    *,
    max_triplets: int = MAX_TRIPLETS,
    overrides: dict[str, str] | None = None,
) -> tuple[list[dict[str, str]], list[ModelCall], str | None]:
    """Ask the chat model for the triplets `text` states.

    Returns:
        Raw triplets (subject, relation, object, source), the calls made, and the error
        when the reply was unusable.
    """
    prompt = render("triplet_extraction", overrides, text=text, max_triplets=max_triplets)
    reply = ask_structured(
        models,
        [ChatTurn(role="user", content=prompt)],
        _reply_model(max_triplets),
        purpose="triplet_extraction",
        max_string_length=MAX_PART_CHARS,
    )
    if reply.value is None:
        return [], list(reply.calls), reply.error
    rows = [
        {
            "subject": t["subject"],
            "relation": t["relation"],
            "object": t["object"],
            "source": source,
        }
        for t in reply.value.model_dump()["triplets"]
    ]
    return rows, list(reply.calls), None


def triplets_from_paragraphs(
    models: Models,
    question: str,
    paragraphs: list[ContextUnit],
    k: int,
    overrides: dict[str, str] | None = None,
) -> tuple[list[ContextUnit], list[ModelCall]]:
    """Extract triplets from retrieved paragraphs and keep the `k` nearest the question.

    Triplets are canonicalised and de-duplicated in a per-question graph; their ids
    (`TID-n`) are stable within the question and their source is the paragraph id. A
    paragraph whose reply is unusable contributes nothing.
    """
    graph = TripletGraph()
    calls: list[ModelCall] = []
    for unit in paragraphs:
        rows, extraction_calls, _ = extract_triplets(
            models, fence(unit["text"]), unit["id"], overrides=overrides
        )
        calls.extend(extraction_calls)
        graph.add_many(rows)
    if not graph.triplets:
        return [], calls
    texts = [triplet_text(t) for t in graph.triplets]
    vectors, embed_call = models.embed([question, *texts], purpose="retrieval")
    calls.append(embed_call)
    units = []
    ranked = rank_rows(list(range(len(texts))), vectors[1:], vectors[0], k)
    for rank, (row, cosine) in enumerate(ranked, start=1):
        triplet = graph.triplets[row]
        units.append(
            ContextUnit(
                id=triplet["id"],
                kind="triplet",
                text=texts[row],
                source=triplet["source"],
                score=round(cosine, 6),
                ranks={"triplet": rank},
            )
        )
    return units, calls
