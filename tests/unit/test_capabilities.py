"""Capability negotiation with served models: failure classes, probes, demotion."""

from types import SimpleNamespace
from typing import Any

import httpx
import openai
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from veriloop.errors import ModelUnavailableError
from veriloop.models.calls import ChatFailure
from veriloop.models.capabilities import (
    ALIGNMENT_PROMPT,
    ALIGNMENT_TARGET,
    Capabilities,
    check_alignment,
    explain_failure,
    failure_kind,
    is_transient,
    probe_max_tokens,
    probe_scoring,
    probe_structured,
)
from veriloop.models.fakes import ScriptedEmbedder, ScriptedTokenScorer
from veriloop.models.gateway import Models
from veriloop.models.served_chat import MaxTokensChatOpenAI
from veriloop.models.token_scoring import (
    ScoringUnavailableError,
    TokenLogprobs,
    UnavailableTokenScorer,
    drop_prefix_tokens,
)

URL = "http://127.0.0.1:9/v1"
TURN: Any = [{"role": "user", "content": "hello"}]
LLAMA_CPP_REJECTION = {
    "error": {
        "message": "1 validation error: {'type': 'literal_error', 'loc': ('body', "
        "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"
    }
}


def status_error(status: int, body: Any = None) -> openai.APIStatusError:
    response = httpx.Response(status, request=httpx.Request("POST", URL))
    kinds = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        404: openai.NotFoundError,
        429: openai.RateLimitError,
        500: openai.InternalServerError,
        503: openai.InternalServerError,
    }
    return kinds[status](f"Error code: {status}", response=response, body=body)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (status_error(500, LLAMA_CPP_REJECTION), "rejected"),
        (status_error(500, {"error": {"message": "CUDA out of memory"}}), "server"),
        (status_error(503), "server"),
        (status_error(400, {"error": {"message": "context length exceeded"}}), "rejected"),
        (status_error(401), "auth"),
        (status_error(404), "missing"),
        (status_error(429), "rate_limit"),
        (openai.APIConnectionError(request=httpx.Request("POST", URL)), "connection"),
        (openai.APITimeoutError(request=httpx.Request("POST", URL)), "timeout"),
        (ValueError("not a server failure"), None),
    ],
)
def test_failures_are_classified_by_cause(error, kind):
    assert failure_kind(error) == kind
    assert is_transient(error) == (kind in ("connection", "timeout", "rate_limit", "server"))


def test_failure_messages_name_the_cause_and_the_setting():
    def explain(error: BaseException) -> str:
        return explain_failure(error, what="chat model", where=URL, api_key_env="MY_KEY")

    assert "MY_KEY" in explain(status_error(401))
    assert "VERILOOP_MODEL_NAME" in explain(status_error(404))
    assert "not transient" in explain(status_error(500, LLAMA_CPP_REJECTION))
    assert "Input should be 'text' or 'json_object'" in explain(
        status_error(500, LLAMA_CPP_REJECTION)
    )
    assert "VERILOOP_REQUEST_TIMEOUT" in explain(
        openai.APITimeoutError(request=httpx.Request("POST", URL))
    )
    assert "running" in explain(openai.APIConnectionError(request=httpx.Request("POST", URL)))


class PickyChat(BaseChatModel):
    """Rejects json_schema the way llama-cpp-python's server does; counts calls."""

    formats: list[Any] = []

    @property
    def _llm_type(self) -> str:
        return "picky"

    def _generate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        response_format = kwargs.get("response_format")
        self.formats.append(response_format)
        if response_format is not None and response_format["type"] == "json_schema":
            raise status_error(500, LLAMA_CPP_REJECTION)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content='{"a": 1}'))])


def picky_models(*, demote: bool) -> Models:
    return Models(
        chat_model=PickyChat(formats=[]),
        chat_name="picky",
        scorer=ScriptedTokenScorer(lambda p, t: -1.0),
        embedder=ScriptedEmbedder(),
        max_retries=3,
        structured_mode="openai_json_schema",
        endpoint=URL,
        demote_structured=demote,
    )


def test_a_rejected_structured_mode_moves_down_the_chain_once_without_retries():
    models = picky_models(demote=True)
    schema = {"type": "object"}
    assert models.chat(TURN, purpose="t", json_schema=schema).text == '{"a": 1}'
    assert models.chat(TURN, purpose="t", json_schema=schema).text == '{"a": 1}'
    types = [f["type"] for f in models.chat_model.formats]  # type: ignore[attr-defined]
    # One rejected json_schema call (not retried 3 times), then json_object for good.
    assert types == ["json_schema", "json_object", "json_object"]
    assert models.structured_mode == "openai_json_object"
    assert "json_schema rejected at run time, now json_object" in models.describe()["notes"]


