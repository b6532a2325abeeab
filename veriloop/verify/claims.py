"""One row's claims: read from its answer, judged against its sources, as a result record.

The per-row half of the verify engine (`veriloop.verify.run` is the other): the settings a
batch runs under (`BatchSettings`), the claims of a row (its answer's sentences), the
evidence windows each claim is judged against, Factored Verification's claim tasks, and the
record a row becomes (`row_record`, `failed_record`), with the answer-relevance scores
when asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NotRequired

from veriloop.errors import InvalidInputError
from veriloop.evaluation.html_report import ClaimView
from veriloop.graphs.factored_verification import FactoredVerificationContext
from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.nodes.claim_tasks import ClaimTask, RoundCheck, answer_finding, is_judge_verifier
from veriloop.nodes.claims import (
    MIN_STATEMENT_WORDS,
    Source,
    answer_to,
    bare_claim,
    claim_document,
    claim_sources,
    sources_from,
    statement_claims,
    word_count,
)
from veriloop.nodes.judges import JUDGES, evidence_windows
from veriloop.text import sentence_offsets
from veriloop.verify.rows import Row, RowError

RUN = "verify"
"""The `run` every batch-verification record carries (results.jsonl is shared with bench's
reader)."""

WINDOW_CHARS = 300
"""Candidate evidence windows: about two sentences (the three-way judge reads up to 600
characters at a time; a shorter window is cheaper to read and still holds the sentence a
claim was drawn from and its neighbour)."""

DEFAULT_MAX_WINDOWS = 2
"""Evidence windows each claim is judged against (`candidate_windows`): the judge reads
about 18 windows a second on 2 cores, so a sentence of a long answer read against every
window of three retrieved pages costs a second; 0 reads them all."""

DEFAULT_MAX_CLAIMS = 64
"""Sentences checked per answer unless `max_claims` is set: every sentence of any answer a
RAG pipeline writes (a longer one says how many were left unchecked)."""

RELEVANT_AT = 0.5
"""P(addresses the question) below which a claim counts as off the question (the grounded
default's `relevant_sentence_at`)."""

Verdict = Literal["supported", "hallucinated", "undetermined"]


class CheckedClaim(ClaimView):
    """One answer sentence, judged against the row's sources (the report page's claim)."""

    relevance: NotRequired[float | None]
    """P(the sentence addresses the question), with `relevance` on (None: no question)."""


@dataclass
class BatchSummary:
    """What one call of `check_rows` did."""

    checked: int = 0
    failed: int = 0
    skipped: int = 0
    """Rows already in results.jsonl (finished by an earlier run)."""
    claims: int = 0
    seconds: float = 0.0


@dataclass
class BatchSettings:
    """The verification settings a batch runs under (recorded; a re-run must match)."""

    context: FactoredVerificationContext = field(
        default_factory=lambda: FactoredVerificationContext(max_claims=DEFAULT_MAX_CLAIMS)
    )
    chunk_rows: int = 32
    """Rows whose claims are judged in one batch (and written before the next chunk)."""
    max_windows: int = DEFAULT_MAX_WINDOWS
    """Evidence windows per claim (`candidate_windows`; 0: every window of every source)."""
    relevance: bool = False
    """Also score whether each claim addresses the row's question (`nodes.judges.relevance`)."""

    def recorded(self) -> dict[str, Any]:
        """Return the settings that decide results (for the manifest)."""
        kept = ("verifier", "threshold", "supported_at", "contradicted_at", "max_claims", "backend")
        chosen = {k: v for k, v in asdict(self.context).items() if k in kept}
        return {**chosen, "max_windows": self.max_windows, "relevance": self.relevance}


def check_settings(settings: BatchSettings) -> None:
    """Refuse a verifier the batch cannot run.

    Raises:
        InvalidInputError: The verifier is not a claim-support judge.
    """
    if not is_judge_verifier(settings.context.verifier):
        judges = ", ".join(n for n in JUDGES if is_judge_verifier(n))
        raise InvalidInputError(
            f"batch verification judges claims with a claim-support judge "
            f"({judges}); verifier={settings.context.verifier!r} asks the "
            "model per claim: verify one answer at a time with `veriloop verify answer.json`"
        )


def candidate_windows(
    claim: str, sources: Sequence[Source], max_windows: int
) -> tuple[list[str], list[str]]:
    """Return the claim's evidence: the `max_windows` source windows sharing most of its words.

    Sources are cut into windows of whole sentences of about `WINDOW_CHARS`
    (`evidence_windows`); the windows holding the largest share of the
    claim's content words (stemmed, stop words out) are kept, ties in source order. With no
    more windows than that, or `max_windows` 0, every source is returned whole.

    Returns:
        The windows' texts and, for each, the id of the source it comes from.
    """
    windows = [
        (source["id"], window)
        for source in sources
        for window in evidence_windows(source["text"], WINDOW_CHARS)
    ]
    if max_windows <= 0 or len(windows) <= max_windows:
        return [s["text"] for s in sources], [s["id"] for s in sources]
    tokens = lexical_tokens([claim, *(w for _, w in windows)])
    claim_words = set(tokens[0])
    shares = [
        len(claim_words & set(words)) / len(claim_words) if claim_words else 0.0
        for words in tokens[1:]
    ]
    best = sorted(range(len(windows)), key=lambda i: (-shares[i], i))[:max_windows]
    best.sort()
    return [windows[i][1] for i in best], [windows[i][0] for i in best]


def row_claims(row: Row, max_claims: int) -> tuple[list[str], int]:
    """Return the row's claims (sentences) and how many sentences were left out.

    A one-sentence answer is checked whatever its length ("Paris."); in a longer one,
    sentences of fewer than `MIN_STATEMENT_WORDS` words are headings or labels
    ("Symptoms", "Treatment:"), not statements, and are not checked.
    """
    every = statement_claims(row.answer, row.question, 10_000, min_words=1)
    if len(every) > 1:
        prefix = answer_to(row.question)
        every = [
            c
            for c in every
            if word_count(c[len(prefix) :] if c.startswith(prefix) else c) >= MIN_STATEMENT_WORDS
        ] or every
    return every[:max_claims], len(every) - len(every[:max_claims])


def row_tasks(
    row: Row, context: FactoredVerificationContext, max_windows: int = 0
) -> tuple[list[ClaimTask], list[str], int]:
    """Return the row's claim tasks, their sentences, and how many sentences were left out."""
    sources = sources_from(row.sources, None, None, None)
    claims, left_out = row_claims(row, context.max_claims)
    tasks = []
    for index, claim in enumerate(claims):
        chosen = claim_sources(claim, sources)
        evidence, ids = candidate_windows(bare_claim(claim), chosen, max_windows)
        tasks.append(
            ClaimTask(
                round=0,
                index=index,
                claim=claim,
                document=claim_document(claim, sources),
                evidence=evidence,
                question=row.question,
                evidence_ids=ids,
            )
        )
    prefix = answer_to(row.question)
    sentences = [c[len(prefix) :] if row.question and c.startswith(prefix) else c for c in claims]
    return tasks, sentences, left_out


def claim_result(
    check: RoundCheck, sentence: str, at: tuple[int | None, int | None]
) -> CheckedClaim:
    """Return one claim's result line from its Factored Verification check."""
    source = check.get("source_id")
    index = int(source[1:]) - 1 if source and source[1:].isdigit() else None
    return CheckedClaim(
        claim=bare_claim(sentence),
        verdict=check.get("verdict"),
        p_supported=check["p_supported"],
        p_contradicted=check.get("p_contradicted"),
        evidence_index=index,
        evidence_span=check["evidence"],
        evidence_sentence=check.get("evidence_sentence", ""),
        mismatches=check.get("mismatches", []),
        start=at[0],
        end=at[1],
        error=check["error"],
    )


def row_record(
    row: Row,
    checks: Sequence[RoundCheck],
    sentences: Sequence[str],
    left_out: int,
    context: FactoredVerificationContext,
) -> dict[str, Any]:
    """Return a checked row's result line (verdict by Factored Verification's rule).

    Only what the row and the judge decide: no timing, so two runs of the same rows (one
    process or Ray actors) write the same bytes; the run's speed is in summary.json and
    the report.
    """
    p_answer, contradicted, hallucinated = answer_finding(checks, context.threshold)
    verdict: Verdict = (
        "undetermined" if hallucinated is None else "hallucinated" if hallucinated else "supported"
    )
    offsets = sentence_offsets(row.answer, sentences)
    claims = [
        claim_result(check, sentence, at)
        for check, sentence, at in zip(checks, sentences, offsets, strict=True)
    ]
    return {
        "run": RUN,
        "item_id": row.id,
        "id": row.id,
        "position": row.position,
        "question": row.question,
        "answer": row.answer,
        "sources": row.sources,
        "verdict": verdict,
        "p_answer": None if p_answer is None else round(p_answer, 6),
        "contradicted_claims": contradicted,
        "unsupported_claims": sum(c["verdict"] == "unsupported" for c in claims),
        "unchecked_sentences": left_out,
        "claims": claims,
        "error": None,
    }


def add_relevance(record: dict[str, Any], scores: Sequence[float] | None) -> None:
    """Put each claim's relevance and the row's summary of it into a result line.

    `scores` holds one P(addresses the question) per claim; None when the row has no
    question (every claim's relevance is then None, and so are the row's figures).
    """
    given: Sequence[float | None] = scores if scores is not None else [None] * len(record["claims"])
    for claim, score in zip(record["claims"], given, strict=True):
        claim["relevance"] = score
    known = list(scores or [])
    record["answer_relevance"] = round(sum(known) / len(known), 6) if known else None
    record["off_question_claims"] = sum(s < RELEVANT_AT for s in known) if scores else None


def relevance_scores(
    rows: Sequence[Row], sentences: Sequence[Sequence[str]]
) -> list[list[float] | None]:
    """Return P(addresses the question) per sentence of each row, in one judge batch.

    A row without a question gets None.
    """
    from veriloop.nodes.judges.relevance import RelevanceJudge

    pairs = [
        (row.question, sentence)
        for row, mine in zip(rows, sentences, strict=True)
        if row.question
        for sentence in mine
    ]
    flat = RelevanceJudge().pair_scores([q for q, _ in pairs], [s for _, s in pairs])
    out: list[list[float] | None] = []
    cursor = 0
    for row, mine in zip(rows, sentences, strict=True):
        if not row.question:
            out.append(None)
            continue
        out.append(flat[cursor : cursor + len(mine)])
        cursor += len(mine)
    return out


def failed_record(problem: RowError) -> dict[str, Any]:
    """Return the result line of a row that could not be checked."""
    return {
        "run": RUN,
        "item_id": problem.id,
        "id": problem.id,
        "position": problem.position,
        "verdict": None,
        "claims": [],
        "field": problem.field,
        "error": str(problem),
    }
