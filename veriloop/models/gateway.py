"""`Models`: the one place every node calls a model through.

Written once here, for every graph: retries with exponential backoff on transient
failures, timeouts (set on served clients), the optional persistent cache (LangChain's
SQLite LLM cache for chat replies, a disk cache for token scores), serialisation of calls
into a llama.cpp instance (which is not thread-safe), and accounting: every call returns a
`ModelCall` record that nodes put into the graph state and the trace.

What a call takes and returns (chat turns, replies, scores, failures) is `calls`; the
persistent cache is `call_cache`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from veriloop.errors import ModelUnavailableError
from veriloop.models.call_cache import ObservedSQLiteCache, ScoreCache
from veriloop.models.calls import (
    ChatFailure,
    ChatReply,
    ChatTurn,
    RejectedRequest,
    ScoredText,
    message_text,
    to_messages,
)
from veriloop.models.capabilities import (
    Capabilities,
    StructuredOutput,
    explain_failure,
    failure_kind,
    is_transient,
    next_structured,
    response_format,
)
from veriloop.models.embeddings import Embedder, EmbeddingMemo
from veriloop.models.token_scoring import (
    ScoreError,
    TokenLogprobs,
    TokenScorer,
    UnavailableTokenScorer,
)
from veriloop.trace import ModelCall

T = TypeVar("T")

NEXT_TOKEN_TOP = 20
"""Top next tokens asked for by `Models.score_targets` (vLLM's default maximum is 20)."""

StructuredMode = Literal["llama_grammar", "openai_json_schema", "openai_json_object", "none"]
"""How a JSON schema constrains a reply: a llama.cpp grammar built from the schema, the
OpenAI `response_format` json_schema, `{"type": "json_object", "schema": ...}` (what
llama-cpp-python's server takes), or nothing (prompt only; fakes)."""

_SERVED_MODES: dict[StructuredMode, StructuredOutput] = {
    "openai_json_schema": "json_schema",
    "openai_json_object": "json_object",
    "none": "prompt",
}
_MODE_OF: dict[StructuredOutput, StructuredMode] = {v: k for k, v in _SERVED_MODES.items()}


def structured_mode_for(output: StructuredOutput) -> StructuredMode:
    """Return the gateway mode that sends a served model's structured-output capability."""
    return _MODE_OF[output]


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
        endpoint: str = "",
        api_key_env: str = "",
        capabilities: Capabilities | None = None,
        demote_structured: bool = True,
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
            endpoint: Where a served model lives (named in error messages).
            api_key_env: The variable holding its API key (named in auth errors).
            capabilities: What probing the server found (recorded in traces).
            demote_structured: On a deterministic rejection of a structured request, move
                one step down json_schema -> json_object -> prompt and ask again (off when
                the user set the mode).
        """
        self.chat_model = chat_model
        self.chat_name = chat_name
        self.scorer = scorer
        self.embedder = embedder
        self.max_retries = max_retries
        self.structured_mode = structured_mode
        self.endpoint = endpoint or chat_name
        self.api_key_env = api_key_env
        self.capabilities = capabilities
        self.demote_structured = demote_structured
        self.notes: list[str] = []
        """What changed at run time (e.g. a structured mode demoted after a rejection)."""
        self._state_lock = threading.Lock()
        self._chat_lock: threading.Lock | None = threading.Lock() if serialize_chat else None
        self._chat_cache: ObservedSQLiteCache | None = None
        self._score_cache: ScoreCache | None = None
        self._no_next_tokens = False
        """Set once the server rejects a next-token log-prob request (see score_targets)."""
        self._embedded = EmbeddingMemo()
        """The texts embedded in this process, each embedded once (`EmbeddingMemo`)."""
        if cache_dir:
            directory = Path(cache_dir).expanduser()
            directory.mkdir(parents=True, exist_ok=True)
            self._chat_cache = ObservedSQLiteCache(str(directory / "chat.sqlite"))
            self._score_cache = ScoreCache(directory / "scores")
            self.chat_model.cache = self._chat_cache
        else:
            self.chat_model.cache = False

    @property
    def can_score(self) -> bool:
        """Return True when token log-probs are available from this backend."""
        return not isinstance(self.scorer, UnavailableTokenScorer)

    def scoring_unavailable_reason(self) -> str:
        """Say why token scores are unavailable ('' when they are available)."""
        scorer = self.scorer
        return scorer.reason if isinstance(scorer, UnavailableTokenScorer) else ""

    def describe(self) -> dict[str, str]:
        """Name the models in use (and a served model's capabilities), for traces."""
        described = {
            "chat": self.chat_name,
            "scorer": self.scorer.name,
            "embeddings": self.embedder.name,
        }
        if self.capabilities is not None:
            described["capabilities"] = self.capabilities.describe()
        if self.notes:
            described["notes"] = "; ".join(self.notes)
        return described

    def _retrying(self, what: str, action: Callable[[], T]) -> T:
        """Run `action`, retrying transient failures; turn the rest into clear errors.

        Raises:
            ModelUnavailableError: The server could not be reached, refused the
                credentials, has no such endpoint, or kept failing (message says which).
            RejectedRequest: The server refused this request (a 4xx or a validation
                error): not retried, the caller decides.
        """
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential(multiplier=0.5, max=8),
            retry=retry_if_exception(is_transient),
            reraise=True,
        )
        try:
            return retrying(action)
        except Exception as exc:
            kind = failure_kind(exc)
            if kind is None:
                raise
            message = explain_failure(
                exc, what=what, where=self.endpoint, api_key_env=self.api_key_env
            )
            if kind == "rejected":
                raise RejectedRequest(message) from exc
            if is_transient(exc):
                message = f"after {self.max_retries + 1} attempts, {message}"
            raise ModelUnavailableError(message) from exc

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
        messages = to_messages(turns)

        def invoke() -> AIMessage:
            if self._chat_cache is not None:
                self._chat_cache.last_hit.value = False
            call_options = dict(options)
            if json_schema is not None:
                format_ = self._response_format(json_schema)
                if format_ is not None:
                    call_options["response_format"] = format_
            with self._chat_slot():
                reply = self.chat_model.invoke(messages, **call_options)
            if not isinstance(reply, AIMessage):
                raise ChatFailure(f"the chat model returned {type(reply).__name__}")
            return reply

        started = time.perf_counter()
        while True:
            mode = self.structured_mode
            try:
                reply = self._retrying(f"chat model ({self.chat_name})", invoke)
                break
            except RejectedRequest as exc:
                if json_schema is not None and self._demote(mode, str(exc)):
                    continue
                raise ChatFailure(str(exc)) from exc
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
        return ChatReply(text=message_text(reply), call=call)

    def _response_format(self, json_schema: dict[str, Any]) -> dict[str, Any] | None:
        mode = self.structured_mode
        if mode == "llama_grammar":
            return {"type": "json_object", "schema": json_schema}
        served = _SERVED_MODES.get(mode)
        return response_format(served, json_schema) if served is not None else None

    def _demote(self, rejected: StructuredMode, reason: str) -> bool:
        """Move structured output one step down after `rejected` was refused.

        Returns False when there is nowhere to go (or demotion is off): the caller reports
        the rejection. Concurrent callers that saw the same rejection demote once.
        """
        served = _SERVED_MODES.get(rejected)
        if served is None or not self.demote_structured:
            return False
        lower = next_structured(served)
        if lower is None:
            return False
        with self._state_lock:
            if self.structured_mode == rejected:
                self.structured_mode = _MODE_OF[lower]
                self.notes.append(
                    f"structured output {served} rejected at run time, now {lower} ({reason})"
                )
        return True

    def score(self, prompt: str, target: str, *, purpose: str) -> ScoredText:
        """Return the token log-probs of `target` after `prompt`, with accounting.

        Raises:
            ScoreError: The text cannot be scored (empty, too long, misaligned).
            ModelUnavailableError: A served scorer did not answer after retries.
        """
        started = time.perf_counter()
        return self._score_one(prompt, target, self._cached_score(prompt, target), purpose, started)

    def _score_one(
        self,
        prompt: str,
        target: str,
        cached: TokenLogprobs | None,
        purpose: str,
        started: float,
    ) -> ScoredText:
        """Score `target` (or take `cached`, this cache's value) and account for it."""
        logprobs = cached
        if logprobs is None:
            try:
                logprobs = self._retrying(
                    f"token scorer ({self.scorer.name})",
                    lambda: self.scorer.target_logprobs(prompt, target),
                )
            except RejectedRequest as exc:  # e.g. longer than the server's context
                raise ScoreError(str(exc)) from exc
            self._cache_score(prompt, target, logprobs)
        call = self._score_call(
            purpose, logprobs.prompt_tokens + len(logprobs.logprobs), started, cached is not None
        )
        return ScoredText(logprobs=logprobs, call=call)

    def score_targets(
        self, prompt: str, targets: Sequence[str], *, purpose: str
    ) -> tuple[list[TokenLogprobs], list[ModelCall]]:
        """Return the log-probs of each of several alternative `targets` after one `prompt`.

        A served scorer that offers `next_token_logprobs` answers every single-token target
        (" Yes", " No", ...) from one echo request that lists the top log-probs at the
        first target's position, instead of one echo request per target, each re-sending
        the whole prompt. A target not among the top ones, or a scorer without that
        request, is scored as `score` does; so are all targets after the server has
        rejected the request once. Values equal echoed scores of the same targets (same
        model, prompt and prefix).

        Raises:
            ScoreError: A target cannot be scored.
            ModelUnavailableError: A served scorer did not answer after retries.
        """
        cached = {target: self._cached_score(prompt, target) for target in targets}
        found: dict[str, TokenLogprobs] = {}
        calls: list[ModelCall] = []
        next_tokens = getattr(self.scorer, "next_token_logprobs", None)
        uncached = [t for t in targets if cached[t] is None]
        if next_tokens is not None and len(uncached) > 1 and not self._no_next_tokens:
            started = time.perf_counter()
            try:
                top, prompt_tokens = self._retrying(
                    f"token scorer ({self.scorer.name})",
                    lambda: next_tokens(prompt, NEXT_TOKEN_TOP, uncached[0]),
                )
            except RejectedRequest:
                self._no_next_tokens = True  # this server will not say; echo from now on
            except ScoreError:
                pass  # not for this prompt: echo each target
            else:
                calls.append(self._score_call(purpose, prompt_tokens, started, False, out=1))
                for target in (t for t in uncached if t in top):
                    found[target] = TokenLogprobs((target,), (top[target],), prompt_tokens)
                    self._cache_score(prompt, target, found[target])
        results: list[TokenLogprobs] = []
        for target in targets:
            if target in found:
                results.append(found[target])
                continue
            scored = self._score_one(prompt, target, cached[target], purpose, time.perf_counter())
            results.append(scored.logprobs)
            calls.append(scored.call)
        return results, calls

    def _cached_score(self, prompt: str, target: str) -> TokenLogprobs | None:
        if self._score_cache is None:
            return None
        return self._score_cache.get(ScoreCache.key(self.scorer.name, prompt, target))

    def _cache_score(self, prompt: str, target: str, value: TokenLogprobs) -> None:
        if self._score_cache is not None:
            self._score_cache.set(ScoreCache.key(self.scorer.name, prompt, target), value)

    def _score_call(
        self, purpose: str, tokens_in: int, started: float, cached: bool, *, out: int = 0
    ) -> ModelCall:
        return ModelCall(
            kind="score",
            purpose=purpose,
            model=self.scorer.name,
            tokens_in=tokens_in,
            tokens_out=out,
            seconds=round(time.perf_counter() - started, 6),
            cached=cached,
            error=None,
        )

    def embed(self, texts: list[str], *, purpose: str) -> tuple[npt.NDArray[np.float32], ModelCall]:
        """Return unit-length embeddings of `texts` with the accounting of the call.

        A text this embedder embedded before is not embedded again (`EmbeddingMemo`).
        `cached` stays for the on-disk model-call cache: a call the memo answered whole is
        not marked (reports read `cached` as "came from the model-call cache").
        """
        started = time.perf_counter()
        vectors, _ = self._embedded.vectors(
            f"{id(self.embedder)}:{self.embedder.name}",
            texts,
            lambda missing: self._retrying(
                f"embedding model ({self.embedder.name})", lambda: self.embedder.embed(missing)
            ),
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


__all__ = [
    "NEXT_TOKEN_TOP",
    "Models",
    "StructuredMode",
    "structured_mode_for",
]
