"""Grounded answering (veriloop's default; ours, not a paper's): cited and checked, or refused.

    check_question -> retrieve ─┬─ relevant ─> answer -> check_sentences ─┬─ backed ─> cite
                                └─ not ─> refuse_hard                      └─ none ──> refuse_soft
    (cite, refuse_hard and refuse_soft end in finish)

- retrieve: what the question asks (`question_types`: MedQuAD's question type, read by
  `nodes/question_type.py` when it is confident), then `candidates` passages from the source
  (the bundled MedQuAD answers, 16,407 answers from 9 NIH sites, BM25; or the user's
  `kb_dir` / `corpus_dir`), re-ranked by MiniLM cosine, the best `top_k` kept. With
  `match_focus`, each page's focus is read against the question's subject
  (`nodes/subject.py`): pages about a neighbouring condition are set aside, pages on the
  subject (or kinds of it: "Chronic Myeloid Leukemia" for leukemia) are kept when there are
  any, and only passages of the asked type when there are any.
  **Hard refusal** (no model call) when the question names a subject no page is about, or
  the best cosine is below `subject_relevant_at` (pages on the subject) or `relevant_at`
  (any page); it says what was looked for, found and set aside, and why.
- answer: `answer_mode=extract` (default) quotes passage units (`nodes/answer_units.py`:
  a typed page from its opening, else the units closest to the question; scrape damage
  repaired, non-answers left out, each said once); when the subject's pages answer other
  questions only, only units about the asked type, or a refusal saying the source has
  none. `generate` asks the chat model to copy from the passages (SmolLM2-135M mostly
  wrote filler: docs/results/mediqa_grounded_n120).
- check_sentences: every answer sentence against each kept passage with the claim-support
  judge (`judge`, read after the question), gated on content-word coverage
  (`min_coverage`); kept at P(supported) >= `supported_at` (and, with the relevance
  judge on, P(addresses the question) >= `relevant_sentence_at`).
- cite: the kept sentences with numbered citations `[n]`; `sources` lists the cited
  passages. Unsupported sentences are dropped, or marked (`unsupported=mark`).
- **Soft refusal** when no sentence survives; it says how many failed which test.

One answer, one check, no loop; every sentence and its scores are in the trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from veriloop.context import MethodSettings
from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.sources import SourcePassage, SourceSettings
from veriloop.models import get_models
from veriloop.nodes.answer_units import quote_answer, sentence_records
from veriloop.nodes.generation import generate_turn
from veriloop.nodes.grounding import (
    CheckedSentence,
    PartPassages,
    PartsFound,
    answer_sentences,
    check_sentences,
    cited_answer,
    instructions_of,
    numbered_passages,
    relevance_judge,
    retrieve_parts,
    retrieve_ranked,
    sentence_judge,
)
from veriloop.nodes.input import check_input
from veriloop.nodes.judges import DecisionSettings, JudgeName, supported_at_of
from veriloop.nodes.question_type import AskedTypes, asked_types
from veriloop.nodes.refusals import (
    hard_refusal_detail,
    named_kind_note,
    not_covered_detail,
    part_retrieval_record,
    retrieval_record,
    soft_refusal_detail,
)
from veriloop.nodes.treating_pages import names_a_treatment
from veriloop.nodes.type_cues import searched_type
from veriloop.prompts import load_prompt, render
from veriloop.state import InputState, OutputState, TracedState
from veriloop.trace import (
    LoopStop,
    ModelCall,
    Refusal,
    StopReason,
    build_trace,
    single_pass_answer,
)

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class GroundedContext(MethodSettings, SourceSettings, DecisionSettings):
    """Source, retrieval depth, relevance gate, answer mode and the sentence check."""

    candidates: int = field(
        default=30,
        metadata={"ge": 1, "description": "Passages retrieved before re-ranking."},
    )
    top_k: int = field(
        default=3,
        metadata={"ge": 1, "description": "Passages kept after MiniLM re-ranking."},
    )
    question_match: int = field(
        default=0,
        metadata={
            "ge": 0,
            "description": "MedQuAD source: answers to this many MedQuAD questions nearest the "
            "user's (MiniLM cosine, question entailment) join the BM25 candidates; 0: BM25 "
            "only (measured in docs/results/mediqa_grounded_question_match_n120).",
        },
    )
    match_focus: bool = field(
        default=True,
        metadata={
            "description": "Read each page's focus (MedQuAD) against the question's subject: "
            "drop pages about a neighbouring condition ('Anal Cancer' for an anal fissure "
            "question), keep only pages on the subject when there are any, and refuse when "
            "the question names a subject no retrieved page is about (nodes/subject.py)."
        },
    )
    answer_off_subject: bool = field(
        default=False,
        metadata={
            "description": "With match_focus, answer from the retrieved pages when none is on "
            "the question's subject and the question names none the subject rule can read "
            "(off: refuse; such answers were rated good in 0 of 21 MEDIQA questions, "
            "docs/benchmarks/rating_tally_s26.md)."
        },
    )
    relevant_at: float = field(
        default=0.5,
        metadata={
            "ge": -1.0,
            "le": 1.0,
            "description": "Hard refusal when the best question-passage cosine is below this "
            "and no page is on the question's subject (set from the hand ratings: answers "
            "from pages off the subject were bad; docs/benchmarks/relevance_gate.md).",
        },
    )
    subject_relevant_at: float = field(
        default=0.51,
        metadata={
            "ge": -1.0,
            "le": 1.0,
            "description": "The same gate for pages on the question's subject (match_focus), "
            "fitted on 41 hand-rated answers (docs/benchmarks/answer_gate.md).",
        },
    )
    question_types: bool = field(
        default=True,
        metadata={
            "description": "Read what the question asks (MedQuAD's question types, "
            "nodes/question_type.py) and keep passages of that type; when the subject's pages "
            "answer other questions only, quote only sentences about the asked type, or say "
            "the source has none.",
        },
    )
    type_confident_at: float = field(
        default=0.5,
        metadata={
            "ge": 0.0,
            "le": 1.0,
            "description": "The classifier's probability from which its question type is used.",
        },
    )
    answer_mode: Literal["extract", "generate"] = field(
        default="extract",
        metadata={
            "description": "extract: quote the passage sentences closest to the question (no "
            "chat call; measured better with SmolLM2-135M); generate: the chat model answers "
            "by copying from the passages (for a capable served model)."
        },
    )
    extract_sentences: int = field(
        default=3,
        metadata={"ge": 1, "description": "Sentences quoted in extract mode."},
    )
    judge: JudgeName = field(
        default="three_way",
        metadata={
            "description": "Claim judge for the sentence check (nodes.judges): 'three_way' "
            "also finds sentences a passage contradicts (dropped, or marked [contradicted]); "
            "the others judge support only."
        },
    )
    min_coverage: float = field(
        default=0.75,
        metadata={
            "ge": 0.0,
            "le": 1.0,
            "description": "Share of a kept sentence's content words its passage must hold.",
        },
    )
    relevance_judge: Literal["off", "trained"] = field(
        default="off",
        metadata={
            "description": "Answer-relevance judge (nodes/judges/relevance.py): 'trained' picks "
            "the extract's sentences by P(the sentence addresses the question) and keeps only "
            "sentences reaching relevant_sentence_at; 'off' (default: on 120 MEDIQA consumer "
            "questions the judge refused more and scored lower F1, docs/results/"
            "mediqa_grounded_relevance_n120) picks by MiniLM cosine and checks support only."
        },
    )
    relevant_sentence_at: float = field(
        default=0.5,
        metadata={
            "ge": 0.0,
            "le": 1.0,
            "description": "P(addresses the question) a kept sentence needs (relevance judge).",
        },
    )
    unsupported: Literal["drop", "mark"] = field(
        default="drop",
        metadata={
            "description": "drop unsupported, contradicted and off-question sentences, or keep "
            "them marked [unsupported] / [contradicted] / [off-question]."
        },
    )


@dataclass
class State(OutputState, TracedState):
    """Working state."""

    options: dict[str, str] | None = None
    passages: list[SourcePassage] = field(default_factory=list)
    relevant: bool = False
    no_page_about: str | None = None
    """The question's subject phrase when no retrieved page is about it (hard refusal)."""
    no_subject: bool = False
    """No retrieved page is on the question's subject and it names none (hard refusal)."""
    nearest_pages: list[str] = field(default_factory=list)
    """With `no_page_about`: the foci of the pages retrieval found instead."""
    found: str = ""
    """What retrieval found, set aside and kept (`nodes.refusals.found_note`)."""
    on_subject: bool = False
    """The passages are the pages on the question's subject (named when the gate refuses)."""
    asked: str | None = None
    """The question type asked, when the classifier was confident."""
    typed: bool | None = None
    """Whether the kept passages are of the asked type (False: other types only)."""
    parts: list[PartPassages] = field(default_factory=list)
    """The question's other parts asking types of their own, with the passages (among
    `passages`) of the subject's pages that answer them."""
    stand_ins: list[SourcePassage] = field(default_factory=list)
    """The asked type's pages of kinds the subject's own pages name (`nodes.named_kinds`):
    quoted when none of the subject's own sentences answers the type."""
    missing_types: list[str] = field(default_factory=list)
    """Types the question asks that the subject's pages do not answer (said with the
    answer, `not_covered`)."""
    far_types: list[str] = field(default_factory=list)
    """Of those, the types the subject's pages answer, but not close enough to the
    question to quote (said so, not "says nothing about")."""
    not_covered: str | None = None
    source_name: str = ""
    gate: str = ""
    """The relevance gate retrieval was held to ("subject_relevant_at = 0.5")."""
    draft: str | None = None
    quoted: list[str] = field(default_factory=list)
    """Extract mode: the quoted units, each checked whole (never split: "It ..." alone)."""
    sentences: list[CheckedSentence] = field(default_factory=list)
    sources: list[dict[str, str]] = field(default_factory=list)
    error: str | None = None


