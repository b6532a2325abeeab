"""Build `Models` from settings.

Built in: the embedded backend and OpenAI-compatible servers; a registry takes more
(tests register scripted fakes there).

Built `Models` are kept per process, keyed by the model settings, so a graph invoked many
times loads each model file once.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, ModelNotFoundError
from veriloop.models.embeddings import Embedder, SentenceTransformerEmbedder
from veriloop.models.gateway import Models
from veriloop.models.locate import (
    bundled_chat_model_path,
    bundled_embedding_model_path,
    existing_file,
)

BackendFactory = Callable[[ModelSettings], Models]

_factories: dict[str, BackendFactory] = {}
_built: dict[str, Models] = {}
_lock = threading.Lock()


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make `backend=name` in any Context build its models with `factory`."""
    with _lock:
        _factories[name] = factory
        for key in [key for key in _built if json.loads(key)["backend"] == name]:
            del _built[key]


def unregister_backend(name: str) -> None:
    """Forget a registered backend and the models built from it."""
    with _lock:
        _factories.pop(name, None)
        for key in [key for key in _built if json.loads(key)["backend"] == name]:
            del _built[key]


def get_models(settings: ModelSettings) -> Models:
    """Return the (per-process cached) `Models` that `settings` select."""
    key = json.dumps(settings.model_fields(), sort_keys=True, default=str)
    with _lock:
        models = _built.get(key)
        if models is None:
            factory = _factories.get(settings.backend)
            if factory is None:
                known = ", ".join(sorted(_factories))
                raise InvalidInputError(
                    f"unknown model backend {settings.backend!r}; use one of: {known} "
                    "(or register one with veriloop.models.register_backend)"
                )
            models = factory(settings)
            _built[key] = models
        return models


_embedders: dict[str, Embedder] = {}


def get_embedder(settings: ModelSettings) -> Embedder:
    """Return only the embedder `settings` select, without loading chat or scorer models.

    The built-in backends share one embedder construction, so this gives the same
    embedding model (and name) as `get_models(settings).embedder`; a registered backend
    is built whole and its embedder returned.
    """
    if settings.backend not in {"embedded", "openai"}:
        return get_models(settings).embedder
    with _lock:
        key = settings.embedding_model
        if key not in _embedders:
            _embedders[key] = _embedder(settings)
        return _embedders[key]


def _embedder(settings: ModelSettings) -> SentenceTransformerEmbedder:
    if settings.embedding_model:
        return SentenceTransformerEmbedder(settings.embedding_model)
    return SentenceTransformerEmbedder(
        bundled_embedding_model_path(), name="sentence-transformers:all-MiniLM-L6-v2"
    )


def build_embedded(settings: ModelSettings) -> Models:
    """Build the offline backend: llama.cpp chat + scorer, sentence-transformers embeddings."""
    from veriloop.models.embedded_chat import EmbeddedChatModel
    from veriloop.models.token_scoring import LlamaCppTokenScorer

    chat_path = (
        existing_file(settings.chat_model_path, "chat model file")
        if settings.chat_model_path
        else bundled_chat_model_path()
    )
    scorer_path = (
        existing_file(settings.scorer_model_path, "scorer model file")
        if settings.scorer_model_path
        else chat_path
    )
    try:
        chat_model = EmbeddedChatModel(
            model_path=str(chat_path),
            n_ctx=settings.context_size,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            repeat_penalty=settings.repeat_penalty,
            seed=settings.seed,
            verbose=False,
        )
    except ValueError as exc:
        raise ModelNotFoundError(
            f"llama.cpp could not load {chat_path}: {exc}. Check that it is a GGUF model file."
        ) from exc
    return Models(
        chat_model=chat_model,
        chat_name=f"llama.cpp:{chat_path.name}",
        scorer=LlamaCppTokenScorer(scorer_path, seed=settings.seed),
        embedder=_embedder(settings),
        max_retries=0,  # local calls do not fail transiently
        cache_dir=settings.cache_dir,
        serialize_chat=True,
        structured_mode="llama_grammar",
    )


def build_openai(settings: ModelSettings) -> Models:
    """Build the scale-out backend: an OpenAI-compatible server for chat and scoring."""
    import openai
    from langchain_openai import ChatOpenAI

    from veriloop.models.token_scoring import OpenAICompletionsTokenScorer

    if not settings.model_name:
        raise InvalidInputError(
            "backend 'openai' needs a model name: set VERILOOP_MODEL_NAME or model_name"
        )
    api_key = os.environ.get(settings.api_key_env) or "not-needed"
    base_url = settings.base_url or None
    chat_model = ChatOpenAI(
        model=settings.model_name,
        base_url=base_url,
        api_key=api_key,  # type: ignore[arg-type]
        temperature=settings.temperature,
        max_completion_tokens=settings.max_tokens,
        seed=settings.seed,
        timeout=settings.request_timeout,
        max_retries=0,  # retries are Models' job, so they are counted and bounded once
    )
    client = openai.OpenAI(
        base_url=base_url, api_key=api_key, timeout=settings.request_timeout, max_retries=0
    )
    where = settings.base_url or "the OpenAI API"
    return Models(
        chat_model=chat_model,
        chat_name=f"openai:{settings.model_name}",
        scorer=OpenAICompletionsTokenScorer(client, settings.model_name),
        embedder=_embedder(settings),
        max_retries=settings.max_retries,
        cache_dir=settings.cache_dir,
        serialize_chat=False,
        structured_mode="openai_json_schema",
        server_hint=f"Check that the server at {where} is running and reachable, "
        "or set VERILOOP_BASE_URL.",
    )


register_backend("embedded", build_embedded)
register_backend("openai", build_openai)
