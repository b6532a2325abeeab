"""`langgraph dev` serves both graphs on loopback; a client completes runs through it."""

import os
import sys
from pathlib import Path

import pytest

from veriloop.models.loopback import free_port, running_server

pytestmark = [pytest.mark.integration, pytest.mark.server, pytest.mark.full]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    port = free_port()
    langgraph = Path(sys.executable).parent / "langgraph"
    log = tmp_path_factory.mktemp("langgraph") / "server.log"
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1"}
    command = [
        str(langgraph),
        "dev",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
    ]
    url = f"http://127.0.0.1:{port}"
    with running_server(
        command, ready_url=f"{url}/ok", log=log, name="langgraph dev", cwd=ROOT, env=env
    ):
        yield url


def test_server_lists_every_graph_and_completes_runs(server_url, tmp_path):
    from langgraph_sdk import get_sync_client

    from veriloop.context import ModelSettings
    from veriloop.knowledge.entries import new_entry
    from veriloop.knowledge.store import KnowledgeBase
    from veriloop.models import get_models

    client = get_sync_client(url=server_url)
    assistants = client.assistants.search()
    from veriloop.graphs.registry import METHODS

    kinds = {m.studio: m.kind for m in METHODS}
    assert set(kinds) <= {a["graph_id"] for a in assistants}
    for assistant in assistants:  # what Studio fetches to draw its forms
        schemas = client.assistants.get_schemas(assistant["assistant_id"])
        first = "topic" if kinds[assistant["graph_id"]] == "build" else "question"
        assert first in schemas["input_schema"]["properties"]
        assert "trace" in schemas["output_schema"]["properties"]
        assert "backend" in schemas["context_schema"]["properties"]

    embedder = get_models(ModelSettings()).embedder
    base = KnowledgeBase.create(tmp_path / "kb", embedder)
    base.add([new_entry("Aspirin thins the blood.")], embedder)
    base.save()
    refused = client.runs.wait(
        None,
        "learn_to_refuse",
        input={"question": "Who won the 1930 football World Cup?"},
        context={"kb_dir": str(tmp_path / "kb")},
    )
    assert refused["refusal"]["kind"] == "hard" and refused["retrieved"][0]["id"] == "K-1"

    from veriloop.knowledge.corpus import Document, chunk_documents
    from veriloop.knowledge.corpus_index import CorpusIndex

    documents = [
        Document("d1", "Aspirin can cause stomach bleeding, especially in older adults."),
        Document("d2", "Paris is the capital of France."),
    ]
    CorpusIndex.build(tmp_path / "corpus", chunk_documents(documents), embedder)
    cited = client.runs.wait(
        None,
        "factual_evidence",
        input={"question": "Can aspirin cause bleeding?"},
        context={"corpus_dir": str(tmp_path / "corpus"), "top_paragraphs": 1, "max_refinements": 0},
    )
    assert cited["trace"]["method"] == "fe"
    assert [unit["id"] for unit in cited["context_units"]] == ["PID-1"]
    assert cited["stop_reason"] in {
        "met",
        "cap_reached",
        "single_pass",
        "refused",
        "no_usable_output",
    }
    assert set(cited["citations"]) <= {"PID-1"}

    direct = client.runs.wait(None, "direct", input={"question": "Is Noonan syndrome inherited?"})
    assert direct["answer"] and direct["trace"]["method"] == "direct"

    small = {"max_rounds": 1, "max_knowledge_loops": 1, "max_answer_loops": 1}
    result = client.runs.wait(
        None,
        "self_reflection",
        input={"question": "Is Noonan syndrome inherited?"},
        context=small,
    )
    assert result["trace"]["method"] == "self-reflection"
    assert result["trace"]["settings"]["max_rounds"] == 1
    assert [c["stage"] for c in result["trace"]["candidates"]] == ["knowledge", "answer", "round"]
