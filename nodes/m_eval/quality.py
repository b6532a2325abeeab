"""M-Eval's quality agent: which of the four quality aspects an article lacks (−0.3 each)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from veriloop.models import ChatTurn, Models
from veriloop.models.structured import ask_structured
from veriloop.nodes.m_eval.reliability import QUALITY_ASPECTS
from veriloop.prompts import render
from veriloop.trace import ModelCall


class QualityReply(BaseModel):
    """The chat model's reply: whether the article shows each quality aspect."""

    model_config = ConfigDict(extra="ignore")
    random_selection: bool
    complete_data: bool
    unbiased_conclusions: bool
    blinding: bool


def lacking_aspects(
    models: Models, article: dict[str, Any], prompt_overrides: dict[str, str]
) -> tuple[list[str], str | None, list[ModelCall]]:
    """Ask the chat model which quality aspects an article lacks.

    Args:
        models: The models of the run (the chat model answers).
        article: The article as `article_to_dict` writes it (title, publication_types,
            abstract).
        prompt_overrides: The Context's prompt overrides.

    Returns:
        The aspects flagged as lacking, the reason when the reply was unusable (nothing is
        flagged then), and the model calls.
    """
    prompt = render(
        "m_eval_quality",
        prompt_overrides,
        title=article["title"] or "(none)",
        publication_types=", ".join(article["publication_types"]) or "(unknown)",
        abstract=article["abstract"],
    )
    reply = ask_structured(
        models, [ChatTurn(role="user", content=prompt)], QualityReply, purpose="quality"
    )
    if reply.value is None:
        return [], reply.error, list(reply.calls)
    return [a for a in QUALITY_ASPECTS if not getattr(reply.value, a)], None, list(reply.calls)
