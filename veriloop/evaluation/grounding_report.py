"""The report section for runs over a corpus: faithfulness, Auto-Grader, decision accuracy.

Shaped like Muneeswaran et al. (2023) Tables 1 and 2 (Faithful %, Grade Score, Accuracy),
plus what a reader needs to trust them: undetermined counts, the judge and grader models,
tokens per answer, and item-by-item differences with bootstrap intervals. Per-record
results are cached in `grounding.jsonl` (keyed by run, item, answer, judge and grader), so a
re-report only grades new answers.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from veriloop.evaluation.grounding import answer_claims, auto_grade, faithfulness, first_decision
from veriloop.evaluation.metrics import mean
from veriloop.evaluation.tables import (
    append_keyed_metrics,
    format_number,
    paired_comparison,
    read_keyed_metrics,
)
from veriloop.knowledge.hybrid import ContextUnit, RetrievalSettings
from veriloop.knowledge.sources import open_retriever, retrieve_context
from veriloop.models import Models
from veriloop.nodes.judges import SupportJudge

GROUNDING_VERSION = "2"  # 2: faithfulness by the claim-support judge


def _key(record: dict[str, Any], judge: str, grader: str) -> str:
    text = "\x00".join(
        [
            GROUNDING_VERSION,
            record["run"],
            record["item_id"],
            str(record.get("answer")),
            judge,
            grader,
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_context(
    record: dict[str, Any], corpus_dir: str, models: Models, top_k: int = 4
) -> list[ContextUnit]:
    """Return the context a record's answer is judged against (retrieved if it had none)."""
    units = (record.get("outputs") or {}).get("context_units")
    if units:
        return list(units)
    retriever = open_retriever(corpus_dir, models)
    result, _ = retrieve_context(
        models, retriever, record["question"], RetrievalSettings(top_paragraphs=top_k)
    )
    return result.units


def score_grounding(
    record: dict[str, Any], corpus_dir: str, judge: SupportJudge, models: Models, grader: Models
) -> dict[str, Any]:
    """Compute one record's faithfulness, grade and decision."""
    answer = record.get("answer")
    usage = (record.get("trace") or {}).get("usage") or {}
    metrics: dict[str, Any] = {
        "answered": bool(answer),
        "refused": bool(record.get("refusal")),
        "tokens_in": usage.get("tokens_in"),
        "decision": first_decision(answer),
        "gold": record.get("gold"),
    }
    context = record_context(record, corpus_dir, models) if answer else []
    metrics["context_chars"] = sum(len(u["text"]) for u in context)
    metrics.update(
        faithfulness(
            judge,
            answer_claims(answer),
            [u["text"] for u in context],
            question=record.get("question") or "",
        )
    )
    if answer and record.get("references"):
        metrics.update(
            auto_grade(grader, record["question"], record["references"][0], answer, context)
        )
    else:
        metrics.update(grade=None, correct=None, justification=None, error="no answer")
    return metrics


def _cached(
    run_dir: Path,
    records: list[dict[str, Any]],
    corpus_dir: str,
    judge: SupportJudge,
    models: Models,
    grader: Models,
) -> dict[str, dict[str, Any]]:
    path = run_dir / "grounding.jsonl"
    cache = read_keyed_metrics(path)
    grader_name = grader.chat_name
    out: dict[str, dict[str, Any]] = {}
    for record in records:
        key = _key(record, judge.name, grader_name)
        if key not in cache:
            cache[key] = score_grounding(record, corpus_dir, judge, models, grader)
            append_keyed_metrics(path, {key: cache[key]})  # a crash keeps what was graded
        out[f"{record['run']}\x00{record['item_id']}"] = cache[key]
    return out


def _summary(per_item: list[dict[str, Any]]) -> dict[str, Any]:
    answered = [m for m in per_item if m["answered"]]
    determined = [m for m in answered if m["faithfulness"] is not None]
    graded = [m for m in answered if m["grade"] is not None]
    with_gold = [m for m in per_item if m["gold"] in ("yes", "no", "maybe")]
    return {
        "items": len(per_item),
        "answered": len(answered),
        "refused": sum(m["refused"] for m in per_item),
        "faithful": mean(100 * m["faithfulness"] for m in determined),
        "all_claims_supported": mean(100.0 * (m["faithfulness"] == 1.0) for m in determined),
        "claims": sum(m["claims"] for m in answered),
        "supported": sum(m["supported"] for m in answered),
        "unsupported": sum(m["unsupported"] for m in answered),
        "contradicted": sum(m.get("contradicted", 0) for m in answered),
        "undetermined_claims": sum(m["undetermined"] for m in answered),
        "undetermined_answers": len(answered) - len(determined),
        "grade": mean(m["grade"] for m in graded),
        "grader_accuracy": mean(100.0 * bool(m["correct"]) for m in graded),
        "ungraded": len(answered) - len(graded),
        "decision_accuracy": (
            mean(100.0 * (m["decision"] == m["gold"]) for m in with_gold) if with_gold else None
        ),
        "no_decision": sum(m["decision"] is None for m in with_gold),
        "tokens_in": mean(m["tokens_in"] for m in per_item),
        "context_chars": mean(m["context_chars"] for m in answered),
    }


