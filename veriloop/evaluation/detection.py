"""Hallucination detection and revision benchmark for Factored Verification (HaluEval QA).

Each HaluEval QA item gives a question, its knowledge, a right answer and a hallucinated
one; both answers are checked against the knowledge, so accuracy is over both (chance 50%).

1. Items are shuffled (seeded) and split into a training part (θ is fitted there: the value
   of P(answer) that best separates its right and hallucinated answers) and a disjoint test
   part (θ is applied there). Detection runs Factored Verification with `max_revisions` 0.
2. Revision (test part, hallucinated answers): Factored Verification with one critique-and-
   revise round, and the unfactored self-correction baseline followed by a detection-only
   check of its revision. Both are scored by the same detector: hallucinations per answer
   = claims with P(supported) < `supported_at`.

Records go to `results.jsonl` (one per run and case, resumable); `report.md` and
`summary.json` hold θ, accuracy, recall, specificity, undetermined counts and the revision
effect.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from veriloop.errors import InvalidInputError, ModelUnavailableError
from veriloop.evaluation.bench import ResultsFile, read_manifest, select_items
from veriloop.evaluation.harness import Task, run_tasks
from veriloop.evaluation.items import Item
from veriloop.evaluation.metrics import detection_report, mean
from veriloop.evaluation.tables import (
    bootstrap_interval,
    format_percent,
    run_header,
    write_summary,
)

pct = functools.partial(format_percent, sign=True)

DETECT = "fv-detect"
FV_REVISE = "fv-revise"
SELF_CORRECT = "self-correction"


@dataclass(frozen=True)
class Case:
    """One answer to check: an item's right or hallucinated answer."""

    case_id: str
    item_id: str
    split: str
    question: str
    answer: str
    sources: list[str]
    hallucinated: bool


def split_items(
    items: list[Item], train: int, test: int, seed: int, offset: int = 0
) -> tuple[list[Item], list[Item]]:
    """Shuffle (seeded), skip `offset` items, and return disjoint training and test items.

    `offset` keeps items another component was fitted on out of the study: the trained
    support judge used the first 400 HaluEval QA items of this same seeded shuffle
    (`veriloop.evaluation.judge_data.support_sets.HALUEVAL_TRAIN`), so `offset=400` is held
    out from it.

    Raises:
        InvalidInputError: There are not enough items.
    """
    if train < 1 or test < 1:
        raise InvalidInputError("--train and --test must both be at least 1")
    if offset < 0 or offset + train + test > len(items):
        skipped = f" after skipping {offset}" if offset else ""
        raise InvalidInputError(
            f"asked for {train} + {test} items{skipped}, the dataset has {len(items)}"
        )
    chosen = select_items(items, limit=None, shuffle=True, seed=seed)[offset:]
    return chosen[:train], chosen[train : train + test]


def paired_cases(items: list[Item], split: str) -> list[Case]:
    """Return each HaluEval QA item's right and hallucinated answer as two cases.

    Raises:
        InvalidInputError: An item has no hallucinated answer (not a HaluEval QA item).
    """
    cases = []
    for item in items:
        wrong = item.metadata.get("hallucinated_answer")
        if not wrong or not item.references:
            raise InvalidInputError(
                f"item {item.id} has no right and hallucinated answer pair; use --dataset "
                "halueval --split qa"
            )
        for suffix, answer, hallucinated in (
            ("right", item.references[0], False),
            ("hallucinated", wrong, True),
        ):
            cases.append(
                Case(
                    f"{item.id}:{suffix}",
                    item.id,
                    split,
                    item.question,
                    answer,
                    list(item.documents),
                    hallucinated,
                )
            )
    return cases


def unsupported(claims: list[dict[str, Any]], round_: int | None = None) -> int:
    """Count claims judged unsupported (in one round, or the last round when None)."""
    if not claims:
        return 0
    chosen = max(c["round"] for c in claims) if round_ is None else round_
    return sum(c["supported"] is False for c in claims if c["round"] == chosen)


def _verify(payload: Any, settings: dict[str, Any]) -> dict[str, Any]:
    from veriloop.graphs.factored_verification import FactoredVerificationContext, graph

    result: dict[str, Any] = graph.invoke(payload, context=FactoredVerificationContext(**settings))
    return result


