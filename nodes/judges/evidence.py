"""Evidence handling shared by the judges: clipping, sentence windows, the best window."""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.nodes.claims import word_coverage
from veriloop.nodes.judges.protocol import (
    SupportQuery,
    SupportVerdict,
    unusable,
)
from veriloop.text import split_sentences


def clip(text: str, max_chars: int) -> str:
    """Return `text` on one line, cut at a word boundary to at most `max_chars` characters."""
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[:max_chars].rsplit(" ", 1)[0]


def evidence_pairs(queries: Sequence[SupportQuery], max_chars: int) -> list[tuple[int, int, str]]:
    """Return (query index, evidence index, clipped text) for every non-empty evidence text."""
    return [
        (q_index, e_index, clip(text, max_chars))
        for q_index, query in enumerate(queries)
        for e_index, text in enumerate(query.evidence)
        if text.strip()
    ]


def evidence_windows(text: str, window_chars: int) -> list[str]:
    """Split `text` into windows of whole sentences of about `window_chars` characters.

    Consecutive windows share one sentence, so a claim drawn from two neighbouring
    sentences is read together; a text no longer than `window_chars` is one window, and a
    single sentence longer than it is its own window.
    """
    if len(text) <= window_chars:
        return [text]
    sentences = split_sentences(text)
    windows: list[str] = []
    start = 0
    while start < len(sentences):
        end, size = start, 0
        while end < len(sentences) and (end == start or size + len(sentences[end]) <= window_chars):
            size += len(sentences[end]) + 1
            end += 1
        windows.append(" ".join(sentences[start:end]))
        if end >= len(sentences):
            break
        start = max(start + 1, end - 1)
    return windows


def windowed_pairs(
    queries: Sequence[SupportQuery], max_chars: int, window_chars: int
) -> list[tuple[int, int, str]]:
    """Return (query index, evidence index, window) for every window of every evidence text.

    Evidence is clipped to `max_chars` (`evidence_pairs`), then read in `evidence_windows`.
    """
    return [
        (q_index, e_index, window)
        for q_index, e_index, text in evidence_pairs(queries, max_chars)
        for window in evidence_windows(text, window_chars)
    ]


def best_per_query(
    count: int,
    pairs: Sequence[tuple[int, int, str]],
    scored: Sequence[tuple[float, dict[str, float]]],
) -> list[SupportVerdict]:
    """Keep, per query, the evidence with the highest probability (and its scores)."""
    verdicts: list[SupportVerdict] = [unusable("no evidence") for _ in range(count)]
    for (q_index, e_index, text), (p, scores) in zip(pairs, scored, strict=True):
        current = verdicts[q_index]["probability"]
        if current is None or p > current:
            verdicts[q_index] = SupportVerdict(
                probability=round(p, 6),
                evidence_index=e_index,
                evidence_span=text,
                scores=scores,
                error=None,
            )
    return verdicts


def content_coverage(claim: str, evidence: str) -> float | None:
    """Return the share of the claim's content words that the evidence holds.

    Words are lower-cased, stop words removed and Snowball-stemmed (the BM25 tokeniser);
    None when the claim has no content word.
    """
    claim_words, evidence_words = lexical_tokens([claim, evidence])
    return word_coverage(set(claim_words), set(evidence_words))
