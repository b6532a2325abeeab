"""report.md and report.html for a batch verification run folder.

    veriloop verify rows.jsonl --out runs/check     # writes both at the end
    write_verify_reports(Path("runs/check"))         # or again, from results.jsonl alone

Both open with what was checked and by which judge, with that judge's accuracy on held-out
data (`nodes/data/judge_accuracy.json`, from docs/benchmarks/support_judges.md): a verdict
is only as good as the judge behind it. Then the counts (answers by verdict, claims by
verdict), the rows that failed and why, and the answers with a contradicted or unsupported
claim, each with what the source says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from veriloop.evaluation.bench import ResultsFile, read_manifest
from veriloop.evaluation.html_report import AnswerView, render_page, summary_table
from veriloop.nodes.judges import CALIBRATION_DIR
from veriloop.verify.run import latest_records, summarise

ROW_VERDICTS = ("supported", "hallucinated", "undetermined", "failed")
CLAIM_VERDICTS = ("supported", "contradicted", "unsupported", "not judged")
LISTED = 200
"""Flagged answers report.md lists in full (report.html shows every answer)."""


def judge_card(verifier: str) -> list[dict[str, Any]]:
    """Return the judge's measured held-out accuracy ([] when it was not measured)."""
    path = CALIBRATION_DIR / "judge_accuracy.json"
    try:
        card = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    entries: list[dict[str, Any]] = card.get("judges", {}).get(verifier, [])
    return entries


def judge_lines(verifier: str) -> list[str]:
    """Return one line per held-out set the judge was measured on."""
    entries = judge_card(verifier)
    if not entries:
        return [f"The {verifier} judge has no held-out measurement on record."]
    return [
        f"{e['label']}: {e['balanced_accuracy']:.3f} [{e['ci'][0]:.3f}, {e['ci'][1]:.3f}] "
        f"({e['pairs']} pairs)"
        for e in entries
    ]


def _plot(run_dir: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> Path:
    """Draw answers by verdict, claims by verdict and P(supported); return the PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {
        "supported": "#2e7d32",
        "hallucinated": "#c62828",
        "contradicted": "#c62828",
        "unsupported": "#b7791f",
        "undetermined": "#b7791f",
        "failed": "#57606a",
        "not judged": "#90a4ae",
    }
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    for ax, (title, counts, order) in zip(
        axes[:2],
        (
            ("Answers", summary["verdicts"], ROW_VERDICTS),
            ("Claims (sentences)", summary["claim_verdicts"], CLAIM_VERDICTS),
        ),
        strict=True,
    ):
        names = [n for n in order if counts.get(n)]
        values = [counts[n] for n in names]
        ax.barh(names, values, color=[colours[n] for n in names])
        for y, value in enumerate(values):
            ax.text(value, y, f" {value}", va="center")
        ax.set_title(title)
        ax.invert_yaxis()
    probabilities = [
        c["p_supported"]
        for r in records
        for c in r.get("claims", [])
        if c.get("p_supported") is not None
    ]
    axes[2].hist(probabilities, bins=20, range=(0, 1), color="#57606a")
    axes[2].set_title("P(supported) per claim")
    fig.tight_layout()
    path = run_dir / "verify_summary.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _answer_view(record: dict[str, Any]) -> AnswerView:
    """Return one result line as the HTML page shows it."""
    note = record.get("error") or ""
    if record.get("unchecked_sentences"):
        note = f"{record['unchecked_sentences']} later sentence(s) were not checked (max_claims)"
    return AnswerView(
        id=str(record["id"]),
        question=record.get("question") or "",
        answer=record.get("answer") or "",
        verdict=record.get("verdict") or "failed",
        claims=record.get("claims", []),
        note=note,
    )


def _flagged_md(record: dict[str, Any]) -> list[str]:
    """Return report.md's lines for one answer with a claim the sources do not back."""
    lines = [f"### {record['id']}: {record['verdict']}", ""]
    if record.get("question"):
        lines.append(f"Question: {record['question']}  ")
    for claim in record["claims"]:
        if claim.get("verdict") == "supported":
            continue
        p = claim.get("p_supported")
        lines.append(
            f"- **{claim.get('verdict') or 'not judged'}** (P supported "
            f"{'n/a' if p is None else f'{p:.2f}'}): {claim['claim']}"
        )
        if claim.get("evidence_sentence"):
            lines.append(f'  - the source says: "{claim["evidence_sentence"]}"')
        for mismatch in claim.get("mismatches", []):
            lines.append(f"  - mismatch: {mismatch.get('reason')}")
    return [*lines, ""]


def write_verify_reports(run_dir: Path, extra: dict[str, Any] | None = None) -> tuple[Path, Path]:
    """Write report.md and report.html from the run's latest records; return their paths.

    Args:
        run_dir: A batch verification folder (`veriloop verify ROWS --out DIR`).
        extra: Throughput figures to print (rows/s, claims/s, seconds, peak memory).
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    records = sorted(
        latest_records(ResultsFile(run_dir / "results.jsonl")).values(),
        key=lambda r: r.get("position") or 0,
    )
    summary = summarise(records)
    settings = manifest.get("settings", {})
    verifier = str(settings.get("verifier", "three_way"))
    plot = _plot(run_dir, summary, records)
    meta = [
        f"Input: {manifest.get('input', '?')}; {summary['rows']} rows, {summary['claims']} "
        "claims (one per answer sentence)",
        f"Command: {manifest.get('command', '?')}",
        f"Settings: {json.dumps(settings)}",
        f"Judge: {verifier}. Its balanced accuracy on held-out data "
        "(docs/benchmarks/support_judges.md):",
        *(f"  {line}" for line in judge_lines(verifier)),
    ]
    if extra:
        meta.append("Throughput: " + ", ".join(f"{k} {v}" for k, v in extra.items()))
    counts = [(name, summary["verdicts"].get(name, 0)) for name in ROW_VERDICTS] + [
        (f"claims {name}", summary["claim_verdicts"].get(name, 0)) for name in CLAIM_VERDICTS
    ]
    rows_html = summary_table(counts, ("", "count"))
    (run_dir / "report.html").write_text(
        render_page(
            "veriloop: answers checked against their sources",
            meta=meta,
            summary_html=rows_html,
            plots=[plot],
            answers=[_answer_view(r) for r in records],
        ),
        encoding="utf-8",
    )
    md = ["# veriloop: answers checked against their sources", ""]
    md += [f"{line}  " for line in meta]
    md += ["", f"![summary]({plot.name})", "", "| | count |", "|---|---|"]
    md += [f"| {name} | {count} |" for name, count in counts]
    failed = [r for r in records if r.get("error")]
    if failed:
        md += ["", "## Rows that could not be checked", ""]
        md += [f"- {r['error']}" for r in failed]
    flagged = [
        r
        for r in records
        if r.get("verdict") == "hallucinated"
        or any(c.get("verdict") != "supported" for c in r.get("claims", []))
    ]
    if flagged:
        md += ["", f"## Answers with a claim the sources do not back ({len(flagged)})", ""]
        md += [
            "Each unbacked sentence with its verdict and what the closest source sentence says "
            f"(the first {LISTED}; report.html shows every answer).",
            "",
        ]
        for record in flagged[:LISTED]:
            md += _flagged_md(record)
    (run_dir / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    return run_dir / "report.md", run_dir / "report.html"
