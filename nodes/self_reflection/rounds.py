"""Self-Reflection's rounds: candidates, the one each loop kept, and each turn's prompt.

The graph keeps every scored draft as a `Candidate` (stage "knowledge", "answer" or
"round") and every closed loop as a `LoopStop`; these helpers read them back. The prompt
builders return the conversation to continue, the user turn and the text the echo guard
must not see copied back (the instruction, never the quoted knowledge or question).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veriloop.knowledge.sources import SourcePassage
from veriloop.models import ChatTurn
from veriloop.nodes.grounding import instructions_of, numbered_passages
from veriloop.nodes.self_reflection.loops import close_loop, format_score, passes
from veriloop.prompts import load_prompt, render
from veriloop.trace import Candidate, LoopStop


def weights_problem(weights: list[float]) -> str | None:
    """Return why consistency weights are unusable (not two, negative, all zero), or None."""
    if len(weights) != 2:
        return f"{list(weights)} must hold two weights (forward, backward)"
    if any(weight < 0 for weight in weights) or sum(weights) == 0:
        return f"{list(weights)} must be non-negative and not both zero"
    return None


def this_round(candidates: Sequence[Candidate], stage: str, round_index: int) -> list[Candidate]:
    """Return the `stage` candidates of round `round_index`, in order."""
    return [c for c in candidates if c["stage"] == stage and c["round"] == round_index]


def chosen(
    candidates: Sequence[Candidate], stops: Sequence[LoopStop], stage: str, round_index: int
) -> Candidate | None:
    """Return the candidate the `stage` loop of `round_index` kept (per its LoopStop)."""
    stop = next((s for s in stops if s["loop"] == stage and s["round"] == round_index), None)
    if stop is None:
        return None
    return next(
        (
            c
            for c in this_round(candidates, stage, round_index)
            if c["iteration"] == stop["chosen_iteration"]
        ),
        None,
    )


def loop_candidate(
    stage: str,
    round_index: int,
    iteration: int,
    text: str,
    scores: dict[str, float | None],
    thresholds: dict[str, float],
    error: str | None,
) -> Candidate:
    """Return a scored draft as a candidate; it passes when every score meets its threshold."""
    return Candidate(
        stage=stage,
        round=round_index,
        iteration=iteration,
        text=text,
        scores=scores,
        thresholds=thresholds,
        passed=all(passes(scores.get(name), limit) for name, limit in thresholds.items()),
        error=error,
    )


@dataclass(frozen=True)
class Turn:
    """The next user turn of a loop's conversation."""

    conversation: list[ChatTurn]
    """The conversation it continues (empty for a loop's first generation)."""
    user_text: str
    guard: str
    """The instruction text the echo guard watches for (no quoted knowledge or question)."""


@dataclass(frozen=True)
class Feedback:
    """How a loop asks for a refinement: the threshold it names and the ablation's wording."""

    threshold: float
    variant: str
    """The feedback template's suffix ("", "_no_aspect", "_no_number")."""
    overrides: dict[str, str]
    """The Context's prompt overrides."""

    def text(self, loop: str, score_name: str, last: Candidate) -> str:
        """Return the feedback turn on `last`, the loop's last scored draft."""
        return render(
            f"self_reflection_{loop}_feedback{self.variant}",
            self.overrides,
            score=format_score(last["scores"][score_name]),
            threshold=self.threshold,
        )


def knowledge_turn(
    question: str,
    sources: Sequence[SourcePassage],
    conversation: list[ChatTurn],
    last: Candidate | None,
    feedback: Feedback,
) -> Turn:
    """Return the knowledge generator's turn: first (from the sources when grounded) or feedback.

    Args:
        question: The question.
        sources: The passages to copy from (grounded); empty: closed-book.
        conversation: The loop's conversation so far.
        last: The round's last knowledge candidate (None: the loop's first generation).
        feedback: The factuality threshold and the ablation's wording.
    """
    overrides = feedback.overrides
    if last is None and sources:
        name = "self_reflection_knowledge_grounded"
        text = render(name, overrides, passages=numbered_passages(sources), question=question)
        return Turn([], text, instructions_of(load_prompt(name, overrides)))
    if last is None:
        text = render("self_reflection_knowledge", overrides, question=question)
        return Turn([], text, text.replace(question, ""))
    text = feedback.text("knowledge", "factuality", last)
    return Turn(conversation, text, text.replace(question, ""))


def answer_turn(
    question: str,
    knowledge: str,
    conversation: list[ChatTurn],
    last: Candidate | None,
    feedback: Feedback,
) -> Turn:
    """Return the answer generator's turn: first (from the knowledge) or feedback.

    The knowledge is quoted in the prompt on purpose; only the instruction is guarded.
    """
    if last is None:
        conversation = []
        text = render(
            "self_reflection_answer", feedback.overrides, knowledge=knowledge, question=question
        )
    else:
        text = feedback.text("answer", "consistency", last)
    return Turn(conversation, text, text.replace(knowledge, "").replace(question, ""))


def close_rounds(
    candidates: Sequence[Candidate],
    stops: Sequence[LoopStop],
    round_index: int,
    *,
    single_pass: bool,
) -> tuple[Candidate | None, Candidate | None, LoopStop]:
    """Close the outer loop: the passing or best-entailed round and its knowledge.

    Returns:
        The round kept (None when no round gave a usable answer), the knowledge that round
        kept, and the entailment loop's stop.
    """
    rounds = [c for c in candidates if c["stage"] == "round"]
    best, stop = close_loop(
        rounds,
        loop="entailment",
        round_index=round_index,
        score_name="entailment",
        single_pass=single_pass,
    )
    if best is None or stop["reason"] == "no_usable_output":
        return None, None, stop
    return best, chosen(candidates, stops, "knowledge", best["round"]), stop
