"""Batch verification with the real judge: SIGKILL mid-run and resume, the report in Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.integration.live_records import whole_records

pytestmark = [pytest.mark.integration, pytest.mark.full]

SOURCE = (
    "The most common serious side effect of warfarin is bleeding. "
    "Hair loss is an uncommon side effect."
)
README = Path(__file__).resolve().parents[2] / "README.md"


def rows(count: int) -> list[dict[str, object]]:
    """Rows alternating a backed answer and one the source denies."""
    out = []
    for i in range(count):
        answer = (
            "The most common serious side effect of warfarin is bleeding."
            if i % 2 == 0
            else "Warfarin causes hair loss in most patients."
        )
        out.append(
            {
                "id": f"r{i}",
                "question": "Warfarin side effects?",
                "answer": answer,
                "sources": [SOURCE],
            }
        )
    return out


def rendered_dom(page: Path) -> str:
    """Return the DOM of `page#details` after its own script ran, from headless Chromium."""
    command = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"]
    done = subprocess.run(
        [*command, f"file://{page}#details"], capture_output=True, text=True, timeout=120
    )
    return done.stdout


def test_a_killed_batch_resumes_without_redoing_a_row(tmp_path: Path) -> None:
    veriloop = str(Path(sys.executable).parent / "veriloop")
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(400)))
    out = tmp_path / "run"
    command = [veriloop, "verify", str(data), "--out", str(out), "--chunk-rows", "8"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    results = out / "results.jsonl"
    deadline = time.monotonic() + 240
    while len(whole_records(results)) < 16 and time.monotonic() < deadline:
        assert process.poll() is None, (
            process.stderr.read().decode()[-2000:] if process.stderr else ""
        )
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    before = whole_records(results)
    assert 16 <= len(before) < 400, "the kill came too late to test a resume"
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    after = whole_records(results)
    ids = [r["id"] for r in after]
    assert sorted(ids) == sorted(f"r{i}" for i in range(400))  # each row exactly once
    assert after[: len(before)] == before  # nothing finished was redone or rewritten
    assert f"{len(before)} already done" in done.stderr.replace("\n", " ")
    verdicts = {r["id"]: r["verdict"] for r in after}
    assert verdicts["r0"] == "supported" and verdicts["r1"] == "hallucinated"


class Marks(HTMLParser):
    """Collect the rendered page's highlighted sentences and their hover text."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: list[dict[str, str]] = []
        self.details: list[str] = []
        self._in: str | None = None
        self._in_detail = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "mark" and "data-claim" in found:
            self.marks.append(
                {"class": found.get("class") or "", "title": found.get("title") or ""}
            )
            self._in = "mark"
        if tag == "div" and found.get("class") == "detail":
            self._in_detail += 1
            self.details.append("")

    def handle_data(self, data: str) -> None:
        if self._in == "mark":
            self.marks[-1]["text"] = self.marks[-1].get("text", "") + data
        if self._in_detail:
            self.details[-1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark":
            self._in = None


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_the_html_report_renders_highlights_and_evidence_in_a_real_browser(
    tmp_path: Path,
) -> None:
    import veriloop

    run = tmp_path / "run"
    veriloop.check(rows(2), out=run)
    page = (run / "report.html").resolve()
    dom = rendered_dom(page)
    parser = Marks()
    parser.feed(dom)  # the DOM after the page's own script ran: none of this is in the HTML
    by_class = {m["class"]: m for m in parser.marks}
    assert by_class["v-supported"]["text"].startswith("The most common serious side effect")
    denied = by_class["v-contradicted"]
    assert denied["text"] == "Warfarin causes hair loss in most patients."
    assert "Hair loss is an uncommon side effect." in denied["title"]  # shown on hover
    assert any("Mismatch: quantifier" in d and "uncommon" in d for d in parser.details)
    assert "2 of 2 answers shown" in dom
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1100,900",
            f"--screenshot={shot}",
            f"file://{page}#details",
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.stat().st_size > 10_000


HOSTILE = ["<!--", "<script>", "</script>", "]]>", "\u2028", "<script>alert(1)</script>", "&amp;"]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_a_report_of_hostile_text_shows_every_answer_in_a_real_browser(tmp_path: Path) -> None:
    """Issue 36: `<!--` in one row and `<script` in a later one hid every answer."""
    import veriloop

    hostile = []
    for number, bad in enumerate(HOSTILE):
        text = f"Warfarin {bad} causes bleeding in row {number}."
        hostile.append(
            {
                "id": f"h{number} {bad}",
                "question": f"What {bad} does warfarin do?",
                "answer": text,
                "sources": [f"{SOURCE} {bad}", f"Another {bad} source."],
            }
        )
    run = tmp_path / "run"
    veriloop.check(hostile, out=run)
    page = (run / "report.html").resolve()
    dom = rendered_dom(page)
    assert f"{len(HOSTILE)} of {len(HOSTILE)} answers shown" in dom
    for number in range(len(HOSTILE)):
        assert f"in row {number}." in dom  # every answer rendered, by the page's own script
    assert "<script>alert(1)</script>" not in dom  # shown as text, never as markup


def test_the_readme_pytest_example_passes(tmp_path: Path) -> None:
    text = README.read_text()
    found = re.search(r"<!-- pytest-example -->\s*```python\n(.*?)```", text, re.S)
    assert found, "README.md lost its pytest example (marked <!-- pytest-example -->)"
    example = tmp_path / "test_readme_example.py"
    example.write_text(found.group(1))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(example)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout
