"""The methods, one module each, and the registry that lists them (`registry.METHODS`).

Each module exposes `build_graph()` (the builder) and `graph` (compiled without a
checkpointer, for LangGraph Studio and `langgraph dev`). Context classes are re-exported
here and imported on first use, so `from veriloop.graphs import FactualEvidenceContext`
works without loading every graph:

    from veriloop.graphs import METHODS, get_method, FactualEvidenceContext
"""

from __future__ import annotations

import warnings
from typing import Any

from veriloop.graphs.registry import METHODS, Method, get_method, method_ids

__all__ = ["METHODS", "Method", "get_method", "method_ids"] + [m.context for m in METHODS]


RENAMED_CONTEXTS = {
    "L2RContext": "LearnToRefuseContext",
    "FEContext": "FactualEvidenceContext",
    "FVContext": "FactoredVerificationContext",
    "EnrichmentContext": "KnowledgeEnrichmentContext",
}
"""Old Context names -> the names that follow their method's module (deprecated)."""


def __getattr__(name: str) -> Any:
    """Import a method's Context class (e.g. `FactualEvidenceContext`) on first use.

    An old name (`RENAMED_CONTEXTS`) returns the new class with a DeprecationWarning.
    """
    if name in RENAMED_CONTEXTS:
        new = RENAMED_CONTEXTS[name]
        warnings.warn(f"{name} is now called {new}", DeprecationWarning, stacklevel=2)
        name = new
    for method in METHODS:
        if method.context == name:
            return method.context_class()
    raise AttributeError(f"module 'veriloop.graphs' has no attribute {name!r}")
