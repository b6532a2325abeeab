"""`veriloop verify`: check an answer against its sources, alone or after another method.

veriloop verify answer.json --method factored          # {"question", "answer", "sources"}
veriloop verify rows.jsonl --out runs/check            # many rows: .jsonl .json .csv .parquet
veriloop ask "..." --method fe --corpus pq/ --json > out.json && veriloop verify out.json
veriloop ask "..." --method fe --corpus pq/ --verify factored          # chained in one go

A file of rows is checked in bulk by `verify_batch`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from veriloop.cli.common import (
    build_context,
    cache_setting,
    err,
    fail,
    out,
    stop_interrupted,
)
from veriloop.cli.verify_batch import batch_verify, is_batch
from veriloop.errors import InvalidInputError, VeriloopError
from veriloop.evaluation.bench import ResultsFile
from veriloop.graphs.registry import get_method, method_ids

INPUT_KEYS = (
    "question",
    "answer",
    "sources",
    "articles",
    "context_units",
    "retrieved",
    "knowledge",
)


ENGINES = ("local", "ray")
"""Where a batch is checked: this process, or actors on a Ray cluster."""


def load_verifier(method: str) -> tuple[Any, Any]:
    """Return (build_graph, Context class) of a verification method from the registry.

    Raises:
        InvalidInputError: No verification method has that name.
    """
    return get_method(method, "verify").load()


def verification_input(data: Any, where: str) -> dict[str, Any]:
    """Keep the fields a verifier reads from a JSON object (input, or a method's output).

    Raises:
        InvalidInputError: It is not an object, or it has no answer.
    """
    if not isinstance(data, dict):
        raise InvalidInputError(f"{where}: expected a JSON object with answer and sources")
    payload = {key: data[key] for key in INPUT_KEYS if data.get(key) is not None}
    if not payload.get("answer"):
        raise InvalidInputError(
            f"{where}: no answer to verify (the method refused or produced nothing usable)"
        )
    for key in ("question", "answer", "knowledge"):
        if key in payload and not isinstance(payload[key], str):
            raise InvalidInputError(
                f"{where}: {key!r} must be text, got {type(payload[key]).__name__}"
            )
    for key in ("sources", "articles", "context_units", "retrieved"):
        if key in payload and not isinstance(payload[key], list):
            raise InvalidInputError(
                f"{where}: {key!r} must be a list, got {type(payload[key]).__name__}; wrap a "
                'single source in a list: ["..."]'
            )
    return payload


def run_verifier(
    method: str,
    payload: dict[str, Any],
    assignments: list[str],
    *,
    progress: bool = True,
    ignore_unknown: bool = False,
    **given: Any,
) -> dict[str, Any]:
    """Run a verification graph on `payload`; return its output state.

    Args:
        method: A name from `method_ids("verify")`.
        payload: The verifier's input (see `verification_input`).
        assignments: `--set NAME=VALUE` pairs for the verifier's Context.
        progress: Print each node as it finishes (to stderr).
        ignore_unknown: Skip assignments the verifier's Context lacks (a chained verifier
            receives the `--set` pairs meant for the method before it).
        **given: Context fields set by CLI options (backend, cache_dir).
    """
    build_graph, context_class = load_verifier(method)
    context = build_context(context_class, assignments, ignore_unknown=ignore_unknown, **given)
    graph = build_graph().compile(name=method)
    result: dict[str, Any] = {}
    for mode, chunk in graph.stream(payload, context=context, stream_mode=["updates", "values"]):
        if mode == "updates" and progress:
            for node in chunk:
                err.print(f"  [dim]▸[/dim] {node}")
        elif mode == "values":
            result = chunk
    keys = set(graph.get_output_jsonschema()["properties"])
    return {key: value for key, value in result.items() if key in keys}


def verify_command(
    input_file: Annotated[
        Path,
        typer.Argument(
            help="One answer (JSON: {question, answer, sources} or `ask --json` output), or "
            "many rows (.jsonl, .csv, .parquet, or a .json list; RAGAS and DeepEval "
            "column names are read too): checked in bulk into --out."
        ),
    ],
    method: Annotated[
        str, typer.Option("--method", "-m", help=f"One of: {', '.join(method_ids('verify'))}.")
    ] = "factored",
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Batch run folder (default runs/verify_<file name>): results.jsonl, "
            "report.md, report.html. Re-run to resume.",
        ),
    ] = None,
    continue_run: Annotated[
        bool,
        typer.Option(
            "--continue",
            help="Batch: check into an --out that holds another input's results (refused "
            "without it).",
        ),
    ] = False,
    chunk_rows: Annotated[
        int, typer.Option(min=1, help="Rows whose claims are judged in one batch.")
    ] = 32,
    max_windows: Annotated[
        int,
        typer.Option(
            min=0,
            help="Batch: evidence windows each sentence is judged against, those sharing "
            "most of its words (0: every window of every source; slower on long sources).",
        ),
    ] = 2,
    relevance: Annotated[
        bool,
        typer.Option(
            "--relevance",
            help="Batch: also score whether each sentence addresses the row's question "
            "(the answer-relevance judge): per claim `relevance`, per row "
            "`answer_relevance` and `off_question_claims`.",
        ),
    ] = False,
    engine: Annotated[
        str,
        typer.Option(
            help="Batch: 'local' (this process) or 'ray' (actors on a Ray cluster, one judge "
            "each; pip install 'veriloop[ray]'). Same results file either way.",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="--engine ray: the cluster to join (HOST:PORT, or 'auto' for the one "
            "`ray start` joined on this machine); default: a local Ray for this run.",
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="--engine ray: checking actors (one judge each).")
    ] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full output state.")] = False,
    details: Annotated[
        bool, typer.Option("--details", help="One answer: the full claims table.")
    ] = False,
    backend: Annotated[str | None, typer.Option(help="Model backend.")] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="Model-call cache directory [$VERILOOP_CACHE_DIR or ~/.cache/veriloop]."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override a Context field, e.g. threshold=0.3."),
    ] = None,
) -> None:
    """Verify answers against their sources: one (any verifier) or a file of rows (bulk)."""
    try:
        get_method(method, "verify")  # an unknown method fails before the file is read
        if input_file.is_dir():
            raise InvalidInputError(f"{input_file} is a folder; give a JSON file")
        if input_file.exists() and not input_file.is_file():
            raise InvalidInputError(
                f"{input_file} is not a regular file (a pipe, a device or a socket); save the "
                "answer or rows to a file and give its path"
            )
        if not input_file.is_file():
            raise InvalidInputError(f"{input_file} does not exist")
        cache = cache_setting(no_cache, cache_dir)
        if engine not in ENGINES:
            raise InvalidInputError(f"--engine {engine!r}: use one of {', '.join(ENGINES)}")
        if is_batch(input_file, out_dir):
            if get_method(method, "verify").id != "factored":
                raise InvalidInputError(
                    f"a file of rows is checked with Factored Verification's claim checks; "
                    f"--method {method} verifies one answer at a time"
                )
            if as_json:
                raise InvalidInputError(
                    "--json prints one answer's state; a batch writes results.jsonl in --out"
                )
            batch_verify(
                input_file,
                out_dir,
                settings or [],
                chunk_rows=chunk_rows,
                max_windows=max_windows,
                relevance=relevance,
                backend=backend,
                cache=cache,
                continue_run=continue_run,
                engine=engine,
                address=address,
                workers=workers,
            )
            return
        if engine != "local" or address:
            raise InvalidInputError(
                "--engine ray and --address check a file of rows (.jsonl, .csv, .parquet, or "
                "--out); one answer is checked here"
            )
        if relevance:
            raise InvalidInputError(
                "--relevance scores a file of rows (give a .jsonl, .csv, .parquet or a .json "
                "list, or --out); one answer's claims are checked for support only"
            )
        try:
            data = json.loads(input_file.read_text(encoding="utf-8-sig"))  # a BOM is fine
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                f"{input_file} is not UTF-8 text ({exc.reason} at byte {exc.start}); give a "
                "JSON file saved as UTF-8"
            ) from exc
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{input_file} is not valid JSON: {exc.msg}") from exc
        payload = verification_input(data, str(input_file))
        err.print(f"[bold]{method}[/bold] verification of {input_file}")
        result = run_verifier(method, payload, settings or [], backend=backend, cache_dir=cache)
    except VeriloopError as exc:
        raise fail(exc) from None
    if as_json:
        out.print_json(json.dumps(result, ensure_ascii=False))
    else:
        from veriloop.cli.render import render_verification

        render_verification(result, details=details)


def detect_bench_command(
    dataset: Annotated[str, typer.Option(help="halueval (the qa split).")] = "halueval",
    data_dir: Annotated[Path, typer.Option(help="The dataset's folder.")] = Path(
        "../shared/data/halueval"
    ),
    split: Annotated[str, typer.Option(help="Dataset split.")] = "qa",
    train: Annotated[int, typer.Option(min=1, help="Items whose answer pairs fit θ.")] = 40,
    test: Annotated[
        int, typer.Option(min=1, help="Disjoint items whose answer pairs are scored.")
    ] = 40,
    seed: Annotated[int, typer.Option(help="Seed for the shuffle and sampling.")] = 0,
    offset: Annotated[
        int,
        typer.Option(
            min=0,
            help="Skip this many shuffled items first (400: held out from the trained "
            "support judge's HaluEval items).",
        ),
    ] = 0,
    workers: Annotated[int, typer.Option(min=1, help="Cases run concurrently.")] = 1,
    revise: Annotated[
        bool,
        typer.Option(help="Also revise the hallucinated test answers (FV vs self-correction)."),
    ] = True,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Run directory.")] = None,
    backend: Annotated[str | None, typer.Option(help="Model backend.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", help="A Factored Verification setting, e.g. supported_at=0.3."),
    ] = None,
) -> None:
    """Measure Factored Verification's hallucination detection (θ fitted on a disjoint split)."""
    import shlex
    import sys
    from dataclasses import asdict

    from tqdm import tqdm

    from veriloop.evaluation import detection
    from veriloop.evaluation.bench import write_manifest
    from veriloop.evaluation.datasets import load_dataset
    from veriloop.graphs.factored_verification import FactoredVerificationContext

    try:
        items = load_dataset(dataset, data_dir, split)
        train_items, test_items = detection.split_items(items, train, test, seed, offset)
        cache = cache_setting(no_cache)
        given: dict[str, Any] = {"cache_dir": cache, "seed": seed}
        if backend:
            given["backend"] = backend
        context = build_context(FactoredVerificationContext, settings or [], **given)
        run_settings = {k: v for k, v in asdict(context).items() if k != "prompt_overrides"}
        run_dir = out_dir or Path("runs") / f"detect_{dataset}_{split}_train{train}_test{test}"
        write_manifest(
            run_dir,
            {
                "dataset": dataset,
                "split": split,
                "limit": train + test,
                "shuffle": True,
                "seed": seed,
                **({"offset": offset} if offset else {}),
                "train": train,
                "test": test,
                "settings": {k: v for k, v in run_settings.items() if k != "cache_dir"},
                "command": "veriloop " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
            },
        )
        train_cases = detection.paired_cases(train_items, "train")
        test_cases = detection.paired_cases(test_items, "test")
        total = len(train_cases) + len(test_cases) + (len(test_items) * 2 if revise else 0)
        bar = tqdm(total=total, desc="detect", unit="case")
        try:
            detection.run_detection(
                run_dir,
                train_cases,
                test_cases,
                run_settings,
                revise=revise,
                workers=workers,
                on_record=lambda record: bar.update(1),
            )
        except KeyboardInterrupt:
            bar.close()
            stop_interrupted(ResultsFile(run_dir / "results.jsonl"))
        bar.close()
        report = detection.write_detection_report(run_dir)
    except VeriloopError as exc:
        raise fail(exc) from None
    err.print(f"report: {report}")


