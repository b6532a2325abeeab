"""`Models`: the one place every node calls a model through.

Written once here, for every graph: retries with exponential backoff on transient
failures, timeouts (set on served clients), the optional persistent cache (LangChain's
SQLite LLM cache for chat replies, a disk cache for token scores), serialisation of calls
into a llama.cpp instance (which is not thread-safe), and accounting: every call returns a
`ModelCall` record that nodes put into the graph state and the trace.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import httpx
import numpy as np
import numpy.typing as npt
import openai
from langchain_community.cache import SQLiteCache
from langchain_core._api.deprecation import LangChainPendingDeprecationWarning
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential
from typing_extensions import TypedDict

from veriloop.errors import ModelUnavailableError
from veriloop.models.embeddings import Embedder
from veriloop.models.token_scoring import ScoreError, TokenLogprobs, TokenScorer
from veriloop.trace import ModelCall

T = TypeVar("T")

StructuredMode = Literal["llama_grammar", "openai_json_schema", "none"]
"""How a JSON schema constrains a reply: a llama.cpp grammar built from the schema, the
OpenAI `response_format` json_schema, or nothing (prompt only; fakes)."""

TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.RateLimitError,
    openai.InternalServerError,
    httpx.TransportError,
    ConnectionError,
    TimeoutError,
)


class ChatTurn(TypedDict):
    """One message of a conversation, as plain data (it lives in graph state)."""

    role: Literal["system", "user", "assistant"]
    content: str


class ChatFailure(Exception):
    """A chat call failed for this input (not the server): the reply is unusable."""


@dataclass(frozen=True)
class ChatReply:
    """A chat model's reply and the accounting of the call."""

    text: str
    call: ModelCall


@dataclass(frozen=True)
class ScoredText:
    """Token log-probs of a target and the accounting of the call."""

    logprobs: TokenLogprobs
    call: ModelCall


class _ObservedSQLiteCache(SQLiteCache):
    """LangChain's SQLite LLM cache that tells the calling thread whether it hit."""

    def __init__(self, database_path: str) -> None:
        super().__init__(database_path=database_path)
        self.last_hit = threading.local()

    def lookup(self, prompt: str, llm_string: str) -> Any:
        # The cache file holds only generations this process family wrote; the pending
        # change of `loads`' default `allowed_objects` does not concern it, and the warning
        # would print once per cached call.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainPendingDeprecationWarning)
            value = super().lookup(prompt, llm_string)
        self.last_hit.value = value is not None
        return value


class _ScoreCache:
    """Persistent cache of token log-probs keyed by scorer, prompt and target."""

    def __init__(self, directory: Path) -> None:
        import diskcache

        self._cache = diskcache.Cache(str(directory))

    @staticmethod
    def key(scorer: str, prompt: str, target: str) -> str:
        digest = hashlib.sha256(f"{scorer}\x00{prompt}\x00{target}".encode()).hexdigest()
        return digest

    def get(self, key: str) -> TokenLogprobs | None:
        raw = self._cache.get(key)
        if raw is None:
            return None
        data = json.loads(raw)
        return TokenLogprobs(
            tuple(data["tokens"]),
            tuple(data["logprobs"]),
            int(data["prompt_tokens"]),
            int(data["truncated_prompt_tokens"]),
        )

    def set(self, key: str, value: TokenLogprobs) -> None:
        payload = {
            "tokens": list(value.tokens),
            "logprobs": list(value.logprobs),
            "prompt_tokens": value.prompt_tokens,
            "truncated_prompt_tokens": value.truncated_prompt_tokens,
        }
        self._cache.set(key, json.dumps(payload))


def to_messages(turns: list[ChatTurn]) -> list[BaseMessage]:
    """Convert plain chat turns to LangChain messages."""
    kinds: dict[str, type[BaseMessage]] = {
        "system": SystemMessage,
        "user": HumanMessage,
        "assistant": AIMessage,
    }
    return [kinds[turn["role"]](content=turn["content"]) for turn in turns]


