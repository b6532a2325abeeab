"""Checks on what a user hands a graph."""

from __future__ import annotations

from typing import Any, Protocol

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.text import has_word, strip_control


def check_question(question: object, *, max_chars: int) -> str:
    """Return the question with surrounding whitespace removed, or raise a clear error.

    Control characters (NUL, escape, ...) are removed first.

    Raises:
        InvalidInputError: The question is not text, is empty or blank, has no letter or
            digit, or is too long.
    """
    if not isinstance(question, str):
        raise InvalidInputError(
            f"the question must be text, got {type(question).__name__}; pass a string"
        )
    cleaned = strip_control(question).strip()
    if not cleaned:
        raise InvalidInputError("the question is empty; pass a non-blank question")
    if not has_word(cleaned):
        raise InvalidInputError(
            f"the question {cleaned[:40]!r} has no letter or digit; pass a question in words"
        )
    if len(cleaned) > max_chars:
        raise InvalidInputError(
            f"the question is {len(cleaned)} characters, more than the limit of {max_chars}; "
            "shorten it or raise max_question_chars (VERILOOP_MAX_QUESTION_CHARS)"
        )
    return cleaned


class AskedState(Protocol):
    """What a method's working state holds of the caller's input."""

    question: str
    options: dict[str, str] | None


def check_input(
    state: AskedState, context: ModelSettings, *, method: str, choices: bool
) -> dict[str, Any]:
    """Return the state update of a method's first node: the checked question (and options).

    Args:
        state: The working state (its `question` and `options` as the caller gave them).
        context: The run's settings (`max_question_chars`).
        method: The method's name, for the message when options are not accepted.
        choices: Whether the method answers multiple-choice items.

    Raises:
        InvalidInputError: An unusable question or option set, or options given to a method
            that answers free text only.
    """
    from veriloop.nodes.choice import check_options  # pydantic and the model stack

    checked: dict[str, Any] = {
        "question": check_question(state.question, max_chars=context.max_question_chars)
    }
    if choices:
        checked["options"] = check_options(state.options)
    elif state.options:
        raise InvalidInputError(
            f"{method} answers free-text questions; this item has options. Use a "
            "multiple-choice method (l2r, rag, direct) or drop the options"
        )
    return checked