def validate_bench_command(
    dataset: Annotated[
        str,
        typer.Option(
            help="medqa (a right and a wrong response per question, BM25-cited) or "
            "citation_integrity (each claim against the abstract it cites; --limit claims "
            "per class, SUPPORT and REFUTE)."
        ),
    ] = "medqa",
    data_dir: Annotated[Path, typer.Option(help="The dataset's folder.")] = Path(
        "../shared/data/medqa"
    ),
    split: Annotated[str, typer.Option(help="Dataset split.")] = "test",
    evidence_corpus: Annotated[
        Path, typer.Option(help="PubMed XML or JSON-lines file: cited and extra evidence.")
    ] = Path("../shared/data/pubmed_medline_sample/medline16n0902_sample.jsonl"),
    limit: Annotated[int, typer.Option(min=1, help="Questions (two responses each).")] = 15,
    cited: Annotated[int, typer.Option(min=1, help="Articles each response cites.")] = 2,
    seed: Annotated[int, typer.Option(help="Seed for the shuffle and the wrong option.")] = 0,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Run directory.")] = None,
    backend: Annotated[str | None, typer.Option(help="Model backend.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
    settings: Annotated[
        list[str] | None, typer.Option("--set", help="MEvalContext field, e.g. stance_judge=llm.")
    ] = None,
) -> None:
    """Measure M-Eval on right and wrong responses, with its three ablations."""
    import shlex
    import sys
    from dataclasses import asdict

    from tqdm import tqdm

    from veriloop.evaluation import validation_bench
    from veriloop.evaluation.datasets import load_dataset
    from veriloop.graphs.m_eval import MEvalContext

    try:
        cache = cache_setting(no_cache)
        given: dict[str, Any] = {
            "cache_dir": cache,
            "seed": seed,
            "evidence_corpus": str(evidence_corpus),
        }
        if backend:
            given["backend"] = backend
        context = build_context(MEvalContext, settings or [], **given)
        run_settings = {k: v for k, v in asdict(context).items() if k != "prompt_overrides"}
        run_dir = out_dir or Path("runs") / f"m_eval_{dataset}_{split}_n{limit}"
        loaded = load_dataset(dataset, data_dir, split)
        claims = dataset == "citation_integrity"
        if claims:
            loaded = validation_bench.balanced_claims(loaded, limit, seed)
        items = validation_bench.start(
            run_dir,
            loaded,
            len(loaded) if claims else limit,
            seed,
            {
                "dataset": dataset,
                "split": split,
                "settings": {k: v for k, v in run_settings.items() if k != "cache_dir"},
                "command": "veriloop " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
            },
        )
        cases = (
            validation_bench.claim_cases(items)
            if claims
            else validation_bench.response_cases(items, str(evidence_corpus), cited, seed)
        )
        bar = tqdm(total=len(cases) * len(validation_bench.RUNS), desc="m-eval", unit="response")
        try:
            validation_bench.run_validation(
                run_dir, cases, run_settings, on_record=lambda record: bar.update(1)
            )
        except KeyboardInterrupt:
            bar.close()
            stop_interrupted(ResultsFile(run_dir / "results.jsonl"))
        bar.close()
        report = validation_bench.write_report(run_dir)
    except VeriloopError as exc:
        raise fail(exc) from None
    err.print(f"report: {report}")