def test_a_structured_mode_the_user_set_is_not_demoted():
    models = picky_models(demote=False)
    with pytest.raises(ChatFailure, match="rejected the request.*json_object"):
        models.chat(TURN, purpose="t", json_schema={"type": "object"})
    assert len(models.chat_model.formats) == 1  # type: ignore[attr-defined]


def test_alignment_check_tells_aligned_from_shifted_scores():
    assert check_alignment([-0.1, -0.05, -0.02]).aligned
    shifted = check_alignment([-13.6, -11.5, -14.3])
    assert not shifted.aligned and "-13.13" in shifted.reason
    assert not check_alignment([0.3, -0.1]).aligned  # not log-probabilities
    assert not check_alignment([]).aligned


class PrefixScorer:
    def __init__(self, prefix: str, aligned_after: str | None, fail: Exception | None = None):
        self.prefix, self.aligned_after, self.fail = prefix, aligned_after, fail
        self.asked: list[tuple[str, str]] = []

    def target_logprobs(self, prompt: str, target: str) -> TokenLogprobs:
        if self.fail is not None:
            raise self.fail
        self.asked.append((prompt, target))
        value = -0.05 if self.prefix == self.aligned_after else -12.0
        return TokenLogprobs(("a", "b"), (value, value), 5)


def test_scoring_probe_finds_the_bos_prefix_that_aligns_a_shifted_echo():
    built: list[PrefixScorer] = []

    def scorer_for(prefix: str) -> PrefixScorer:
        built.append(PrefixScorer(prefix, aligned_after="<s>"))
        return built[-1]

    prefix, findings = probe_scoring(scorer_for, ("<|im_start|>", "<s>", "<bos>"))
    assert prefix == "<s>"
    assert [b.prefix for b in built] == ["", "<|im_start|>", "<s>"]  # stops at the first fit
    assert built[0].asked == [(ALIGNMENT_PROMPT, ALIGNMENT_TARGET)]
    assert "raw echo" in findings[0] and "-12.00" in findings[0]


def test_scoring_probe_gives_up_when_nothing_aligns_or_echo_is_missing():
    prefix, findings = probe_scoring(lambda p: PrefixScorer(p, aligned_after=None), ("<s>",))
    assert prefix is None and "unavailable" in findings[-1]
    missing = status_error(404)
    prefix, findings = probe_scoring(lambda p: PrefixScorer(p, None, fail=missing), ("<s>",))
    assert prefix is None and findings == ["echo log-probs unavailable (HTTP 404: Error code: 404)"]
    down = openai.APIConnectionError(request=httpx.Request("POST", URL))
    with pytest.raises(openai.APIConnectionError):  # an unreachable server is not "no echo"
        probe_scoring(lambda p: PrefixScorer(p, None, fail=down), ("<s>",))


def test_bos_tokens_are_dropped_from_an_echo_that_includes_them():
    tokens, values, offsets = drop_prefix_tokens(
        ["<s>", "Hi", " there"], [None, -1.0, -2.0], [0, 3, 5], "<s>"
    )
    assert (tokens, values, offsets) == (["Hi", " there"], [-1.0, -2.0], [0, 2])
    # llama-cpp-python already leaves the BOS out: nothing to drop.
    same = drop_prefix_tokens(["Hi", " there"], [None, -2.0], [0, 2], "<s>")
    assert same == (["Hi", " there"], [None, -2.0], [0, 2])


class Completions:
    def __init__(self, replies: list[Any]):
        self.replies = replies
        self.requests: list[dict[str, Any]] = []

    def create(self, **request: Any) -> Any:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


def chat_reply(text: str, completion_tokens: int | None) -> Any:
    usage = (
        None if completion_tokens is None else SimpleNamespace(completion_tokens=completion_tokens)
    )
    return SimpleNamespace(
        choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=usage
    )


def client_with(replies: list[Any]) -> Any:
    return SimpleNamespace(chat=SimpleNamespace(completions=Completions(replies)))


