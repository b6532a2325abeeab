"""Scripted fakes for tests: no model files, no network, exact control of every reply.

Register them under a backend name and select it in a Context:

    models = fake_models(replies=["knowledge", "answer"], scores={"answer": -0.5})
    register_backend("fake", lambda settings: models)
    graph.invoke({"question": "..."}, context=SelfReflectionContext(backend="fake"))
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, PrivateAttr

from veriloop.models.embeddings import normalise_rows
from veriloop.models.gateway import Models
from veriloop.models.token_scoring import ScoreError, TokenLogprobs


class ScriptedChatModel(BaseChatModel):
    """Reply with scripted texts in order; record every conversation it was sent.

    A reply may be a string, or a callable that receives the conversation and returns one
    (for replies that depend on the prompt). Running out of replies is a test error.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    replies: list[Any]
    _position: int = PrivateAttr(default=0)
    _seen: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _options: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @property
    def conversations(self) -> list[list[BaseMessage]]:
        """Return every conversation sent, in order."""
        return self._seen

    @property
    def options(self) -> list[dict[str, Any]]:
        """Return the per-call options (seed, response_format, ...) of every call."""
        return self._options

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            if self._position >= len(self.replies):
                raise AssertionError(
                    f"ScriptedChatModel ran out of replies after {len(self.replies)} calls"
                )
            reply = self.replies[self._position]
            self._position += 1
            self._seen.append(list(messages))
            self._options.append(dict(kwargs))
        text = reply(messages) if callable(reply) else str(reply)
        tokens_in = sum(len(str(m.content).split()) for m in messages)
        message = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": tokens_in,
                "output_tokens": len(text.split()),
                "total_tokens": tokens_in + len(text.split()),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


class ScriptedTokenScorer:
    """Give each scored target a chosen mean log-prob.

    `rule(prompt, target)` returns the mean log-prob to report, or None to fail scoring.
    Each target is reported as one token per word, all with that log-prob.
    """

    def __init__(self, rule: Callable[[str, str], float | None]) -> None:
        """Score with `rule`."""
        self.name = "fake-scorer"
        self.rule = rule
        self.calls: list[tuple[str, str]] = []

    def target_logprobs(self, prompt: str, target: str) -> TokenLogprobs:
        """Return the scripted log-probs for `target`."""
        self.calls.append((prompt, target))
        value = self.rule(prompt, target)
        if value is None:
            raise ScoreError("scripted scorer failure")
        words = tuple(target.split()) or ("<empty>",)
        return TokenLogprobs(words, tuple(value for _ in words), len(prompt.split()))


class ScriptedEmbedder:
    """Embed texts to chosen vectors; unknown texts get a stable pseudo-random vector."""

    def __init__(self, vectors: dict[str, Sequence[float]] | None = None, dim: int = 8) -> None:
        """Use `vectors` for the texts it names."""
        self.name = "fake-embedder"
        self.vectors = dict(vectors or {})
        self.dim = dim

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Return unit rows for `texts`."""
        rows: list[npt.NDArray[np.float32]] = []
        for text in texts:
            if text in self.vectors:
                rows.append(np.asarray(self.vectors[text], dtype=np.float32))
            else:
                seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
                rows.append(
                    np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
                )
        return normalise_rows(np.vstack(rows))


def fake_models(
    replies: Iterable[Any],
    *,
    score_rule: Callable[[str, str], float | None] | None = None,
    vectors: dict[str, Sequence[float]] | None = None,
    dim: int = 8,
    cache_dir: str = "",
) -> Models:
    """Assemble `Models` from scripted parts (default score: -0.5 for every text)."""
    return Models(
        chat_model=ScriptedChatModel(replies=list(replies)),
        chat_name="fake-chat",
        scorer=ScriptedTokenScorer(score_rule or (lambda prompt, target: -0.5)),
        embedder=ScriptedEmbedder(vectors, dim=dim),
        cache_dir=cache_dir,
    )
