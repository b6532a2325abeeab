"""The methods, one module each, and the registry that lists them (`registry.METHODS`).

Each module exposes `build_graph()` (the builder) and `graph` (compiled without a
checkpointer, for LangGraph Studio and `langgraph dev`). Context classes are re-exported
here and imported on first use, so `from veriloop.graphs import FEContext` works without
loading every graph:

    from veriloop.graphs import METHODS, get_method, FEContext
"""

from __future__ import annotations

from typing import Any

from veriloop.graphs.registry import METHODS, Method, get_method, method_ids

__all__ = ["METHODS", "Method", "get_method", "method_ids"] + [m.context for m in METHODS]


def __getattr__(name: str) -> Any:
    """Import a method's Context class (e.g. `FEContext`) on first use."""
    for method in METHODS:
        if method.context == name:
            return method.context_class()
    raise AttributeError(f"module 'veriloop.graphs' has no attribute {name!r}")
