"""Multiple-choice items: validate options, show them to a model, constrain and score picks.

A method sees a multiple-choice item as its question followed by the lettered options
(the `multiple_choice_question` prompt). The pick is constrained to the option labels by a
JSON-schema enum (a llama.cpp grammar on the embedded model), so a 135M model cannot answer
with a label that does not exist. For TruthfulQA's standard MC2 each option's text is also
scored: its total log-prob as the continuation of the method's final prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from veriloop.context import MethodSettings
from veriloop.errors import InvalidInputError
from veriloop.models import Models, ScoreError
from veriloop.prompts import render
from veriloop.trace import ModelCall


@dataclass(kw_only=True)
class ChoiceSettings(MethodSettings):
    """Method settings plus what every multiple-choice method accepts."""

    score_options: bool = field(
        default=True,
        metadata={
            "description": "Multiple-choice items: score each option's log-prob under the "
            "method's final prompt (standard MC2) when the question is answered."
        },
    )


MAX_OPTIONS = 26


def check_options(options: object) -> dict[str, str] | None:
    """Return options as label -> text, or None for a free-text question.

    Raises:
        InvalidInputError: Not a mapping of non-empty labels to non-empty texts, or fewer
            than two options.
    """
    if options is None:
        return None
    if not isinstance(options, dict):
        raise InvalidInputError(
            f"options must map labels to texts (e.g. {{'A': '...', 'B': '...'}}), got "
            f"{type(options).__name__}"
        )
    cleaned: dict[str, str] = {}
    for label, text in options.items():
        if not isinstance(label, str) or not label.strip():
            raise InvalidInputError(f"option label {label!r} must be non-empty text")
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError(f"option {label!r} has no text")
        cleaned[label.strip()] = " ".join(text.split())
    if not 2 <= len(cleaned) <= MAX_OPTIONS:
        raise InvalidInputError(
            f"a multiple-choice item needs 2 to {MAX_OPTIONS} options, got {len(cleaned)}"
        )
    return cleaned


def question_text(
    question: str, options: dict[str, str] | None, overrides: dict[str, str] | None = None
) -> str:
    """Return the question as a model sees it: with its lettered options when it has some."""
    if not options:
        return question
    listed = "\n".join(f"{label}. {text}" for label, text in options.items())
    return render("multiple_choice_question", overrides, question=question, options=listed)


def answer_type(options: dict[str, str] | None, *, nullable: bool) -> Any:
    """Return the type of an `answer` field: free text, or one of the option labels."""
    kind: Any = str if not options else Literal[tuple(options)]
    return kind | None if nullable else kind


def choice_reply_model(options: dict[str, str]) -> type[BaseModel]:
    """Return a reply model whose only field `answer` must be one of the option labels."""
    model: type[BaseModel] = create_model(
        "ChosenOption",
        __config__=ConfigDict(extra="ignore"),
        answer=(answer_type(options, nullable=False), Field(...)),
    )
    return model


def score_options(
    models: Models, prompt: str, options: dict[str, str], *, purpose: str = "option_score"
) -> tuple[dict[str, float] | None, list[ModelCall], str | None]:
    """Return each option's total log-prob as the reply to `prompt` (MC2's input).

    Returns:
        Scores by label (None if any option could not be scored), the calls made, and the
        reason scoring failed, if it did.
    """
    scores: dict[str, float] = {}
    calls: list[ModelCall] = []
    for label, text in options.items():
        try:
            scored = models.score(prompt, text, purpose=purpose)
        except ScoreError as exc:
            return None, calls, f"option {label} could not be scored: {exc}"
        calls.append(scored.call)
        scores[label] = round(float(sum(scored.logprobs.logprobs)), 4)
    return scores, calls, None
