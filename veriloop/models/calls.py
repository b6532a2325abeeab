"""What a model call takes and gives back: chat turns, replies, scores, failures.

Plain data shared by the gateway (`gateway.Models`), the nodes that call it and the prompt
templates: a conversation as `ChatTurn`s (they live in graph state), a reply or a score with
the `ModelCall` record of its call, the two ways a call fails for its input, and the record
of such a failed call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from typing_extensions import TypedDict

from veriloop.models.token_scoring import TokenLogprobs
from veriloop.trace import ModelCall


class ChatTurn(TypedDict):
    """One message of a conversation, as plain data (it lives in graph state)."""

    role: Literal["system", "user", "assistant"]
    content: str


class ChatFailure(Exception):
    """A chat call failed for this input (not the server): the reply is unusable."""


class RejectedRequest(Exception):
    """A served model refused a request deterministically (retrying would not help)."""


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


def to_messages(turns: list[ChatTurn]) -> list[BaseMessage]:
    """Convert plain chat turns to LangChain messages."""
    kinds: dict[str, type[BaseMessage]] = {
        "system": SystemMessage,
        "user": HumanMessage,
        "assistant": AIMessage,
    }
    return [kinds[turn["role"]](content=turn["content"]) for turn in turns]


def message_text(message: BaseMessage) -> str:
    """Return a LangChain message's text (the text parts of a multi-part content joined)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") if isinstance(part, dict) else str(part) for part in content
    )


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
    "RejectedRequest",
    "ScoredText",
    "failed_call",
    "message_text",
    "to_messages",
]
