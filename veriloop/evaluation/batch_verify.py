"""Check many answers against their sources: Factored Verification's claim checks, in bulk.

    results = check_rows(read_rows(Path("rows.jsonl")), Path("runs/check"))

The engine is Factored Verification's detection (`graphs.factored_verification`) with
its sentence claims (`sentences_as_claims`, the default on the embedded model) and no
revision: each answer sentence is a claim, judged by the same claim-support judge
(`judge_claims`, default the three-way judge with the mismatch checks) and combined by the
same rule (`answer_finding`: hallucinated iff P(answer) < θ or a source denies a claim).
What the batch adds is throughput and durability:

- models load once per process; the claims of `chunk_rows` rows go to the judge in one
  batch;
- each row's result is appended to `results.jsonl` and fsynced before the next chunk, so
  a kill loses at most the chunk in flight, and a re-run skips every row already checked
  (keyed by the row's id and its `fingerprint`: the answer, sources, question, settings
  and judge; a row edited since, or checked by another judge, rules or decision, is
  checked again; a row that failed for bad input is tried again, since the file may have
  been fixed, and its failure is written again only if it changed: the latest record of
  an id is the one that counts);
- a folder holding another input's results is refused (`start_run`, unless asked to
  continue), and a second process writing into the same folder is refused (`run_lock`);
- a bad row is one failed record naming its field; the rows around it go on.

A result line (`RowResult`): the row's `id`, `verdict` (supported / hallucinated /
undetermined, or None when the row failed), `p_answer`, and `claims`, each with `claim`,
`verdict` (supported / contradicted / unsupported), `p_supported`, `p_contradicted`,
`evidence_index` (0-based, into the row's sources), `evidence_span`,
`evidence_sentence`, `mismatches` and where the sentence sits in the answer (`start`,
`end`).

With `relevance` on (`veriloop verify rows --relevance`, `veriloop.check(...,
relevance=True)`), a row with a question also gets, per claim, `relevance`: the
answer-relevance judge's P(the sentence addresses the question) (`nodes.judges.relevance`), and
per row `answer_relevance` (the mean over its claims) and `off_question_claims` (claims
below `RELEVANT_AT`): backed is not relevant, and this is how a pipeline's on-source but
beside-the-point sentences are found.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.evaluation.answer_rows import Row, RowError
from veriloop.evaluation.bench import ResultsFile, read_manifest
from veriloop.files import write_json_atomically
from veriloop.graphs.factored_verification import (
    ClaimTask,
    FVContext,
    RoundCheck,
    answer_finding,
    is_judge_verifier,
    judge_claims,
)
from veriloop.knowledge.corpus_index import lexical_tokens
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
from veriloop.text import safe_text

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


class CheckedClaim(TypedDict):
    """One answer sentence, judged against the row's sources."""

    claim: str
    verdict: str | None
    """supported / contradicted / unsupported (None: the judge could not read it)."""
    p_supported: float | None
    p_contradicted: float | None
    evidence_index: int | None
    """The source the verdict rests on: 0-based index into the row's sources."""
    evidence_span: str
    evidence_sentence: str
    """The sentence of that span closest to the claim: what the source says."""
    mismatches: list[dict[str, Any]]
    start: int | None
    """Where the sentence starts in the answer (None if the splitter changed its text)."""
    end: int | None
    error: str | None
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

    context: FVContext = field(default_factory=lambda: FVContext(max_claims=DEFAULT_MAX_CLAIMS))
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


def sentence_offsets(answer: str, sentences: Sequence[str]) -> list[tuple[int | None, int | None]]:
    """Return where each sentence sits in the answer, searching forward in order."""
    found: list[tuple[int | None, int | None]] = []
    cursor = 0
    for sentence in sentences:
        at = answer.find(sentence, cursor)
        if at < 0:
            found.append((None, None))
            continue
        found.append((at, at + len(sentence)))
        cursor = at + len(sentence)
    return found


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
    row: Row, context: FVContext, max_windows: int = 0
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
    context: FVContext,
    seconds: float,
) -> dict[str, Any]:
    """Return a checked row's result line (verdict by Factored Verification's rule)."""
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
        "seconds": round(seconds, 4),
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


def judge_fingerprint(context: FVContext) -> str:
    """Return `verifier_fingerprint(context.verifier)` (see there)."""
    return verifier_fingerprint(context.verifier)


