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
  continue), and a second process writing into the same folder is refused
  (`veriloop.files.run_lock`);
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

import functools
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriloop.errors import InvalidInputError
from veriloop.evaluation.bench import ResultsFile, read_manifest
from veriloop.files import write_json_atomically
from veriloop.graphs.factored_verification import (
    FactoredVerificationContext,
    judge_claims,
)
from veriloop.nodes.claims import (
    bare_claim,
)
from veriloop.text import safe_text
from veriloop.verify.claims import (
    RUN,
    BatchSettings,
    BatchSummary,
    add_relevance,
    check_settings,
    failed_record,
    relevance_scores,
    row_record,
    row_tasks,
)
from veriloop.verify.rows import Row, RowError


def judge_fingerprint(context: FactoredVerificationContext) -> str:
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
    writer = ChunkWriter(results, on_row)
    started = time.perf_counter()
    for plan in plan_chunks(rows, writer.latest, settings):
        writer.write_failed(plan)
        if plan.todo:
            writer.write_checked(check_chunk(plan.todo, plan.prints, settings))
    writer.summary.seconds = time.perf_counter() - started
    return writer.summary


@dataclass
class ChunkPlan:
    """One chunk of a batch: its unreadable rows, the rows left to check, the rows done."""

    failed: list[RowError]
    todo: list[Row]
    prints: list[str]
    """The fingerprint of each row of `todo`."""
    skipped: int


def plan_chunks(
    rows: Iterable[Row | RowError],
    latest: dict[str, dict[str, Any]],
    settings: BatchSettings,
) -> Iterator[ChunkPlan]:
    """Cut the rows into chunks of `settings.chunk_rows` and say what each has left to do.

    A row is done when its latest record (`latest`) has no error and its fingerprint; the
    chunks are the same whichever engine checks them, so the judge sees the same batches.
    """
    judge = judge_fingerprint(settings.context)
    for chunk in _chunks(rows, settings.chunk_rows):
        plan = ChunkPlan([], [], [], 0)
        for row in chunk:
            if isinstance(row, RowError):
                plan.failed.append(row)
                continue
            fingerprint = row_fingerprint(row, settings, judge)
            earlier = latest.get(row.id, {})
            if earlier.get("error") is None and earlier.get("fingerprint") == fingerprint:
                plan.skipped += 1
            else:  # new, failed before, or changed since (text, settings or judge)
                plan.todo.append(row)
                plan.prints.append(fingerprint)
        yield plan


def check_chunk(
    todo: list[Row], prints: list[str], settings: BatchSettings
) -> list[dict[str, Any]]:
    """Check one chunk's rows in one judge batch; return their records, in order.

    The work of one worker: pure but for the models it loads (once per process).
    """
    context = settings.context
    planned = [row_tasks(row, context, settings.max_windows) for row in todo]
    tasks = [task for row_plan in planned for task in row_plan[0]]
    checks, _ = judge_claims(tasks, context)
    relevances = (
        relevance_scores(todo, [[bare_claim(s) for s in plan[1]] for plan in planned])
        if settings.relevance
        else [None] * len(todo)
    )
    records = []
    cursor = 0
    for row, fingerprint, (row_tasks_, sentences, left_out), relevant in zip(
        todo, prints, planned, relevances, strict=True
    ):
        mine = checks[cursor : cursor + len(row_tasks_)]
        cursor += len(row_tasks_)
        record = row_record(row, mine, sentences, left_out, context)
        record["fingerprint"] = fingerprint
        if settings.relevance:
            add_relevance(record, relevant)
        records.append(record)
    return records


class ChunkWriter:
    """Appends a batch's records to its results file, durably, and counts them."""

    def __init__(
        self, results: ResultsFile, on_row: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        """Read the results' latest records (what a resume skips)."""
        self.results = results
        self.on_row = on_row
        self.latest = latest_records(results)
        self.summary = BatchSummary()

    def write_failed(self, plan: ChunkPlan) -> None:
        """Record a chunk's unreadable rows (a failure already on record is not repeated)."""
        for row in plan.failed:
            record = failed_record(row)
            self.summary.failed += 1
            if self.latest.get(row.id, {}).get("error") != record["error"]:
                self.results.append(record)
                self.latest[row.id] = record
            if self.on_row:
                self.on_row(record)
        self.summary.skipped += plan.skipped

    def write_checked(self, records: list[dict[str, Any]]) -> None:
        """Append checked rows' records (each fsynced by `ResultsFile.append`)."""
        for record in records:
            self.results.append(record)
            self.latest[record["item_id"]] = record
            self.summary.checked += 1
            self.summary.claims += len(record["claims"])
            if self.on_row:
                self.on_row(record)


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