def paired_values(metrics: dict[str, Any]) -> dict[str, float | None]:
    """Return one record's grounding metrics as numbers to compare item by item (points)."""
    faithful = metrics["faithfulness"]
    decided = metrics["gold"] in ("yes", "no", "maybe")
    return {
        "faithfulness": None if faithful is None else 100.0 * faithful,
        "grader": None if metrics["correct"] is None else 100.0 * bool(metrics["correct"]),
        "decision": 100.0 * (metrics["decision"] == metrics["gold"]) if decided else None,
    }


SANITY_ITEMS = 20
REFERENCE_RUN = "reference answer (judge check)"
SWAPPED_RUN = "another item's reference (judge check)"


def sanity_records(
    records: list[dict[str, Any]], limit: int = SANITY_ITEMS
) -> list[dict[str, Any]]:
    """Build judge-check records: each item's own reference, and another item's reference.

    Scored like any run, they show how far the judges can be trusted here: a working
    faithfulness judge finds the reference (written from the same abstract) mostly supported
    and the swapped one not; a working grader calls the first CORRECT and the second
    INCORRECT. Context: what the first retrieving run retrieved for the item.
    """
    by_item: dict[str, dict[str, Any]] = {}
    for record in records:
        if not record.get("references"):
            continue
        units = (record.get("outputs") or {}).get("context_units")
        if record["item_id"] not in by_item or (units and not by_item[record["item_id"]]["units"]):
            by_item[record["item_id"]] = {"record": record, "units": units}
    items = sorted(by_item)[:limit]
    if len(items) < 2:
        return []
    checks = []
    for position, item in enumerate(items):
        record, units = by_item[item]["record"], by_item[item]["units"]
        other = by_item[items[(position + 1) % len(items)]]["record"]
        for run, answer in (
            (REFERENCE_RUN, record["references"][0]),
            (SWAPPED_RUN, other["references"][0]),
        ):
            checks.append(
                {
                    "run": run,
                    "role": "judge-check",
                    "item_id": item,
                    "question": record["question"],
                    "references": record["references"],
                    "gold": record.get("gold"),
                    "answer": answer,
                    "refusal": None,
                    "outputs": {"context_units": units} if units else {},
                    "trace": None,
                }
            )
    return checks


