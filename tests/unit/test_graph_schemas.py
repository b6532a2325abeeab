"""Studio and LangGraph Server need every graph's input, output and context JSON schemas."""

import pytest

from graphs import baselines, self_reflection


@pytest.mark.parametrize("module", [self_reflection, baselines], ids=["self_reflection", "direct"])
def test_graph_schemas_generate(module):
    graph = module.graph
    assert list(graph.get_input_jsonschema()["properties"]) == ["question"]
    output = graph.get_output_jsonschema()["properties"]
    assert {"question", "answer", "knowledge", "stop_reason", "trace"} <= set(output)
    context = graph.get_context_jsonschema()
    assert "backend" in context["properties"]
    described = [p for p in context["properties"].values() if p.get("description")]
    assert len(described) == len(context["properties"])  # every setting explains itself
