"""M-Eval benchmark: right and wrong MedQA responses with cited evidence, and its ablations.

For each MedQA question two responses are built, "The answer is <label>: <option>.", one
with the gold option (correct) and one with a seeded random wrong option (incorrect); each
cites the `cited` (2) articles BM25 finds in the evidence corpus for the question and its
option, as a RAG system would have. M-Eval labels every response; a response labelled
incorrect is a detection. Runs: the full method and the paper's three ablations (random
reliability, no heterogeneity, no extra evidence); the LLM cache makes the ablations reuse
the full run's quality judgements.

Records go to `results.jsonl` (resumable), numbers to `summary.json` and `report.md`:
accuracy over both responses (chance 50%; undetermined counts wrong, and is counted),
recall (wrong responses caught), specificity (right ones passed).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable
from typing import Any

from veriloop.errors import InvalidInputError, ModelUnavailableError
from veriloop.evaluation.bench import ResultsFile, read_manifest, select_items, write_manifest
from veriloop.evaluation.harness import Task, run_tasks
from veriloop.evaluation.items import Item
from veriloop.evaluation.tables import format_percent, run_header, write_summary
from veriloop.knowledge.articles import article_to_dict, open_article_index

pct = functools.partial(format_percent, sign=True)

RUNS: dict[str, dict[str, bool]] = {
    "m-eval": {},
    "m-eval[random_reliability]": {"random_reliability": True},
    "m-eval[no_heterogeneity]": {"no_heterogeneity": True},
    "m-eval[no_extra_evidence]": {"no_extra_evidence": True},
}


def response_cases(
    items: list[Item], evidence_corpus: str, cited: int, seed: int
) -> list[dict[str, Any]]:
    """Build a right and a wrong response per multiple-choice item, with cited articles.

    Raises:
        InvalidInputError: An item has no options or gold label.
    """
    index = open_article_index(evidence_corpus)
    rng = random.Random(seed)
    cases = []
    for item in items:
        if not item.options or item.gold not in item.options:
            raise InvalidInputError(f"item {item.id} has no options with a gold label (MedQA?)")
        wrong = rng.choice(sorted(label for label in item.options if label != item.gold))
        for kind, label in (("right", item.gold), ("wrong", wrong)):
            text = item.options[label]
            found = index.search(f"{item.question} {text}", cited)
            cases.append(
                {
                    "case_id": f"{item.id}:{kind}",
                    "dataset_item": item.id,
                    "question": item.question,
                    "answer": f"The answer is {label}: {text}.",
                    "articles": [article_to_dict(a) for a, _ in found],
                    "incorrect": kind == "wrong",
                }
            )
    return cases


CLAIM_QUESTION = "What does the cited work report?"
"""The question M-Eval needs for a bare citing claim (its main claim is question + answer)."""
CITATION_MARKER = re.compile(r"<\|[a-z_]+\|>")


def balanced_claims(items: list[Item], per_class: int, seed: int) -> list[Item]:
    """Return `per_class` SUPPORT and `per_class` REFUTE/CONTRADICT claims, seeded, mixed.

    Raises:
        InvalidInputError: Either class has fewer than `per_class` items with evidence.
    """
    rng = random.Random(seed)
    chosen: list[Item] = []
    for wanted in ({"SUPPORT"}, {"REFUTE", "CONTRADICT"}):
        pool = [i for i in items if i.gold in wanted and i.documents]
        if len(pool) < per_class:
            raise InvalidInputError(
                f"only {len(pool)} {'/'.join(sorted(wanted))} claims with evidence; "
                f"ask for at most {len(pool)}"
            )
        rng.shuffle(pool)
        chosen += pool[:per_class]
    rng.shuffle(chosen)
    return chosen


def claim_cases(items: list[Item]) -> list[dict[str, Any]]:
    """Build one response per citing claim: the claim, checked against the work it cites.

    For Citation-Integrity: the response is the claim (citation markers removed), its
    cited articles the abstracts the claim cites, and it is incorrect when the gold label
    says the abstract refutes it: the evidence exists and, for half the cases, disagrees.
    """
    return [
        {
            "case_id": item.id,
            "dataset_item": item.id,
            "question": CLAIM_QUESTION,
            "answer": " ".join(CITATION_MARKER.sub("", item.question).split()),
            "articles": [
                {"id": f"{item.id}:{n}", "abstract": text}
                for n, text in enumerate(item.documents, start=1)
            ],
            "incorrect": item.gold != "SUPPORT",
        }
        for item in items
    ]


def run_case(run: str, case: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """Validate one response under one run's settings; errors are recorded."""
    from veriloop.graphs.m_eval import MEvalContext, graph

    record: dict[str, Any] = {"run": run, "item_id": case["case_id"], **case}
    try:
        context = MEvalContext(**{**settings, **RUNS[run]})
        payload: Any = {k: case[k] for k in ("question", "answer", "articles")}
        result = graph.invoke(payload, context=context)
        record.update(
            label=result["label"],
            claims=result["claims"],
            evidence=[
                {"id": r["id"], "role": r["role"], "reliability": r["reliability"]}
                for r in result["evidence"]
            ],
            evidence_report=result["evidence_report"],
            unusable_stances=result["unusable_stances"],
            usage=result["trace"]["usage"],
            error=None,
        )
    except ModelUnavailableError:
        raise
    except Exception as exc:  # recorded, never dropped
        record.update(label=None, error=f"{type(exc).__name__}: {exc}")
    return record


