"""The `veriloop` command line.

    veriloop ask "Is Noonan syndrome inherited?"            # Self-Reflection, embedded model
    veriloop ask "..." --method direct --json               # baseline, full output as JSON
    veriloop ask "..." --set max_rounds=1 --set no_number=true

User errors (bad question, unknown method or setting, missing model, unreachable server)
print one line starting with "error:" and exit with status 2; no traceback.
"""

from __future__ import annotations

import json
import os
import sys
import typing
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from veriloop.context import ModelSettings, parse_setting
from veriloop.errors import InvalidInputError, VeriloopError
from veriloop.methods import METHODS, get_method
from veriloop.nodes.input import check_question

# Help texts are plain text: with Rich markup on, a default path in square brackets is
# read as a markup tag (and crashes `--help`, or silently disappears).
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Hallucination-mitigation methods as LangGraph graphs, offline by default.",
)
err = Console(stderr=True, highlight=False)
out = Console(highlight=False)

DEFAULT_CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "veriloop"


@app.callback()
def main() -> None:
    """Run veriloop's methods from the command line."""


def _register_subcommands() -> None:
    from veriloop.cli_index import index_command
    from veriloop.cli_kb import kb_app
    from veriloop.cli_verify import detect_bench_command, validate_bench_command, verify_command

    app.add_typer(kb_app, name="kb")
    app.command("index")(index_command)
    app.command("verify")(verify_command)
    app.command("detect-bench")(detect_bench_command)
    app.command("validate-bench")(validate_bench_command)


def build_context(
    context_class: type[ModelSettings],
    assignments: list[str],
    *,
    ignore_unknown: bool = False,
    **given: Any,
) -> ModelSettings:
    """Build a method's Context from CLI options and `--set name=value` pairs.

    Args:
        context_class: The method's Context dataclass.
        assignments: `NAME=VALUE` texts, converted to each field's type.
        ignore_unknown: Skip names the Context lacks instead of rejecting them.
        **given: Fields set by CLI options; None means "not given".

    Raises:
        InvalidInputError: A malformed or unknown assignment, or a value the Context rejects.
    """
    known = {spec.name: spec for spec in fields(context_class)}
    hints = typing.get_type_hints(context_class)
    values = {key: value for key, value in given.items() if value is not None}
    for assignment in assignments:
        name, sep, raw = assignment.partition("=")
        name = name.strip().replace("-", "_")
        if sep and name not in known and ignore_unknown:
            continue
        if not sep or name not in known:
            raise InvalidInputError(
                f"--set {assignment!r}: expected NAME=VALUE with NAME one of "
                f"{', '.join(sorted(known))}"
            )
        values[name] = parse_setting(raw, hints[name], f"--set {name}")
    return context_class(**values)


def _score_cell(candidate: dict[str, Any], name: str) -> str:
    if name not in candidate["scores"]:
        return ""
    value = candidate["scores"][name]
    if value is None:
        return "[red]failed[/red]"
    threshold = candidate["thresholds"].get(name)
    mark = "" if threshold is None else (" ✓" if value >= threshold else " ✗")
    return f"{value:.3f}{mark}"


def _progress_line(node: str, update: dict[str, Any]) -> str:
    for candidate in update.get("candidates") or []:
        scores = ", ".join(f"{name} {_score_cell(candidate, name)}" for name in candidate["scores"])
        where = f"round {candidate['round'] + 1}"
        if candidate["stage"] != "round":
            where += f", attempt {candidate['iteration'] + 1}"
        note = f" [red]({candidate['error']})[/red]" if candidate["error"] else ""
        return f"{node:<18} {candidate['stage']:<9} {where}: {scores}{note}"
    for stop in update.get("stops") or []:
        return f"{node:<18} {stop['loop']} loop stopped: {stop['reason']} — {stop['detail']}"
    return node


