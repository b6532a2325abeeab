"""The one list of veriloop's methods, each declared once.

The CLI, the harness, Studio (langgraph.json is checked against it) and the tests read it.

A method has an `id` (what `--method` takes and what results are keyed by), `aliases`
(other spellings users type), a `kind` (`answer`: question -> answer; `verify`: answer +
sources -> verdict; `build`: fills a knowledge base), the graph `module` and its `context`
class, its `ablations` (boolean Context switches `veriloop bench --ablation` turns on), the
`studio` name (langgraph.json key and the compiled graph's name), and `output`, which
tells the CLI how to render the result.

Modules are imported only when a method is used, so listing methods is cheap. Adding a
method: see docs/DEVELOPING.md ("Adding a method").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError

Kind = Literal["answer", "verify", "build"]
Output = Literal["answer", "cited", "claims", "evidence", "facts"]


@dataclass(frozen=True)
class Method:
    """One method: where its graph and Context live and how the tools present it."""

    id: str
    kind: Kind
    module: str
    """Module name under veriloop.graphs, e.g. "factual_evidence"."""
    context: str
    """Name of the Context class in that module."""
    summary: str
    studio: str
    """langgraph.json graph name; also the name the module compiles its graph with."""
    output: Output
    aliases: tuple[str, ...] = ()
    ablations: tuple[str, ...] = ()
    baseline: bool = False
    """A baseline for the methods of its kind (listed after them, role 'baseline')."""

    @property
    def module_path(self) -> str:
        """Return the importable module name, e.g. veriloop.graphs.factual_evidence."""
        return f"veriloop.graphs.{self.module}"

    @property
    def file(self) -> str:
        """Return the graph file as langgraph.json names it (./graphs/<module>.py:graph)."""
        return f"./graphs/{self.module}.py:graph"

    def load(self) -> tuple[Callable[[], Any], type[ModelSettings]]:
        """Import the method's module; return its graph builder and Context class."""
        module = importlib.import_module(self.module_path)
        return module.build_graph, getattr(module, self.context)

    def compiled(self) -> Any:
        """Return the module's compiled graph (built once, when the module is imported)."""
        return importlib.import_module(self.module_path).graph

    def context_class(self) -> type[ModelSettings]:
        """Return the method's Context class."""
        return self.load()[1]


METHODS: tuple[Method, ...] = (
    Method(
        "grounded",
        "answer",
        "grounded",
        "GroundedContext",
        "retrieve -> answer from the passages -> check each sentence -> cite, or refuse "
        "(veriloop's default)",
        studio="grounded",
        output="cited",
        aliases=("default",),
    ),
    Method(
        "self-reflection",
        "answer",
        "self_reflection",
        "SelfReflectionContext",
        "knowledge -> answer -> entailment loops (Ji et al. 2023)",
        studio="self_reflection",
        output="answer",
        aliases=("self_reflection", "sr"),
        ablations=("no_refinement", "no_aspect", "no_number"),
    ),
    Method(
        "l2r",
        "answer",
        "learn_to_refuse",
        "LearnToRefuseContext",
        "answer only from a knowledge base, or refuse (Learn to Refuse, Cao 2024)",
        studio="learn_to_refuse",
        output="answer",
        aliases=("learn-to-refuse", "learn_to_refuse"),
        ablations=("no_reasoning",),
    ),
    Method(
        "fe",
        "answer",
        "factual_evidence",
        "FactualEvidenceContext",
        "rationale -> verify -> refine -> cited answer over a corpus (RAG+FE, Muneeswaran 2023)",
        studio="factual_evidence",
        output="cited",
        aliases=("factual-evidence", "factual_evidence", "rag-fe"),
        ablations=("direct_generation", "triplets_instead_of_paragraphs", "no_verification"),
    ),
    Method(
        "direct",
        "answer",
        "direct",
        "DirectContext",
        "one direct answer (baseline)",
        studio="direct",
        output="answer",
        baseline=True,
    ),
    Method(
        "rag",
        "answer",
        "rag",
        "RAGContext",
        "answer from the top-k knowledge-base entries or corpus paragraphs (baseline)",
        studio="rag",
        output="answer",
        baseline=True,
    ),
    Method(
        "factored",
        "verify",
        "factored_verification",
        "FactoredVerificationContext",
        "claims checked in parallel, P(answer), critique -> revise (George & Stuhlmüller 2023)",
        studio="factored_verification",
        output="claims",
        aliases=("factored-verification", "factored_verification", "fv"),
    ),
    Method(
        "self-correction",
        "verify",
        "self_correction",
        "SelfCorrectionContext",
        "unfactored self-correction: one feedback -> revise (Factored Verification's baseline)",
        studio="self_correction",
        output="claims",
        aliases=("self_correction",),
        baseline=True,
    ),
    Method(
        "m-eval",
        "verify",
        "m_eval",
        "MEvalContext",
        "multi-evidence heterogeneity validation of medical answers (M-Eval, Sun et al. 2025)",
        studio="m_eval",
        output="evidence",
        aliases=("m_eval", "meval", "evidence-validation", "evidence_validation"),
        ablations=("random_reliability", "no_heterogeneity", "no_extra_evidence"),
    ),
    Method(
        "enrichment",
        "build",
        "knowledge_enrichment",
        "KnowledgeEnrichmentContext",
        "automatic knowledge enrichment of a base (Learn to Refuse's AKE)",
        studio="knowledge_enrichment",
        output="facts",
        aliases=("knowledge-enrichment", "knowledge_enrichment", "ake"),
    ),
)

_BY_NAME: dict[str, Method] = {
    name: method for method in METHODS for name in (method.id, *method.aliases)
}


def method_ids(kind: Kind | None = None) -> list[str]:
    """Return the ids of every method (of `kind`), in declaration order."""
    return [method.id for method in METHODS if kind is None or method.kind == kind]


def get_method(name: str, kind: Kind | None = None) -> Method:
    """Return the method called `name` (id or alias), optionally of a given kind.

    Raises:
        InvalidInputError: No such method, or it is of another kind; the message lists the
            methods that would fit.
    """
    method = _BY_NAME.get(name.strip().lower())
    if method is None or (kind is not None and method.kind != kind):
        what = {"answer": "method", "verify": "verification method", "build": "build method"}
        label = what[kind] if kind else "method"
        choices = ", ".join(method_ids(kind))
        extra = f" ({name!r} is a {method.kind} method)" if method is not None and kind else ""
        raise InvalidInputError(f"unknown {label} {name!r}{extra}; choose one of: {choices}")
    return method


def method_id(module_file: str) -> str:
    """Return the registry id of the method whose graph file this is (its traces' `method`).

    Graph modules call `method_id(__file__)`, so the id is declared only here.
    """
    return _method_of(module_file).id


def _method_of(module_file: str) -> Method:
    stem = Path(module_file).stem
    for method in METHODS:
        if method.module == stem:
            return method
    raise LookupError(f"{module_file} is not a registered graph module (graphs/registry.py)")


def studio_name(module_file: str) -> str:
    """Return the Studio / compiled-graph name of the method whose graph file this is.

    Graph modules call `studio_name(__file__)`, so their compiled name is the registry's.
    """
    return _method_of(module_file).studio


def langgraph_config(previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return langgraph.json's content with `graphs` from the registry (other keys kept)."""
    config = dict(previous or {})
    config.setdefault("$schema", "https://langgra.ph/schema.json")
    config.setdefault("python_version", "3.11")
    config.setdefault("dependencies", ["."])
    config["graphs"] = {method.studio: method.file for method in METHODS}
    config.setdefault("env", {})
    return config
