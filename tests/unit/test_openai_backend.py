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


def test_a_cached_probe_is_reused_after_one_echo_recheck(local_embeddings, tmp_path):
    from veriloop.context import ModelSettings
    from veriloop.models.backends import PROBE_CACHE, build_openai

    with fake_openai_server() as server:
        settings = ModelSettings(
            backend="openai", base_url=base_url(server), model_name="m4", cache_dir=str(tmp_path)
        )
        first = build_openai(settings)
        probed = len(server.requests)
        second = build_openai(settings)  # a new process would do this: the file, not memory
        rechecked = [path for path, _ in server.requests[probed:]]
    assert probed == 4 and rechecked == ["/v1/completions"]  # only the alignment re-check
    assert (tmp_path / PROBE_CACHE).is_file()
    assert second.capabilities is not None and first.capabilities is not None
    assert second.capabilities.describe() == first.capabilities.describe()
    assert "reused from" in second.capabilities.findings[-1]
    assert "re-checked" in second.capabilities.findings[-1]


def test_a_cached_probe_that_no_longer_holds_is_probed_again(
    local_embeddings, tmp_path, monkeypatch
):
    from veriloop.context import ModelSettings
    from veriloop.models import backends

    with fake_openai_server() as server:
        settings = ModelSettings(
            backend="openai", base_url=base_url(server), model_name="m5", cache_dir=str(tmp_path)
        )
        backends.build_openai(settings)
        # the engine behind the URL changed: its echo is now shifted
        monkeypatch.setattr(backends, "recheck_scoring", lambda *a: (False, "shifted"))
        before = len(server.requests)
        again = backends.build_openai(settings)
        assert len(server.requests) - before == 4  # a full probe
        assert again.capabilities is not None
        assert not any("reused" in f for f in again.capabilities.findings)
        # a damaged cache file is ignored and rewritten, not an error
        (tmp_path / backends.PROBE_CACHE).write_text("{not json")
        before = len(server.requests)
        backends.build_openai(settings)
        assert len(server.requests) - before == 4
    assert "m5" in (tmp_path / backends.PROBE_CACHE).read_text()