def _message_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") if isinstance(part, dict) else str(part) for part in content
    )


class Models:
    """Chat model, token scorer and embedder behind one accounted, cached, retried API."""

    def __init__(
        self,
        *,
        chat_model: BaseChatModel,
        chat_name: str,
        scorer: TokenScorer,
        embedder: Embedder,
        max_retries: int = 2,
        cache_dir: str = "",
        serialize_chat: bool = False,
        structured_mode: StructuredMode = "none",
        server_hint: str = "",
    ) -> None:
        """Assemble the runtime.

        Args:
            chat_model: Any LangChain chat model.
            chat_name: How the chat model is named in traces.
            scorer: Token scorer for log-prob based scores.
            embedder: Sentence embedder.
            max_retries: Retries of a transiently failing call (backoff 0.5 s, 1 s, 2 s ...).
            cache_dir: Directory of the persistent cache; empty = no cache.
            serialize_chat: Run one chat call at a time (llama.cpp is not thread-safe).
            structured_mode: How JSON-schema constraints reach the backend.
            server_hint: Appended to "server did not answer" errors (what to check).
        """
        self.chat_model = chat_model
        self.chat_name = chat_name
        self.scorer = scorer
        self.embedder = embedder
        self.max_retries = max_retries
        self.structured_mode = structured_mode
        self.server_hint = server_hint
        self._chat_lock: threading.Lock | None = threading.Lock() if serialize_chat else None
        self._chat_cache: _ObservedSQLiteCache | None = None
        self._score_cache: _ScoreCache | None = None
        if cache_dir:
            directory = Path(cache_dir).expanduser()
            directory.mkdir(parents=True, exist_ok=True)
            self._chat_cache = _ObservedSQLiteCache(str(directory / "chat.sqlite"))
            self._score_cache = _ScoreCache(directory / "scores")
            self.chat_model.cache = self._chat_cache
        else:
            self.chat_model.cache = False

    def describe(self) -> dict[str, str]:
        """Name the models in use, for traces and reports."""
        return {
            "chat": self.chat_name,
            "scorer": self.scorer.name,
            "embeddings": self.embedder.name,
        }

    def _retrying(self, what: str, action: Callable[[], T]) -> T:
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential(multiplier=0.5, max=8),
            retry=retry_if_exception_type(TRANSIENT_ERRORS),
            reraise=True,
        )
        try:
            return retrying(action)
        except TRANSIENT_ERRORS as exc:
            raise ModelUnavailableError(
                f"the {what} did not answer after {self.max_retries + 1} attempts "
                f"({type(exc).__name__}: {exc}). {self.server_hint}".strip()
            ) from exc
        except openai.APIStatusError as exc:
            raise ModelUnavailableError(
                f"the {what} answered HTTP {exc.status_code}: {exc.message}. "
                f"{self.server_hint}".strip()
            ) from exc

    @contextmanager
    def _chat_slot(self) -> Iterator[None]:
        with self._chat_lock if self._chat_lock is not None else nullcontext():
            yield

    def chat(
        self,
        turns: list[ChatTurn],
        *,
        purpose: str,
        max_tokens: int | None = None,
        json_schema: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> ChatReply:
        """Send a conversation and return the reply text with its accounting.

        Args:
            turns: The conversation so far, ending with a user turn.
            purpose: What the call is for (shown in traces, e.g. 'knowledge').
            max_tokens: Override of the model's generation limit for this call.
            json_schema: Constrain the reply to this JSON schema where the backend can.
            seed: Sampling seed for this call (None: the model's configured seed).

        Raises:
            ChatFailure: The backend rejected this input (e.g. too long for its context).
            ModelUnavailableError: A served model did not answer after retries.
        """
        options: dict[str, Any] = {}
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        if seed is not None:
            options["seed"] = seed
        if json_schema is not None:
            if self.structured_mode == "llama_grammar":
                options["response_format"] = {"type": "json_object", "schema": json_schema}
            elif self.structured_mode == "openai_json_schema":
                options["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "reply", "schema": json_schema, "strict": False},
                }
        messages = to_messages(turns)

        def invoke() -> AIMessage:
            if self._chat_cache is not None:
                self._chat_cache.last_hit.value = False
            with self._chat_slot():
                reply = self.chat_model.invoke(messages, **options)
            if not isinstance(reply, AIMessage):
                raise ChatFailure(f"the chat model returned {type(reply).__name__}")
            return reply

        started = time.perf_counter()
        try:
            reply = self._retrying(f"chat model ({self.chat_name})", invoke)
        except ModelUnavailableError:
            raise
        except ValueError as exc:  # llama.cpp: prompt longer than the context window, etc.
            raise ChatFailure(str(exc)) from exc
        seconds = time.perf_counter() - started
        usage: dict[str, Any] = dict(reply.usage_metadata or {})
        cached = bool(
            self._chat_cache is not None and getattr(self._chat_cache.last_hit, "value", False)
        )
        call = ModelCall(
            kind="chat",
            purpose=purpose,
            model=self.chat_name,
            tokens_in=int(usage.get("input_tokens", 0)),
            tokens_out=int(usage.get("output_tokens", 0)),
            seconds=round(seconds, 6),
            cached=cached,
            error=None,
        )
        return ChatReply(text=_message_text(reply), call=call)

    def score(self, prompt: str, target: str, *, purpose: str) -> ScoredText:
        """Return the token log-probs of `target` after `prompt`, with accounting.

        Raises:
            ScoreError: The text cannot be scored (empty, too long, misaligned).
            ModelUnavailableError: A served scorer did not answer after retries.
        """
        key = None
        started = time.perf_counter()
        cached_value = None
        if self._score_cache is not None:
            key = _ScoreCache.key(self.scorer.name, prompt, target)
            cached_value = self._score_cache.get(key)
        if cached_value is not None:
            logprobs = cached_value
        else:
            logprobs = self._retrying(
                f"token scorer ({self.scorer.name})",
                lambda: self.scorer.target_logprobs(prompt, target),
            )
            if self._score_cache is not None and key is not None:
                self._score_cache.set(key, logprobs)
        call = ModelCall(
            kind="score",
            purpose=purpose,
            model=self.scorer.name,
            tokens_in=logprobs.prompt_tokens + len(logprobs.logprobs),
            tokens_out=0,
            seconds=round(time.perf_counter() - started, 6),
            cached=cached_value is not None,
            error=None,
        )
        return ScoredText(logprobs=logprobs, call=call)

    def embed(self, texts: list[str], *, purpose: str) -> tuple[npt.NDArray[np.float32], ModelCall]:
        """Return unit-length embeddings of `texts` with the accounting of the call."""
        started = time.perf_counter()
        vectors = self._retrying(
            f"embedding model ({self.embedder.name})", lambda: self.embedder.embed(texts)
        )
        call = ModelCall(
            kind="embed",
            purpose=purpose,
            model=self.embedder.name,
            tokens_in=0,
            tokens_out=0,
            seconds=round(time.perf_counter() - started, 6),
            cached=False,
            error=None,
        )
        return vectors, call


def failed_call(
    kind: Literal["chat", "score", "embed"], purpose: str, model: str, error: str
) -> ModelCall:
    """Build the accounting record of a call that failed for its input."""
    return ModelCall(
        kind=kind,
        purpose=purpose,
        model=model,
        tokens_in=0,
        tokens_out=0,
        seconds=0.0,
        cached=False,
        error=error,
    )


__all__ = [
    "ChatFailure",
    "ChatReply",
    "ChatTurn",
    "Models",
    "ScoreError",
    "ScoredText",
    "StructuredMode",
    "failed_call",
    "to_messages",
]
