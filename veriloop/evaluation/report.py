"""Turn a run directory's results.jsonl into report.md and PNG plots (`report_plots`).

Metrics are computed here, from the stored answers, not during the runs: a better NLI
judge or a new metric re-scores old runs without regenerating anything. Per-record
metrics are kept in `metrics.jsonl` (keyed by run, item and a hash of the answer), so a
second report is fast.

Columns, shaped like Ji et al. (2023) Table 2 / Table 4:
- Med-NLI sample / sentence: the reference answer as premise; +1 entailed, 0 neutral,
  -1 contradicted; the mean over items (sentence level: the mean over each answer's
  sentences, then over items). Judge and its measured HealthVer accuracy are printed.
- Consistency (CtrlEval column): the two-direction infilling score of the answer against
  the question, on the scorer model (the same scorer Self-Reflection uses internally, so
  it is not an independent judge of that method; read it with that in mind).
- F1 and ROUGE-L against the reference (x100, as the paper prints them).
- Cost: model calls, tokens in/out and model seconds per item, from the traces.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.evaluation.bench import ResultsFile, read_manifest, reportable_records
from veriloop.evaluation.grounding import answer_claims, faithfulness
from veriloop.evaluation.metrics import mean, rouge_l, unigram_f1
from veriloop.evaluation.nli import HEAD_FILE, EmbeddingNLI, NLIJudge, measure_on_healthver, med_nli
from veriloop.evaluation.report_plots import write_plots
from veriloop.evaluation.tables import (
    append_keyed_metrics,
    difference_verdict,
    format_number,
    paired_comparison,
    read_keyed_metrics,
)
from veriloop.models import Models, get_models
from veriloop.nodes.judges import CoverageGatedJudge, SupportJudge, support_judge

METRICS_VERSION = "5"  # 5: three-way judge, + contradicted claims; 4: + refused, per-item
# unsupported, wall s; 3: gated judge; 2: judge
OLDER_METRICS = ("4", "3", "2", "1")
COLUMNS = [
    ("nli_sample", "Med-NLI spl", 3),
    ("nli_sentence", "Med-NLI sent", 3),
    ("refused", "Refused %", 1),
    ("ref_supported", "Ref-supported %", 1),
    ("unsupported_claims", "Unsupp. claims", 2),
    ("contradicted_claims", "Contra. claims", 2),
    ("unsupported_per_item", "Unsupp./item", 2),
    ("consistency", "Consistency", 2),
    ("f1", "F1", 2),
    ("rouge_l", "R-L", 2),
    ("calls", "calls/item", 1),
    ("tokens_in", "tokens in", 0),
    ("tokens_out", "tokens out", 0),
    ("model_seconds", "model s/item", 1),
    ("wall_seconds", "wall s/item", 1),
]


def _answer_key(record: dict[str, Any], version: str = METRICS_VERSION) -> str:
    text = f"{version}\x00{record['run']}\x00{record['item_id']}\x00{record.get('answer')}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def score_record(
    record: dict[str, Any], judge: NLIJudge, models: Models, support: SupportJudge
) -> dict[str, Any]:
    """Compute one record's metrics (None where the item failed or has no answer)."""
    from veriloop.nodes.scorers import consistency

    answer = record.get("answer") or ""
    usage = (record.get("trace") or {}).get("usage") or {}
    metrics: dict[str, Any] = {
        "calls": usage.get("calls"),
        "tokens_in": usage.get("tokens_in"),
        "tokens_out": usage.get("tokens_out"),
        "model_seconds": usage.get("model_seconds"),
        "answered": bool(answer),
        "failed": bool(record.get("error")),
        "refused": 100.0 if record.get("refusal") else 0.0,
        "wall_seconds": record.get("wall_seconds"),
    }
    if not answer or not record.get("references"):
        metrics.update({key: None for key, _, _ in COLUMNS if key not in metrics})
        if record.get("refusal") and record.get("references"):
            metrics["unsupported_per_item"] = 0  # a refusal makes no claim
        return metrics
    reference = record["references"][0]
    sample, sentence = med_nli(judge, reference, answer)
    claims = faithfulness(
        support, answer_claims(answer), record["references"], question=record["question"]
    )
    metrics.update(
        nli_sample=sample,
        nli_sentence=sentence,
        ref_supported=None if claims["faithfulness"] is None else 100 * claims["faithfulness"],
        unsupported_claims=claims["unsupported"],
        contradicted_claims=claims["contradicted"],
        claim_checks=claims.get("checks", []),
        unsupported_per_item=claims["unsupported"],
        consistency=consistency(models, record["question"], answer).value,
        f1=100 * unigram_f1(answer, record["references"]),
        rouge_l=100 * rouge_l(answer, record["references"]),
    )
    return metrics


