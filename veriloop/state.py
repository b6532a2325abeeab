"""The input and output every method graph shares, so methods compare and chain.

Every graph takes `{"question": ...}` (plus `options` for a multiple-choice item) and
returns the question, the answer (None when the method produced nothing usable or refused),
the knowledge or evidence text it rests on, why it stopped, the refusal when it refused,
the chosen option for a multiple-choice item, and the trace.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated

from veriloop.trace import Candidate, ModelCall, Refusal, StopReason, Trace


@dataclass
class InputState:
    """What a caller provides."""

    question: str
    options: dict[str, str] | None = None
    """Multiple-choice options, label -> text; the method then picks one label."""


@dataclass
class OutputState:
    """What a caller gets back, from any method."""

    question: str
    answer: str | None = None
    """The final answer; None when no usable answer was produced (or the method refused)."""
    knowledge: str | None = None
    """The background knowledge or evidence the answer was generated from, if any."""
    stop_reason: StopReason | None = None
    """Why the method stopped (its outermost loop's stop reason)."""
    refusal: Refusal | None = None
    """Set when the method declined to answer: which gate refused, and why."""
    choice: str | None = None
    """Multiple-choice items: the label of the chosen option (None if none was chosen)."""
    option_scores: dict[str, float] | None = None
    """Multiple-choice items: total log-prob of each option's text under the method's final
    prompt (standard TruthfulQA MC2 input), when the method scores options."""
    trace: Trace | None = None


@dataclass(kw_only=True)
class TracedState:
    """What every method's working state records for its trace (mix in after the output).

    `class State(OutputState, TracedState)` gives a graph the two append-only channels every
    node writes to; the fields are keyword-only, so they may follow fields without defaults.
    """

    candidates: Annotated[list[Candidate], operator.add] = field(default_factory=list)
    """Every candidate a loop scored, in order (appended by the scoring nodes)."""
    calls: Annotated[list[ModelCall], operator.add] = field(default_factory=list)
    """Every model call made, in order (appended by the node that made it)."""