def test_max_tokens_probe_falls_back_when_the_limit_is_ignored():
    assert probe_max_tokens(client_with([chat_reply("1, 2", 4)]), "m")[0] == (
        "max_completion_tokens"
    )
    limit, finding = probe_max_tokens(client_with([chat_reply("1, 2, ...", 29)]), "m")
    assert limit == "max_tokens" and "29 tokens came back" in finding
    assert probe_max_tokens(client_with([status_error(400)]), "m")[0] == "max_tokens"


def test_structured_probe_walks_the_chain_to_the_first_mode_that_gives_json():
    client = client_with(
        [status_error(500, LLAMA_CPP_REJECTION), chat_reply('{"answer": "yes"}', 5)]
    )
    mode, findings = probe_structured(
        client, "m", "max_tokens", ("json_schema", "json_object", "prompt")
    )
    assert mode == "json_object"
    sent = client.chat.completions.requests
    assert sent[1]["response_format"]["type"] == "json_object" and sent[1]["max_tokens"] == 40
    assert findings[0].startswith("json_schema rejected")
    # A server that ignores response_format (prose back) ends at prompt only.
    client = client_with([chat_reply("Yes!", 2), chat_reply("Sure, yes.", 3)])
    mode, findings = probe_structured(
        client, "m", "max_tokens", ("json_schema", "json_object", "prompt")
    )
    assert mode == "prompt" and "ignored" in findings[0] and "ignored" in findings[1]


def test_the_legacy_chat_class_sends_max_tokens():
    chat = MaxTokensChatOpenAI(model="m", base_url=URL, api_key="x", max_completion_tokens=16)  # type: ignore[arg-type]
    payload = chat._get_request_payload([HumanMessage(content="hi")])
    assert payload["max_tokens"] == 16 and "max_completion_tokens" not in payload


def test_an_unavailable_scorer_says_why_and_models_report_it():
    scorer = UnavailableTokenScorer("the server has no /v1/completions")
    models = Models(
        chat_model=PickyChat(formats=[]),
        chat_name="picky",
        scorer=scorer,
        embedder=ScriptedEmbedder(),
    )
    assert not models.can_score
    assert models.scoring_unavailable_reason() == "the server has no /v1/completions"
    with pytest.raises(ScoringUnavailableError, match="no /v1/completions"):
        models.score("p", "t", purpose="x")


def test_probing_an_unreachable_server_says_so(monkeypatch):
    from veriloop.context import ModelSettings
    from veriloop.models.backends import build_openai

    settings = ModelSettings(
        backend="openai", base_url="http://127.0.0.1:9/v1", model_name="m", request_timeout=2
    )
    with pytest.raises(
        ModelUnavailableError, match="could not be reached at http://127.0.0.1:9/v1"
    ):
        build_openai(settings)


def test_methods_that_need_token_scores_stop_before_generating():
    from veriloop.graphs.factored_verification import FactoredVerificationContext
    from veriloop.graphs.factored_verification import build_graph as build_fv
    from veriloop.graphs.self_reflection import SelfReflectionContext, build_graph
    from veriloop.models import register_backend, unregister_backend
    from veriloop.models.fakes import fake_models

    models = fake_models(["never used"])
    models.scorer = UnavailableTokenScorer("the server at X has no /v1/completions")
    register_backend("no-scores", lambda settings: models)
    try:
        with pytest.raises(
            ModelUnavailableError,
            match="Self-Reflection needs token log-probs .*has no /v1/completions",
        ):
            build_graph().compile().invoke(
                {"question": "Is it inherited?"}, context=SelfReflectionContext(backend="no-scores")
            )
        with pytest.raises(ModelUnavailableError, match="verifier=yesno needs token log-probs"):
            build_fv().compile().invoke(
                {"question": "q?", "answer": "It is.", "sources": ["It is so."]},
                context=FactoredVerificationContext(backend="no-scores", verifier="yesno"),
            )
    finally:
        unregister_backend("no-scores")
    assert models.chat_model.conversations == []  # type: ignore[attr-defined]


def test_capabilities_round_trip_and_a_foreign_value_is_refused() -> None:
    found = Capabilities(
        structured_output="json_object",
        token_scoring="echo",
        max_tokens_param="max_tokens",
        bos_prefix="<|im_start|>",
        findings=("a", "b"),
    )
    assert Capabilities.from_json(found.to_json()) == found
    with pytest.raises(ValueError, match="not a probe result"):
        Capabilities.from_json({**found.to_json(), "structured_output": "grammar"})
