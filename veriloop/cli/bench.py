"""`veriloop bench`, `report` and `calibrate`: compare methods on datasets, resumably."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from veriloop.cli.common import (
    cache_setting,
    err,
    fail,
    stop_interrupted,
)
from veriloop.errors import InvalidInputError, VeriloopError
from veriloop.files import run_lock


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
    import signal

    from tqdm import tqdm

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # A non-interactive shell starts background jobs with SIGINT ignored; SIGINT is how
        # a run is stopped (and resumed later), so it must work however the run started.
        signal.signal(signal.SIGINT, signal.default_int_handler)

    from veriloop.evaluation import bench as harness
    from veriloop.evaluation.metrics import unigram_f1

    try:
        runs = harness.plan_runs(method or [], baseline or [], ablation or [], variant or [])
        selection = harness.Selection(dataset, data_dir, split, limit, shuffle, seed)
        items = selection.items()
        run_dir = out or selection.default_run_dir()
        cache = cache_setting(no_cache, cache_dir)
        base = {"seed": seed, "cache_dir": cache, **({"backend": backend} if backend else {})}
        for assignment in settings or []:
            name, sep, raw = assignment.partition("=")
            if not sep:
                raise InvalidInputError(f"--set {assignment!r}: expected NAME=VALUE")
            base[name.strip().replace("-", "_")] = raw
        base = harness.typed_settings(runs, base)
        with run_lock(run_dir):  # a second bench into this folder is refused
            results = harness.start_run(
                run_dir,
                runs,
                selection,
                settings=base,
                command="veriloop " + " ".join(sys.argv[1:]),
            )
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
                stop_interrupted(results)
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
        raise fail(exc) from None


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
        raise fail(exc) from None


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
        cache = cache_setting(no_cache)
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
        raise fail(exc) from None
