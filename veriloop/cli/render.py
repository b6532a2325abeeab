"""How results look in a terminal: answers, candidates, citations, claims, evidence."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from veriloop.cli.common import out
from veriloop.nodes.citations import number_citations
from veriloop.nodes.claims import answer_to

if TYPE_CHECKING:
    from veriloop.knowledge.store import Hit


def score_cell(candidate: dict[str, Any], name: str) -> str:
    """Return a score with ✓ (met its threshold) or ✗, or `failed`."""
    if name not in candidate["scores"]:
        return ""
    value = candidate["scores"][name]
    if value is None:
        return "[red]failed[/red]"
    threshold = candidate["thresholds"].get(name)
    mark = "" if threshold is None else (" ✓" if value >= threshold else " ✗")
    return f"{value:.3f}{mark}"


def progress_line(node: str, update: dict[str, Any]) -> str:
    """Return one line for a finished node: its candidate's scores, or a loop's stop."""
    for candidate in update.get("candidates") or []:
        scores = ", ".join(f"{name} {score_cell(candidate, name)}" for name in candidate["scores"])
        where = f"round {candidate['round'] + 1}"
        if candidate["stage"] != "round":
            where += f", attempt {candidate['iteration'] + 1}"
        note = f" [red]({candidate['error']})[/red]" if candidate["error"] else ""
        return f"{node:<18} {candidate['stage']:<9} {where}: {scores}{note}"
    for stop in update.get("stops") or []:
        return f"{node:<18} {stop['loop']} loop stopped: {stop['reason']} — {stop['detail']}"
    return node


def render_result(
    result: dict[str, Any], *, show_rationale: bool = False, details: bool = False
) -> None:
    """Print the answer, the knowledge, the candidate table and the stop reasons.

    Factual Evidence output is shown as the answer with numbered citations and a sources
    list (`show_rationale`: the rationale table with labels too). A grounded answer is
    compact (one line per checked sentence) unless `details` asks for the full tables.
    """
    if "context_units" in result:
        render_cited_answer(result, show_rationale=show_rationale)
        return
    if "sentences" in result or (result.get("trace") or {}).get("method") == "grounded":
        if details:
            render_grounded_answer(result)
        else:
            render_grounded_compact(result)
        return
    trace = result.get("trace") or {}
    answer = result.get("answer")
    refusal = result.get("refusal")
    if refusal:
        print_refusal(refusal)
    else:
        out.print(Panel(answer or "[red]no usable answer[/red]", title="Answer", expand=True))
    for key, title in (("evidence", "Evidence"), ("reasoning", "Reasoning")):
        if result.get(key):
            out.print(Panel(result[key], title=title, expand=True))
    retrieved = result.get("retrieved")
    if retrieved:
        out.print(hits_table(retrieved, "Knowledge-base entries retrieved"))
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
                *(score_cell(candidate, name) for name in score_names),
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


def render_cited_answer(result: dict[str, Any], *, show_rationale: bool) -> None:
    """Print a Factual Evidence answer with numbered citations, its sources and checks."""
    trace = result.get("trace") or {}
    units = {u["id"]: u for u in result.get("context_units") or []}
    refusal = result.get("refusal")
    if refusal:
        print_refusal(refusal)
    elif result.get("answer"):
        text, order = number_citations(result["answer"], result.get("citations") or [])
        out.print(Panel(text, title="Answer", expand=True))
        if order:
            sources = Table(title="Sources", show_lines=False)
            for column in ("#", "id", "from", "text"):
                sources.add_column(column, overflow="fold")
            for number, unit_id in enumerate(order, start=1):
                unit = units.get(unit_id)
                if unit is None:
                    continue
                sources.add_row(
                    str(number), unit_id, str(unit["source"]), " ".join(unit["text"].split())[:300]
                )
            out.print(sources)
    else:
        out.print(Panel("[red]no usable answer[/red]", title="Answer", expand=True))
    invalid = result.get("invalid_citations") or []
    if invalid:
        out.print(
            f"[yellow]removed citations to unknown ids:[/yellow] {', '.join(invalid)} "
            "(the model cited sources it was not given)"
        )
    if show_rationale and result.get("rationale"):
        table = Table(title="Rationale (last version) with the verifier's labels")
        for column in ("id", "label", "in answer", "statement", "justification"):
            table.add_column(column, overflow="fold")
        for item in result["rationale"]:
            label = item["label"] or "unverified"
            colour = "green" if label.startswith("CORRECT") else "red"
            table.add_row(
                item["id"],
                f"[{colour}]{label}[/{colour}]",
                "yes" if item["used_in_answer"] else "no",
                item["statement"],
                item["justification"] or "",
            )
        out.print(table)
        versions = result.get("rationale_versions") or []
        out.print(f"rationale versions: {len(versions)} (all in --json output)")
    print_stops_and_usage(trace)


def print_stops_and_usage(trace: dict[str, Any], *, compact: bool = False) -> None:
    """Print why each loop stopped and what the model calls cost (`compact`: no tokens)."""
    for stop in trace.get("stops", []):
        out.print(f"[bold]{stop['loop']}[/bold]: {stop['reason']} — {escape(stop['detail'])}")
    usage = trace.get("usage")
    if usage:
        tokens = "" if compact else f"tokens in {usage['tokens_in']}, out {usage['tokens_out']}, "
        out.print(
            ("[dim]" if compact else "")
            + f"model calls: {usage['calls']} ({usage['chat_calls']} chat, "
            f"{usage['embed_calls']} embed; {usage['cached_calls']} cached), {tokens}"
            f"model time {usage['model_seconds']:.1f} s" + ("[/dim]" if compact else "")
        )


def fitted(text: str, width: int) -> str:
    """Return `text` on one line, cut at a word with an ellipsis to at most `width` characters."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[: max(width - 1, 0)]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip() + "…"


