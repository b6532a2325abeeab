"""Factual Evidence, RAG+FE (Muneeswaran et al. 2023): rationale, verify, refine, cited answer.

    check_question -> retrieve -> [after_retrieval]
        no context                 -> refuse -> finish
        direct_generation          -> generate_direct -> finish
        otherwise                  -> generate_rationale -> [after_rationale]
            unusable               -> finish
            no_verification        -> generate_answer
            otherwise              -> verify_rationale -> [after_verification]
                INCORRECT and refinements < max_refinements -> refine_rationale -> verify_rationale
                otherwise          -> generate_answer -> finish

- retrieve: hybrid retrieval over a corpus index (`knowledge/hybrid.py`): paragraphs
  (semantic + BM25, fused), triplets from the index's graph, optional web. In triplet mode
  on an index without a graph, the retrieved paragraphs are turned into triplets on the
  fly by the chat model (the paper's second variant), ids TID-n per question.
- generate_rationale: one statement per context unit, keyed by its id (the reply's JSON
  keys are exactly the unit ids, constrained by a grammar on the embedded model).
- verify_rationale: one of the six labels with a justification per statement, and an
  overall verdict. Refinement is triggered by any INCORRECT-* label.
- refine_rationale: rewrites only the INCORRECT statements using the justifications;
  re-verified; counter `refinements`, cap `max_refinements` (2; the paper gives none).
- generate_answer: from the verified rationale only (statements labelled CORRECT-* in the
  last usable verification; all of them if verification was skipped, or if the first
  verification's reply was unusable; an unusable re-verification keeps the previous
  labels, so refined statements stay out), written as prose with bracketed ids (a 135M
  model writes usable prose far more often than a usable JSON string). Cited ids that
  name no verified unit are removed from the answer and listed in `invalid_citations`.
  When no statement survives verification the method refuses (soft), rather than answer
  from statements its own verifier rejected.
- Ablations (paper Table 2): `direct_generation` (rationale and answer in one call),
  `triplets_instead_of_paragraphs`, `no_verification` (no verifier, no refiner).

Retrieved text is data: every prompt fences it between markers and says so, and marker
lookalikes inside retrieved text are defused (`fence`).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import deprecated

from veriloop.context import MethodSettings
from veriloop.graphs.registry import method_id, studio_name
from veriloop.knowledge.hybrid import ContextMode, ContextUnit, RetrievalSettings, format_units
from veriloop.knowledge.sources import open_retriever
from veriloop.models import get_models
from veriloop.nodes.factual_evidence.answer import (
    answer_with_citations,
    invalid_citations,
    rationale_items,
    rationale_stop,
)
from veriloop.nodes.factual_evidence.rationale import (
    ANSWER_CHARS,
    JUSTIFICATION_CHARS,
    STATEMENT_CHARS,
    RationaleItem,
    RationaleVersion,
    StatementLabel,
    ask_json,
    direct_model,
    format_statements,
    incorrect_ids,
    is_correct,
    rationale_candidate,
    statements_model,
    verification_labels,
    verification_model,
)
from veriloop.nodes.factual_evidence.retrieval import HybridRetrievalSettings, retrieve_units
from veriloop.nodes.generation import generate_turn
from veriloop.nodes.input import check_input
from veriloop.prompts import render
from veriloop.state import InputState, OutputState, TracedState
from veriloop.trace import Refusal, build_trace

METHOD = method_id(__file__)


@dataclass(kw_only=True)
class FactualEvidenceContext(MethodSettings, HybridRetrievalSettings):
    """Corpus, retrieval depth, refinement cap and the paper's ablation switches."""

    max_refinements: int = field(
        default=2, metadata={"ge": 0, "description": "Refine-and-re-verify rounds at most (ours)."}
    )
    direct_generation: bool = field(
        default=False,
        metadata={"description": "Ablation: rationale and answer in one call, no verification."},
    )
    triplets_instead_of_paragraphs: bool = field(
        default=False,
        metadata={"description": "Ablation: the context is triplets, not paragraphs."},
    )
    no_verification: bool = field(
        default=False, metadata={"description": "Ablation: skip the verifier and refiner."}
    )
    max_tokens: int = field(
        default=512,
        metadata={
            "ge": 1,
            "description": "Most tokens one generation may produce (rationales are long).",
        },
    )

    def retrieval_settings(self) -> RetrievalSettings:
        """Return the retriever settings these fields describe."""
        mode: ContextMode = "triplets" if self.triplets_instead_of_paragraphs else self.context_mode
        return RetrievalSettings(
            mode=mode,
            top_paragraphs=self.top_paragraphs,
            top_triplets=self.top_triplets,
            lexical_weight=self.lexical_weight,
        )