@functools.cache
def verifier_fingerprint(verifier: str) -> str:
    """Return a fingerprint of what decides a verdict besides the row, read from files.

    The verifier, its weights (sha256 of the safetensors), and for the three-way judge the
    way it reads a claim (`HYPOTHESIS_RULE`), the decision fitted for it and the rules'
    code and lexicon (`nodes.judges.mismatch.rules_fingerprint`): an upgrade of any of them makes a
    resumed batch check its rows again instead of serving the old verdicts. Computed once
    per process (it hashes the 21 MB of weights), not on every `check_rows` call.
    """
    from veriloop.nodes.judges.cross_encoder import ADAPTER_DIR, HYPOTHESIS_RULE, THREE_WAY_DIR
    from veriloop.nodes.judges.decision import load_decision
    from veriloop.nodes.judges.mismatch import rules_fingerprint
    from veriloop.nodes.judges.pair_classifier import weights_fingerprint

    parts = [verifier, HYPOTHESIS_RULE]
    if verifier.startswith("three_way"):
        decision = load_decision(THREE_WAY_DIR)
        parts += [
            weights_fingerprint(THREE_WAY_DIR),
            f"{decision.supported_at}/{decision.contradicted_at}",
        ]
        if verifier == "three_way":
            parts.append(rules_fingerprint())
    elif verifier in ("trained", "gated"):
        parts.append(weights_fingerprint(ADAPTER_DIR))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def row_fingerprint(row: Row, settings: BatchSettings, judge: str) -> str:
    """Return a fingerprint of what was checked: the row's text, the settings, the judge."""
    what = [row.answer, row.sources, row.question, settings.recorded(), judge]
    text = safe_text(json.dumps(what, ensure_ascii=False, sort_keys=True, default=str))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def latest_records(results: ResultsFile) -> dict[str, dict[str, Any]]:
    """Return the latest record of each row id (a retried row supersedes its failure)."""
    return {r["item_id"]: r for r in results.records() if r.get("run") == RUN}


def start_run(
    run_dir: Path,
    source: str,
    settings: BatchSettings,
    *,
    command: str = "",
    continue_run: bool = False,
) -> ResultsFile:
    """Open (or resume) a batch run folder; refuse one checked under other settings.

    Args:
        run_dir: The run folder (`--out`).
        source: What is checked: a file's path, or a name for rows given in Python.
        settings: The batch's settings; a folder checked under others is refused.
        command: The command line, for the manifest.
        continue_run: Add `source`'s rows to a folder that holds another input's results
            (refused otherwise, so that one input's verdicts are never read as another's).

    Raises:
        InvalidInputError: `run_dir` is a file or cannot be written, or holds results of
            other settings or (without `continue_run`) of another input.
    """
    if run_dir.exists() and not run_dir.is_dir():
        raise InvalidInputError(f"{run_dir} is a file; give a folder for --out")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        probe = run_dir / ".write-check"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InvalidInputError(
            f"cannot write into {run_dir} ({exc.strerror or exc}); give --out a folder you "
            "can write to"
        ) from exc
    manifest = read_manifest(run_dir)
    earlier = manifest.get("input")
    if earlier and _input_key(earlier) != _input_key(source) and not continue_run:
        raise InvalidInputError(
            f"{run_dir} holds the results of {earlier}, not {source}; give another --out, "
            "or --continue to add these rows to it"
        )
    recorded = settings.recorded()
    if manifest and manifest.get("kind") != RUN:
        raise InvalidInputError(
            f"{run_dir} holds a {manifest.get('kind') or 'bench'} run, not a batch "
            "verification; give another --out"
        )
    if manifest and manifest.get("settings") != recorded:
        raise InvalidInputError(
            f"{run_dir} holds rows checked with other settings ({manifest.get('settings')}, "
            f"now {recorded}); use another --out, or the same settings to resume"
        )
    inputs = sorted({*manifest.get("inputs", [earlier] if earlier else []), source})
    write_json_atomically(
        run_dir / "manifest.json",
        {
            **manifest,
            "kind": RUN,
            "input": earlier or source,
            **({"inputs": inputs} if len(inputs) > 1 else {}),
            "settings": recorded,
            **({"command": command} if command else {}),
        },
    )
    return ResultsFile(run_dir / "results.jsonl")


