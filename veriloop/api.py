"""The Python entry points: `veriloop.method(...)` and `veriloop.evaluate(...)`.

    import veriloop

    fe = veriloop.method("fe")                     # (graph, Context) of Factual Evidence
    result = fe.invoke("Can aspirin cause bleeding?", corpus_dir="pq_index")
    graph, Context = fe                            # or unpack it

    run_dir = veriloop.evaluate(["fe"], baselines=["rag"], dataset="pubmedqa",
                                data_dir="../shared/data/pubmedqa", limit=20,
                                settings={"corpus_dir": "pq_index"})

Graph and harness modules are imported when called, so `import veriloop` stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from veriloop.context import ModelSettings, resolve_context
from veriloop.errors import InvalidInputError


class MethodHandle(NamedTuple):
    """A method's compiled graph and its Context class (unpack it, or call `invoke`)."""

    graph: Any
    Context: type[ModelSettings]

    def invoke(self, request: str | dict[str, Any], **settings: Any) -> dict[str, Any]:
        """Run the graph once: a question (or a full input dict) and Context settings.

        Args:
            request: The question text, or the graph's input (e.g. {"question", "options"}
                or, for a verifier, {"question", "answer", "sources"}).
            **settings: Context fields, e.g. `corpus_dir="pq_index"`, `max_rounds=1`.

        Raises:
            InvalidInputError: A setting this method does not have (the message lists the
                ones it has), a value out of bounds, or bad input.
        """
        payload = {"question": request} if isinstance(request, str) else dict(request)
        context = resolve_context(settings, self.Context)  # unknown names: a clear error
        result: dict[str, Any] = self.graph.invoke(payload, context=context)
        return result


def method(name: str) -> MethodHandle:
    """Return the compiled graph and Context class of a method by id or alias.

    Raises:
        InvalidInputError: No method has that name (the message lists them).
    """
    from veriloop.graphs.registry import get_method

    chosen = get_method(name)
    return MethodHandle(chosen.compiled(), chosen.context_class())


def evaluate(
    methods: Sequence[str],
    *,
    dataset: str,
    data_dir: str | Path,
    baselines: Sequence[str] = (),
    ablations: Sequence[str] = (),
    split: str | None = None,
    limit: int | None = None,
    shuffle: bool = False,
    seed: int = 0,
    settings: dict[str, Any] | None = None,
    workers: int = 1,
    out: str | Path | None = None,
    report: bool = True,
) -> Path:
    """Run methods and baselines on the same dataset items, resumably, like `veriloop bench`.

    Results go to `out` (default runs/<dataset>_<split>_n<limit>), one record per (run,
    item) in results.jsonl; a second call with the same arguments resumes. With `report`,
    report.md and the plots are written too.

    Returns:
        The run directory.

    Raises:
        InvalidInputError: Unknown methods, ablations or settings; bad limit or workers.
        DatasetError: Missing or malformed dataset files.
        ModelUnavailableError: The model server stopped answering (finished work is kept).
    """
    from veriloop.evaluation import bench as harness

    runs = harness.plan_runs(list(methods), list(baselines), list(ablations))
    selection = harness.Selection(dataset, Path(data_dir), split, limit, shuffle, seed)
    items = selection.items()
    run_dir = Path(out) if out is not None else selection.default_run_dir()
    base = harness.typed_settings(runs, {"seed": seed, **(settings or {})}, flag="settings")
    results = harness.start_run(
        run_dir,
        runs,
        selection,
        settings=base,
        command=f"veriloop.evaluate({list(methods)!r}, dataset={dataset!r}, ...)",
    )
    harness.run_bench(runs, items, results, base_settings=base, workers=workers)
    if report:
        from veriloop.evaluation.report import write_report

        write_report(run_dir, cache_dir=base.get("cache_dir"))
    return run_dir


