"""Batch verification on a scripted judge: verdicts, batching, resume, reports, Python, pytest."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import veriloop
from veriloop.cli import app
from veriloop.errors import InvalidInputError
from veriloop.evaluation.bench import ResultsFile
from veriloop.graphs.factored_verification import FactoredVerificationContext
from veriloop.models import Models
from veriloop.nodes.judges import SupportQuery
from veriloop.testing import assert_grounded
from veriloop.text import sentence_offsets
from veriloop.verify.claims import BatchSettings
from veriloop.verify.report import write_verify_reports
from veriloop.verify.rows import read_rows, rows_from
from veriloop.verify.run import check_rows, latest_records, start_run

Make = Callable[..., tuple[str, Models]]
runner = CliRunner()
SOURCE = (
    "The most common serious side effect of warfarin is bleeding. "
    "Hair loss is an uncommon side effect."
)


class WordJudge:
    """Supported when every claim word is in the evidence; 'most' hair loss is denied."""

    name = "word judge"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def judge(self, queries: Sequence[SupportQuery]) -> tuple[list[dict[str, Any]], list[Any]]:
        self.batches.append(len(queries))
        verdicts = []
        for query in queries:
            words = set(re.findall(r"[a-z]+", query.claim.lower()))
            best = max(
                range(len(query.evidence)),
                key=lambda i: len(words & set(re.findall(r"[a-z]+", query.evidence[i].lower()))),
            )
            evidence = query.evidence[best].lower()
            denied = {"hair", "most"} <= words and "uncommon" in evidence
            backed = not denied and words <= set(re.findall(r"[a-z]+", evidence))
            verdicts.append(
                {
                    "probability": 0.0 if denied else 0.9 if backed else 0.1,
                    "evidence_index": best,
                    "evidence_span": query.evidence[best],
                    "scores": {},
                    "error": None,
                    "verdict": "contradicted"
                    if denied
                    else "supported"
                    if backed
                    else "unsupported",
                    "p_contradicted": 0.9 if denied else 0.05,
                    "evidence_sentence": "Hair loss is an uncommon side effect."
                    if denied
                    else query.evidence[best],
                    "mismatches": [{"reason": "quantifier: 'most' vs 'uncommon'"}]
                    if denied
                    else [],
                }
            )
        return verdicts, []


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> WordJudge:
    import veriloop.graphs.factored_verification as fv

    scripted = WordJudge()
    monkeypatch.setattr(fv, "support_judge", lambda kind, models, **_: scripted)
    return scripted


ROWS = [
    {
        "id": "denied",
        "question": "What are warfarin's side effects?",
        "answer": "The most common serious side effect of warfarin is bleeding. "
        "Warfarin causes hair loss in most patients.",
        "sources": [SOURCE],
    },
    {
        "id": "backed",
        "answer": "Hair loss is an uncommon side effect.",
        "sources": ["Unrelated text.", SOURCE],
    },
    {"id": "invented", "answer": "Warfarin cures headaches quickly.", "sources": [SOURCE]},
    {"id": "broken", "answer": "", "sources": [SOURCE]},
]


def settings(fake: str, **extra: Any) -> BatchSettings:
    context = FactoredVerificationContext(
        backend=fake, sentences_as_claims=True, max_revisions=0, max_claims=64
    )
    return BatchSettings(context=context, **extra)


def test_rows_get_fvs_verdicts_with_evidence_and_offsets(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    results = start_run(tmp_path / "run", "rows", settings(fake))
    summary = check_rows(rows_from(ROWS), results, settings(fake))
    assert (summary.checked, summary.failed, summary.claims) == (3, 1, 4)
    records = latest_records(results)
    denied = records["denied"]
    assert denied["verdict"] == "hallucinated" and denied["contradicted_claims"] == 1
    first, second = denied["claims"]
    assert first["verdict"] == "supported" and second["verdict"] == "contradicted"
    assert second["evidence_sentence"] == "Hair loss is an uncommon side effect."
    assert second["mismatches"] and second["evidence_index"] == 0
    assert denied["answer"][second["start"] : second["end"]] == second["claim"]
    assert records["backed"]["verdict"] == "supported"
    assert records["backed"]["claims"][0]["evidence_index"] == 1  # the second source
    assert records["invented"]["verdict"] == "hallucinated"
    assert records["invented"]["claims"][0]["verdict"] == "unsupported"
    assert records["broken"]["verdict"] is None and "answer" in records["broken"]["error"]
    assert judge.batches == [4]  # one batch for every claim of the chunk


def test_chunks_bound_the_batch_and_a_rerun_redoes_only_failed_rows(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    chosen = settings(fake, chunk_rows=1)
    results = start_run(tmp_path / "run", "rows", chosen)
    check_rows(rows_from(ROWS), results, chosen)
    assert judge.batches == [2, 1, 1]
    again = check_rows(rows_from(ROWS), results, chosen)
    assert (again.checked, again.skipped, again.failed) == (0, 3, 1)
    fixed = [*ROWS[:3], {**ROWS[3], "answer": "Bleeding is common."}]
    third = check_rows(rows_from(fixed), results, chosen)
    assert (third.checked, third.skipped) == (1, 3)
    assert latest_records(results)["broken"]["verdict"] == "supported"  # supersedes
    assert judge.batches == [2, 1, 1, 1]


def test_a_run_folder_refuses_other_settings(fake_backend: Make, tmp_path: Path) -> None:
    fake, _ = fake_backend([])
    start_run(tmp_path / "run", "rows", settings(fake))
    other = BatchSettings(
        context=FactoredVerificationContext(backend=fake, threshold=0.2, max_claims=64)
    )
    with pytest.raises(InvalidInputError, match="other settings"):
        start_run(tmp_path / "run", "rows", other)
    with pytest.raises(InvalidInputError, match="claim-support judge"):
        check_rows(
            [],
            ResultsFile(tmp_path / "x.jsonl"),
            BatchSettings(FactoredVerificationContext(verifier="cot")),
        )


def test_sentence_offsets_follow_the_answer_in_order() -> None:
    answer = "A b. A b. C d."
    assert sentence_offsets(answer, ["A b.", "A b.", "Z."]) == [(0, 4), (5, 9), (None, None)]


def test_the_reports_show_counts_the_judges_accuracy_and_each_flagged_claim(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    run = tmp_path / "run"
    check_rows(rows_from(ROWS), start_run(run, "rows", settings(fake)), settings(fake))
    md_path, html_path = write_verify_reports(run)
    md = md_path.read_text()
    assert "HaluEval QA held-out" in md  # the judge's measured accuracy, beside its verdicts
    assert "| hallucinated | 2 |" in md and "| failed | 1 |" in md
    assert '"Hair loss is an uncommon side effect."' in md and "quantifier" in md
    page = html_path.read_text()
    assert "<script src" not in page and "http" not in page.split("<body>")[1].split("<script")[0]
    data = page.split('id="answers-data">')[1].split("</script>")[0]
    views = json.loads(data.replace("<\\/", "</"))
    assert {v["id"]: v["verdict"] for v in views}["broken"] == "failed"


def test_the_cli_checks_a_jsonl_file_and_resumes(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "out"
    args = ["verify", str(rows), "--out", str(out), "--backend", fake, "--no-cache"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "3 rows checked, 1 failed" in first.output
    assert {p.name for p in out.iterdir()} >= {"results.jsonl", "report.md", "report.html"}
    second = runner.invoke(app, args)
    assert second.exit_code == 0 and "0 rows checked" in second.output
    assert "3 already done" in second.output
    refused = runner.invoke(app, [*args, "--set", "threshold=0.1"])
    assert refused.exit_code == 2 and "other settings" in refused.output
    one = runner.invoke(app, ["verify", str(rows), "--method", "m-eval", "--backend", fake])
    assert one.exit_code == 2 and "one answer at a time" in one.output


def test_python_check_returns_dicts_or_a_frame_in_input_order(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    results = veriloop.check(ROWS, backend=fake)
    assert [r["id"] for r in results] == ["denied", "backed", "invented", "broken"]
    assert [r["verdict"] for r in results] == ["hallucinated", "supported", "hallucinated", None]
    frame = veriloop.check(ROWS[:2], backend=fake, as_frame=True, out=tmp_path / "run")
    assert list(frame["verdict"]) == ["hallucinated", "supported"]
    assert (tmp_path / "run" / "report.html").is_file()
    with pytest.raises(InvalidInputError, match="unknown setting"):
        veriloop.check(ROWS, backend=fake, treshold=0.3)


def test_assert_grounded_lists_each_unbacked_claim_with_its_evidence(
    judge: WordJudge, fake_backend: Make
) -> None:
    fake, _ = fake_backend([])
    assert_grounded("Hair loss is an uncommon side effect.", [SOURCE], backend=fake)
    with pytest.raises(AssertionError) as failure:
        assert_grounded(ROWS[0]["answer"], [SOURCE], question="q?", backend=fake)
    message = str(failure.value)
    assert message.startswith("1 contradicted and 0 unsupported of 2 sentence(s)")
    assert "Warfarin causes hair loss in most patients." in message
    assert 'source 1: "Hair loss is an uncommon side effect."' in message
    assert "quantifier" in message
    with pytest.raises(AssertionError, match="1 unsupported"):
        assert_grounded("Warfarin cures headaches quickly.", [SOURCE], backend=fake)
    assert_grounded(
        "Warfarin cures headaches quickly.", [SOURCE], backend=fake, allow_unsupported=1
    )


def test_read_rows_feeds_the_engine_from_a_file(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(ROWS[1]) + "\n")
    results = start_run(tmp_path / "run", str(path), settings(fake))
    assert check_rows(read_rows(path), results, settings(fake)).checked == 1


def test_each_claim_reads_the_windows_sharing_most_of_its_words() -> None:
    from veriloop.verify.claims import candidate_windows

    filler = "Patients should talk to their doctor about any questions they have. " * 10
    long_source = filler + "Warfarin thins the blood and prevents clots. " + filler
    sources = [{"id": "S1", "text": "Aspirin relieves pain."}, {"id": "S2", "text": long_source}]
    windows, ids = candidate_windows("Warfarin prevents clots.", sources, 2)  # type: ignore[arg-type]
    assert len(windows) == 2 and any("Warfarin thins the blood" in w for w in windows)
    assert ids[[i for i, w in enumerate(windows) if "Warfarin" in w][0]] == "S2"
    whole, whole_ids = candidate_windows("Warfarin prevents clots.", sources, 0)  # type: ignore[arg-type]
    assert whole == [s["text"] for s in sources] and whole_ids == ["S1", "S2"]


def test_headings_in_a_long_answer_are_not_claims_but_a_one_word_answer_is() -> None:
    from veriloop.verify.claims import row_claims
    from veriloop.verify.rows import Row

    long = Row(id="1", answer="Symptoms\nWarfarin thins the blood.\nTreatment:", sources=["s"])
    assert row_claims(long, 64) == (["Warfarin thins the blood."], 0)
    short = Row(id="2", answer="Paris.", sources=["s"], question="Capital of France?")
    claims, _ = row_claims(short, 64)
    assert claims == ['Answer to "Capital of France?": Paris.']
    many = Row(id="3", answer=" ".join(f"Fact number {i} holds." for i in range(5)), sources=["s"])
    assert row_claims(many, 3)[1] == 2


class BleedingRelevance:
    """P(addresses the question) 0.9 for sentences about bleeding, 0.2 otherwise."""

    def __init__(self, **_: Any) -> None:
        self.name = "scripted relevance"

    def pair_scores(self, questions: Sequence[str], sentences: Sequence[str]) -> list[float]:
        asked.append(list(zip(questions, sentences, strict=True)))
        return [0.9 if "bleeding" in s else 0.2 for s in sentences]


asked: list[list[tuple[str, str]]] = []


def test_relevance_scores_each_claim_of_rows_with_a_question(
    judge: WordJudge, fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("veriloop.nodes.judges.relevance.RelevanceJudge", BleedingRelevance)
    asked.clear()
    fake, _ = fake_backend([])
    chosen = settings(fake, relevance=True)
    results = start_run(tmp_path / "run", "rows", chosen)
    check_rows(rows_from(ROWS[:3]), results, chosen)
    records = latest_records(results)
    denied = records["denied"]
    assert [c["relevance"] for c in denied["claims"]] == [0.9, 0.2]
    assert denied["answer_relevance"] == pytest.approx(0.55)
    assert denied["off_question_claims"] == 1
    # rows without a question are not scored: None, not a guess
    assert records["backed"]["claims"][0]["relevance"] is None
    assert records["backed"]["answer_relevance"] is None
    assert records["backed"]["off_question_claims"] is None
    # one judge batch for the chunk, the bare sentences read after their question
    assert asked == [
        [
            ("What are warfarin's side effects?", denied["claims"][0]["claim"]),
            ("What are warfarin's side effects?", denied["claims"][1]["claim"]),
        ]
    ]
    assert not denied["claims"][1]["claim"].startswith("Answer to")
    # relevance is a recorded setting: a run without it cannot resume into this folder
    with pytest.raises(InvalidInputError, match="other settings"):
        start_run(tmp_path / "run", "rows", settings(fake))


def test_without_relevance_no_relevance_fields_are_written(
    judge: WordJudge, fake_backend: Make, tmp_path: Path
) -> None:
    fake, _ = fake_backend([])
    results = start_run(tmp_path / "run", "rows", settings(fake))
    check_rows(rows_from(ROWS[:1]), results, settings(fake))
    record = latest_records(results)["denied"]
    assert "answer_relevance" not in record and "relevance" not in record["claims"][0]


def test_the_cli_refuses_relevance_for_one_answer(tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(ROWS[0]))
    result = runner.invoke(app, ["verify", str(path), "--relevance"])
    assert result.exit_code == 2
    assert "--relevance scores a file of rows" in result.output