def render_grounded_compact(result: dict[str, Any]) -> None:
    """Print a grounded answer for a terminal of any width, one line per checked sentence.

    The answer, its sources (a URL never broken), then each sentence: kept or not,
    P(supported), coverage, passage id, the sentence cut to the terminal's width.
    """
    trace = result.get("trace") or {}
    refusal = result.get("refusal")
    if refusal:
        print_refusal(refusal)
    else:
        out.print(escape(result.get("answer") or "") or "[red]no usable answer[/red]")
        print_not_covered(result)
    for source in result.get("sources") or []:
        line = f"  [{source['number']}] {source['id']}  {source['title']}"
        url = source["url"]
        if len(line) + 2 + len(url) <= out.width:
            out.print(escape(f"{line}  {url}"), soft_wrap=True)
        else:  # the URL whole on a line of its own, never broken
            out.print(escape(line), soft_wrap=True)
            out.print(escape(f"      {url}"), soft_wrap=True)
    sentences = result.get("sentences") or []
    if sentences:
        judged = any(s.get("relevance") is not None for s in sentences)
        out.print(
            "[dim]check: ✓ kept ✗ dropped · P(supported) · coverage"
            + (" · relevance" if judged else "")
            + " · passage (--details: tables)[/dim]"
        )
        for sentence in sentences:
            p, coverage = sentence["probability"], sentence["coverage"]
            relevance = sentence.get("relevance")
            head = (
                f"  {'✓' if sentence['supported'] else '✗'} "
                f"{'  ? ' if p is None else f'{p:.2f}'} "
                f"{'   ?' if coverage is None else f'{coverage:4.0%}'}"
                + (f" {'  - ' if relevance is None else f'{relevance:.2f}'}" if judged else "")
                + f" {sentence['passage_id'] or '-'}  "
            )
            style = "green" if sentence["supported"] else "red"
            text = fitted(sentence["text"], max(out.width - len(head), 20))
            out.print(f"[{style}]{escape(head)}[/{style}]{escape(text)}", soft_wrap=True)
    print_stops_and_usage(trace, compact=True)


def render_grounded_answer(result: dict[str, Any]) -> None:
    """Print a grounded answer: cited sentences, sources, the sentence check and passages."""
    trace = result.get("trace") or {}
    refusal = result.get("refusal")
    if refusal:
        print_refusal(refusal)
    else:
        out.print(
            Panel(
                escape(result.get("answer") or "") or "[red]no usable answer[/red]",
                title="Answer",
                expand=True,
            )
        )
        print_not_covered(result)
    if result.get("sources"):
        sources = Table(title="Sources")
        for column in ("#", "id", "title", "url"):
            sources.add_column(column, overflow="fold")
        for source in result["sources"]:
            sources.add_row(source["number"], source["id"], source["title"], source["url"])
        out.print(sources)
    if result.get("sentences"):
        table = Table(title="Each answer sentence against the passages")
        columns = ("kept", "sentence", "P(supported)", "coverage", "relevance", "passage", "why")
        for column in columns:
            table.add_column(column, overflow="fold")
        for sentence in result["sentences"]:
            p, coverage = sentence["probability"], sentence["coverage"]
            relevance = sentence.get("relevance")
            table.add_row(
                "[green]yes[/green]" if sentence["supported"] else "[red]no[/red]",
                escape(sentence["text"]),
                "?" if p is None else f"{p:.2f}",
                "?" if coverage is None else f"{coverage:.0%}",
                "-" if relevance is None else f"{relevance:.2f}",
                sentence["passage_id"] or "",
                escape(sentence["reason"]),
            )
        out.print(table)
    if result.get("passages"):
        table = Table(title="Passages retrieved (re-ranked by relevance to the question)")
        for column in ("id", "relevance", "title", "text"):
            table.add_column(column, overflow="fold")
        for passage in result["passages"]:
            table.add_row(
                passage["id"],
                f"{passage['relevance']:.2f}",
                passage["title"],
                fitted(passage["text"], 200),
            )
        out.print(table)
    print_stops_and_usage(trace)