@dataclass
class State(OutputState, TracedState):
    """Working state."""

    options: dict[str, str] | None = None
    context_units: list[ContextUnit] = field(default_factory=list)
    seed_entities: list[str] = field(default_factory=list)
    statements: dict[str, str] = field(default_factory=dict)
    """The current rationale: context id -> statement."""
    labels: dict[str, StatementLabel] | None = None
    """The last verification's labels (None: not verified, or its reply was unusable)."""
    verification_error: str | None = None
    refinements: int = 0
    """Refine-and-re-verify rounds done (loop counter; cap: max_refinements)."""
    rationale_versions: Annotated[list[RationaleVersion], operator.add] = field(
        default_factory=list
    )
    citations: list[str] = field(default_factory=list)
    invalid_citations: list[str] = field(default_factory=list)
    used_ids: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class FEOutput(OutputState):
    """The shared output plus the context, the rationale with labels, and the citations."""

    context_units: list[ContextUnit] = field(default_factory=list)
    rationale: list[RationaleItem] = field(default_factory=list)
    rationale_versions: list[RationaleVersion] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)
    """Valid cited ids, in order of first citation."""
    invalid_citations: list[str] = field(default_factory=list)
    """Ids the answer cited that name no verified context unit (removed from the answer)."""
    seed_entities: list[str] = field(default_factory=list)


# -------------------------------------------------------------------- nodes


