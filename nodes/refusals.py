"""The grounded default's records of what it retrieved, and why it refused, in words.

A hard refusal (before any model call): the source has no page about the question's
subject, returned nothing, or nothing it returned reaches `relevant_at`. A soft refusal
(after the check): no sentence of the answer is both backed by the passages and about the
question. The retrieval record says how many candidates were found, how many were dropped
and why (a neighbouring condition, off the subject), and which passages were kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.nodes.grounding import CheckedSentence, Retrieved, off_question
from veriloop.trace import Candidate


def retrieval_record(got: Retrieved, relevant_at: float) -> Candidate:
    """Return the retrieval's trace record: found, dropped and why, kept (with relevance).

    It passes when the best passage's relevance reaches `relevant_at`.
    """
    best = got.best_relevance
    subject = got.subject
    uncovered = subject.uncovered.text if subject and subject.uncovered else None
    notes = [f"{got.found} candidates from {got.source}"]
    if got.off_focus:
        notes[0] += f" ({got.off_focus} about a neighbouring condition, dropped)"
    if subject and subject.dropped:
        notes.append(f"{subject.dropped} off the question's subject, dropped")
    if uncovered:
        notes.append(f"no page about {uncovered!r}")
    if subject and subject.fell_back:
        notes.append("pages on the subject below relevant_at, all kept")
    notes.append("kept " + ", ".join(f"{p['id']} ({p['relevance']:.2f})" for p in got.ranked))
    return Candidate(
        stage="retrieval",
        round=0,
        iteration=0,
        text="; ".join(notes),
        scores={"best_relevance": best},
        thresholds={"best_relevance": relevant_at},
        passed=best is not None and best >= relevant_at,
        error=None,
    )


def hard_refusal_detail(
    no_page_about: str | None,
    nearest_pages: Sequence[str],
    best_relevance: float | None,
    relevant_at: float,
) -> str:
    """Say why nothing retrieved can answer: no page on the subject, nothing, or too far."""
    if no_page_about:
        return (
            f"the source has no page about {no_page_about!r} (the pages retrieved are about "
            f"{', '.join(nearest_pages)})"
        )
    if best_relevance is None:
        return "the source returned no passage for the question"
    return (
        f"the best passage's relevance {best_relevance:.2f} is below relevant_at = "
        f"{relevant_at}: nothing retrieved is about the question"
    )


def soft_refusal_detail(sentences: Sequence[CheckedSentence], relevant_sentence_at: float) -> str:
    """Say why no sentence was kept: how many were not backed, and how many off the question."""
    off = sum(off_question(s) for s in sentences)
    if not off:
        return (
            f"none of the answer's {len(sentences)} sentences is backed by the retrieved passages"
        )
    return (
        f"none of the answer's {len(sentences)} sentences is both backed by the retrieved "
        f"passages and about the question: {off} backed but off the question (relevance < "
        f"relevant_sentence_at = {relevant_sentence_at}), {len(sentences) - off} not backed"
    )