def hits_table(hits: list[Hit], title: str) -> Table:
    """Return retrieved knowledge-base entries as a table (distance, confidence, d/(c+ε))."""
    table = Table(title=title)
    for column in ("rank", "id", "distance", "confidence", "d/(c+ε)", "source", "knowledge"):
        table.add_column(column, overflow="fold")
    for hit in hits:
        table.add_row(
            str(hit["rank"]),
            hit["id"],
            f"{hit['distance']:.3f}",
            f"{hit['confidence']:.2f}",
            f"{hit['refusal_score']:.3f}",
            hit["source"],
            hit["knowledge"],
        )
    return table


VERDICT_STYLE = {
    "supported": "[green]supported[/green]",
    "contradicted": "[bold red]contradicted[/bold red]",
    "unsupported": "[yellow]unsupported[/yellow]",
}


def verdict_cell(check: dict[str, Any]) -> str:
    """Return a claim check's verdict, coloured; from `supported` for older records."""
    verdict = check.get("verdict")
    if verdict is None and check.get("supported") is not None:
        verdict = "supported" if check["supported"] else "unsupported"
    return VERDICT_STYLE.get(str(verdict), "?")


def probability_cell(value: float | None) -> str:
    """Return a probability to three places, or a dash when there is none."""
    return "–" if value is None else f"{value:.3f}"


VERDICT_MARK = {"supported": "[green]✓[/green]", "contradicted": "[bold red]✗[/bold red]"}


def claim_lines(
    checks: list[dict[str, Any]], width: int, *, show_round: bool = False, question: str = ""
) -> list[str]:
    """Return one line per checked claim, each cut to `width` characters.

    A line holds the verdict, P(supported)/P(contradicted) and the claim (without the
    'Answer to "<question>": ' frame a bare answer is checked in); under it, an indented
    'source says' line with the evidence sentence the verdict rests on, and any mismatch.
    """
    frame = answer_to(question) if question else None
    lines = []
    for check in checks:
        verdict = check.get("verdict") or ("supported" if check.get("supported") else "unsupported")
        p_s, p_c = check["p_supported"], check.get("p_contradicted")
        where = f"r{check['round'] + 1} " if show_round else ""
        scores = f" {probability_cell(p_s)[:4]:>4}/{probability_cell(p_c)[:4]:<4} "
        pad = " " * (12 - len(verdict))
        claim = check["claim"]
        if frame and claim.startswith(frame):
            claim = claim[len(frame) :]
        text = fitted(claim, max(width - len(where) - len(verdict + pad + scores) - 2, 20))
        mark = VERDICT_MARK.get(verdict, "[yellow]?[/yellow]")
        lines.append(f"{mark} {where}{verdict_cell(check)}{pad}{scores}{escape(text)}")
        for mismatch in check.get("mismatches") or []:
            reason = fitted(str(mismatch["reason"]), max(width - 6, 20))
            lines.append(f"      [red]{escape(reason)}[/red]")
        if check.get("error"):
            lines.append(f"      [red]{escape(fitted(str(check['error']), width - 6))}[/red]")
        else:
            said = check.get("evidence_sentence") or check.get("evidence") or ""
            if said:
                said = fitted(said, max(width - 20, 20))
                lines.append(f"[dim]      source says: {escape(said)}[/dim]")
    return lines