def render_result(result: dict[str, Any], *, show_rationale: bool = False) -> None:
    """Print the answer, the knowledge, the candidate table and the stop reasons.

    Factual Evidence output is shown as the answer with numbered citations and a sources
    list (`show_rationale`: the rationale table with labels too).
    """
    if "context_units" in result:
        from veriloop.cli_index import render_cited_answer

        render_cited_answer(result, show_rationale=show_rationale)
        return
    trace = result.get("trace") or {}
    answer = result.get("answer")
    refusal = result.get("refusal")
    if refusal:
        out.print(
            Panel(
                f"[yellow]{refusal['kind']} refusal:[/yellow] {refusal['detail']}",
                title="Refused: I don't know",
                expand=True,
            )
        )
    else:
        out.print(Panel(answer or "[red]no usable answer[/red]", title="Answer", expand=True))
    for key, title in (("evidence", "Evidence"), ("reasoning", "Reasoning")):
        if result.get(key):
            out.print(Panel(result[key], title=title, expand=True))
    retrieved = result.get("retrieved")
    if retrieved:
        from veriloop.cli_kb import _hits_table

        out.print(_hits_table(retrieved, "Knowledge-base entries retrieved"))
    elif result.get("knowledge"):
        out.print(Panel(result["knowledge"], title="Knowledge (final)", expand=True))
    candidates = trace.get("candidates", [])
    score_names = list(dict.fromkeys(name for c in candidates for name in c["scores"]))
    if candidates and score_names:
        table = Table(title="Candidates per iteration (✓ met threshold, ✗ below)")
        columns = ["round", "stage", "try", *score_names]
        for column in columns:
            table.add_column(column, no_wrap=True, min_width=max(len(column), 6))
        # Scores first; the text gets what is left of the terminal, or is left to --json.
        text_width = out.width - sum(max(len(c), 9) + 3 for c in columns) - 4
        show_text = text_width >= 20
        if show_text:
            table.add_column("text", no_wrap=True, overflow="ellipsis", max_width=text_width)
        for candidate in candidates:
            text = candidate["text"] or f"[red]{candidate['error'] or 'empty'}[/red]"
            table.add_row(
                str(candidate["round"] + 1),
                candidate["stage"],
                "" if candidate["stage"] == "round" else str(candidate["iteration"] + 1),
                *(_score_cell(candidate, name) for name in score_names),
                *([" ".join(text.split())] if show_text else []),
            )
        out.print(table)
    for stop in trace.get("stops", []):
        out.print(
            f"[bold]{stop['loop']}[/bold] loop, round {stop['round'] + 1}: "
            f"{stop['reason']} — {stop['detail']}"
        )
    usage = trace.get("usage")
    if usage:
        out.print(
            f"model calls: {usage['calls']} ({usage['chat_calls']} chat, {usage['score_calls']} "
            f"score, {usage['embed_calls']} embed; {usage['cached_calls']} cached), tokens in "
            f"{usage['tokens_in']}, out {usage['tokens_out']}, model time "
            f"{usage['model_seconds']:.1f} s; stop reason: {trace.get('stop_reason')}"
        )


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    method: Annotated[
        str, typer.Option("--method", "-m", help=f"One of: {', '.join(sorted(METHODS))}.")
    ] = "self-reflection",
    as_json: Annotated[bool, typer.Option("--json", help="Print the full output state.")] = False,
    backend: Annotated[
        str | None, typer.Option(help="Model backend: embedded, openai, ...")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option(help=f"Model-call cache directory [{DEFAULT_CACHE_DIR}].")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override a Context field, e.g. --set max_rounds=1."),
    ] = None,
    kb: Annotated[
        Path | None, typer.Option(help="Knowledge-base directory (methods l2r and rag).")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(help="A multiple-choice option LABEL=TEXT (repeatable)."),
    ] = None,
    corpus: Annotated[
        Path | None, typer.Option(help="Corpus index directory (methods fe; `veriloop index`).")
    ] = None,
    rationale: Annotated[
        bool, typer.Option("--rationale", help="Show the rationale table with its labels (fe).")
    ] = False,
    verify: Annotated[
        str | None,
        typer.Option(help="Then verify the answer: factored or self-correction (chained)."),
    ] = None,
) -> None:
    """Answer one question with a method, showing each step and the scores."""
    try:
        spec = get_method(method)
        build_graph, context_class = spec.load()
        verifier_class: type[ModelSettings] | None = None
        if verify:
            from veriloop.cli_verify import load_verifier

            verifier_class = load_verifier(verify)[1]  # unknown name: fail before the method
        cache = (
            ""
            if no_cache
            else str(cache_dir or os.environ.get("VERILOOP_CACHE_DIR", DEFAULT_CACHE_DIR))
        )
        given: dict[str, Any] = {"backend": backend, "cache_dir": cache}
        if kb is not None:
            if "kb_dir" not in {field.name for field in fields(context_class)}:
                raise InvalidInputError(f"method {method!r} does not use a knowledge base (--kb)")
            given["kb_dir"] = str(kb)
        if corpus is not None:
            if "corpus_dir" not in {field.name for field in fields(context_class)}:
                raise InvalidInputError(
                    f"method {method!r} does not use a corpus index (--corpus); use --method fe"
                )
            given["corpus_dir"] = str(corpus)
        if verifier_class is not None:
            # --set pairs go to the method and to the chained verifier, each taking the
            # names its Context has; a name neither has is an error before anything runs.
            both = {spec.name for spec in (*fields(context_class), *fields(verifier_class))}
            for assignment in settings or []:
                name = assignment.partition("=")[0].strip().replace("-", "_")
                if name not in both:
                    raise InvalidInputError(
                        f"--set {assignment!r}: neither {spec.name} nor the {verify} verifier "
                        f"has a setting {name!r}; known: {', '.join(sorted(both))}"
                    )
            build_context(
                verifier_class,
                settings or [],
                ignore_unknown=True,
                backend=backend,
                cache_dir=cache,
            )
        context = build_context(
            context_class, settings or [], ignore_unknown=verifier_class is not None, **given
        )
        question = check_question(question, max_chars=context.max_question_chars)
        request: dict[str, Any] = {"question": question}
        if option:
            request["options"] = _parse_options(option)
        graph = build_graph().compile(name=spec.name)
        err.print(f"[bold]{spec.name}[/bold] on {context.backend} models: {spec.summary}")
        result: dict[str, Any] = {}
        for mode, chunk in graph.stream(
            request, context=context, stream_mode=["updates", "values"]
        ):
            if mode == "updates":
                for node, update in chunk.items():
                    err.print(f"  [dim]▸[/dim] {_progress_line(node, update or {})}")
            else:
                result = chunk
    except VeriloopError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(code=2) from None
    output_keys = set(graph.get_output_jsonschema()["properties"])
    final = {key: value for key, value in result.items() if key in output_keys}
    checked: dict[str, Any] | None = None
    if verify and not as_json:
        render_result(final, show_rationale=rationale)
    if verify:
        from veriloop.cli_verify import render_verification, run_verifier, verification_input

        try:
            payload = verification_input(final, f"the {spec.name} output")
            err.print(f"[bold]{verify}[/bold] verification of the answer")
            checked = run_verifier(
                verify,
                payload,
                settings or [],
                ignore_unknown=True,
                backend=backend,
                cache_dir=cache,
            )
        except VeriloopError as exc:
            err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(code=2) from None
        if not as_json:
            render_verification(checked)
    if as_json:
        document = final if checked is None else {**final, "verification": checked}
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    elif not verify:
        render_result(final, show_rationale=rationale)


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        label, sep, text = pair.partition("=")
        if not sep or not label.strip() or not text.strip():
            raise InvalidInputError(f"--option {pair!r}: expected LABEL=TEXT, e.g. A=Paris")
        options[label.strip()] = text.strip()
    return options


