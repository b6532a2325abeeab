"""The grounded default's records of what it retrieved, and why it refused, in words.

A hard refusal (before any model call): the source has no page about the question's
subject, returned nothing, or nothing it returned reaches `relevant_at`. A soft refusal
(after the check): no sentence of the answer is both backed by the passages and about the
question. The retrieval record says how many candidates were found, how many were dropped
and why (a neighbouring condition, off the subject), and which passages were kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.sources import SourcePassage
from veriloop.nodes.grounding import CheckedSentence, Retrieved, off_question
from veriloop.trace import Candidate


def _names(titles: Sequence[str], most: int = 4) -> str:
    shown = ", ".join(titles[:most])
    return shown + (f" and {len(titles) - most} more" if len(titles) > most else "")


def found_note(got: Retrieved) -> str:
    """Say what retrieval found, what it set aside and why, and what it kept."""
    subject = got.subject
    uncovered = subject.uncovered.text if subject and subject.uncovered else None
    notes = [f"{got.found} candidates from {got.source}"]
    if got.off_focus:
        notes[0] += f" ({got.off_focus} about a neighbouring condition, dropped)"
    if subject and subject.dropped:
        notes.append(f"{subject.dropped} off the question's subject, dropped")
    if got.set_aside:
        notes.append(f"set aside: {_names(got.set_aside)}")
    if uncovered:
        notes.append(f"no page about {uncovered!r}")
    if got.asked and got.typed is not None:
        have = "passages of that type kept" if got.typed else "no passage of that type"
        notes.append(f"asked: {got.asked} ({have})")
    kept = ", ".join(f"{p['id']} {p['title']!r} ({p['relevance']:.2f})" for p in got.ranked)
    notes.append(f"kept {kept or 'none'}")
    return "; ".join(notes)


def retrieval_record(got: Retrieved, relevant_at: float) -> Candidate:
    """Return the retrieval's trace record: found, set aside and why, kept (with relevance).

    It passes when the best passage's relevance reaches `relevant_at` (the gate the
    caller chose: the one for pages on the subject, or the one for any page).
    """
    best = got.best_relevance
    return Candidate(
        stage="retrieval",
        round=0,
        iteration=0,
        text=found_note(got),
        scores={"best_relevance": best},
        thresholds={"best_relevance": relevant_at},
        passed=best is not None and best >= relevant_at,
        error=None,
    )


def part_retrieval_record(
    iteration: int, number: int, part: str, qtype: str, got: Retrieved, relevant_at: float
) -> Candidate:
    """Return the trace record of the search for a question's other part (`retrieve_parts`).

    `iteration`: the search's place after the first (0); `number`: the part's place among
    the message's parts, which its text names.
    """
    record = retrieval_record(got, relevant_at)
    return {
        **record,
        "iteration": iteration,
        "text": f"part {number}, {qtype}: {part!r}: {record['text']}",
    }


def hard_refusal_detail(
    no_page_about: str | None,
    nearest_pages: Sequence[str],
    best_relevance: float | None,
    gate: str,
    found: str = "",
    subject_pages: Sequence[str] = (),
    no_subject: bool = False,
) -> str:
    """Say why nothing retrieved can answer, and what was found and set aside.

    `gate` names the relevance gate and its value ("relevant_at = 0.5"). Never "no
    passage" when passages were found and dropped: `found` (`found_note`) says what they
    were and why they were set aside. `subject_pages`: the pages on the question's subject
    that were kept and were not close enough to the question (no other page answers for
    them). `no_subject`: no page was on the question's subject and the question named
    none the subject rule could read (`Retrieved.no_subject`).
    """
    if no_subject:
        why = (
            "no retrieved page is on the question's subject, and the question names none of "
            "the pages' subjects (answers from other pages were rated bad; "
            "answer_off_subject=true answers from them)"
        )
    elif subject_pages and best_relevance is not None:
        pages = _names(list(dict.fromkeys(subject_pages)))
        why = (
            f"the pages on the question's subject ({pages}) are not close enough to what it "
            f"asks: the best passage's relevance {best_relevance:.2f} is below {gate}"
        )
    elif no_page_about:
        why = (
            f"the source has no page about {no_page_about!r} (the pages retrieved are about "
            f"{', '.join(nearest_pages)})"
        )
    elif best_relevance is None:
        why = (
            "every passage retrieved was set aside as about something else"
            if found and not found.startswith("0 candidates")
            else "the source returned no passage for the question"
        )
    else:
        why = (
            f"the best passage's relevance {best_relevance:.2f} is below {gate}: "
            "nothing retrieved is about the question"
        )
    return f"{why} [{found}]" if found else why


def not_covered_detail(
    source: str,
    subject: str,
    asked: str | Sequence[str],
    other_types: Sequence[str] = (),
    far: Sequence[str] = (),
) -> str:
    """Say that the source has the subject but not what was asked about it.

    Args:
        source: The source's name ("MedQuAD").
        subject: The subject's page name.
        asked: The type, or the types, the source's pages on the subject do not answer.
        other_types: The types those pages do answer (named in parentheses).
        far: Of `asked`, the types the pages do answer, but not close enough to the
            question to quote (their pages fell below the relevance gate): said as such,
            never as "says nothing about".
    """
    from veriloop.nodes.question_type import QUESTION_TYPE_NAMES

    def said(types: Sequence[str]) -> str:
        names = [QUESTION_TYPE_NAMES.get(t, t) for t in dict.fromkeys(types)]
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"

    types = [asked] if isinstance(asked, str) else list(asked)
    nothing = [t for t in types if t not in far]
    distant = [t for t in types if t in far]
    answers = f" (its pages answer: {', '.join(other_types)})" if other_types else ""
    parts = (
        [f"{source} describes {subject} but says nothing about {said(nothing)}{answers}"]
        if nothing
        else []
    )
    if distant:
        parts.append(
            f"{source}'s pages on {subject} say {said(distant)} only in answers not close "
            "enough to this question to quote"
        )
    return "; ".join(parts)


def named_kind_note(
    source: str,
    asked: str | None,
    passages: Sequence[SourcePassage],
    cited: Sequence[str],
    missing: Sequence[str] = (),
    far: Sequence[str] = (),
) -> str | None:
    """Say whose pages an answer quotes when a kind its subject's pages name answered.

    "MedQuAD describes Dementia but says nothing about how it is inherited; for how it is
    inherited, quoted instead: Alzheimer disease, which its pages name ("Many different
    diseases can cause dementia, including Alzheimer's disease and stroke.")". The other
    parts' types the subject's pages do not answer (`missing`, `far`) are said in the same
    first clause, as `not_covered_detail` says them.

    Args:
        source: The source's name ("MedQuAD").
        asked: The question type the subject's own pages do not answer.
        passages: The answer's passages.
        cited: The ids of the passages the answer cites.
        missing: The other parts' types the subject's pages do not answer.
        far: Of those, the types its pages answer too far from the question to quote.

    A treatment's page quoted for a subject whose pages name no treatment
    (`nodes.treating_pages`) is said the same way: "MedQuAD's pages on Menopause name no
    treatment; quoted instead: Hormone Replacement Therapy, whose page says it treats it
    ("Some women take hormone replacement therapy ... to relieve these symptoms.")".

    Returns:
        The note; None when no cited passage is a named kind's (`named_in`,
        `nodes.named_kinds`) or a treatment's (`treats`).
    """
    from veriloop.nodes.question_type import QUESTION_TYPE_NAMES

    treating = [p for p in passages if p.get("treats") and p["id"] in cited]
    if treating:
        subject = page_name(treating[0].get("named_by", "")) or "its subject"
        pages = ", ".join(dict.fromkeys(page_name(p["title"]) for p in treating))
        return (
            f"{source}'s pages on {subject} name no treatment; quoted instead: {pages}, whose "
            f'page says it treats it ("{treating[0]["treats"]}")'
        )
    named = [p for p in passages if p.get("named_in") and p["id"] in cited]
    if not named or not asked:
        return None
    first = named[0]
    subject = page_name(first.get("named_by", "")) or "its subject"
    kinds = ", ".join(dict.fromkeys(page_name(p["title"]) for p in named))
    said = not_covered_detail(source, subject, [asked, *missing], far=far)
    instead = QUESTION_TYPE_NAMES.get(asked, asked)
    return (
        f"{said}; for {instead}, quoted instead: {kinds}, which its pages name "
        f'("{first["named_in"]}")'
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
