"""Studio and LangGraph Server need every graph's input, output and context JSON schemas."""

import json
from pathlib import Path

import pytest

from veriloop.graphs import (
    baselines,
    factual_evidence,
    knowledge_enrichment,
    learn_to_refuse,
    rag,
    self_reflection,
)

QA_GRAPHS = [self_reflection, learn_to_refuse, baselines, rag, factual_evidence]


@pytest.mark.parametrize(
    "module",
    QA_GRAPHS,
    ids=["self_reflection", "learn_to_refuse", "direct", "rag", "factual_evidence"],
)
def test_graph_schemas_generate(module):
    graph = module.graph
    assert list(graph.get_input_jsonschema()["properties"]) == ["question", "options"]
    output = graph.get_output_jsonschema()["properties"]
    assert {
        "question",
        "answer",
        "knowledge",
        "stop_reason",
        "refusal",
        "choice",
        "option_scores",
        "trace",
    } <= set(output)
    context = graph.get_context_jsonschema()
    assert "backend" in context["properties"]
    described = [p for p in context["properties"].values() if p.get("description")]
    assert len(described) == len(context["properties"])  # every setting explains itself


def test_enrichment_graph_schemas_generate():
    graph = knowledge_enrichment.graph
    assert set(graph.get_input_jsonschema()["properties"]) == {
        "topic",
        "target_facts",
        "seed_questions",
    }
    assert {"added", "duplicates", "facts_on_topic", "trace"} <= set(
        graph.get_output_jsonschema()["properties"]
    )
    context = graph.get_context_jsonschema()["properties"]
    assert all(p.get("description") for p in context.values())


def test_verification_graph_schemas_generate():
    from veriloop.graphs import factored_verification

    graph = factored_verification.graph
    inputs = set(graph.get_input_jsonschema()["properties"])
    assert {"question", "answer", "sources", "context_units", "retrieved", "knowledge"} <= inputs
    outputs = set(graph.get_output_jsonschema()["properties"])
    assert {"answer", "claims", "verdict", "answer_probabilities", "trace"} <= outputs
    context = graph.get_context_jsonschema()["properties"]
    assert all(p.get("description") for p in context.values())


def test_evidence_validation_schemas_generate():
    from veriloop.graphs import evidence_validation

    graph = evidence_validation.graph
    assert {"question", "answer", "articles", "context_units"} <= set(
        graph.get_input_jsonschema()["properties"]
    )
    outputs = set(graph.get_output_jsonschema()["properties"])
    assert {"label", "claims", "evidence", "evidence_report", "trace"} <= outputs
    context = graph.get_context_jsonschema()["properties"]
    assert all(p.get("description") for p in context.values())


def test_langgraph_json_serves_every_graph():
    config = json.loads((Path(__file__).parents[2] / "langgraph.json").read_text())
    assert set(config["graphs"]) == {
        "self_reflection",
        "learn_to_refuse",
        "knowledge_enrichment",
        "direct",
        "rag",
        "factual_evidence",
        "factored_verification",
        "evidence_validation",
    }
