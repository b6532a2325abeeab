"""veriloop: hallucination-mitigation methods as LangGraph graphs.

What the graphs, nodes and CLI share lives here: settings (`veriloop.context`), the one
place models come from (`veriloop.models`), the trace shape (`veriloop.trace`) and the
errors users see (`veriloop.errors`).
"""

__version__ = "0.1.0"
