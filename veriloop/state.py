"""The input and output every method graph shares, so methods compare and chain.

Every graph takes `{"question": ...}` and returns the question, the answer (None when the
method produced nothing usable or refused), the knowledge or evidence text it rests on,
why it stopped, and the trace.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriloop.trace import StopReason, Trace


@dataclass
class InputState:
    """What a caller provides."""

    question: str


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
    trace: Trace | None = None
