"""Checks on what a user hands a graph."""

from __future__ import annotations

from veriloop.errors import InvalidInputError


def check_question(question: object, *, max_chars: int) -> str:
    """Return the question with surrounding whitespace removed, or raise a clear error.

    Raises:
        InvalidInputError: The question is not text, is empty or blank, or is too long.
    """
    if not isinstance(question, str):
        raise InvalidInputError(
            f"the question must be text, got {type(question).__name__}; pass a string"
        )
    cleaned = question.strip()
    if not cleaned:
        raise InvalidInputError("the question is empty; pass a non-blank question")
    if len(cleaned) > max_chars:
        raise InvalidInputError(
            f"the question is {len(cleaned)} characters, more than the limit of {max_chars}; "
            "shorten it or raise max_question_chars (VERILOOP_MAX_QUESTION_CHARS)"
        )
    return cleaned