def _default_run_dir(
    dataset: str, split: str | None, limit: int | None, shuffle: bool, seed: int
) -> Path:
    parts = [dataset, split or "default", f"n{limit}" if limit else "all"]
    if shuffle:
        parts.append(f"shuffle{seed}")
    return Path("runs") / "_".join(parts)


@app.command()
def bench(
    dataset: Annotated[
        str, typer.Option(help="pubmedqa, medquad, truthfulqa, medqa, commonsenseqa, ...")
    ],
    data_dir: Annotated[Path, typer.Option(help="Folder with the dataset's original files.")],
    method: Annotated[
        list[str] | None, typer.Option("--method", "-m", help="Method(s) to evaluate.")
    ] = None,
    baseline: Annotated[
        list[str] | None, typer.Option("--baseline", "-b", help="Baseline(s), e.g. direct.")
    ] = None,
    ablation: Annotated[
        list[str] | None,
        typer.Option(
            help="Ablation(s) of the methods that have them: self-reflection no_refinement, "
            "no_aspect, no_number; l2r no_reasoning; fe direct_generation, "
            "triplets_instead_of_paragraphs, no_verification."
        ),
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option(
            help="A method under its own settings, NAME=METHOD,key=value,... "
            "(e.g. l2r-gold=l2r,kb_dir=kbs/gold)."
        ),
    ] = None,
    split: Annotated[str | None, typer.Option(help="Dataset split (default per dataset).")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Use the first N items.")] = None,
    shuffle: Annotated[bool, typer.Option(help="Shuffle items (seeded) before --limit.")] = False,
    seed: Annotated[int, typer.Option(help="Seed for --shuffle and model sampling.")] = 0,
    workers: Annotated[int, typer.Option(min=1, help="Items run concurrently.")] = 1,
    out: Annotated[
        Path | None, typer.Option(help="Run directory [runs/<dataset>_<split>_n<limit>].")
    ] = None,
    backend: Annotated[str | None, typer.Option(help="Model backend.")] = None,
    cache_dir: Annotated[Path | None, typer.Option(help="Model-call cache directory.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
    settings: Annotated[
        list[str] | None, typer.Option("--set", help="Override a Context field (all runs).")
    ] = None,
    report: Annotated[bool, typer.Option(help="Write report.md and plots at the end.")] = True,
) -> None:
    """Run methods and baselines on the same items; resume where a previous run stopped."""
    from tqdm import tqdm

    from veriloop.evaluation import bench as harness
    from veriloop.evaluation.datasets import load_dataset
    from veriloop.evaluation.metrics import unigram_f1

    try:
        runs = harness.plan_runs(method or [], baseline or [], ablation or [], variant or [])
        items = harness.select_items(
            load_dataset(dataset, data_dir, split), limit=limit, shuffle=shuffle, seed=seed
        )
        run_dir = out or _default_run_dir(dataset, split, limit, shuffle, seed)
        cache = (
            ""
            if no_cache
            else str(cache_dir or os.environ.get("VERILOOP_CACHE_DIR", DEFAULT_CACHE_DIR))
        )
        base = {"seed": seed, "cache_dir": cache, **({"backend": backend} if backend else {})}
        for assignment in settings or []:
            name, sep, raw = assignment.partition("=")
            if not sep:
                raise InvalidInputError(f"--set {assignment!r}: expected NAME=VALUE")
            base[name.strip().replace("-", "_")] = raw
        base = _typed_settings(runs, base)
        harness.write_manifest(
            run_dir,
            {
                "dataset": dataset,
                "split": split,
                "limit": limit,
                "shuffle": shuffle,
                "seed": seed,
                "data_dir": str(data_dir),
                "runs": [r.name for r in runs],
                "settings": {k: v for k, v in base.items() if k != "cache_dir"},
                "command": "veriloop " + " ".join(sys.argv[1:]),
            },
        )
        results = harness.ResultsFile(run_dir / "results.jsonl")
        todo = len(runs) * len(items) - len(
            results.finished() & {(r.name, i.id) for r in runs for i in items}
        )
        err.print(
            f"{len(runs)} run(s) x {len(items)} item(s) of {dataset}: {todo} to do, "
            f"results in {run_dir / 'results.jsonl'}"
        )
        f1_by_run: dict[str, list[float]] = {}
        calls_by_run: dict[str, list[int]] = {}
        progress = tqdm(total=todo, unit="item", dynamic_ncols=True, file=sys.stderr)

        label = "acc" if any(item.options for item in items) else "F1"

        def on_record(record: dict[str, Any]) -> None:
            if record.get("options"):
                value = float(
                    record.get("choice") is not None and record["choice"] == record["gold"]
                )
            else:
                value = unigram_f1(record.get("answer") or "", record["references"])
            f1_by_run.setdefault(record["run"], []).append(value)
            usage = (record.get("trace") or {}).get("usage") or {}
            calls_by_run.setdefault(record["run"], []).append(int(usage.get("calls", 0)))
            progress.set_postfix_str(
                " ".join(
                    f"{run}: {label} {sum(v) / len(v):.3f}, "
                    f"{sum(calls_by_run[run]) / len(v):.0f} calls"
                    for run, v in f1_by_run.items()
                )
            )
            progress.update(1)

        try:
            harness.run_bench(
                runs, items, results, base_settings=base, workers=workers, on_record=on_record
            )
        except KeyboardInterrupt:
            progress.close()
            _stop_interrupted_bench(results)
        finally:
            progress.close()
        records = results.records()
        failed = [r for r in records if r.get("error")]
        err.print(f"{len(records)} record(s) in {run_dir}; {len(failed)} failed item(s)")
        if report:
            from veriloop.evaluation.report import write_report

            path = write_report(run_dir, cache_dir=cache)
            err.print(f"report: {path}")
    except VeriloopError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(code=2) from None


def _stop_interrupted_bench(results: Any) -> typing.NoReturn:
    """Say what Ctrl-C kept and how to resume, then end the process at once (status 130).

    Queued items were cancelled; items in flight are abandoned rather than awaited (a
    llama.cpp call cannot be interrupted), exactly as a kill would leave them: every
    finished record is already on disk, and a re-run picks up what is missing.
    """
    try:
        kept = len(results.records())
    except VeriloopError:
        kept = -1
    held = f"{kept} finished record(s) are" if kept >= 0 else "finished records are"
    err.print(
        f"[yellow]interrupted:[/yellow] {held} kept in {results.path}; items in flight were "
        "not recorded. Run the same command again to resume where it stopped.",
        soft_wrap=True,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _typed_settings(runs: list[Any], raw: dict[str, Any]) -> dict[str, Any]:
    """Convert `--set` strings to each field's type, using the first run's Context."""
    import typing

    typed: dict[str, Any] = {}
    hints: dict[str, Any] = {}
    for run in runs:
        hints.update(typing.get_type_hints(get_method(run.method).load()[1]))
    for name, value in raw.items():
        if name not in hints:
            raise InvalidInputError(
                f"--set {name}: no method in this benchmark has that setting; known: "
                f"{', '.join(sorted(hints))}"
            )
        typed[name] = (
            parse_setting(value, hints[name], f"--set {name}")
            if isinstance(value, str) and hints[name] is not str
            else value
        )
    return typed


@app.command("report")
def report_command(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by veriloop bench.")],
    grader_backend: Annotated[
        str | None, typer.Option(help="Auto-Grader backend (corpus runs): embedded, openai.")
    ] = None,
    grader_model_path: Annotated[
        str | None, typer.Option(help="Auto-Grader GGUF file (embedded backend).")
    ] = None,
    grader_model_name: Annotated[
        str | None, typer.Option(help="Auto-Grader model name (openai backend).")
    ] = None,
    grader_base_url: Annotated[
        str | None, typer.Option(help="Auto-Grader server URL (openai backend).")
    ] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="Model-call cache directory [$VERILOOP_CACHE_DIR or ~/.cache/veriloop]."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Score afresh, no cache.")] = False,
) -> None:
    """(Re)write report.md and the plots of a run directory from its results.jsonl.

    Runs over a corpus are graded by the Auto-Grader; by default it is the run's own chat
    model at temperature 0. Point it at a stronger, separate model with the --grader-*
    options (the paper used GPT-4).
    """
    from veriloop.evaluation.report import write_report

    grader = {
        key: value
        for key, value in {
            "backend": grader_backend,
            "chat_model_path": grader_model_path,
            "model_name": grader_model_name,
            "base_url": grader_base_url,
        }.items()
        if value
    }
    try:
        cache = "" if no_cache else (str(cache_dir) if cache_dir else None)
        err.print(f"report: {write_report(run_dir, grader_settings=grader, cache_dir=cache)}")
    except VeriloopError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(code=2) from None


@app.command()
def calibrate(
    dataset: Annotated[str, typer.Option(help="Dataset to calibrate on.")],
    data_dir: Annotated[Path, typer.Option(help="Folder with the dataset's files.")],
    split: Annotated[str, typer.Option(help="A dev split, disjoint from what you report.")],
    limit: Annotated[int, typer.Option(min=1, help="Items to score.")] = 30,
    quantile: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Quantile for each threshold.")
    ] = 0.5,
    out: Annotated[Path | None, typer.Option(help="Run directory.")] = None,
    backend: Annotated[str | None, typer.Option(help="Model backend.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
) -> None:
    """Propose Self-Reflection thresholds for the current scorer model from a dev split."""
    import json as json_module

    from veriloop.evaluation import bench as harness
    from veriloop.evaluation import calibrate as calibration
    from veriloop.evaluation.datasets import load_dataset

    try:
        if not 0 <= quantile <= 1:
            raise InvalidInputError(f"--quantile must be within [0, 1], got {quantile}")
        items = load_dataset(dataset, data_dir, split)[:limit]
        run_dir = out or Path("runs") / f"calibrate_{dataset}_{split}_n{limit}"
        cache = "" if no_cache else str(os.environ.get("VERILOOP_CACHE_DIR", DEFAULT_CACHE_DIR))
        base = {"cache_dir": cache, **({"backend": backend} if backend else {})}
        harness.write_manifest(
            run_dir,
            {
                "dataset": dataset,
                "split": split,
                "limit": limit,
                "shuffle": False,
                "seed": 0,
                "data_dir": str(data_dir),
                "runs": ["self-reflection[no_refinement]"],
                "command": "veriloop " + " ".join(sys.argv[1:]),
            },
        )
        results = harness.ResultsFile(run_dir / "results.jsonl")
        runs = harness.plan_runs(["self-reflection"], [], ["no_refinement"])[1:]
        err.print(f"scoring first attempts on {len(items)} {dataset} {split} item(s)...")
        harness.run_bench(runs, items, results, base_settings=base)
        scores = calibration.first_attempt_scores(results.records())
        proposals = calibration.propose(scores, quantile)
        models = results.records()[0]["trace"]["settings"]["models"]
        text = calibration.markdown(
            proposals,
            q=quantile,
            header=f"# Calibration on {dataset} {split} ({len(items)} items), scorer "
            f"{models['scorer']}, embeddings {models['embeddings']}",
        )
        (run_dir / "calibration.json").write_text(json_module.dumps(proposals, indent=2) + "\n")
        (run_dir / "calibration.md").write_text(text)
        out_console = Console(highlight=False, width=200)
        out_console.print(text)
    except VeriloopError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(code=2) from None


@app.command()
def doctor(
    model_path: Annotated[
        Path | None,
        typer.Option(help="GGUF file to check [the bundled SmolLM2-135M-Instruct]."),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check/--no-check", help="Run the runtime check.")
    ] = True,
    brief: Annotated[
        bool, typer.Option("--brief", help="Print only the check (scripts/setup.sh uses this).")
    ] = False,
    timeout: Annotated[float, typer.Option(min=1.0, help="Seconds the check may take.")] = 600.0,
) -> None:
    """Show the CPU, runtime build, model files, cache and settings; prove the runtime works.

    The check loads the chat model, decodes a few tokens, teacher-forces a short text and
    embeds a sentence in a child process, so a crash of native code is reported as the step
    that crashed. Exit status: 0 when the check passes (or is skipped), 1 when it fails,
    2 on a usage error.
    """
    from veriloop.models import runtime_check

    try:
        if model_path is not None and not model_path.is_file():
            raise InvalidInputError(f"--model-path {model_path} is not a file; give a GGUF file")
        if timeout <= 0:
            raise InvalidInputError(f"--timeout must be positive, got {timeout}")
        if not brief:
            _print_environment(model_path)
    except VeriloopError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(code=2) from None
    if not check:
        return
    err.print("checking the model runtime (load, decode, score, embed) in a child process...")
    settings = ModelSettings()  # VERILOOP_CHAT_MODEL_PATH / _EMBEDDING_MODEL apply here too
    chosen = model_path or (Path(settings.chat_model_path) if settings.chat_model_path else None)
    report = runtime_check.check_runtime(
        chosen, embedding_model=settings.embedding_model, timeout=timeout
    )
    for step in report.steps:
        mark = "[green]ok[/green]" if step.ok else "[red]failed[/red]"
        detail = escape(step.detail)
        err.print(f"  {step.step:<7} {mark} {step.seconds:5.1f} s  {detail}", soft_wrap=True)
    if report.system_info and brief:
        used = ", ".join(runtime_check.uses_features(report.system_info))
        err.print(f"  llama.cpp uses: {used}", soft_wrap=True)
    if not report.ok:
        err.print(f"[red]error:[/red] {escape(report.message())}", soft_wrap=True)
        raise typer.Exit(code=1)
    err.print(f"[green]{escape(report.message())}[/green]", soft_wrap=True)


def _print_environment(model_path: Path | None) -> None:
    """Print the CPU, the llama.cpp build, the model files, the cache and the settings."""
    from veriloop.models import runtime_check
    from veriloop.models.locate import bundled_chat_model_path, bundled_embedding_model_path

    features = runtime_check.cpu_features()
    table = Table(title="veriloop doctor", show_header=False)
    table.add_column("what", style="bold", no_wrap=True)
    table.add_column("value")
    table.add_row("CPU", runtime_check.cpu_model())
    table.add_row("CPU features", " ".join(name for name, has in features.items() if has) or "?")
    missing = [name for name in runtime_check.PORTABLE_NEEDS if not features[name]]
    if missing and any(features.values()):
        table.add_row(
            "warning",
            f"this CPU lacks {', '.join(missing)}, which the portable build needs; "
            "run VERILOOP_LLAMA_BUILD=native bash scripts/setup.sh",
        )
    try:
        import llama_cpp

        info = llama_cpp.llama_print_system_info().decode(errors="replace")
        table.add_row("llama-cpp-python", llama_cpp.__version__)
        table.add_row("llama.cpp uses", ", ".join(runtime_check.uses_features(info)))
    except ImportError as exc:
        table.add_row("llama-cpp-python", f"not importable ({exc}); run bash scripts/setup.sh")
    table.add_row(
        "llama.cpp build",
        runtime_check.installed_build() or "not recorded (not installed by scripts/setup.sh)",
    )
    configured = ModelSettings().chat_model_path
    locators: tuple[tuple[str, Callable[[], Path]], ...] = (
        (
            "chat model",
            lambda: model_path or (Path(configured) if configured else bundled_chat_model_path()),
        ),
        ("embedding model", bundled_embedding_model_path),
    )
    for label, locate in locators:
        try:
            path = Path(locate())
            size = (
                sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
                if path.is_dir()
                else path.stat().st_size
            )
            table.add_row(label, f"{path} ({size / 1e6:.1f} MB)")
        except (VeriloopError, OSError) as exc:
            table.add_row(label, f"[red]{escape(str(exc))}[/red]")
    cache = Path(os.environ.get("VERILOOP_CACHE_DIR", str(DEFAULT_CACHE_DIR)))
    state = "exists" if cache.is_dir() else "not created yet"
    table.add_row("cache directory", f"{cache} ({state}; --no-cache or --cache-dir to change)")
    settings = ModelSettings()
    for spec in fields(ModelSettings):
        value = getattr(settings, spec.name)
        variable = f"VERILOOP_{spec.name.upper()}"
        source = f" (from {variable})" if variable in os.environ else ""
        table.add_row(f"setting {spec.name}", f"{value!r}{source}")
    out.print(table)


_register_subcommands()
