"""report.html for a `veriloop bench` run: the methods table and plots, then every answer.

Each answer's sentences are coloured by the reference check the report's Ref-supported
and Contra. claims columns count (the gated three-way judge against the item's correct
reference answer): supported, contradicted or unsupported, with P(supported) and the
reference sentence on hover. Records scored before the report kept per-claim checks show
their text uncoloured (`veriloop report DIR` after deleting metrics.jsonl rescores them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veriloop.evaluation.html_report import AnswerView, ClaimView, render_page, summary_table
from veriloop.evaluation.tables import format_number
from veriloop.nodes.citations import strip_citations
from veriloop.text import sentence_offsets

SUMMARY_COLUMNS = (
    ("ref_supported", "Ref-supported %", 1),
    ("unsupported_claims", "Unsupp. claims", 2),
    ("contradicted_claims", "Contra. claims", 2),
    ("refused", "Refused %", 1),
    ("nli_sentence", "Med-NLI sent", 3),
    ("f1", "F1", 2),
    ("wall_seconds", "wall s/item", 1),
)


def record_view(record: dict[str, Any], metrics: dict[str, Any] | None) -> AnswerView:
    """Return one bench record as the page shows it."""
    answer = strip_citations(record.get("answer") or "")
    checks = (metrics or {}).get("claim_checks") or []
    offsets = sentence_offsets(answer, [c["claim"] for c in checks])
    claims = [
        ClaimView(
            claim=c["claim"],
            verdict=c.get("verdict"),
            p_supported=c.get("p_supported"),
            p_contradicted=c.get("p_contradicted"),
            evidence_index=c.get("evidence_index"),
            evidence_sentence=c.get("evidence_sentence", ""),
            evidence_span="",
            mismatches=c.get("mismatches", []),
            start=at[0],
            end=at[1],
            error=None,
        )
        for c, at in zip(checks, offsets, strict=True)
    ]
    if record.get("error"):
        verdict, note = "failed", str(record["error"])
    elif record.get("refusal"):
        refusal = record["refusal"]
        reason = refusal.get("reason") if isinstance(refusal, dict) else refusal
        verdict, note = "refused", f"refused: {reason}"
    elif not claims:
        verdict, note = "answered", "no per-claim reference check recorded for this answer"
    else:
        bad = sum(c["verdict"] != "supported" for c in claims)
        verdict = "supported" if not bad else "hallucinated"
        note = f"{bad} of {len(claims)} sentences not backed by the reference answer"
    return AnswerView(
        id=str(record["item_id"]),
        run=str(record["run"]),
        question=record.get("question") or "",
        answer=answer,
        verdict=verdict,
        claims=claims,
        note=note,
    )


def write_bench_html(
    run_dir: Path,
    manifest: dict[str, Any],
    records: Sequence[dict[str, Any]],
    per_record: dict[str, dict[str, Any]],
    summaries: Sequence[tuple[str, dict[str, Any]]],
) -> Path:
    """Write report.html beside report.md; return its path."""
    rows = [
        [name, summary["items"], *(format_number(summary[k], d) for k, _, d in SUMMARY_COLUMNS)]
        for name, summary in summaries
    ]
    header = ["run", "items", *(label for _, label, _ in SUMMARY_COLUMNS)]
    views = [
        record_view(record, per_record.get(f"{record['run']}\x00{record['item_id']}"))
        for record in records
    ]
    page = render_page(
        f"veriloop bench: {manifest.get('dataset', '?')} "
        f"({len({r['item_id'] for r in records})} items)",
        meta=[
            f"Command: {manifest.get('command', '?')}",
            f"Settings: {json.dumps(manifest.get('settings', {}))}",
            "Sentences are coloured by the reference check of the report's Ref-supported "
            "column (the gated three-way judge against the correct reference answer); "
            "report.md says how far to trust it.",
        ],
        summary_html=summary_table(rows, header),
        plots=sorted(Path(run_dir).glob("*.png")),
        answers=views,
    )
    path = Path(run_dir) / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
