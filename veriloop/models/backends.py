"""Build `Models` from settings.

Built in: the embedded backend and OpenAI-compatible servers; a registry takes more
(tests register scripted fakes there).

Built `Models` are kept per process, keyed by the model settings, so a graph invoked many
times loads each model file once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, ModelNotFoundError, ModelUnavailableError
from veriloop.files import write_json_atomically
from veriloop.models.capabilities import (
    BOS_CANDIDATES,
    STRUCTURED_CHAIN,
    Capabilities,
    failure_kind,
    probe_max_tokens,
    probe_scoring,
    probe_structured,
    recheck_scoring,
    unreachable,
)
from veriloop.models.embeddings import Embedder, SentenceTransformerEmbedder
from veriloop.models.gateway import Models, structured_mode_for
from veriloop.models.locate import (
    bundled_chat_model_path,
    bundled_embedding_model_path,
    existing_file,
    load_failure,
    not_gguf,
)
from veriloop.models.token_scoring import OpenAICompletionsTokenScorer, TokenScorer

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


def bundled_embedder() -> SentenceTransformerEmbedder:
    """Return an embedder over the bundled all-MiniLM-L6-v2 (the default embeddings)."""
    return SentenceTransformerEmbedder(
        bundled_embedding_model_path(), name="sentence-transformers:all-MiniLM-L6-v2"
    )


def _embedder(settings: ModelSettings) -> SentenceTransformerEmbedder:
    if settings.embedding_model:
        return SentenceTransformerEmbedder(settings.embedding_model)
    return bundled_embedder()


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
        problem = not_gguf(chat_path)
        raise ModelNotFoundError(
            f"{chat_path} {problem}" if problem else load_failure(chat_path, exc)
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
    """Build the scale-out backend: an OpenAI-compatible server for chat and scoring.

    What the server supports (structured output, echoed log-probs and their alignment,
    which generation-limit parameter it honours) is probed once here unless set (see
    `capabilities`); the findings go into every trace. `scorer_model_path` scores tokens
    with a local GGUF model instead of the server.
    """
    import openai
    from langchain_openai import ChatOpenAI

    from veriloop.models.served_chat import MaxTokensChatOpenAI
    from veriloop.models.token_scoring import LlamaCppTokenScorer, UnavailableTokenScorer

    if not settings.model_name:
        raise InvalidInputError(
            "backend 'openai' needs a model name: set VERILOOP_MODEL_NAME or model_name"
        )
    if settings.base_url and not settings.base_url.lower().startswith(("http://", "https://")):
        raise InvalidInputError(
            f"base_url {settings.base_url!r} is not an HTTP address; give the server's URL, "
            "e.g. http://127.0.0.1:8000/v1 (VERILOOP_BASE_URL)"
        )
    api_key = os.environ.get(settings.api_key_env) or "not-needed"
    base_url = settings.base_url or None
    where = served_endpoint(settings)
    client = openai.OpenAI(
        base_url=base_url, api_key=api_key, timeout=settings.request_timeout, max_retries=0
    )
    local_scorer = (
        existing_file(settings.scorer_model_path, "scorer model file")
        if settings.scorer_model_path
        else None
    )
    found = probe_or_reuse(client, settings, score_on_server=local_scorer is None)
    scorer: TokenScorer
    if local_scorer is not None:
        scorer = LlamaCppTokenScorer(local_scorer, seed=settings.seed)
    elif found.token_scoring == "echo":
        scorer = OpenAICompletionsTokenScorer(client, settings.model_name, prefix=found.bos_prefix)
    else:
        scorer = UnavailableTokenScorer(
            f"the server at {where} gives no usable token log-probs "
            f"({found.findings[-1] if found.findings else 'token_scoring=none'}). Methods that "
            "score tokens need them: set VERILOOP_SCORER_MODEL_PATH to a local GGUF file of "
            "the same (or a similar) model to score locally, or serve the model with an "
            "engine that echoes prompt log-probs (vLLM; llama-cpp-python with "
            "--logits_all true)."
        )
    chat_class = (
        ChatOpenAI if found.max_tokens_param == "max_completion_tokens" else MaxTokensChatOpenAI
    )
    chat_model = chat_class(
        model=settings.model_name,
        base_url=base_url,
        api_key=api_key,  # type: ignore[arg-type]
        temperature=settings.temperature,
        max_completion_tokens=settings.max_tokens,
        seed=settings.seed,
        timeout=settings.request_timeout,
        max_retries=0,  # retries are Models' job, so they are counted and bounded once
    )
    return Models(
        chat_model=chat_model,
        chat_name=f"openai:{settings.model_name}",
        scorer=scorer,
        embedder=_embedder(settings),
        max_retries=settings.max_retries,
        cache_dir=settings.cache_dir,
        serialize_chat=False,
        structured_mode=structured_mode_for(found.structured_output),
        endpoint=where,
        api_key_env=settings.api_key_env,
        capabilities=found,
        demote_structured=settings.structured_output == "auto",
    )


PROBE_CACHE = "capabilities.json"
"""File in `cache_dir` that keeps probe results per (server, model, capability settings)."""


def probe_or_reuse(
    client: Any, settings: ModelSettings, *, score_on_server: bool = True
) -> Capabilities:
    """Probe the served model, or reuse this cache's earlier probe of it.

    With a `cache_dir`, results are kept in `PROBE_CACHE` under a key of the server URL,
    the model and the capability settings. A kept result is reused only after one request
    re-checks its echo alignment (`recheck_scoring`), because that is the finding that
    would make scores silently wrong if the server had changed; a kept "no token scores"
    is probed afresh. Structured output and the generation limit are taken as kept: a
    rejection at run time still moves structured output down the chain.

    Raises:
        ModelUnavailableError: As `probe`.
    """
    if not settings.cache_dir:
        return probe(client, settings, score_on_server=score_on_server)
    path = Path(settings.cache_dir).expanduser() / PROBE_CACHE
    key = " | ".join(
        [
            served_endpoint(settings),
            settings.model_name,
            f"structured_output={settings.structured_output}",
            f"token_scoring={settings.token_scoring}",
            f"max_tokens_param={settings.max_tokens_param}",
            "scores on server" if score_on_server else "scores locally",
        ]
    )
    kept = _read_probes(path)
    entry = kept.get(key)
    if isinstance(entry, dict):
        reused = _reuse(client, settings, entry, score_on_server=score_on_server, path=path)
        if reused is not None:
            return reused
    found = probe(client, settings, score_on_server=score_on_server)
    kept[key] = {"probed_at": time.strftime("%Y-%m-%d %H:%M:%S"), **found.to_json()}
    try:
        write_json_atomically(path, kept)
    except OSError:
        pass  # an unwritable cache costs a probe next time, nothing else
    return found


def _read_probes(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _reuse(
    client: Any,
    settings: ModelSettings,
    entry: dict[str, Any],
    *,
    score_on_server: bool,
    path: Path,
) -> Capabilities | None:
    """Return the kept capabilities if they still hold, else None (probe again)."""
    try:
        kept = Capabilities.from_json(entry)
    except (KeyError, ValueError):
        return None
    note = f"probe of {entry.get('probed_at', 'an earlier run')} reused from {path}"
    if score_on_server and kept.token_scoring == "none" and settings.token_scoring != "none":
        return None
    if score_on_server and kept.token_scoring == "echo":
        with _probing(settings):
            aligned, finding = recheck_scoring(_echo_scorers(client, settings), kept.bos_prefix)
        if not aligned:
            return None
        note += f"; {finding}"
    return dataclasses.replace(kept, findings=(*kept.findings, note))


def served_endpoint(settings: ModelSettings) -> str:
    """Name where the served model lives, for keys and messages."""
    return settings.base_url or "the OpenAI API"


def _echo_scorers(client: Any, settings: ModelSettings) -> Callable[[str], TokenScorer]:
    """Return a factory of echo scorers on `client`, one per prompt prefix (for probes)."""
    return lambda prefix: OpenAICompletionsTokenScorer(client, settings.model_name, prefix=prefix)


@contextmanager
def _probing(settings: ModelSettings) -> Iterator[None]:
    """Turn a server or transport failure during probing into one clear error.

    Raises:
        ModelUnavailableError: The probe could not reach or use the server.
    """
    try:
        yield
    except Exception as exc:
        if failure_kind(exc) is None:  # includes our own ModelUnavailableError
            raise
        raise unreachable(exc, served_endpoint(settings), settings.api_key_env) from exc


def probe(client: Any, settings: ModelSettings, *, score_on_server: bool = True) -> Capabilities:
    """Find out (or take from settings) what the served model supports.

    Raises:
        ModelUnavailableError: The server cannot be reached, refuses the credentials, has
            no such model, or `token_scoring=echo` was set and the echo is unusable.
    """
    findings: list[str] = []
    with _probing(settings):
        if settings.max_tokens_param == "auto":
            limit, finding = probe_max_tokens(client, settings.model_name)
            findings.append(finding)
        else:
            limit = settings.max_tokens_param
            findings.append(f"generation limit set: {limit}")
        if settings.structured_output == "auto":
            structured, found = probe_structured(
                client, settings.model_name, limit, STRUCTURED_CHAIN
            )
            findings.extend(found)
        else:
            structured = settings.structured_output
            findings.append(f"structured output set: {structured}")
        prefix: str | None = None
        if not score_on_server:
            findings.append("token scores: local scorer model (scorer_model_path)")
        elif settings.token_scoring == "none":
            findings.append("token scores: off (token_scoring=none)")
        else:
            prefix, found = probe_scoring(_echo_scorers(client, settings), BOS_CANDIDATES)
            findings.extend(found)
            if prefix is None and settings.token_scoring == "echo":
                raise ModelUnavailableError(
                    f"token_scoring=echo, but the server at {served_endpoint(settings)} "
                    f"gives no usable echoed log-probs: {found[-1]}. Set "
                    "VERILOOP_TOKEN_SCORING=auto to run without them, or "
                    "VERILOOP_SCORER_MODEL_PATH to score locally."
                )
    return Capabilities(
        structured_output=structured,
        token_scoring="echo" if prefix is not None else "none",
        max_tokens_param=limit,
        bos_prefix=prefix or "",
        findings=tuple(findings),
    )


register_backend("embedded", build_embedded)
register_backend("openai", build_openai)
