"""Structured replies from small models: constrain, parse leniently, re-ask once.

On the embedded model the reply is constrained by a llama.cpp grammar built from the JSON
schema; string fields get a `maxLength`, without which a 135M model tends to run a string
on until the token limit and never close the object (measured on SmolLM2-135M: 8/8 valid
replies with schema + maxLength, 3/5 with the schema alone, 0/5 by prompt alone). Other
backends get the schema as OpenAI `response_format`. Whatever comes back is parsed
leniently (the first JSON object in the text); if it still does not validate, the model
is asked once more with the validation error, and a second failure is returned as a
recorded failure (`value` None, `error` set) for the caller's documented fallback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from veriloop.models.calls import ChatTurn
from veriloop.models.gateway import Models
from veriloop.text import first_json_value
from veriloop.trace import ModelCall

M = TypeVar("M", bound=BaseModel)

DEFAULT_MAX_STRING_LENGTH = 400
REASK_TEMPLATE = (
    "Your reply could not be used: {error}. Reply again with only one JSON object that "
    "matches the requested fields."
)


@dataclass
class StructuredReply(Generic[M]):
    """A parsed reply (None when both attempts failed), the raw texts, and the calls."""

    value: M | None
    raw: list[str] = field(default_factory=list)
    error: str | None = None
    calls: list[ModelCall] = field(default_factory=list)


def bounded_schema(model: type[BaseModel], max_string_length: int) -> dict[str, Any]:
    """Return the model's JSON schema with a `maxLength` on every unbounded string."""
    schema = model.model_json_schema()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "string" and "maxLength" not in node and "enum" not in node:
                node["maxLength"] = max_string_length
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema)
    return schema


def parse_lenient(text: str, model: type[M]) -> M:
    """Parse the first JSON object in `text` into `model`.

    Raises:
        ValueError: No JSON object is found, or it does not validate (message says why).
    """
    data = first_json_value(text)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'object'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ValueError(f"the JSON does not match the fields ({problems})") from exc


def ask_structured(
    models: Models,
    turns: list[ChatTurn],
    model: type[M],
    *,
    purpose: str,
    max_string_length: int = DEFAULT_MAX_STRING_LENGTH,
    seed: int | None = None,
) -> StructuredReply[M]:
    """Ask for a reply shaped like `model`; re-ask once with the error if it does not parse.

    `seed` (None: the model's configured seed) varies the sampling of repeated requests.
    """
    schema = bounded_schema(model, max_string_length)
    result: StructuredReply[M] = StructuredReply(value=None)
    conversation = list(turns)
    for attempt in range(2):
        reply = models.chat(conversation, purpose=purpose, json_schema=schema, seed=seed)
        result.raw.append(reply.text)
        result.calls.append(reply.call)
        try:
            result.value = parse_lenient(reply.text, model)
            result.error = None
            return result
        except ValueError as exc:
            result.error = f"attempt {attempt + 1}: {exc}"
            conversation = [
                *conversation,
                ChatTurn(role="assistant", content=reply.text),
                ChatTurn(role="user", content=REASK_TEMPLATE.format(error=exc)),
            ]
    return result
