"""`veriloop verify` on a file of rows: tell a batch from one answer, check it, report.

veriloop verify rows.jsonl --out runs/check            # many rows: .jsonl .json .csv .parquet

The rows are checked with Factored Verification's claim checks into a resumable run folder
(`veriloop.verify`): results.jsonl, report.md and report.html.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veriloop.cli.common import build_context, err, stop_interrupted

BATCH_SUFFIXES = (".jsonl", ".csv", ".parquet")
"""Inputs that always hold many rows (a .json file does when it holds a list)."""


def is_batch(input_file: Path, out_dir: Path | None) -> bool:
    """Tell whether the input is a file of rows (checked in bulk) rather than one answer."""
    if out_dir is not None or input_file.suffix.lower() in BATCH_SUFFIXES:
        return True
    if input_file.suffix.lower() != ".json" or not input_file.is_file():
        return False
    with input_file.open("rb") as handle:
        head = handle.read(4096).lstrip()
    return head.startswith(b"[")


def batch_verify(
    input_file: Path,
    out_dir: Path | None,
    assignments: list[str],
    *,
    chunk_rows: int,
    max_windows: int,
    relevance: bool,
    backend: str | None,
    cache: str,
    continue_run: bool = False,
    engine: str = "local",
    address: str | None = None,
    workers: int = 2,
) -> None:
    """Check every row of `input_file`; write results.jsonl, report.md and report.html.

    Raises:
        InvalidInputError: The file cannot be read, the settings are not a batch's, the
            folder holds another input's results or is being written by another process.
        typer.Exit: Every row failed (exit status 1: nothing was checked).
    """
    import shlex
    import sys

    from veriloop.files import run_lock
    from veriloop.graphs.factored_verification import FactoredVerificationContext
    from veriloop.verify.claims import DEFAULT_MAX_CLAIMS, BatchSettings, check_settings
    from veriloop.verify.rows import read_rows
    from veriloop.verify.run import start_run

    context = build_context(
        FactoredVerificationContext,
        assignments,
        backend=backend,
        cache_dir=cache,
        max_claims=DEFAULT_MAX_CLAIMS,
        sentences_as_claims=True,
        max_revisions=0,
    )
    settings = BatchSettings(
        context=context,  # type: ignore[arg-type]
        chunk_rows=chunk_rows,
        max_windows=max_windows,
        relevance=relevance,
    )
    check_settings(settings)
    if engine == "ray":
        from veriloop.verify.ray_engine import require_ray

        require_ray()  # before the rows are read: say how to install it
    rows = list(read_rows(input_file))
    run_dir = out_dir or Path("runs") / f"verify_{input_file.stem}"
    command = "veriloop " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with run_lock(run_dir):
        results = start_run(
            run_dir, str(input_file), settings, command=command, continue_run=continue_run
        )
        _check_into(results, rows, settings, input_file, run_dir, engine, address, workers)


def _check_into(
    results: Any,
    rows: list[Any],
    settings: Any,
    input_file: Path,
    run_dir: Path,
    engine: str = "local",
    address: str | None = None,
    workers: int = 2,
) -> None:
    """Check the rows into the opened run, then write its reports; exit 1 if all failed."""
    import resource

    from tqdm import tqdm

    from veriloop.verify.report import write_verify_reports
    from veriloop.verify.run import check_rows

    joined = f", {address}" if address else ""
    where = f" on Ray ({workers} workers{joined})" if engine == "ray" else ""
    err.print(f"[bold]verifying[/bold] {len(rows)} rows of {input_file} into {run_dir}{where}")
    bar = tqdm(total=len(rows), desc="verify", unit="row")
    claims = 0

    def advance(record: dict[str, Any]) -> None:
        nonlocal claims
        claims += len(record.get("claims", []))
        bar.set_postfix(claims=claims, refresh=False)
        bar.update(1)

    try:
        if engine == "ray":
            from veriloop.verify.ray_engine import check_rows_on_ray

            summary = check_rows_on_ray(
                rows, results, settings, address=address, workers=workers, on_row=advance
            )
        else:
            summary = check_rows(rows, results, settings, on_row=advance)
    except KeyboardInterrupt:
        bar.close()
        stop_interrupted(results)
    bar.update(summary.skipped)
    bar.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    done = summary.checked + summary.failed
    extra = {
        "rows checked this run": summary.checked,
        "failed": summary.failed,
        "already done": summary.skipped,
        "seconds": round(summary.seconds, 1),
        "engine": f"ray ({workers} workers)" if engine == "ray" else "local",
        "rows/s": round(done / summary.seconds, 2) if summary.seconds and done else None,
        "claims/s": round(summary.claims / summary.seconds, 2) if summary.seconds else None,
        "peak MB": round(peak_mb),
    }
    report_md, report_html = write_verify_reports(run_dir, extra)
    err.print(
        f"{summary.checked} rows checked, {summary.failed} failed, {summary.skipped} already "
        f"done; results: {results.path}; report: {report_md}, {report_html}"
    )
    if summary.failed and not summary.checked and not summary.skipped:
        err.print(f"error: every row of {input_file} failed; nothing was checked")
        raise typer.Exit(1)