def load_scored_records(run_dir: Path) -> list[dict[str, Any]]:
    """Return each record of a reported run with its metrics, without loading any model.

    Reads results.jsonl and the metrics.jsonl a report wrote; records the report has not
    scored yet get `metrics` None.
    """
    run_dir = Path(run_dir)
    cache = read_keyed_metrics(run_dir / "metrics.jsonl")
    records = ResultsFile(run_dir / "results.jsonl").records()
    # runs reported before a metrics change keep their (older) metrics until re-reported
    return [
        {
            **record,
            "metrics": cache.get(_answer_key(record))
            or next(
                (cache[k] for v in OLDER_METRICS if (k := _answer_key(record, v)) in cache), None
            ),
        }
        for record in records
    ]


def _cached_metrics(
    run_dir: Path,
    records: list[dict[str, Any]],
    judge: NLIJudge,
    models: Models,
    support: SupportJudge,
) -> dict[str, dict[str, Any]]:
    path = run_dir / "metrics.jsonl"
    cache = read_keyed_metrics(path)
    fresh: dict[str, dict[str, Any]] = {}
    for record in records:
        key = _answer_key(record)
        if key not in cache:
            cache[key] = fresh[key] = score_record(record, judge, models, support)
    append_keyed_metrics(path, fresh)
    return {f"{r['run']}\x00{r['item_id']}": cache[_answer_key(r)] for r in records}


def _table(rows: Iterable[tuple[str, dict[str, Any]]]) -> list[str]:
    header = "| run | items (answered / failed) | " + " | ".join(c[1] for c in COLUMNS) + " |"
    lines = [header, "|" + "---|" * (len(COLUMNS) + 2)]
    for name, summary in rows:
        cells = [format_number(summary[key], digits) for key, _, digits in COLUMNS]
        lines.append(
            f"| {name} | {summary['items']} ({summary['answered']} / {summary['failed']}) | "
            + " | ".join(cells)
            + " |"
        )
    return lines


def cache_notes(records: list[dict[str, Any]]) -> list[str]:
    """Return a note per run whose model calls came partly from the cache (timings shrink)."""
    calls: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        usage = (record.get("trace") or {}).get("usage") or {}
        calls[record["run"]][0] += int(usage.get("cached_calls") or 0)
        calls[record["run"]][1] += int(usage.get("calls") or 0)
    notes = [
        f"- {run}: {cached} of {total} model calls came from the model-call cache, so its "
        "model s/item and wall s/item understate an uncached run."
        for run, (cached, total) in calls.items()
        if cached
    ]
    return ["", *notes] if notes else []


def summarise(per_item: list[dict[str, Any]]) -> dict[str, Any]:
    """Average per-item metrics of one run."""
    # metrics scored before a column existed lack it: those items are left out of its mean
    summary: dict[str, Any] = {key: mean(m.get(key) for m in per_item) for key, _, _ in COLUMNS}
    summary["items"] = len(per_item)
    summary["answered"] = sum(m["answered"] for m in per_item)
    summary["failed"] = sum(m["failed"] for m in per_item)
    return summary


