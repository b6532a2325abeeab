"""pytest helpers: fail a test when an answer says what its sources do not.

    from veriloop.testing import assert_grounded

    def test_my_rag_answer():
        answer, contexts = my_pipeline("What are warfarin's side effects?")
        assert_grounded(answer, contexts, question="What are warfarin's side effects?")

The check is `veriloop.check` on one row: each answer sentence judged against the sources
by the three-way judge, offline. A failing test lists every contradicted or unsupported
sentence with its P(supported) and what the closest source sentence says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def grounding_failures(result: dict[str, Any]) -> list[str]:
    """Return one line per claim of a `veriloop.check` result that its sources do not back."""
    lines = []
    for claim in result.get("claims", []):
        if claim.get("verdict") == "supported":
            continue
        p = claim.get("p_supported")
        said = claim.get("evidence_sentence") or claim.get("evidence_span") or ""
        where = claim.get("evidence_index")
        line = (
            f"- {claim.get('verdict') or 'not judged'} (P supported "
            f"{'n/a' if p is None else f'{p:.2f}'}): {claim['claim']}"
        )
        if said:
            line += f'\n    checked against source {"?" if where is None else where + 1}: "{said}"'
        for mismatch in claim.get("mismatches", []):
            line += f"\n    mismatch: {mismatch.get('reason')}"
        if claim.get("error"):
            line += f"\n    not judged: {claim['error']}"
        lines.append(line)
    return lines


def assert_grounded(
    answer: str,
    sources: Sequence[str],
    *,
    question: str = "",
    allow_unsupported: int = 0,
    **settings: Any,
) -> dict[str, Any]:
    """Fail (AssertionError) unless every sentence of `answer` is backed by `sources`.

    Args:
        answer: The answer to check.
        sources: The texts it should rest on (your retriever's contexts); one text is one
            source.
        question: The question it answers (it never enters the judge's hypothesis: only a
            bare answer such as "1897" is read after it).
        allow_unsupported: Unsupported sentences tolerated (a contradicted one never is).
        **settings: Factored Verification settings for `veriloop.check`, e.g.
            `supported_at=0.6`.

    Returns:
        The check's result (verdict, claims), when the answer passes.

    Raises:
        InvalidInputError: The answer is not text or the sources are not texts.
        AssertionError: A sentence is contradicted, more than `allow_unsupported` are
            unsupported, or the answer could not be checked; the message lists each with
            the evidence it was checked against.
    """
    from veriloop.api import check
    from veriloop.errors import InvalidInputError

    if not isinstance(answer, str):
        raise InvalidInputError(f"the answer must be text, got {type(answer).__name__}")
    if isinstance(sources, str):
        sources = [sources]  # one text is one source, never one source per character
    if sources is None or not isinstance(sources, Sequence):
        raise InvalidInputError(
            f"sources must be a list of texts (or one text), got {type(sources).__name__}"
        )
    results: list[dict[str, Any]] = check(
        [{"id": "answer", "question": question, "answer": answer, "sources": list(sources)}],
        **settings,
    )
    result = results[0]
    if result.get("error"):
        raise AssertionError(f"the answer could not be checked: {result['error']}")
    claims = result.get("claims", [])
    contradicted = sum(c.get("verdict") == "contradicted" for c in claims)
    unbacked = sum(c.get("verdict") != "supported" for c in claims) - contradicted
    if not claims:
        raise AssertionError("the answer holds no sentence that could be checked")
    if contradicted or unbacked > allow_unsupported:
        raise AssertionError(
            f"{contradicted} contradicted and {unbacked} unsupported of {len(claims)} "
            f"sentence(s) (allowed unsupported: {allow_unsupported}):\n"
            + "\n".join(grounding_failures(result))
        )
    return result
