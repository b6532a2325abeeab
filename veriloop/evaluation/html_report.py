"""One self-contained HTML page per run: the summary and plots, then every answer, highlighted.

Used by batch verification (`report.html` beside `results.jsonl`) and by `bench` runs.
Each answer's sentences are coloured by their claim verdict (supported / contradicted /
unsupported; grey where no check was recorded); hovering a sentence shows P(supported)
and what the source says, clicking it opens the evidence span, the source it comes from
and any mismatch the deterministic checks named (a button, or `report.html#details`,
opens every unbacked claim's at once). Filters pick answers by verdict, by the claims
they hold, by run, and by text.

No CDN and no network: CSS and JavaScript are inline, plots are embedded PNGs, and the
answers travel as JSON in a `<script type="application/json">` block that the page's own
script renders with `textContent` (an answer's text is never parsed as HTML).
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from veriloop.text import safe_text


class ClaimView(TypedDict):
    """One checked sentence of an answer, as the page shows it.

    A batch-verification result line's claims are these (`veriloop.verify.claims`'s
    `CheckedClaim` adds the optional relevance).
    """

    claim: str
    verdict: str | None
    """supported / contradicted / unsupported (None: the judge could not read it)."""
    p_supported: float | None
    p_contradicted: float | None
    evidence_index: int | None
    """The source the verdict rests on: 0-based index into the answer's sources."""
    evidence_span: str
    evidence_sentence: str
    """The sentence of that span closest to the claim: what the source says."""
    mismatches: list[dict[str, Any]]
    start: int | None
    """Where the sentence starts in the answer (None if the splitter changed its text)."""
    end: int | None
    error: str | None


class AnswerView(TypedDict, total=False):
    """One answer on the page."""

    id: str
    run: str
    question: str
    answer: str
    verdict: str
    """The answer's verdict (supported / hallucinated / undetermined / failed / refused ...)."""
    claims: list[ClaimView]
    sources: list[str]
    note: str
    """A line under the answer (an error, a refusal, what the numbers mean)."""


STYLE = """
:root { --ok:#d9f2dd; --ok-b:#2e7d32; --bad:#fbd5d5; --bad-b:#c62828; --unk:#fff1c2;
  --unk-b:#b7791f; --none:#eceff1; --ink:#1f2328; --mute:#57606a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: var(--mute); font-size: 13px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }
td, th { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; }
th { background: #f6f8fa; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
.plots img { max-width: 100%; border: 1px solid #d0d7de; }
.filters { position: sticky; top: 0; background: #fff; padding: 8px 0; z-index: 2;
  border-bottom: 1px solid #d0d7de; display: flex; gap: 12px; flex-wrap: wrap;
  align-items: center; }
.answer { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
.answer header { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.answer .q { font-weight: 600; }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 10px; border: 1px solid; }
.b-supported { background: var(--ok); border-color: var(--ok-b); }
.b-hallucinated, .b-failed { background: var(--bad); border-color: var(--bad-b); }
.b-undetermined, .b-refused { background: var(--unk); border-color: var(--unk-b); }
.text { margin: 8px 0; white-space: pre-wrap; }
mark { cursor: pointer; border-bottom: 2px solid; padding: 0 1px; color: inherit; }
mark.v-supported { background: var(--ok); border-color: var(--ok-b); }
mark.v-contradicted { background: var(--bad); border-color: var(--bad-b); }
mark.v-unsupported { background: var(--unk); border-color: var(--unk-b); }
mark.v-none { background: var(--none); border-color: #90a4ae; }
.detail { background: #f6f8fa; border-left: 3px solid #57606a; padding: 6px 10px;
  margin: 6px 0; font-size: 14px; }
.detail .said { font-style: italic; }
.note { color: var(--mute); font-size: 13px; }
.legend mark { cursor: default; }
.hidden { display: none; }
"""

SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById('answers-data').textContent);
  const list = document.getElementById('answers');
  const pct = (p) => (p === null || p === undefined) ? 'n/a' : p.toFixed(2);
  function detail(claim, sources) {
    const box = document.createElement('div');
    box.className = 'detail';
    const head = document.createElement('div');
    head.textContent = 'Verdict: ' + (claim.verdict || 'not judged') + ' · P(supported) ' +
      pct(claim.p_supported) + ' · P(contradicted) ' + pct(claim.p_contradicted) +
      (claim.evidence_index !== null && claim.evidence_index !== undefined ?
        ' · source ' + (claim.evidence_index + 1) : '');
    box.appendChild(head);
    if (claim.evidence_sentence) {
      const said = document.createElement('div');
      said.className = 'said';
      said.textContent = 'The source says: "' + claim.evidence_sentence + '"';
      box.appendChild(said);
    }
    (claim.mismatches || []).forEach(function (m) {
      const line = document.createElement('div');
      line.textContent = 'Mismatch: ' + (m.reason || JSON.stringify(m));
      box.appendChild(line);
    });
    if (claim.evidence_span) {
      const span = document.createElement('div');
      span.className = 'span';
      span.textContent = 'Evidence read: ' + claim.evidence_span;
      box.appendChild(span);
    }
    if (claim.error) {
      const e = document.createElement('div');
      e.textContent = 'Not judged: ' + claim.error;
      box.appendChild(e);
    }
    return box;
  }
  function mark(claim, index, text, details, sources) {
    const m = document.createElement('mark');
    m.className = 'v-' + (claim.verdict || 'none');
    m.dataset.claim = String(index);
    m.title = (claim.verdict || 'not judged') + ', P(supported) ' + pct(claim.p_supported) +
      (claim.evidence_sentence ? '\nThe source says: ' + claim.evidence_sentence : '');
    m.textContent = text;
    let open = null;
    m.addEventListener('click', function () {
      if (open) { open.remove(); open = null; return; }
      open = detail(claim, sources);
      details.appendChild(open);
    });
    return m;
  }
  function render(a) {
    const card = document.createElement('article');
    card.className = 'answer';
    card.dataset.verdict = a.verdict || 'none';
    card.dataset.run = a.run || '';
    card.dataset.claims = Array.from(new Set((a.claims || []).map(
      (c) => c.verdict || 'none'))).join(' ');
    card.dataset.text = ((a.question || '') + ' ' + (a.answer || '') + ' ' + a.id).toLowerCase();
    const header = document.createElement('header');
    const badge = document.createElement('span');
    badge.className = 'badge b-' + (a.verdict || 'none');
    badge.textContent = a.verdict || 'no verdict';
    header.appendChild(badge);
    const id = document.createElement('span');
    id.className = 'meta';
    id.textContent = (a.run ? a.run + ' · ' : '') + 'id ' + a.id;
    header.appendChild(id);
    const q = document.createElement('span');
    q.className = 'q';
    q.textContent = a.question || '';
    header.appendChild(q);
    card.appendChild(header);
    const text = document.createElement('div');
    text.className = 'text';
    const details = document.createElement('div');
    const answer = a.answer || '';
    const placed = (a.claims || []).map((c, i) => [c, i]).filter(
      (p) => p[0].start !== null && p[0].start !== undefined).sort(
      (x, y) => x[0].start - y[0].start);
    let at = 0;
    placed.forEach(function (p) {
      const c = p[0];
      if (c.start < at) { return; }
      text.appendChild(document.createTextNode(answer.slice(at, c.start)));
      text.appendChild(mark(c, p[1], answer.slice(c.start, c.end), details, a.sources));
      at = c.end;
    });
    text.appendChild(document.createTextNode(answer.slice(at)));
    card.appendChild(text);
    const loose = (a.claims || []).map((c, i) => [c, i]).filter(
      (p) => p[0].start === null || p[0].start === undefined);
    if (loose.length) {
      const ul = document.createElement('div');
      ul.className = 'note';
      ul.appendChild(document.createTextNode('Claims checked: '));
      loose.forEach(function (p) {
        ul.appendChild(mark(p[0], p[1], p[0].claim, details, a.sources));
        ul.appendChild(document.createTextNode(' '));
      });
      card.appendChild(ul);
    }
    card.appendChild(details);
    if (a.note) {
      const note = document.createElement('div');
      note.className = 'note';
      note.textContent = a.note;
      card.appendChild(note);
    }
    return card;
  }
  data.forEach((a) => list.appendChild(render(a)));
  const byVerdict = document.getElementById('f-verdict');
  const byClaim = document.getElementById('f-claim');
  const byRun = document.getElementById('f-run');
  const byText = document.getElementById('f-text');
  const shown = document.getElementById('f-shown');
  function apply() {
    let n = 0;
    list.querySelectorAll('article.answer').forEach(function (card) {
      const ok = (!byVerdict.value || card.dataset.verdict === byVerdict.value) &&
        (!byClaim.value || card.dataset.claims.split(' ').includes(byClaim.value)) &&
        (!byRun.value || card.dataset.run === byRun.value) &&
        (!byText.value || card.dataset.text.includes(byText.value.toLowerCase()));
      card.classList.toggle('hidden', !ok);
      n += ok ? 1 : 0;
    });
    shown.textContent = n + ' of ' + data.length + ' answers shown';
  }
  [byVerdict, byClaim, byRun].forEach((el) => el.addEventListener('change', apply));
  byText.addEventListener('input', apply);
  apply();
  function expandFlagged() {
    list.querySelectorAll('article.answer mark:not(.v-supported)').forEach((m) => m.click());
  }
  document.getElementById('f-expand').addEventListener('click', expandFlagged);
  if (location.hash === '#details') { expandFlagged(); }
})();
"""


_SCRIPT_UNSAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_safe_json(value: Any) -> str:
    r"""Return `value` as JSON that can sit inside a `<script>` block whatever its text holds.

    `<`, `>` and `&` become `\u003c`, `\u003e`, `\u0026` (JSON escapes, decoded back by
    `JSON.parse`), so no `</script>`, `<!--` or `<script` in an answer can end the block or
    switch the HTML parser into a script-data state; U+2028 and U+2029 are escaped too.
    Lone surrogates (which no UTF-8 page can hold) become U+FFFD.
    """
    return safe_text(json.dumps(value, ensure_ascii=False).translate(_SCRIPT_UNSAFE))


def _options(values: Sequence[str], everything: str) -> str:
    """Return <option>s for a filter: 'everything' first, then each value."""
    items = [f'<option value="">{html.escape(everything)}</option>']
    items += [f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in values]
    return "".join(items)


def summary_table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    """Return an HTML table (cells escaped)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def embedded_image(path: Path) -> str:
    """Return an <img> with the PNG at `path` inline (base64)."""
    encoded = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(Path(path).stem)}" src="data:image/png;base64,{encoded}">'


