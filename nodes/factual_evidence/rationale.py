"""Factual Evidence's rationale: reply shapes, labels and helpers for the graph's agents.

The rationale generator and refiner reply with one JSON object whose keys are exactly the
context ids they were given (`statements_model`); the verifier replies with a label and a
justification per id plus an overall verdict (`verification_model`); the one-step ablation
replies with both rationale and answer (`direct_model`). On the embedded model these
shapes become llama.cpp grammars, so the keys cannot drift from the ids.
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from typing_extensions import TypedDict

from veriloop.models import ChatTurn, Models
from veriloop.models.structured import ask_structured
from veriloop.trace import Candidate, ModelCall

Label = Literal[
    "CORRECT-EXPLICIT",
    "CORRECT-IMPLICIT",
    "CORRECT-ADDITIONAL_INFO",
    "INCORRECT-FALSE_INFO",
    "INCORRECT-DEVIATING_INFO",
    "INCORRECT-ILLOGICAL",
]
LABELS: tuple[str, ...] = typing.get_args(Label)
Verdict = Literal["CORRECT", "INCORRECT"]
STATEMENT_CHARS = 240
JUSTIFICATION_CHARS = 160
ANSWER_CHARS = 600


class StatementLabel(TypedDict):
    """The verifier's judgement of one rationale statement."""

    label: str
    justification: str


class RationaleVersion(TypedDict):
    """One version of the rationale and, once verified, its labels."""

    version: int
    statements: dict[str, str]
    """Context id -> statement."""
    labels: dict[str, StatementLabel] | None
    verdict: str | None
    """The verifier's overall verdict (CORRECT / INCORRECT) as it gave it."""
    error: str | None


class RationaleItem(TypedDict):
    """A statement of the final rationale with its last label."""

    id: str
    statement: str
    label: str | None
    justification: str | None
    used_in_answer: bool


def keyed_model(name: str, ids: list[str], value: Any) -> type[BaseModel]:
    """Return a model with one required field of type `value` per id (JSON key = the id)."""
    fields: dict[str, Any] = {
        f"f{n}": (value, Field(alias=unit_id)) for n, unit_id in enumerate(ids)
    }
    return create_model(
        name, __config__=ConfigDict(extra="ignore", populate_by_name=True), **fields
    )


def statements_model(ids: list[str]) -> type[BaseModel]:
    """Return the reply model with one statement per id (JSON keys are the ids)."""
    return keyed_model("Statements", ids, Annotated[str, Field(max_length=STATEMENT_CHARS)])


class _Judgement(BaseModel):
    model_config = ConfigDict(extra="ignore")
    label: Label
    justification: str = Field(max_length=JUSTIFICATION_CHARS)


def verification_model(ids: list[str]) -> type[BaseModel]:
    """Return the verifier's reply model: a label per id and the overall verdict."""
    labels = keyed_model("Labels", ids, _Judgement)
    return create_model(
        "Verification",
        __config__=ConfigDict(extra="ignore"),
        labels=(labels, ...),
        verdict=(Verdict, ...),
    )


def direct_model(ids: list[str]) -> type[BaseModel]:
    """Return the one-step ablation's reply model: rationale, answer and citations."""
    cited = Literal[tuple(ids)]  # type: ignore[valid-type]
    return create_model(
        "DirectRationaleAnswer",
        __config__=ConfigDict(extra="ignore"),
        rationale=(statements_model(ids), ...),
        answer=(str, Field(max_length=ANSWER_CHARS)),
        citations=(list[cited], Field(default_factory=list, max_length=len(ids))),  # type: ignore[valid-type]
    )


def format_statements(statements: dict[str, str]) -> str:
    """Render a rationale one statement per line, keyed by id."""
    return "\n".join(f"[{unit_id}] {text}" for unit_id, text in statements.items())


def is_correct(label: str | None) -> bool:
    """Return True for the three CORRECT-* labels."""
    return bool(label) and str(label).startswith("CORRECT")


def incorrect_ids(labels: dict[str, StatementLabel] | None) -> list[str]:
    """Return the ids whose statement was labelled INCORRECT-*."""
    return [i for i, judgement in (labels or {}).items() if not is_correct(judgement["label"])]


def ask_json(
    models: Models, prompt: str, model: type[BaseModel], purpose: str, max_chars: int
) -> tuple[dict[str, Any] | None, list[ModelCall], str | None]:
    """Ask for a reply shaped like `model`; return it as a dict keyed by alias, or None."""
    reply = ask_structured(
        models,
        [ChatTurn(role="user", content=prompt)],
        model,
        purpose=purpose,
        max_string_length=max_chars,
    )
    value = None if reply.value is None else reply.value.model_dump(by_alias=True)
    return value, list(reply.calls), reply.error


def rationale_candidate(version: RationaleVersion, round_: int) -> Candidate:
    """Return a verified rationale version as a trace candidate (score: share CORRECT).

    The text holds every statement with its label and justification, so the trace alone
    shows each rationale version and how it was judged.
    """
    labels = version["labels"]
    share = (
        None
        if not labels
        else sum(is_correct(j["label"]) for j in labels.values()) / max(1, len(labels))
    )
    return Candidate(
        stage="rationale",
        round=0,
        iteration=round_,
        text="\n".join(
            f"[{unit_id}] {statement}"
            + (
                f" => {labels[unit_id]['label']}: {labels[unit_id]['justification']}"
                if labels and unit_id in labels
                else ""
            )
            for unit_id, statement in version["statements"].items()
        ),
        scores={"correct_share": share},
        thresholds={"correct_share": 1.0},
        passed=share == 1.0,
        error=version["error"],
    )


def verification_labels(
    value: dict[str, Any] | None, ids: list[str]
) -> tuple[dict[str, StatementLabel] | None, Verdict | None]:
    """Return the verifier's label per statement id and its verdict (None, None: unusable).

    Args:
        value: The verifier's reply as `ask_json` returns it (shaped by
            `verification_model(ids)`), or None when it was unusable.
        ids: The statement ids that were verified.
    """
    if value is None:
        return None, None
    labels = {
        i: StatementLabel(
            label=value["labels"][i]["label"],
            justification=" ".join(value["labels"][i]["justification"].split()),
        )
        for i in ids
    }
    return labels, value["verdict"]
