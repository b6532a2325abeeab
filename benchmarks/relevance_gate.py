r"""Fit the grounded default's relevance gates on MEDIQA, with their curves.

    .venv/bin/python benchmarks/relevance_gate.py \
        --labels docs/benchmarks/mediqa_question_labels.jsonl \
        --mediqa ../shared/data/mediqa2019 --out docs/benchmarks/relevance_gate.md

For each of the 199 MEDIQA 2019 Task 3 questions, retrieval as the grounded default does it
(MedQuAD, the subject rule, the asked type) with no gate: the best passage's MiniLM cosine
to the question, and whether the kept pages are on the question's subject. The hand label
says whether MedQuAD has a page on the subject (`answerable` yes or partial). A gate at t
refuses below t; it refuses wrongly when the page exists, and answers wrongly when it
does not. The two gates (`subject_relevant_at` for pages on the subject, `relevant_at`
otherwise) are fitted apart, each at the t with the lowest cost, a wrong answer weighing
three wrong refusals (ties: the lower t); cross-fitted on two halves of the items (by
item id hash) for an honest error rate, then fitted on all items for the shipped value.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.context import ModelSettings
from veriloop.evaluation.loaders.mediqa import load_mediqa2019
from veriloop.models import get_models
from veriloop.nodes.grounding import retrieve_ranked
from veriloop.nodes.question_type import asked_type

GRID = [round(x * 0.05, 2) for x in range(0, 17)]


def errors(rows: list[dict[str, Any]], gate: float) -> tuple[int, int]:
    """Return (refused although a page exists, answered although none exists) at `gate`."""
    refused_wrong = sum(r["has_page"] and (r["best"] is None or r["best"] < gate) for r in rows)
    answered_wrong = sum(
        (not r["has_page"]) and r["best"] is not None and r["best"] >= gate for r in rows
    )
    return refused_wrong, answered_wrong


WRONG_ANSWER_COST = 3.0
"""An answer where the source has nothing counts as three wrong refusals: veriloop answers
only from trusted text, and an answer from the wrong page misleads where a refusal does
not."""


def cost(rows: list[dict[str, Any]], gate: float) -> float:
    """Return the errors at `gate`, a wrong answer weighing `WRONG_ANSWER_COST` refusals."""
    refused_wrong, answered_wrong = errors(rows, gate)
    return refused_wrong + WRONG_ANSWER_COST * answered_wrong


def fit(rows: list[dict[str, Any]]) -> float:
    """Return the grid value with the lowest cost (the lowest value on ties)."""
    return min(GRID, key=lambda t: (cost(rows, t), t))


def main() -> None:
    """Retrieve, fit, write the curves."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--mediqa", type=Path, default=Path("../shared/data/mediqa2019"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    labels = {
        x["id"]: x for x in map(json.loads, args.labels.read_text(encoding="utf-8").splitlines())
    }
    models = get_models(ModelSettings())
    rows = []
    for item in load_mediqa2019(args.mediqa, "all"):
        asked = asked_type(models, item.question, 0.5)
        got = retrieve_ranked(
            models,
            item.question,
            kb_dir="",
            corpus_dir="",
            candidates=30,
            keep=3,
            relevant_at=-1.0,
            asked=asked.qtype,
            question_vector=asked.question_vector,
        )
        rows.append(
            {
                "id": item.id,
                "best": got.best_relevance,
                "on_subject": got.on_subject,
                "has_page": labels[item.id]["answerable"] in ("yes", "partial"),
                "half": hashlib.sha1(item.id.encode()).digest()[0] % 2,
            }
        )
    lines = [
        "# The relevance gates, fitted on MEDIQA 2019 Task 3 (issue 38)",
        "",
        f"Command: `{' '.join(['benchmarks/relevance_gate.py', *sys.argv[1:]])}`; "
        f"{len(rows)} questions, {sum(r['has_page'] for r in rows)} with a MedQuAD page "
        "on their subject (hand labels). A gate refuses below it: refused wrongly = a page "
        "exists; answered wrongly = none exists.",
        "",
    ]
    shipped = {}
    for name, on in (("subject_relevant_at", True), ("relevant_at", False)):
        group = [r for r in rows if r["on_subject"] is on]
        pages = sum(r["has_page"] for r in group)
        lines += [
            f"## `{name}`: {'pages on the subject' if on else 'no page on the subject'} "
            f"({len(group)} questions, {pages} with a page)",
            "",
            "| gate | refused | refused wrongly | answered wrongly |",
            "| --- | --- | --- | --- |",
        ]
        for t in GRID:
            wrong_refusals, wrong_answers = errors(group, t)
            refused = sum(r["best"] is None or r["best"] < t for r in group)
            lines.append(f"| {t:.2f} | {refused} | {wrong_refusals} | {wrong_answers} |")
        crossed = []
        for half in (0, 1):
            fitted = fit([r for r in group if r["half"] != half])
            crossed.append((fitted, errors([r for r in group if r["half"] == half], fitted)))
        shipped[name] = fit(group)
        lines += [
            "",
            "Cross-fitted (fit on one half, errors on the other): "
            + "; ".join(
                f"half {h}: gate {g:.2f}, refused wrongly {e[0]}, answered wrongly {e[1]}"
                for h, (g, e) in enumerate(crossed)
            )
            + f". Fitted on all: **{shipped[name]:.2f}**.",
            "",
        ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(json.dumps(shipped))


if __name__ == "__main__":
    main()