def run_case(run: str, case: Case, settings: dict[str, Any]) -> dict[str, Any]:
    """Run one benchmark step on one case; return its record (errors recorded, not raised)."""
    # item_id keys the resumable results file, so it is the case (one answer), not the item
    record: dict[str, Any] = {
        "run": run,
        **asdict(case),
        "item_id": case.case_id,
        "dataset_item": case.item_id,
    }
    payload: Any = {"question": case.question, "answer": case.answer, "sources": case.sources}
    try:
        if run == DETECT:
            result = _verify(payload, {**settings, "max_revisions": 0})
        elif run == FV_REVISE:
            result = _verify(payload, {**settings, "max_revisions": 1})
        else:
            from veriloop.graphs.self_correction import SelfCorrectionContext
            from veriloop.graphs.self_correction import graph as correction

            known = set(SelfCorrectionContext.__dataclass_fields__)
            context = SelfCorrectionContext(**{k: v for k, v in settings.items() if k in known})
            corrected = correction.invoke(payload, context=context)
            record["revised_answer"] = corrected["answer"]
            record["correction_usage"] = corrected["trace"]["usage"]
            result = _verify(
                {**payload, "answer": corrected["answer"]}, {**settings, "max_revisions": 0}
            )
        record.update(
            p_answer=(result.get("answer_probabilities") or [None])[-1],
            p_first=(result.get("answer_probabilities") or [None])[0],
            verdict=result.get("verdict"),
            final_answer=result.get("answer"),
            claims=result.get("claims"),
            claims_from=result.get("claims_from"),
            discarded_claims=result.get("discarded_claims"),
            unsupported_first=unsupported(result.get("claims") or [], 0),
            unsupported_last=unsupported(result.get("claims") or []),
            usage=(result.get("trace") or {}).get("usage"),
            error=None,
        )
    except ModelUnavailableError:
        raise
    except Exception as exc:  # recorded, never dropped
        record.update(error=f"{type(exc).__name__}: {exc}")
    return record