def verifier_activity(records: list[dict[str, Any]]) -> list[str]:
    """Summarise what Factual Evidence's verifier and refiner did, per run, from the outputs."""
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        outputs = record.get("outputs") or {}
        if "rationale_versions" in outputs or "rationale" in outputs:
            by_run[record["run"]].append(record)
    if not by_run:
        return []
    lines = [
        "## What the rationale verifier did",
        "",
        "| run | items | statements per item | first verification: CORRECT % | items refined "
        "| INCORRECT → CORRECT after refinement | all statements rejected (refused) "
        "| answers citing a valid id | invented ids removed |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run, rows in by_run.items():
        statements = first_correct = first_total = refined = fixed = rejected = 0
        citing = invented = 0
        for record in rows:
            outputs = record["outputs"]
            verified = [v for v in outputs.get("rationale_versions") or [] if v.get("labels")]
            statements += len(outputs.get("rationale") or [])
            if verified:
                labels = verified[0]["labels"].values()
                first_total += len(labels)
                first_correct += sum(str(j["label"]).startswith("CORRECT") for j in labels)
            if len(verified) > 1:
                refined += 1
                before, after = verified[0]["labels"], verified[-1]["labels"]
                fixed += sum(
                    not str(before[i]["label"]).startswith("CORRECT")
                    and str(after.get(i, {}).get("label", "")).startswith("CORRECT")
                    for i in before
                )
            refusal = record.get("refusal") or {}
            rejected += refusal.get("kind") == "soft"
            citing += bool(outputs.get("citations"))
            invented += len(outputs.get("invalid_citations") or [])
        share = f"{100 * first_correct / first_total:.1f}" if first_total else "–"
        lines.append(
            f"| {run} | {len(rows)} | {statements / len(rows):.1f} | {share} | {refined} | {fixed} "
            f"| {rejected} | {citing} | {invented} |"
        )
    return [*lines, ""]


def grounding_section(
    run_dir: Path,
    manifest: dict[str, Any],
    records: list[dict[str, Any]],
    judge: SupportJudge,
    models: Models,
    grader: Models,
) -> tuple[list[str], dict[str, Any]]:
    """Return the report lines and per-run summaries of the grounding metrics."""
    corpus_dir = str(manifest.get("settings", {}).get("corpus_dir", ""))
    records = [*records, *sanity_records(records)]
    per_record = _cached(run_dir, records, corpus_dir, judge, models, grader)
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    roles: dict[str, str] = {}
    for record in records:
        by_run[record["run"]].append(per_record[f"{record['run']}\x00{record['item_id']}"])
        roles[record["run"]] = record.get("role", "method")
    summaries = {name: _summary(items) for name, items in by_run.items()}
    lines = [
        *verifier_activity(records),
        "## Faithfulness, Auto-Grader and accuracy (shaped like Muneeswaran et al. Tables 1-2)",
        "",
        "| run | items (answered / refused) | faithful % | all claims supported % | claims: "
        "supported / unsupported (contradicted) / undetermined | undetermined answers | "
        "grade (1-5) | "
        "grader accuracy % (ungraded) | decision accuracy % (no decision) | tokens in / item "
        "| context chars / answer |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summaries.items():
        cells = [
            name,
            f"{s['items']} ({s['answered']} / {s['refused']})",
            format_number(s["faithful"], 1),
            format_number(s["all_claims_supported"], 1),
            f"{s['supported']} / {s['unsupported']} ({s['contradicted']}) / "
            f"{s['undetermined_claims']}",
            str(s["undetermined_answers"]),
            format_number(s["grade"], 2),
            f"{format_number(s['grader_accuracy'], 1)} ({s['ungraded']})",
            f"{format_number(s['decision_accuracy'], 1)} ({s['no_decision']})",
            format_number(s["tokens_in"], 0),
            format_number(s["context_chars"], 0),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    baselines = [n for n in summaries if roles[n] == "baseline"]
    comparisons = []
    values = {key: paired_values(metrics) for key, metrics in per_record.items()}
    paired_metrics = [
        ("faithfulness", "faithful %"),
        ("grader", "grader accuracy %"),
        ("decision", "decision accuracy %"),
    ]
    for method in [n for n in summaries if roles[n] not in ("baseline", "judge-check")]:
        for baseline in baselines:
            for row in paired_comparison(values, method, baseline, paired_metrics):
                low, high = row["ci_low"], row["ci_high"]
                verdict = " (better)" if low > 0 else " (worse)" if high < 0 else ""
                comparisons.append(
                    f"| {method} − {baseline} | {row['metric']} | {row['items']} | "
                    f"{row['mean_difference']:+.1f} | [{low:+.1f}, {high:+.1f}]{verdict} |"
                )
    if comparisons:
        lines += [
            "",
            "Item by item (points; items both runs could be scored on):",
            "",
            "| comparison | metric | items | mean difference | 95% bootstrap CI |",
            "|---|---|---|---|---|",
            *comparisons,
        ]
    lines += [
        "",
        f"Faithfulness: each answer sentence (citations removed) is a claim; it is supported "
        f"when the claim-support judge ({judge.name}) gives P(supported) >= 0.5 against its "
        "most supportive context unit the run retrieved, read after the question (for runs "
        "without retrieval, the top 4 fused paragraphs the corpus "
        "retriever returns for the question). 'Faithful %' averages per-answer shares over "
        "answers with claims; an answer with no claims is an undetermined answer. See the "
        "judges' measured accuracy below: it bounds how far to trust this column. "
        f"Auto-Grader model: {grader.chat_name} (temperature 0; the paper used GPT-4). Decision "
        "accuracy: the first yes/no/maybe in the answer's first sentence against the gold "
        "label; no decision counts wrong.",
        "",
        f"Judge check (the last two rows, first {SANITY_ITEMS} items): each item's own reference "
        "answer, and the next item's reference, scored as if they were answers. A faithfulness "
        "judge that works finds the own reference mostly supported by the retrieved abstract "
        "and the swapped one not; a grader that works calls the own reference CORRECT and the "
        "swapped one INCORRECT. Where the two rows look alike, the judge cannot tell and its "
        "column says nothing about the methods.",
    ]
    return lines, summaries
