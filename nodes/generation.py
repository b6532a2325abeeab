"""Generation in a running conversation: send one user turn, keep the cleaned reply.

Refinement in Self-Reflection happens in the *same conversation*: the feedback is a new
user turn after the model's previous attempt. Conversations are plain lists of turns so
they live in graph state and survive checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriloop.models import ChatFailure, ChatTurn, Models, failed_call
from veriloop.nodes.hygiene import clean_generation
from veriloop.trace import ModelCall


@dataclass(frozen=True)
class Generated:
    """The outcome of one generation turn."""

    conversation: list[ChatTurn]
    """The conversation including the new user turn and the assistant's raw reply."""
    text: str
    """The cleaned reply ('' when unusable)."""
    error: str | None
    """Why the reply is unusable, when it is."""
    call: ModelCall


def generate_turn(
    models: Models,
    conversation: list[ChatTurn],
    user_text: str,
    *,
    purpose: str,
    echo_guard: list[str],
    restated: list[str] | None = None,
    seed: int | None = None,
) -> Generated:
    """Append `user_text` to `conversation`, ask the chat model, and clean the reply.

    Args:
        models: The model gateway.
        conversation: Turns so far (not modified).
        user_text: The new user turn (a task prompt or feedback).
        purpose: Label for accounting.
        echo_guard: Instruction texts whose echoes are stripped from the reply.
        restated: Texts (the question) a reply sentence may not merely restate.
        seed: Sampling seed for this call (rounds use different seeds so restarts differ).

    Returns:
        The extended conversation and the cleaned reply; a backend rejection or an empty
        reply is returned as an unusable reply with its reason, never raised.
    """
    turns: list[ChatTurn] = [*conversation, ChatTurn(role="user", content=user_text)]
    try:
        reply = models.chat(turns, purpose=purpose, seed=seed)
    except ChatFailure as exc:
        reason = f"the chat model rejected the request: {exc}"
        call = failed_call("chat", purpose, models.chat_name, reason)
        return Generated([*turns, ChatTurn(role="assistant", content="")], "", reason, call)
    text = clean_generation(reply.text, echo_guard, restated or [])
    error = None if text else "the reply was empty once echoed prompt text was removed"
    return Generated(
        [*turns, ChatTurn(role="assistant", content=reply.text)], text, error, reply.call
    )
