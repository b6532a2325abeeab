"""The methods the CLI and the benchmark harness can run, by name."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError


@dataclass(frozen=True)
class MethodSpec:
    """Where a method's graph and Context live."""

    name: str
    module: str
    context_class: str
    summary: str
    ablations: tuple[str, ...] = ()
    """Boolean Context switches `veriloop bench --ablation` may turn on for this method."""
    baseline: bool = False

    def load(self) -> tuple[Any, type[ModelSettings]]:
        """Import the method's module; return its graph builder function and Context class."""
        module = importlib.import_module(self.module)
        return module.build_graph, getattr(module, self.context_class)


METHODS: dict[str, MethodSpec] = {
    "self-reflection": MethodSpec(
        "self-reflection",
        "veriloop.graphs.self_reflection",
        "SelfReflectionContext",
        "knowledge -> answer -> entailment loops (Ji et al. 2023)",
        ablations=("no_refinement", "no_aspect", "no_number"),
    ),
    "l2r": MethodSpec(
        "l2r",
        "veriloop.graphs.learn_to_refuse",
        "L2RContext",
        "answer only from a knowledge base, or refuse (Learn to Refuse, Cao 2024)",
        ablations=("no_reasoning",),
    ),
    "fe": MethodSpec(
        "fe",
        "veriloop.graphs.factual_evidence",
        "FEContext",
        "rationale -> verify -> refine -> cited answer over a corpus (RAG+FE, Muneeswaran 2023)",
        ablations=("direct_generation", "triplets_instead_of_paragraphs", "no_verification"),
    ),
    "direct": MethodSpec(
        "direct",
        "veriloop.graphs.baselines",
        "DirectContext",
        "one direct answer (baseline)",
        baseline=True,
    ),
    "rag": MethodSpec(
        "rag",
        "veriloop.graphs.rag",
        "RAGContext",
        "answer from the top-k knowledge-base entries (baseline)",
        baseline=True,
    ),
}


def get_method(name: str) -> MethodSpec:
    """Return the method called `name`, or raise a clear error listing the known ones."""
    spec = METHODS.get(name)
    if spec is None:
        raise InvalidInputError(
            f"unknown method {name!r}; choose one of: {', '.join(sorted(METHODS))}"
        )
    return spec