def run_detection(
    run_dir: Path,
    train_cases: list[Case],
    test_cases: list[Case],
    settings: dict[str, Any],
    *,
    revise: bool = True,
    workers: int = 1,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Run detection on all cases and (optionally) revision on hallucinated test answers."""
    plan = [(DETECT, c) for c in [*train_cases, *test_cases]]
    if revise:
        wrong = [c for c in test_cases if c.hallucinated]
        plan += [(FV_REVISE, c) for c in wrong] + [(SELF_CORRECT, c) for c in wrong]
    tasks = [Task(run, c.case_id, functools.partial(run_case, run, c, settings)) for run, c in plan]
    run_tasks(tasks, ResultsFile(run_dir / "results.jsonl"), workers=workers, on_record=on_record)


def summarise(run_dir: Path) -> dict[str, Any]:
    """Fit θ on the training records, score the test records, measure revision."""
    from veriloop.nodes.claims import fit_threshold

    records = ResultsFile(run_dir / "results.jsonl").records()
    detect = [r for r in records if r["run"] == DETECT and not r.get("error")]
    train = [r for r in detect if r["split"] == "train" and r["p_answer"] is not None]
    if not train:
        raise InvalidInputError(f"{run_dir} has no usable training records to fit θ on")
    theta, train_accuracy = fit_threshold(
        [r["p_answer"] for r in train], [r["hallucinated"] for r in train]
    )
    test = [r for r in detect if r["split"] == "test"]
    determined = [r for r in test if r["p_answer"] is not None]
    report = (
        detection_report(
            [r["p_answer"] < theta for r in determined], [r["hallucinated"] for r in determined]
        )
        if determined
        else {}
    )
    by_item: dict[str, list[float]] = {}  # answers judged right (undetermined: wrong)
    for r in test:
        right = r["p_answer"] is not None and (r["p_answer"] < theta) == r["hallucinated"]
        by_item.setdefault(r["dataset_item"], []).append(float(right))
    all_accuracy = sum(map(sum, by_item.values())) / len(test) if test else None
    item_accuracy = [sum(v) / len(v) for v in by_item.values()]
    all_interval = bootstrap_interval(item_accuracy) if item_accuracy else None
    revision: dict[str, Any] = {}
    for run in (FV_REVISE, SELF_CORRECT):
        rows = [r for r in records if r["run"] == run and not r.get("error")]
        if not rows:
            continue
        before = {r["case_id"]: r["unsupported_first"] for r in detect if r["split"] == "test"}
        revision[run] = {
            "answers": len(rows),
            "hallucinations_before": mean(before.get(r["case_id"]) for r in rows),
            "hallucinations_after": mean(r["unsupported_last"] for r in rows),
            "judged_hallucinated_after": sum(
                r["p_answer"] is not None and r["p_answer"] < theta for r in rows
            ),
        }
    summary = {
        "theta": theta,
        "train_cases": len(train),
        "train_accuracy": train_accuracy,
        "test_cases": len(test),
        "test_undetermined": len(test) - len(determined),
        "test_accuracy_determined": report.get("accuracy"),
        "test_accuracy_all": all_accuracy,
        "test_accuracy_all_ci": None if all_interval is None else list(all_interval),
        "recall": report.get("recall"),
        "specificity": report.get("specificity"),
        "p_answer_mean_right": mean(r["p_answer"] for r in determined if not r["hallucinated"]),
        "p_answer_mean_hallucinated": mean(r["p_answer"] for r in determined if r["hallucinated"]),
        "errors": sum(bool(r.get("error")) for r in records),
        "revision": revision,
    }
    if any(r.get("claims_from") for r in detect):  # runs before 2026-11-24 did not record it
        summary["claims_from"] = dict(
            Counter((r.get("claims_from") or ["unrecorded"])[0] for r in detect)
        )
        summary["discarded_claims"] = sum(len(r.get("discarded_claims") or []) for r in detect)
    write_summary(run_dir, summary)
    return summary


def interval(bounds: list[float] | None) -> str:
    """Format a [low, high] share interval as ' [88.0, 95.5]' ('' when there is none)."""
    return "" if not bounds else f" [{100 * bounds[0]:.1f}, {100 * bounds[1]:.1f}]"


def write_detection_report(run_dir: Path) -> Path:
    """Write report.md for a detection run directory."""
    summary = summarise(run_dir)
    manifest = read_manifest(run_dir)

    lines = [
        *run_header(
            f"Hallucination detection: {manifest.get('dataset')} ({manifest.get('split')})",
            manifest,
        ),
        "## Detection (Factored Verification, θ fitted on the training items)",
        "",
        "| θ | training answers (accuracy) | test answers | undetermined | accuracy (determined) "
        "| accuracy (all; undetermined wrong) | recall | specificity | mean P(answer) right / "
        "hallucinated |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {summary['theta']:.4g} | {summary['train_cases']} ({pct(summary['train_accuracy'])}) "
        f"| {summary['test_cases']} | {summary['test_undetermined']} "
        f"| {pct(summary['test_accuracy_determined'])} | {pct(summary['test_accuracy_all'])}"
        f"{interval(summary.get('test_accuracy_all_ci'))} "
        f"| {pct(summary['recall'])} | {pct(summary['specificity'])} "
        f"| {summary['p_answer_mean_right'] or 0:.3f} / "
        f"{summary['p_answer_mean_hallucinated'] or 0:.3f} |",
        "",
        "Each test item contributes its right and its hallucinated answer, so chance is 50%; "
        "the interval is a seeded bootstrap 95% interval over test items (2000 resamples).",
    ]
    if summary["revision"]:
        lines += [
            "",
            "## Revision of the hallucinated test answers (same detector before and after)",
            "",
            "| method | answers | unsupported claims per answer before | after | still judged "
            "hallucinated (P < θ) |",
            "|---|---|---|---|---|",
        ]
        for run, row in summary["revision"].items():
            lines.append(
                f"| {run} | {row['answers']} | {row['hallucinations_before'] or 0:.2f} | "
                f"{row['hallucinations_after'] or 0:.2f} | {row['judged_hallucinated_after']} |"
            )
    if "claims_from" in summary:
        sources = ", ".join(f"{k} {v}" for k, v in sorted(summary["claims_from"].items()))
        lines += [
            "",
            f"Where the detection runs' claims came from (answers): {sources}; decomposed "
            f"claims discarded as not drawn from the answer: {summary['discarded_claims']}.",
        ]
    lines += ["", f"Failed records: {summary['errors']}."]
    path = run_dir / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path