def render_page(
    title: str,
    *,
    meta: Sequence[str],
    summary_html: str,
    plots: Sequence[Path],
    answers: Sequence[AnswerView],
) -> str:
    """Return the whole page: title, meta lines, summary, plots, filters and answers."""
    verdicts = sorted({a.get("verdict") or "none" for a in answers})
    claim_verdicts = sorted(
        {c.get("verdict") or "none" for a in answers for c in a.get("claims", [])}
    )
    runs = sorted({a.get("run", "") for a in answers} - {""})
    payload = script_safe_json(list(answers))
    meta_html = "".join(f'<div class="meta">{html.escape(line)}</div>' for line in meta)
    images = "".join(embedded_image(p) for p in plots if Path(p).is_file())
    legend = (
        '<div class="legend meta">Sentences: <mark class="v-supported">supported</mark> '
        '<mark class="v-contradicted">contradicted</mark> '
        '<mark class="v-unsupported">unsupported</mark> <mark class="v-none">not checked'
        "</mark> · hover for P(supported) and what the source says, click for the evidence"
        "</div>"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{STYLE}</style></head>
<body>
<h1>{html.escape(title)}</h1>
{meta_html}
<h2>Summary</h2>
<div class="plots">{images}</div>
{summary_html}
<h2>Answers</h2>
<div class="filters">
<label>Answer verdict <select id="f-verdict">{_options(verdicts, "all")}</select></label>
<label>Holding a claim that is <select id="f-claim">{_options(claim_verdicts, "any")}</select>
</label>
<label{"" if runs else ' class="hidden"'}>Run <select id="f-run">{_options(runs, "all")}</select>
</label>
<label>Text <input id="f-text" type="search" placeholder="question, answer or id"></label>
<button id="f-expand" type="button">Open every unbacked claim's evidence</button>
<span id="f-shown" class="meta"></span>
</div>
{legend}
<div id="answers"></div>
<script type="application/json" id="answers-data">{payload}</script>
<script>{SCRIPT}</script>
</body></html>
"""
