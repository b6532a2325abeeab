"""Studio and LangGraph Server need every graph's input, output and context JSON schemas."""

import importlib
import json
from pathlib import Path

import pytest

from veriloop.graphs import knowledge_enrichment
from veriloop.graphs.registry import METHODS, Method, get_method, langgraph_config

ANSWER_METHODS = [m for m in METHODS if m.kind == "answer"]


@pytest.mark.parametrize("method", ANSWER_METHODS, ids=lambda m: m.id)
def test_graph_schemas_generate(method: Method):
    graph = method.compiled()
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


def test_m_eval_schemas_generate():
    from veriloop.graphs import m_eval

    graph = m_eval.graph
    assert {"question", "answer", "articles", "context_units"} <= set(
        graph.get_input_jsonschema()["properties"]
    )
    outputs = set(graph.get_output_jsonschema()["properties"])
    assert {"label", "claims", "evidence", "evidence_report", "trace"} <= outputs
    context = graph.get_context_jsonschema()["properties"]
    assert all(p.get("description") for p in context.values())


def test_langgraph_json_is_the_registry():
    config = json.loads((Path(__file__).parents[2] / "langgraph.json").read_text())
    assert config["graphs"] == {m.studio: m.file for m in METHODS}, (
        "langgraph.json is stale: run .venv/bin/python scripts/langgraph_json.py"
    )
    assert langgraph_config(config) == config  # regenerating changes nothing


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.id)
def test_each_module_compiles_under_the_registry_name(method: Method):
    graph = method.compiled()
    assert graph.name == method.studio
    assert importlib.import_module(method.module_path).METHOD == method.id  # traces' id
    build_graph, context_class = method.load()
    assert context_class.__name__ == method.context
    fields = set(context_class.__dataclass_fields__)
    assert set(method.ablations) <= fields  # an ablation is a real switch
    assert get_method(method.id) is method
    for alias in method.aliases:
        assert get_method(alias) is method


def test_names_are_unique_and_kinds_checked():
    names = [name for m in METHODS for name in (m.id, *m.aliases)]
    assert len(names) == len(set(names))
    with pytest.raises(Exception, match="unknown verification method 'fe'"):
        get_method("fe", "verify")


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.id)
def test_trace_settings_hold_every_switch(method: Method):
    from dataclasses import fields

    from veriloop.context import MethodSettings

    context_class = method.context_class()
    settings = context_class(prompt_overrides={"grader": "x"}).trace_settings({"chat": "c"})
    shared = {f.name for f in fields(MethodSettings)}
    own = {f.name for f in fields(context_class)} - shared
    assert own <= set(settings), own - set(settings)
    for name in ("temperature", "seed", "max_tokens", "models", "prompt_overrides"):
        assert name in settings
    assert "cache_dir" not in settings and "base_url" not in settings


def test_switches_that_used_to_be_left_out_are_traced():
    assert "normalise_yes_no" in get_method("factored").context_class()().trace_settings({})
    assert "score_options" in get_method("l2r").context_class()().trace_settings({})
    assert "temperature" in get_method("m-eval").context_class()().trace_settings({})


def test_each_method_has_one_name_for_module_studio_graph_prompts_and_context():
    from veriloop.prompts import template_names

    for method in METHODS:
        assert method.studio == method.module, method.id
        camel = "".join(part.title() for part in method.module.split("_"))
        assert method.context.lower() == f"{camel}Context".lower(), method.context
    prefixes = {m.module for m in METHODS}
    # every template of one method carries its module's name
    for name in template_names():
        owner = [p for p in prefixes if name.startswith(f"{p}_")]
        assert len(owner) <= 1, name
    for old in ("l2r_", "fe_", "fv_", "sc_", "enrichment_", "meval_"):
        assert not [n for n in template_names() if n.startswith(old)], old


def test_an_old_context_name_still_works_and_warns_with_its_new_name():
    import veriloop.graphs as graphs
    from veriloop.graphs.factual_evidence import FactualEvidenceContext, FEContext

    with pytest.warns(DeprecationWarning, match="FEContext is now called FactualEvidenceContext"):
        assert graphs.FEContext is FactualEvidenceContext
    with pytest.warns(DeprecationWarning, match="FEContext is now called FactualEvidenceContext"):
        old = FEContext(top_paragraphs=2)
    assert isinstance(old, FactualEvidenceContext)
    assert old.top_paragraphs == 2
