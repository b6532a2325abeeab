"""The methods, one module each.

Each module exposes `build_graph()` (the builder) and `graph` (compiled without a
checkpointer, for LangGraph Studio and `langgraph dev`).
"""
