"""The OpenAI-compatible backend against a loopback fake server (no network, no model)."""

import socket

import pytest

from veriloop.errors import ModelUnavailableError
from veriloop.graphs.self_reflection import SelfReflectionContext, build_graph
from veriloop.models import get_models
from veriloop.models.fake_server import base_url, fake_openai_server
from veriloop.models.fakes import ScriptedEmbedder


@pytest.fixture
def local_embeddings(monkeypatch):
    # The OpenAI backend embeds locally; keep this unit test free of the MiniLM load.
    monkeypatch.setattr("veriloop.models.backends._embedder", lambda settings: ScriptedEmbedder())


def test_self_reflection_runs_on_a_served_model(local_embeddings):
    with fake_openai_server() as server:
        context = SelfReflectionContext(
            backend="openai",
            base_url=base_url(server),
            model_name="fake-7b",
            max_rounds=1,
            max_knowledge_loops=1,
            max_answer_loops=1,
        )
        result = build_graph().compile().invoke({"question": "Is it inherited?"}, context=context)
        paths = [path for path, _ in server.requests]
    # The capability probe first: the generation limit, json_schema and json_object (the fake
    # ignores both: prose back), the alignment self-check of the echo.
    assert paths[:4] == ["/v1/chat/completions"] * 3 + ["/v1/completions"]
    assert result["trace"]["settings"]["models"]["capabilities"] == (
        "structured output: prompt; token scores: echo; generation limit: max_tokens"
    )
    run = paths[4:]
    assert run.count("/v1/chat/completions") == 2
    assert run.count("/v1/completions") == 3  # factuality + two consistency directions
    knowledge = [c for c in result["trace"]["candidates"] if c["stage"] == "knowledge"][0]
    # Every whitespace token of the knowledge is scored; the fake's log-probs are -0.1..-0.5.
    assert -0.5 <= knowledge["scores"]["factuality"] <= -0.1
    assert result["trace"]["settings"]["models"]["chat"] == "openai:fake-7b"
    assert result["trace"]["usage"]["tokens_out"] > 0


def test_echo_request_asks_for_prompt_logprobs(local_embeddings):
    with fake_openai_server() as server:
        models = get_models(
            SelfReflectionContext(backend="openai", base_url=base_url(server), model_name="m2")
        )
        scored = models.score("Question: q\nKnowledge:", " It is so.", purpose="t")
        _, request = server.requests[-1]
    assert request["echo"] is True and request["logprobs"] == 0
    assert scored.logprobs.tokens == (" It", " is", " so.")


def test_server_that_does_not_answer_is_a_clear_error(local_embeddings, monkeypatch):
    monkeypatch.setattr("tenacity.nap.time.sleep", lambda seconds: None)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    context = SelfReflectionContext(
        backend="openai", base_url=f"http://127.0.0.1:{port}/v1", model_name="m3", max_retries=1
    )
    with pytest.raises(
        ModelUnavailableError,
        match=f"could not be reached at http://127.0.0.1:{port}/v1 .*server is running",
    ):
        build_graph().compile().invoke({"question": "q?"}, context=context)


def test_fake_server_in_its_own_process_answers():
    import httpx

    from veriloop.models.fake_server import fake_openai_server_process

    with fake_openai_server_process() as url:
        reply = httpx.post(
            f"{url}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            timeout=10,
        )
    assert reply.json()["choices"][0]["message"]["content"].startswith("The condition")