def check_question(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Reject an unusable question, or an option set (FE answers free text)."""
    return check_input(
        state, FactualEvidenceContext.of(runtime), method="Factual Evidence", choices=False
    )


def retrieve(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Retrieve the context units; extract triplets on the fly if the mode needs them."""
    context = FactualEvidenceContext.of(runtime)
    models = get_models(context)
    retriever = open_retriever(context.corpus_dir, models, context.reranker_model)
    units, seeds, calls = retrieve_units(
        models,
        retriever,
        state.question,
        context.retrieval_settings(),
        web_search=context.web_search,
        top_triplets=context.top_triplets,
        overrides=context.prompt_overrides,
    )
    return {"context_units": units, "seed_entities": seeds, "calls": calls}


def refuse(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Record a hard refusal: nothing was retrieved, so nothing can be cited."""
    return {
        "refusal": Refusal(
            kind="hard",
            detail="no context was retrieved for the question; the corpus holds nothing "
            "that matches it",
        )
    }


def generate_rationale(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Write one statement per context unit, keyed by its id."""
    context = FactualEvidenceContext.of(runtime)
    ids = [u["id"] for u in state.context_units]
    prompt = render(
        "factual_evidence_rationale",
        context.prompt_overrides,
        context=format_units(state.context_units),
        question=state.question,
        ids=", ".join(ids),
        first_id=ids[0],
    )
    value, calls, error = ask_json(
        get_models(context), prompt, statements_model(ids), "rationale", STATEMENT_CHARS
    )
    statements = {i: " ".join(str(value[i]).split()) for i in ids} if value else {}
    version = RationaleVersion(
        version=0, statements=statements, labels=None, verdict=None, error=error
    )
    return {
        "statements": statements,
        "rationale_versions": [version],
        "error": None if statements else f"the rationale reply was unusable: {error}",
        "calls": calls,
    }


def verify_rationale(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Label every statement and give an overall verdict."""
    context = FactualEvidenceContext.of(runtime)
    ids = list(state.statements)
    prompt = render(
        "factual_evidence_verifier",
        context.prompt_overrides,
        context=format_units(state.context_units),
        question=state.question,
        rationale=format_statements(state.statements),
        ids=", ".join(ids),
    )
    value, calls, error = ask_json(
        get_models(context), prompt, verification_model(ids), "verification", JUSTIFICATION_CHARS
    )
    labels, verdict = verification_labels(value, ids)
    version = RationaleVersion(
        version=state.refinements,
        statements=dict(state.statements),
        labels=labels,
        verdict=verdict,
        error=error,
    )
    if labels is None and state.labels is not None:
        # An unusable re-verification keeps the last usable labels: refined statements stay
        # INCORRECT (left out of the answer) rather than pass unchecked.
        return {
            "verification_error": f"a re-verification was unusable: {error}",
            "rationale_versions": [version],
            "candidates": [rationale_candidate(version, state.refinements)],
            "calls": calls,
        }
    return {
        "labels": labels,
        "verification_error": None if labels else f"the verifier's reply was unusable: {error}",
        "rationale_versions": [version],
        "candidates": [rationale_candidate(version, state.refinements)],
        "calls": calls,
    }


def refine_rationale(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Rewrite the INCORRECT statements using the verifier's justifications."""
    context = FactualEvidenceContext.of(runtime)
    wrong = incorrect_ids(state.labels)
    labels = state.labels or {}
    feedback = "\n".join(
        f"[{i}] {state.statements[i]}\nTeacher: {labels[i]['label']} - {labels[i]['justification']}"
        for i in wrong
    )
    prompt = render(
        "factual_evidence_refiner",
        context.prompt_overrides,
        context=format_units([u for u in state.context_units if u["id"] in wrong]),
        question=state.question,
        feedback=feedback,
        ids=", ".join(wrong),
    )
    value, calls, error = ask_json(
        get_models(context), prompt, statements_model(wrong), "refinement", STATEMENT_CHARS
    )
    statements = dict(state.statements)
    if value is not None:
        statements.update({i: " ".join(str(value[i]).split()) for i in wrong})
    version = RationaleVersion(
        version=state.refinements + 1,
        statements=statements,
        labels=None,
        verdict=None,
        error=error,
    )
    return {
        "statements": statements,
        "refinements": state.refinements + 1,
        "rationale_versions": [version],
        "calls": calls,
    }


def generate_answer(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Answer from the verified statements only, citing their ids."""
    context = FactualEvidenceContext.of(runtime)
    if state.labels is not None:
        used = {i: s for i, s in state.statements.items() if is_correct(state.labels[i]["label"])}
    else:
        used = dict(state.statements)
    if not used:
        return {
            "used_ids": [],
            "refusal": Refusal(
                kind="soft",
                detail="the verifier rejected every rationale statement (after "
                f"{state.refinements} refinement(s)); there is no verified evidence to "
                "answer from",
            ),
        }
    ids = list(used)
    prompt = render(
        "factual_evidence_answer",
        context.prompt_overrides,
        rationale=format_statements(used),
        question=state.question,
        answer_style=render("factual_evidence_answer_style", context.prompt_overrides),
        first_id=ids[0],
    )
    generated = generate_turn(
        get_models(context),
        [],
        prompt,
        purpose="answer",
        echo_guard=[prompt.replace(state.question, "")],
        restated=[state.question],
        seed=context.seed,
    )
    return {
        "used_ids": ids,
        "calls": [generated.call],
        **answer_with_citations(generated.text or None, [], ids, generated.error),
    }


def generate_direct(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Ablation: write the rationale and the answer in one call (no verification)."""
    context = FactualEvidenceContext.of(runtime)
    ids = [u["id"] for u in state.context_units]
    prompt = render(
        "factual_evidence_direct",
        context.prompt_overrides,
        context=format_units(state.context_units),
        question=state.question,
        ids=", ".join(ids),
        first_id=ids[0],
        answer_style=render("factual_evidence_answer_style", context.prompt_overrides),
    )
    value, calls, error = ask_json(
        get_models(context), prompt, direct_model(ids), "rationale_and_answer", ANSWER_CHARS
    )
    statements = {i: " ".join(str(value["rationale"][i]).split()) for i in ids} if value else {}
    version = RationaleVersion(
        version=0, statements=statements, labels=None, verdict=None, error=error
    )
    return {
        "statements": statements,
        "rationale_versions": [version],
        "used_ids": ids if value else [],
        "calls": calls,
        **answer_with_citations(
            str(value["answer"]) if value else None,
            list(value["citations"]) if value else [],
            ids,
            error,
        ),
    }


def finish(state: State, runtime: Runtime[FactualEvidenceContext]) -> dict[str, Any]:
    """Assemble the final rationale, stop reason and trace."""
    context = FactualEvidenceContext.of(runtime)
    stop = rationale_stop(
        refusal=state.refusal,
        answer=state.answer,
        error=state.error,
        verified=not (context.direct_generation or context.no_verification)
        and state.labels is not None,
        verification_error=state.verification_error,
        still_incorrect=len(incorrect_ids(state.labels)),
        refinements=state.refinements,
        chosen_iteration=state.refinements if state.statements else None,
    )
    rationale = rationale_items(state.statements, state.labels, state.used_ids)
    known = {u["id"] for u in state.context_units}
    invalid = invalid_citations(state.rationale_versions, known, state.invalid_citations)
    settings = context.trace_settings(get_models(context).describe())
    settings["reranker"] = context.reranker_model or "rrf"
    trace = build_trace(METHOD, settings, state.candidates, [stop], state.calls, state.citations)
    return {
        "knowledge": format_units(state.context_units) if state.context_units else None,
        "stop_reason": stop["reason"],
        "answer": state.answer,
        "refusal": state.refusal,
        "citations": state.citations,
        "context_units": state.context_units,
        "seed_entities": state.seed_entities,
        "rationale": rationale,
        "invalid_citations": invalid,
        "trace": trace,
    }


# ------------------------------------------------------------------ routers


def after_retrieval(
    state: State, runtime: Runtime[FactualEvidenceContext]
) -> Literal["refuse", "generate_direct", "generate_rationale"]:
    """Refuse without context; otherwise one-step (ablation) or the rationale generator."""
    if not state.context_units:
        return "refuse"
    return (
        "generate_direct"
        if FactualEvidenceContext.of(runtime).direct_generation
        else "generate_rationale"
    )


def after_rationale(
    state: State, runtime: Runtime[FactualEvidenceContext]
) -> Literal["finish", "generate_answer", "verify_rationale"]:
    """Stop on an unusable rationale; skip verification in the ablation."""
    if not state.statements:
        return "finish"
    return (
        "generate_answer"
        if FactualEvidenceContext.of(runtime).no_verification
        else "verify_rationale"
    )


def after_verification(
    state: State, runtime: Runtime[FactualEvidenceContext]
) -> Literal["refine_rationale", "generate_answer"]:
    """Refine while a statement is INCORRECT and the cap allows; otherwise answer."""
    cap = FactualEvidenceContext.of(runtime).max_refinements
    if incorrect_ids(state.labels) and state.refinements < cap:
        return "refine_rationale"
    return "generate_answer"


# -------------------------------------------------------------------- graph


def build_graph() -> StateGraph[State, FactualEvidenceContext, InputState, FEOutput]:
    """Return the Factual Evidence graph builder."""
    builder = StateGraph(
        State,
        context_schema=FactualEvidenceContext,
        input_schema=InputState,
        output_schema=FEOutput,
    )
    builder.add_node("check_question", check_question)
    builder.add_node("retrieve", retrieve)
    builder.add_node("refuse", refuse)
    builder.add_node("generate_rationale", generate_rationale)
    builder.add_node("verify_rationale", verify_rationale)
    builder.add_node("refine_rationale", refine_rationale)
    builder.add_node("generate_answer", generate_answer)
    builder.add_node("generate_direct", generate_direct)
    builder.add_node("finish", finish)
    builder.add_edge(START, "check_question")
    builder.add_edge("check_question", "retrieve")
    builder.add_conditional_edges("retrieve", after_retrieval)
    builder.add_edge("refuse", "finish")
    builder.add_conditional_edges("generate_rationale", after_rationale)
    builder.add_conditional_edges("verify_rationale", after_verification)
    builder.add_edge("refine_rationale", "verify_rationale")
    builder.add_edge("generate_answer", "finish")
    builder.add_edge("generate_direct", "finish")
    builder.add_edge("finish", END)
    return builder


@deprecated("FEContext is now called FactualEvidenceContext")
class FEContext(FactualEvidenceContext):
    """The old name of `FactualEvidenceContext` (deprecated; it warns when built)."""


graph = build_graph().compile(name=studio_name(__file__))