def refinement_effect(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Count how often a refined candidate outscored the first attempt of its loop."""
    effect: dict[str, Any] = {}
    for stage, score in (("knowledge", "factuality"), ("answer", "consistency")):
        loops = defaultdict(list)
        for record in records:
            for candidate in (record.get("trace") or {}).get("candidates", []):
                if candidate["stage"] == stage:
                    loops[(record["run"], record["item_id"], candidate["round"])].append(candidate)
        refined = [c for c in loops.values() if len(c) > 1]
        better = sum(
            max((x["scores"].get(score) or -math.inf) for x in c[1:])
            > (c[0]["scores"].get(score) or -math.inf)
            for c in refined
        )
        effect[stage] = {"loops": len(loops), "refined": len(refined), "refinement_better": better}
    rounds = [
        c
        for r in records
        for c in (r.get("trace") or {}).get("candidates", [])
        if c["stage"] == "round"
    ]
    effect["rounds"] = len(rounds)
    effect["rounds_entailment_met"] = sum(c["passed"] for c in rounds)
    stops: dict[str, int] = defaultdict(int)
    for record in records:
        stops[str(record.get("stop_reason"))] += 1
    effect["stop_reasons"] = dict(stops)
    return effect


def _nli_accuracy(judge: NLIJudge, data_dir: str | None) -> str:
    candidates = []
    if data_dir:
        candidates.append(Path(data_dir).expanduser().resolve().parent / "healthver")
    candidates.append(Path("../shared/data/healthver"))
    for folder in candidates:
        if (folder / "healthver_dev.csv").is_file():
            from veriloop.evaluation.loaders.healthver import load_healthver

            result = measure_on_healthver(judge, load_healthver(folder, "dev"), sample=5000)
            recall = ", ".join(f"{k} {v:.1%}" for k, v in sorted(result.recall_per_label.items()))
            return (
                f"{result.judge}: accuracy {result.accuracy:.1%} on {result.pairs} HealthVer dev "
                f"pairs (majority class {result.majority_baseline:.1%}; recall {recall}), "
                f"measured now from {folder}."
            )
    stored = json.loads(HEAD_FILE.with_suffix(".json").read_text())
    return (
        f"{judge.name}: accuracy {stored['healthver_dev_accuracy']:.1%} on "
        f"{stored['healthver_dev_pairs']} HealthVer dev pairs (majority class "
        f"{stored['healthver_dev_majority_baseline']:.1%}), as measured when it was trained "
        "(HealthVer not found next to the data to re-measure)."
    )


def support_accuracy(support: SupportJudge, data_dir: str | None, items: int = 50) -> list[str]:
    """Measure the support judge now on held-out HaluEval QA and HealthVer dev pairs.

    Returns report lines: balanced accuracy and AUROC per set (the sets are found next to
    the run's data folder or in ../shared/data), or where to read the stored numbers.
    """
    from veriloop.evaluation.judge_data.support_sets import (
        LabelledPair,
        halueval_pairs,
        healthver_pairs,
    )
    from veriloop.evaluation.support_measure import auroc, balanced_accuracy, sample_by_item

    roots = [Path(data_dir).expanduser().resolve().parent] if data_dir else []
    roots.append(Path("../shared/data"))
    loaders: dict[str, tuple[str, Callable[[Path], list[LabelledPair]]]] = {
        "HaluEval QA held-out answers": ("halueval", lambda d: halueval_pairs(d, "test")),
        "HealthVer dev, Supports vs Refutes": (
            "healthver",
            lambda d: healthver_pairs(d, "dev", neutral_as_unsupported=False),
        ),
    }
    lines = []
    for label, (folder, load) in loaders.items():
        found = next((root / folder for root in roots if (root / folder).is_dir()), None)
        if found is None:
            continue
        pairs = sample_by_item(load(found), items)
        verdicts, _ = support.judge([pair.query for pair in pairs])
        scored = [(v["probability"], p.supported) for v, p in zip(verdicts, pairs, strict=True)]
        kept = [(prob, gold) for prob, gold in scored if prob is not None]
        probabilities, gold = [p for p, _ in kept], [g for _, g in kept]
        area = auroc(probabilities, gold)
        lines.append(
            f"- {support.name} on {len(kept)} {label} pairs ({items} items, measured now from "
            f"{found}): balanced accuracy {balanced_accuracy(probabilities, gold):.1%}, "
            f"AUROC {'n/a' if area is None else f'{area:.3f}'}."
        )
    if not lines:
        lines.append(
            f"- {support.name}: no held-out data found to re-measure it; see "
            "docs/benchmarks/support_judges.md for its measured accuracy per dataset."
        )
    return lines


def write_report(
    run_dir: Path,
    *,
    judge: NLIJudge | None = None,
    support: SupportJudge | None = None,
    models: Models | None = None,
    grader: Models | None = None,
    grader_settings: dict[str, Any] | None = None,
    cache_dir: str | None = None,
) -> Path:
    """Write `report.md` (and the plots) for a run directory; return its path.

    Runs over a corpus (`corpus_dir` in the settings) also get faithfulness, Auto-Grader and
    decision-accuracy columns; the grader is `grader`, or models built from
    `grader_settings` (default: the run's models at temperature 0).

    `cache_dir` is the model-call cache the report's scoring uses: None means the default
    (`$VERILOOP_CACHE_DIR` or ~/.cache/veriloop), "" means no cache (`bench --no-cache`).

    Raises:
        InvalidInputError: The directory holds no results.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InvalidInputError(f"{run_dir} is not a run directory; give one veriloop bench wrote")
    manifest = read_manifest(run_dir)
    records, left_out = reportable_records(
        ResultsFile(run_dir / "results.jsonl").records(), manifest
    )
    if not records:
        raise InvalidInputError(f"{run_dir} holds no results.jsonl records; run veriloop bench")
    if any(record.get("options") for record in records):
        from veriloop.evaluation.choice_report import write_choice_report

        return write_choice_report(run_dir, manifest, records)
    settings = {
        k: v
        for k, v in manifest.get("settings", {}).items()
        if k in ModelSettings.__dataclass_fields__
    }
    cache = (
        os.environ.get("VERILOOP_CACHE_DIR", str(Path("~/.cache/veriloop").expanduser()))
        if cache_dir is None
        else cache_dir
    )
    if models is None:
        models = get_models(ModelSettings(**{**settings, "cache_dir": cache}))
    judge = judge or EmbeddingNLI(models)
    support = support or CoverageGatedJudge(support_judge("three_way", models))
    per_record = _cached_metrics(run_dir, records, judge, models, support)

    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    roles: dict[str, str] = {}
    for record in records:
        by_run[record["run"]].append(per_record[f"{record['run']}\x00{record['item_id']}"])
        roles[record["run"]] = record.get("role", "method")
    summaries = {name: summarise(items) for name, items in by_run.items()}
    main_runs = [n for n in summaries if roles[n] != "ablation"]
    ablation_runs = [n for n in summaries if roles[n] == "ablation"]

    models_line = ", ".join(f"{k}: {v}" for k, v in models.describe().items())
    lines = [
        f"# Benchmark report: {manifest.get('dataset', '?')} ({manifest.get('split') or 'default'} "
        f"split, {len({r['item_id'] for r in records})} items)",
        "",
        f"Command: `{manifest.get('command', '?')}`  ",
        f"Models: {models_line}  ",
        f"Settings: {json.dumps(manifest.get('settings', {}))}",
        *(["", *(f"Left out of this report: {note}." for note in left_out)] if left_out else []),
        "",
        "## Methods and baselines (shaped like Ji et al. 2023, Table 2)",
        "",
        *_table((n, summaries[n]) for n in main_runs),
        *cache_notes(records),
    ]
    if ablation_runs:
        family = sorted({n.split("[")[0] for n in ablation_runs})
        lines += [
            "",
            "## Ablations (shaped like Table 4)",
            "",
            *_table((n, summaries[n]) for n in [*family, *ablation_runs] if n in summaries),
        ]
    baselines = [n for n in summaries if roles[n] == "baseline"]
    for method_run in [n for n in summaries if roles[n] != "baseline"]:
        for baseline_run in baselines:
            rows = paired_comparison(per_record, method_run, baseline_run)
            if not rows:
                continue
            lines += [
                "",
                f"### {method_run} minus {baseline_run}, item by item",
                "",
                "| metric | items | mean difference | 95% bootstrap CI | wins / ties / losses |",
                "|---|---|---|---|---|",
            ]
            for row in rows:
                verdict = difference_verdict(row["key"], row["ci_low"], row["ci_high"])
                lines.append(
                    f"| {row['metric']} | {row['items']} | {row['mean_difference']:+.3f} | "
                    f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]{verdict} | "
                    f"{row['wins']} / {row['ties']} / {row['losses']} |"
                )
    grounding: dict[str, Any] = {}
    if manifest.get("settings", {}).get("corpus_dir"):
        from veriloop.evaluation.grounding_report import grounding_section

        if grader is None:
            grader = get_models(
                ModelSettings(
                    **{
                        **settings,
                        "temperature": 0.0,
                        "cache_dir": cache,
                        **(grader_settings or {}),
                    }
                )
            )
        grounding_lines, grounding = grounding_section(
            run_dir, manifest, records, support, models, grader
        )
        lines += ["", *grounding_lines]
    effect = refinement_effect(
        [r for r in records if r.get("trace") and r.get("role") != "baseline"]
    )
    if effect["knowledge"]["loops"] or effect["answer"]["loops"]:
        lines += [
            "",
            "## What the loops did",
            "",
            f"- Knowledge loops: {effect['knowledge']['loops']}, of which "
            f"{effect['knowledge']['refined']} refined at least once; a refinement beat the "
            f"first attempt's factuality in {effect['knowledge']['refinement_better']} of those.",
            f"- Answer loops: {effect['answer']['loops']}, of which "
            f"{effect['answer']['refined']} refined; a refinement beat the first attempt's "
            f"consistency in {effect['answer']['refinement_better']}.",
            f"- Rounds: {effect['rounds']}; the question-answer cosine met its threshold in "
            f"{effect['rounds_entailment_met']}.",
        ]
    lines += [
        "",
        f"Stop reasons (methods and ablations): {json.dumps(effect['stop_reasons'])}.",
        "",
        "## How far to trust the NLI columns",
        "",
        _nli_accuracy(judge, manifest.get("data_dir")),
        "",
        *support_accuracy(support, manifest.get("data_dir")),
        "",
        "Ref-supported % is the share of the answer's sentences (citations removed) that the "
        f"claim-support judge ({support.name}) finds backed by a correct reference answer "
        "(P >= 0.5, read after the question; the gate asks that the reference hold 75% of "
        "the sentence's content words, so a paraphrase counts as unsupported), averaged "
        "over answered items; Unsupp. claims counts the sentences it does not, per answered "
        "item (refusals are not answers: see Refused %), and Contra. claims those of them "
        "that the reference contradicts (the three-way judge or the mismatch checks), per "
        "answered item; Unsupp./item counts a refusal as "
        "0 unsupported claims, over all items. The reference is an independent check, not "
        "text the method saw.",
        "",
        "Med-NLI values are means of +1 (entailed by the reference), 0 (neutral) and -1 "
        "(contradicted). Consistency is scored by the same model family that Self-Reflection "
        "optimises, so it flatters that method; F1 and ROUGE-L compare wording with the "
        "reference and do not measure truth.",
        "",
        "## Plots",
        "",
    ]
    for file in write_plots(run_dir, summaries, records, per_record):
        lines.append(f"![{file}]({file})")
    (run_dir / "summary.json").write_text(
        json.dumps({"summaries": summaries, "loops": effect, "grounding": grounding}, indent=2)
        + "\n"
    )
    report = run_dir / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from veriloop.evaluation.bench_html import write_bench_html

    write_bench_html(run_dir, manifest, records, per_record, [(n, summaries[n]) for n in main_runs])
    return report