def run_validation(
    run_dir: Any,
    cases: list[dict[str, Any]],
    settings: dict[str, Any],
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Run every run on every case not yet recorded (full method first, for the cache).

    One worker: the runs share cached model calls in that order.
    """
    tasks = [
        Task(run, case["case_id"], functools.partial(run_case, run, case, settings))
        for run in RUNS
        for case in cases
    ]
    run_tasks(tasks, ResultsFile(run_dir / "results.jsonl"), on_record=on_record)


def summarise(run_dir: Any) -> dict[str, Any]:
    """Accuracy, recall, specificity and undetermined counts per run."""
    records = ResultsFile(run_dir / "results.jsonl").records()
    summary: dict[str, Any] = {}
    for run in RUNS:
        rows = [r for r in records if r["run"] == run]
        if not rows:
            continue
        wrong = [r for r in rows if r["incorrect"]]
        right = [r for r in rows if not r["incorrect"]]
        summary[run] = {
            "responses": len(rows),
            "accuracy": sum(
                (r["label"] == "incorrect") == r["incorrect"] and r["label"] != "undetermined"
                for r in rows
            )
            / len(rows),
            "recall": sum(r["label"] == "incorrect" for r in wrong) / len(wrong) if wrong else None,
            "specificity": (
                sum(r["label"] == "correct" for r in right) / len(right) if right else None
            ),
            "undetermined": sum(r["label"] == "undetermined" for r in rows),
            "failed": sum(bool(r.get("error")) for r in rows),
            "unusable_stances": sum(r.get("unusable_stances") or 0 for r in rows),
            "given_misled": sum(
                v["verdict"] == "misled" for r in rows for v in r.get("evidence_report") or []
            ),
            "given_irrelevant": sum(
                v["verdict"] == "irrelevant" for r in rows for v in r.get("evidence_report") or []
            ),
        }
    write_summary(run_dir, summary)
    return summary


def write_report(run_dir: Any) -> Any:
    """Write report.md for a validation run directory."""
    summary = summarise(run_dir)
    manifest = read_manifest(run_dir)

    lines = [
        *run_header(
            f"M-Eval: {manifest.get('dataset')} ({manifest.get('split')}) responses", manifest
        ),
        "| run | responses | accuracy (undetermined wrong) | recall (wrong caught) | "
        "specificity (right passed) | undetermined | unusable stances | cited articles: "
        "misled / irrelevant |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run, s in summary.items():
        lines.append(
            f"| {run} | {s['responses']} | {pct(s['accuracy'])} | {pct(s['recall'])} | "
            f"{pct(s['specificity'])} | {s['undetermined']} | {s['unusable_stances']} | "
            f"{s['given_misled']} / {s['given_irrelevant']} |"
        )
    lines += [
        "",
        "Each question gives one right and one wrong response, so chance accuracy is 50%.",
    ]
    path = run_dir / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def start(
    run_dir: Any, items: list[Item], limit: int, seed: int, manifest: dict[str, Any]
) -> list[Item]:
    """Record the manifest and return the selected items."""
    write_manifest(run_dir, {**manifest, "limit": limit, "shuffle": True, "seed": seed})
    return select_items(items, limit=limit, shuffle=True, seed=seed)