@dataclass
class GroundedOutput(OutputState):
    """The shared output plus the passages, every checked sentence and the cited sources."""

    passages: list[SourcePassage] = field(default_factory=list)
    sentences: list[CheckedSentence] = field(default_factory=list)
    sources: list[dict[str, str]] = field(default_factory=list)
    """The passages the answer cites, in citation order: number (the `[n]` in the answer),
    id, title and URL."""
    not_covered: str | None = None
    """With an answer: what the question also asks that the source does not say ("MedQuAD
    describes trisomy 13 but says nothing about how it is diagnosed")."""


# ------------------------------------------------------------------------------- nodes


def check_question(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Reject an unusable question (or options: this method answers free text)."""
    return check_input(state, GroundedContext.of(runtime), method="grounded", choices=False)


def retrieve(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Retrieve candidate passages from the source, re-rank them and apply the gate.

    A question asking two or three things ("what causes it, and how is it prevented") is
    searched again for each other part's type (`more_asked`, `retrieve_parts`).
    """
    context = GroundedContext.of(runtime)
    models = get_models(context)
    typing = context.question_types and context.match_focus
    types = (
        asked_types(models, state.question, context.type_confident_at)
        if typing
        else AskedTypes(None, None, [], [])
    )
    asked, first, more = types.asked, searched_type(state.question, types.first), types.more
    search: dict[str, Any] = {
        "kb_dir": context.kb_dir,
        "corpus_dir": context.corpus_dir,
        "candidates": context.candidates,
        "keep": context.top_k,
        "question_match": context.question_match,
    }
    vector = asked.question_vector if asked else None
    got = retrieve_ranked(
        models,
        state.question,
        match_focus=context.match_focus,
        relevant_at=context.subject_relevant_at,
        asked=first,
        question_vector=vector,
        off_subject=context.answer_off_subject,
        **search,
    )
    name, gate = (
        ("subject_relevant_at", context.subject_relevant_at)
        if got.on_subject
        else ("relevant_at", context.relevant_at)
    )
    record = retrieval_record(got, gate)
    found = (
        retrieve_parts(
            models,
            state.question,
            more,
            relevant_at=context.subject_relevant_at,
            question_vector=vector,
            **search,
        )
        if more and got.on_subject and record["passed"]
        else PartsFound()
    )
    part_records = [
        part_retrieval_record(
            i, part.number, part.text, part.qtype, part_got, context.subject_relevant_at
        )
        for i, (part, part_got) in enumerate(found.searches, start=1)
    ]
    subject = got.subject
    uncovered = subject.uncovered.text if subject and subject.uncovered else None
    kept = {p["id"] for p in got.ranked}
    return {
        "passages": [
            *got.ranked,
            *({**p, "for_part": True} for p in found.passages if p["id"] not in kept),
        ],
        "relevant": record["passed"],
        "no_page_about": uncovered,
        "no_subject": got.no_subject,
        "nearest_pages": subject.nearest if subject and uncovered else [],
        "on_subject": got.on_subject,
        "found": record["text"],
        "asked": first,
        "typed": got.typed if got.on_subject else None,
        "parts": found.parts,
        "stand_ins": got.stand_ins if got.on_subject else [],
        "missing_types": found.missing,
        "far_types": [*([first] if first and got.typed_far else []), *found.far],
        "source_name": got.source.split(" (")[0],
        "gate": f"{name} = {gate}",
        "candidates": [record, *part_records],
        "calls": [*types.calls, *got.calls, *found.calls],
    }


def answer(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Answer from the kept passages: generated by copying, or quoted sentences."""
    context = GroundedContext.of(runtime)
    models = get_models(context)
    calls: list[ModelCall] = []
    units: list[str] = []
    missing = list(state.missing_types)
    passages = state.passages
    if context.answer_mode == "extract":
        quoted = quote_answer(
            models,
            state.question,
            state.passages,
            context.extract_sentences,
            relevance_judge(context.relevance_judge),
            asked=state.asked,
            typed=state.typed,
            parts=state.parts,
        )
        calls.extend(quoted.calls)
        treating = any(p.get("treats") for p in state.stand_ins) and not names_a_treatment(
            [unit for unit, _ in quoted.units[: quoted.first_count]]
        )  # a treatment's page says it treats the subject, whose own quotes name none
        if state.stand_ins and (quoted.first_unanswered or treating):  # a kind its pages name
            # answers, or a treatment's page saying it treats the subject
            instead = quote_answer(
                models,
                state.question,
                state.stand_ins,
                context.extract_sentences,
                relevance_judge(context.relevance_judge),
                asked=state.asked,
                typed=True,
            )
            calls.extend(instead.calls)
            if instead.units:  # they answer the first type; the parts' units follow
                quoted.units = [*instead.units, *quoted.units[quoted.first_count :]]
                quoted.first_unanswered = False
                passages = [*passages, *state.stand_ins]
        if quoted.first_unanswered:
            missing = [str(state.asked), *missing]
        missing += [t for t in quoted.parts_unanswered if t not in missing]
        units = [sentence for sentence, _ in quoted.units]
        text = " ".join(units)
        error = None if text else "the passages hold no sentence to quote"
    else:
        prompt = render(
            "grounded_answer",
            context.prompt_overrides,
            passages=numbered_passages(state.passages),
            question=state.question,
        )
        generated = generate_turn(
            models,
            [],
            prompt,
            purpose="answer",
            echo_guard=[instructions_of(load_prompt("grounded_answer", context.prompt_overrides))],
            restated=[state.question],
            seed=context.seed,
        )
        calls.append(generated.call)
        text, error = generated.text, generated.error
    candidate = single_pass_answer(text, error)
    return {
        "passages": passages,
        "draft": text or None,
        "quoted": units,
        "missing_types": missing,
        "error": error,
        "candidates": [candidate],
        "calls": calls,
    }


def check(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Check every answer sentence against the kept passages; keep what is backed."""
    context = GroundedContext.of(runtime)
    origin: Literal["generated", "extracted"] = (
        "extracted" if context.answer_mode == "extract" else "generated"
    )
    texts = state.quoted or answer_sentences(state.draft or "")
    sentences = [(s, origin) for s in texts]
    judge = sentence_judge(
        context.judge,
        get_models(context),
        context.min_coverage,
        context.supported_at,
        context.contradicted_at,
    )
    checked = check_sentences(
        judge,
        sentences,
        state.passages,
        state.question,
        relevance=relevance_judge(context.relevance_judge),
        relevant_at=context.relevant_sentence_at,
    )
    candidates = sentence_records(
        checked,
        supported_at=supported_at_of(judge),
        min_coverage=context.min_coverage,
        relevant_at=context.relevant_sentence_at if context.relevance_judge != "off" else None,
    )
    return {"sentences": checked, "candidates": candidates}


def cite(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Write the answer: the backed sentences with numbered citations, and their sources."""
    context = GroundedContext.of(runtime)
    text, order = cited_answer(state.sentences, mark_unsupported=context.unsupported == "mark")
    by_id = {p["id"]: p for p in state.passages}
    sources = [
        {"number": str(n), "id": i, "title": by_id[i]["title"], "url": by_id[i]["url"]}
        for n, i in enumerate(order, start=1)
    ]
    return {"answer": text, "sources": sources}


def refuse_hard(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Refuse without calling the chat model: nothing retrieved is about the question."""
    return {}


def refuse_soft(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Refuse: the answer had no sentence the passages back."""
    return {}


def finish(state: State, runtime: Runtime[GroundedContext]) -> dict[str, Any]:
    """Return the cited answer or the refusal, the passages, the sources and the trace."""
    context = GroundedContext.of(runtime)
    kept = [c for c in state.sentences if c["supported"]]
    refusal: Refusal | None = None
    reason: StopReason
    best = max((p["relevance"] for p in state.passages), default=None)
    own = [p for p in state.passages if not p.get("kin")] or state.passages
    subject = page_name(own[0]["title"]) if own else "the subject"
    if not state.relevant:
        detail = hard_refusal_detail(
            state.no_page_about,
            state.nearest_pages,
            best,
            state.gate,
            state.found,
            [p["title"] for p in state.passages if p["title"]] if state.on_subject else [],
            no_subject=state.no_subject,
        )
        refusal, reason = Refusal(kind="hard", detail=detail), "refused"
    elif state.asked and state.typed is False and not state.sentences:
        detail = not_covered_detail(
            state.source_name,
            subject,
            [state.asked, *state.missing_types],
            sorted({p.get("qtype", "") for p in state.passages if not p.get("kin")} - {""}),
            far=state.far_types,
        )
        refusal, reason = Refusal(kind="soft", detail=detail), "refused"
    elif kept:
        reason = "single_pass"
    elif state.sentences:
        refusal = Refusal(
            kind="soft", detail=soft_refusal_detail(state.sentences, context.relevant_sentence_at)
        )
        reason = "refused"
    else:
        reason = "no_usable_output"
    answered = reason == "single_pass"
    cited = [source["id"] for source in state.sources]
    named_note = named_kind_note(
        state.source_name,
        state.asked,
        state.passages,
        cited,
        state.missing_types,
        state.far_types,
    )
    if answered and (named_note or state.missing_types):
        not_covered = named_note or not_covered_detail(
            state.source_name, subject, state.missing_types, far=state.far_types
        )
    else:
        not_covered = None
    stop = LoopStop(
        loop="grounded",
        round=0,
        reason=reason,
        chosen_iteration=0 if answered else None,
        detail=refusal["detail"]
        if refusal
        else (state.error or f"{len(kept)} of {len(state.sentences)} sentences backed")
        + (f"; {not_covered}" if not_covered else ""),
    )
    settings = context.trace_settings(get_models(context).describe())
    trace = build_trace(
        METHOD, settings, state.candidates, [stop], state.calls, cited if answered else []
    )
    knowledge = (
        "\n".join(f"[{p['id']}] {p['text']}" for p in state.passages) if state.passages else None
    )
    return {
        "answer": state.answer if answered else None,
        "knowledge": knowledge,
        "passages": state.passages,
        "sentences": state.sentences,
        "sources": state.sources if answered else [],
        "stop_reason": reason,
        "refusal": refusal,
        "not_covered": not_covered,
        "trace": trace,
    }


# ----------------------------------------------------------------------------- routers


def after_retrieval(state: State) -> Literal["answer", "refuse_hard"]:
    """Answer only when a retrieved passage is about the question."""
    return "answer" if state.relevant else "refuse_hard"


def after_check(state: State) -> Literal["cite", "refuse_soft", "finish"]:
    """Cite when a sentence is backed; refuse softly when none is; finish on no answer."""
    if any(c["supported"] for c in state.sentences):
        return "cite"
    return "refuse_soft" if state.sentences else "finish"


def build_graph() -> StateGraph[State, GroundedContext, InputState, GroundedOutput]:
    """Return the grounded-answering graph builder."""
    builder = StateGraph(
        State, context_schema=GroundedContext, input_schema=InputState, output_schema=GroundedOutput
    )
    builder.add_node("check_question", check_question)
    builder.add_node("retrieve", retrieve)
    builder.add_node("answer", answer)
    builder.add_node("check_sentences", check)
    builder.add_node("cite", cite)
    builder.add_node("refuse_hard", refuse_hard)
    builder.add_node("refuse_soft", refuse_soft)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_question")
    builder.add_edge("check_question", "retrieve")
    builder.add_conditional_edges("retrieve", after_retrieval)
    builder.add_edge("answer", "check_sentences")
    builder.add_conditional_edges("check_sentences", after_check)
    builder.add_edge("cite", "finish")
    builder.add_edge("refuse_hard", "finish")
    builder.add_edge("refuse_soft", "finish")
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name=studio_name(__file__))
