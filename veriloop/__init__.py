"""veriloop: hallucination-mitigation methods as LangGraph graphs.

    import veriloop
    graph, Context = veriloop.method("fe")           # any method by id or alias
    veriloop.evaluate(["fe"], baselines=["rag"], dataset="pubmedqa", data_dir="...")

What the graphs, nodes and CLI share lives here: settings (`veriloop.context`), the one
place models come from (`veriloop.models`), the trace shape (`veriloop.trace`) and the
errors users see (`veriloop.errors`). The methods are listed once, in
`veriloop.graphs.registry`.
"""

from veriloop.api import MethodHandle, check, evaluate, method

__version__ = "0.1.0"

__all__ = ["MethodHandle", "__version__", "check", "evaluate", "method"]