def _input_key(source: str) -> str:
    """Return what makes two inputs the same: a file's absolute path, else the name."""
    path = Path(source)
    return str(path.resolve()) if path.suffix and path.exists() else source


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder's writer lock; refuse at once if another process holds it.

    Raises:
        InvalidInputError: Another process is checking into this folder.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / ".lock").open("a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise InvalidInputError(
                f"{run_dir} is being written by {holder}; wait for it to finish (then re-run "
                "to resume) or give another --out"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _chunks(rows: Iterable[Row | RowError], size: int) -> Iterator[list[Row | RowError]]:
    chunk: list[Row | RowError] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def check_rows(
    rows: Iterable[Row | RowError],
    results: ResultsFile,
    settings: BatchSettings | None = None,
    *,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> BatchSummary:
    """Check every row not yet in `results`; append one record per row, durably.

    Args:
        rows: Parsed rows (`answer_rows.read_rows` / `rows_from`); errors are recorded.
        results: The run's results.jsonl (`start_run`).
        settings: The verifier and thresholds (default: three-way judge, θ 0.5).
        on_row: Called with each record once it is on disk (progress bars).

    Raises:
        InvalidInputError: The settings name a verifier the batch cannot run.
        ModelUnavailableError: A served model went away; finished rows are kept.
    """
    settings = settings or BatchSettings()
    check_settings(settings)
    context = settings.context
    judge = judge_fingerprint(context)
    latest = latest_records(results)
    summary = BatchSummary()
    started = time.perf_counter()
    for chunk in _chunks(rows, settings.chunk_rows):
        todo: list[Row] = []
        prints: list[str] = []
        for row in chunk:
            earlier = latest.get(row.id, {})
            if isinstance(row, RowError):
                record = failed_record(row)
                summary.failed += 1
                if earlier.get("error") != record["error"]:  # the same failure: not again
                    results.append(record)
                    latest[row.id] = record
                if on_row:
                    on_row(record)
                continue
            fingerprint = row_fingerprint(row, settings, judge)
            if earlier.get("error") is None and earlier.get("fingerprint") == fingerprint:
                summary.skipped += 1
            else:  # new, failed before, or changed since (text, settings or judge)
                todo.append(row)
                prints.append(fingerprint)
        if not todo:
            continue
        planned = [row_tasks(row, context, settings.max_windows) for row in todo]
        tasks = [task for row_plan in planned for task in row_plan[0]]
        chunk_started = time.perf_counter()
        checks, _ = judge_claims(tasks, context)
        relevances = (
            relevance_scores(todo, [[bare_claim(s) for s in plan[1]] for plan in planned])
            if settings.relevance
            else [None] * len(todo)
        )
        per_row = (time.perf_counter() - chunk_started) / len(todo)
        cursor = 0
        for row, (row_tasks_, sentences, left_out), relevant in zip(
            todo, planned, relevances, strict=True
        ):
            mine = checks[cursor : cursor + len(row_tasks_)]
            cursor += len(row_tasks_)
            record = row_record(row, mine, sentences, left_out, context, per_row)
            record["fingerprint"] = prints[todo.index(row)]
            if settings.relevance:
                add_relevance(record, relevant)
            results.append(record)
            latest[row.id] = record
            summary.checked += 1
            summary.claims += len(mine)
            if on_row:
                on_row(record)
    summary.seconds = time.perf_counter() - started
    return summary


def summarise(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return counts over a run's latest records: rows by verdict, claims by verdict."""
    rows = list(records)
    verdicts: dict[str, int] = {}
    claim_verdicts: dict[str, int] = {}
    for record in rows:
        key = record.get("verdict") or "failed"
        verdicts[key] = verdicts.get(key, 0) + 1
        for claim in record.get("claims", []):
            name = claim.get("verdict") or "not judged"
            claim_verdicts[name] = claim_verdicts.get(name, 0) + 1
    return {
        "rows": len(rows),
        "verdicts": verdicts,
        "claims": sum(claim_verdicts.values()),
        "claim_verdicts": claim_verdicts,
    }


def write_summary(run_dir: Path, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write summary.json for a run folder from its latest records; return it."""
    records = latest_records(ResultsFile(run_dir / "results.jsonl")).values()
    summary = {**summarise(records), **(extra or {})}
    write_json_atomically(run_dir / "summary.json", summary)
    return summary


def as_json_lines(records: Iterable[dict[str, Any]]) -> str:
    """Return records as JSON lines (for piping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