def check(
    rows: Any,
    *,
    out: str | Path | None = None,
    as_frame: bool = False,
    progress: bool = False,
    report: bool = True,
    max_windows: int = 2,
    relevance: bool = False,
    continue_run: bool = False,
    engine: str = "local",
    address: str | None = None,
    workers: int = 2,
    **settings: Any,
) -> Any:
    """Check answers against their sources, one result per row, the way `veriloop verify` does.

    Each answer sentence is a claim judged against the row's sources by the three-way
    judge (Factored Verification's detection, no revision; no network, no telemetry).

    Args:
        rows: Dicts with `answer` and `sources` (and optionally `id`, `question`; RAGAS and
            DeepEval column names are read too), a pandas DataFrame of such columns, or the
            path of a .jsonl / .json / .csv / .parquet file.
        out: A run folder: results.jsonl (resumable: a second call skips finished rows),
            report.md and report.html. None: a temporary folder, removed afterwards.
        as_frame: Return a pandas DataFrame (one row per input row) instead of dicts.
        progress: Show a progress bar.
        report: Write report.md and report.html into `out`.
        max_windows: Evidence windows each sentence is judged against, those sharing most
            of its words (0: every window of every source).
        relevance: Also score whether each sentence addresses the row's question (the
            answer-relevance judge): claims get `relevance`, rows `answer_relevance` and
            `off_question_claims` (None for a row without a question).
        continue_run: Check into an `out` folder that holds another file's results
            (refused otherwise). A resumed row is checked again when its text, the
            settings or the judge changed (each result carries a `fingerprint`).
        engine: "local" (this process) or "ray": actors on a Ray cluster, one judge each,
            writing the same results (`pip install 'veriloop[ray]'`).
        address: With engine "ray": the cluster to join ("HOST:PORT", "auto"); None
            starts a local Ray for the call.
        workers: With engine "ray": checking actors.
        **settings: Factored Verification settings, e.g. `threshold=0.3`,
            `supported_at=0.5`, `verifier="trained"`, `max_claims=20`.

    Returns:
        One result per row, in input order: `id`, `verdict` (supported / hallucinated /
        undetermined; None for a row that failed), `p_answer`, `claims` (each with
        `claim`, `verdict`, `p_supported`, `p_contradicted`, `evidence_index`,
        `evidence_span`, `evidence_sentence`, `mismatches`) and `error`.

    Raises:
        InvalidInputError: An unknown setting, a verifier a batch cannot run, an unknown
            engine or Ray missing for engine "ray", rows that
            are not rows (None, a number), a file that cannot be read, an `out` folder
            holding another input's results or written by another process (a bad row is
            a result with `error`, not an exception).
    """
    import tempfile

    from veriloop.files import run_lock
    from veriloop.graphs.factored_verification import FactoredVerificationContext
    from veriloop.verify.claims import DEFAULT_MAX_CLAIMS, BatchSettings
    from veriloop.verify.rows import read_rows, rows_from
    from veriloop.verify.run import check_rows, latest_records, start_run

    given = {"max_claims": DEFAULT_MAX_CLAIMS, **settings, "sentences_as_claims": True}
    context = resolve_context({**given, "max_revisions": 0}, FactoredVerificationContext)
    batch = BatchSettings(context=context, max_windows=max_windows, relevance=relevance)
    if engine not in ("local", "ray"):
        raise InvalidInputError(f"engine={engine!r}: use 'local' or 'ray'")
    if engine == "ray":
        from veriloop.verify.ray_engine import check_rows_on_ray, require_ray

        require_ray()
    parsed = list(read_rows(Path(rows)) if isinstance(rows, str | Path) else rows_from(rows))
    with tempfile.TemporaryDirectory(prefix="veriloop-check-") as scratch:
        run_dir = Path(out) if out is not None else Path(scratch)
        source = str(rows) if isinstance(rows, str | Path) else "veriloop.check(rows)"
        with run_lock(run_dir):
            results = start_run(
                run_dir, source, batch, command="veriloop.check(...)", continue_run=continue_run
            )
            bar = None
            if progress:
                from tqdm import tqdm

                bar = tqdm(total=len(parsed), desc="check", unit="row")
            advance = (lambda _: bar.update(1)) if bar else None
            if engine == "ray":
                check_rows_on_ray(
                    parsed, results, batch, address=address, workers=workers, on_row=advance
                )
            else:
                check_rows(parsed, results, batch, on_row=advance)
            if bar is not None:
                bar.close()
            latest = latest_records(results)
            if out is not None and report:
                from veriloop.verify.report import write_verify_reports

                write_verify_reports(run_dir)
    keys = ("id", "verdict", "p_answer", "contradicted_claims", "unsupported_claims")
    found = []
    for row in parsed:
        record = latest.get(row.id, {})
        found.append(
            {
                **{key: record.get(key) for key in keys},
                "id": row.id,
                "question": getattr(row, "question", ""),
                "answer": getattr(row, "answer", ""),
                "claims": record.get("claims", []),
                "error": record.get("error"),
            }
        )
    if as_frame:
        import pandas as pd

        return pd.DataFrame(found)
    return found