def render_verification(result: dict[str, Any], *, details: bool = False) -> None:
    """Print claims with their probabilities, critiques, the verdict and any revision.

    Claims are one line each (`claim_lines`) unless `details` asks for the full table.
    """
    if "evidence_report" in result:
        render_m_eval(result)
        return
    if "claims" in result:
        checks = sorted(result["claims"], key=lambda c: (c["round"], c["index"]))
        methods = ", ".join(dict.fromkeys(c["method"] for c in checks)) or "none"
    if "claims" in result and not details:
        rounds = len({c["round"] for c in checks})
        out.print(
            f"[dim]claims ({methods}): verdict · P supported/contradicted · claim"
            + (" · r = round" if rounds > 1 else "")
            + " (--details)[/dim]"
        )
        question = str(result.get("question") or "")
        for line in claim_lines(checks, out.width, show_round=rounds > 1, question=question):
            out.print(line, soft_wrap=True)
    elif "claims" in result:
        table = Table(title=f"Claims (judged by {methods}; P = probability)")
        for column in ("round", "claim", "verdict", "P supported", "P contradicted", "source says"):
            table.add_column(column, overflow="fold")
        for check in checks:
            error = f" ({escape(str(check['error']))})" if check["error"] else ""
            table.add_row(
                str(check["round"] + 1),
                escape(check["claim"]),
                verdict_cell(check) + error,
                probability_cell(check["p_supported"]),
                probability_cell(check.get("p_contradicted")),
                escape(fitted(check.get("evidence_sentence") or check.get("evidence") or "", 160)),
            )
        out.print(table)
    if "claims" in result:
        for check in checks if details else []:  # compact lines carry them under the claim
            for mismatch in check.get("mismatches") or []:
                out.print(
                    f"[red]contradicted[/red] “{escape(check['claim'])}”: "
                    f"{escape(mismatch['reason'])}"
                )
        for dropped in result.get("discarded_claims", []):
            out.print(
                f"[dim]round {dropped['round'] + 1}: not checked, not drawn from the answer: "
                f"“{escape(dropped['claim'])}”[/dim]"
            )
        for round_index, source in enumerate(result.get("claims_from", [])):
            if source == "sentence_fallback":
                out.print(
                    f"[dim]round {round_index + 1}: the decomposer listed no claims, so the "
                    "answer's sentences were checked[/dim]"
                )
            elif source == "none":
                out.print(f"[dim]round {round_index + 1}: no checkable statement[/dim]")
        for critique in result.get("critiques", []):
            out.print(f"[bold]critique[/bold] of “{critique['claim']}”: {critique['critique']}")
        probabilities = ", ".join(
            "–" if p is None else f"{p:.3f}" for p in result.get("answer_probabilities", [])
        )
        out.print(
            f"P(answer) per round: {probabilities}; verdict: [bold]{result['verdict']}[/bold]"
        )
    if result.get("feedback"):
        out.print(f"[bold]feedback[/bold]: {result['feedback']}")
    if result.get("original_answer") and result.get("answer") != result["original_answer"]:
        out.print(f"[bold]revised answer[/bold]: {result['answer']}")


def render_m_eval(result: dict[str, Any]) -> None:
    """Print M-Eval's claims with their statistics, the evidence and the report."""
    table = Table(title="Claims: M(c) = Σ stance · reliability; DerSimonian–Laird statistics")
    for column in ("claim", "label", "M(c)", "+ / −", "Q", "τ²", "I²"):
        table.add_column(column, overflow="fold")
    for claim in result["claims"]:

        def cell(value: float | None) -> str:
            return "–" if value is None else f"{value:.2f}"

        table.add_row(
            ("[bold]main:[/bold] " if claim["main"] else "") + claim["claim"],
            claim["label"],
            f"{claim['score']:.2f}",
            f"{claim['supporting']} / {claim['contradicting']}",
            cell(claim["q"]),
            cell(claim["tau2"]),
            cell(claim["i2"]),
        )
    out.print(table)
    evidence = Table(title="Evidence and reliability (level + recency − penalties)")
    for column in ("id", "role", "level", "recency", "penalty", "reliability"):
        evidence.add_column(column)
    for record in result["evidence"]:
        parts = record["reliability"]
        evidence.add_row(
            record["id"],
            record["role"],
            f"{parts['level']} ({parts['level_from']})",
            f"{parts['recency']:.1f}",
            f"{parts['penalty']:.1f}",
            f"{parts['reliability']:.2f}",
        )
    out.print(evidence)
    for verdict in result["evidence_report"]:
        out.print(f"cited {verdict['id']}: [bold]{verdict['verdict']}[/bold] ({verdict['detail']})")
    out.print(
        f"answer: [bold]{result['label']}[/bold]; unusable stance replies: "
        f"{result['unusable_stances']}"
    )


def print_not_covered(result: dict[str, Any]) -> None:
    """Print what the question also asks that the source does not say, when it does not."""
    if result.get("not_covered"):
        out.print(f"[yellow]Not covered:[/yellow] {escape(str(result['not_covered']))}")


def print_refusal(refusal: dict[str, Any]) -> None:
    """Print a refusal panel: which gate refused, and why."""
    out.print(
        Panel(
            f"[yellow]{escape(str(refusal['kind']))} refusal:[/yellow] "
            f"{escape(str(refusal['detail']))}",
            title="Refused: I don't know",
            expand=True,
        )
    )
