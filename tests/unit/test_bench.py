import json
from collections.abc import Sequence
from pathlib import Path

import httpx
import openai
import pytest

from veriloop.errors import InvalidInputError, ModelUnavailableError
from veriloop.evaluation.bench import (
    ResultsFile,
    plan_runs,
    run_bench,
    select_items,
    write_manifest,
)
from veriloop.evaluation.items import DatasetError, Item
from veriloop.evaluation.nli import EmbeddingNLI
from veriloop.evaluation.report import write_report
from veriloop.evaluation.timing import timed_bench
from veriloop.nodes.judges import Judged, SupportQuery, SupportVerdict

ITEMS = [
    Item(id=str(i), question=f"Question {i}?", references=[f"answer {i}"], dataset="t")
    for i in range(3)
]


class SameText:
    """P(supported) 1 when the claim equals an evidence text (ignoring a final period)."""

    name = "same-text"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        return [
            SupportVerdict(
                probability=float(any(q.claim.rstrip(".") == e.rstrip(".") for e in q.evidence)),
                evidence_index=0,
                evidence_span="",
                scores={},
                error=None,
            )
            for q in queries
        ], []


def test_plan_runs_names_roles_and_errors():
    runs = plan_runs(["self-reflection"], ["direct"], ["no_number"])
    assert [(r.name, r.role) for r in runs] == [
        ("self-reflection", "method"),
        ("self-reflection[no_number]", "ablation"),
        ("direct", "baseline"),
    ]
    assert runs[1].settings == {"no_number": True}
    with pytest.raises(InvalidInputError, match="unknown ablation"):
        plan_runs(["self-reflection"], [], ["no_thing"])
    with pytest.raises(InvalidInputError, match="unknown method"):
        plan_runs(["magic"], [], [])
    with pytest.raises(InvalidInputError, match="nothing to run"):
        plan_runs([], [], [])


def test_select_items_is_seeded():
    items = [Item(id=str(i), question="q") for i in range(10)]
    assert [i.id for i in select_items(items, limit=3, shuffle=False, seed=0)] == ["0", "1", "2"]
    first = select_items(items, limit=5, shuffle=True, seed=1)
    assert first == select_items(items, limit=5, shuffle=True, seed=1) != items[:5]


def test_results_file_repairs_a_cut_off_last_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"run": "a", "item_id": "1"}\n{"run": "a", "item_')
    results = ResultsFile(path)
    assert results.finished() == {("a", "1")}
    results.append({"run": "a", "item_id": "2"})
    assert [r["item_id"] for r in results.records()] == ["1", "2"]


def test_results_file_names_a_corrupt_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"run": "a", "item_id": "1"}\nnot json\n{"run": "a", "item_id": "2"}\n')
    with pytest.raises(DatasetError, match="results.jsonl:2"):
        ResultsFile(path).records()


def test_direct_run_resumes_without_duplicates(tmp_path, fake_backend):
    name, models = fake_backend(["reply one", "reply two", "reply three", "reply four"])
    results = ResultsFile(tmp_path / "results.jsonl")
    runs = plan_runs([], ["direct"], [])
    assert run_bench(runs, ITEMS[:2], results, base_settings={"backend": name}) == 2
    # A kill mid-write leaves half a line; the re-run repairs it and does only item 2.
    with (tmp_path / "results.jsonl").open("a") as handle:
        handle.write('{"run": "direct", "item_id": "2", "answ')
    results = ResultsFile(tmp_path / "results.jsonl")
    assert run_bench(runs, ITEMS, results, base_settings={"backend": name}) == 1
    assert run_bench(runs, ITEMS, results, base_settings={"backend": name}) == 0
    records = results.records()
    assert sorted(r["item_id"] for r in records) == ["0", "1", "2"]
    assert [r["answer"] for r in records] == ["reply one", "reply two", "reply three"]
    assert all(r["trace"]["usage"]["chat_calls"] == 1 for r in records)


def test_a_bad_item_is_recorded_as_failed(tmp_path, fake_backend):
    name, _ = fake_backend(["fine"])
    results = ResultsFile(tmp_path / "results.jsonl")
    items = [Item(id="blank", question="   "), ITEMS[0]]
    run_bench(plan_runs([], ["direct"], []), items, results, base_settings={"backend": name})
    by_id = {r["item_id"]: r for r in results.records()}
    assert "InvalidInputError" in by_id["blank"]["error"] and by_id["blank"]["answer"] is None
    assert by_id["0"]["error"] is None and by_id["0"]["answer"] == "fine"


def test_an_outage_stops_the_run_and_keeps_finished_work(tmp_path, fake_backend, monkeypatch):
    monkeypatch.setattr("tenacity.nap.time.sleep", lambda seconds: None)

    def down(messages):
        raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1"))

    name, _ = fake_backend(["first", down, down, down, "second", "third"])
    results = ResultsFile(tmp_path / "results.jsonl")
    runs = plan_runs([], ["direct"], [])
    with pytest.raises(ModelUnavailableError):
        run_bench(runs, ITEMS, results, base_settings={"backend": name})
    assert [r["item_id"] for r in results.records()] == ["0"]
    assert run_bench(runs, ITEMS, results, base_settings={"backend": name}) == 2
    assert sorted(r["item_id"] for r in results.records()) == ["0", "1", "2"]


def test_manifest_refuses_other_items(tmp_path):
    manifest = {
        "dataset": "pubmedqa",
        "split": None,
        "limit": 5,
        "shuffle": False,
        "seed": 0,
        "runs": ["direct"],
    }
    write_manifest(tmp_path, manifest)
    write_manifest(tmp_path, {**manifest, "runs": ["self-reflection"]})
    saved = json.loads((tmp_path / "manifest.json").read_text())
    assert saved["runs"] == ["direct", "self-reflection"]
    with pytest.raises(InvalidInputError, match="other items"):
        write_manifest(tmp_path, {**manifest, "limit": 6})


def test_report_tables_hand_checked(tmp_path, fake_backend):
    import numpy as np

    name, models = fake_backend(
        ["answer 0", "something else"],
        dim=2,
        vectors={"answer 0": [1.0, 0.0], "something else": [0.0, 1.0]},
    )
    results = ResultsFile(tmp_path / "results.jsonl")
    write_manifest(
        tmp_path,
        {
            "dataset": "t",
            "split": None,
            "limit": 2,
            "shuffle": False,
            "seed": 0,
            "runs": ["direct"],
            "command": "veriloop bench ...",
        },
    )
    run_bench(plan_runs([], ["direct"], []), ITEMS[:2], results, base_settings={"backend": name})
    head = tmp_path / "head.npz"
    # "supports" when premise and hypothesis embed identically (u*v feature), else neutral.
    weight = np.zeros((3, 8), dtype=np.float32)
    weight[2, 6] = weight[2, 7] = 1.0
    np.savez(head, weight=weight, bias=np.array([-5, 0.5, 0], dtype=np.float32))
    report = write_report(
        tmp_path, judge=EmbeddingNLI(models, head), support=SameText(), models=models
    )
    text = report.read_text()
    # Item 0: "answer 0" vs reference "answer 0" -> F1 100; item 1: 0 overlap -> F1 0.
    assert "| direct | 2 (2 / 0) |" in text
    row = next(line for line in text.splitlines() if line.startswith("| direct"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4] == "0.0"  # Refused %: the direct baseline never refuses
    assert cells[5] == "50.0"  # Ref-supported %: item 0's sentence is its reference
    assert cells[6] == "0.50"  # Unsupp. claims: item 1's one sentence, over 2 items
    assert cells[7] == "0.00"  # Contra. claims: a support-only judge never says contradicted
    assert cells[8] == "0.50"  # Unsupp./item: the same, as no item was refused
    assert cells[10] == "50.00"  # mean F1 x 100
    trust = text.split("How far to trust")[1]
    assert "- same-text on " in trust or "- same-text: no held-out data" in trust
    assert "HealthVer" in text
    for plot in ("metrics.png", "scores_by_iteration.png", "cost_per_item.png"):
        assert (tmp_path / plot).stat().st_size > 1000
    assert json.loads((tmp_path / "summary.json").read_text())["summaries"]["direct"]["items"] == 2
    page = (tmp_path / "report.html").read_text()
    data = page.split('id="answers-data">')[1].split("</script>")[0].replace("<\\/", "</")
    views = {v["id"]: v for v in json.loads(data)}
    assert views["0"]["verdict"] == "supported" and views["1"]["verdict"] == "hallucinated"
    [claim] = views["1"]["claims"]  # its one sentence, where it sits in the answer
    assert claim["verdict"] == "unsupported"
    assert views["1"]["answer"][claim["start"] : claim["end"]] == claim["claim"]
    assert page.count("data:image/png;base64,") == 3  # the plots, inline


def test_paired_comparison_hand_case():
    from veriloop.evaluation.tables import bootstrap_interval, paired_comparison

    per_record = {
        "m\x001": {"f1": 50.0, "nli_sample": 1},
        "b\x001": {"f1": 40.0, "nli_sample": 1},
        "m\x002": {"f1": 30.0, "nli_sample": 0},
        "b\x002": {"f1": 30.0, "nli_sample": -1},
        "m\x003": {"f1": None, "nli_sample": 0},
        "b\x003": {"f1": 10.0, "nli_sample": 0},
    }
    rows = {row["metric"]: row for row in paired_comparison(per_record, "m", "b")}
    assert rows["F1"]["items"] == 2 and rows["F1"]["mean_difference"] == 5.0
    assert (rows["F1"]["wins"], rows["F1"]["ties"], rows["F1"]["losses"]) == (1, 1, 0)
    assert rows["Med-NLI spl"]["items"] == 3
    assert rows["Med-NLI spl"]["mean_difference"] == pytest.approx(1 / 3)
    low, high = bootstrap_interval([1.0, 1.0, 1.0])
    assert low == high == 1.0


def test_support_accuracy_is_measured_on_held_out_pairs_beside_the_columns(
    tmp_path: Path,
) -> None:
    from veriloop.evaluation.report import support_accuracy

    folder = tmp_path / "healthver"
    folder.mkdir()
    rows = ["id,evidence,claim,label"]
    for n in range(6):
        label = "Supports" if n % 2 else "Refutes"
        claim = f"claim {n}" if n % 2 else f"other {n}"
        rows.append(f"{n},claim {n},{claim},{label}")
    (folder / "healthver_dev.csv").write_text("\n".join(rows) + "\n")
    lines = support_accuracy(SameText(), str(tmp_path / "run_data"))
    [healthver] = [line for line in lines if "HealthVer dev" in line]
    assert "6 HealthVer dev, Supports vs Refutes pairs" in healthver
    assert "balanced accuracy 100.0%" in healthver and "AUROC 1.000" in healthver


def test_a_refusal_counts_as_no_claim_per_item_but_not_as_an_answer() -> None:
    from veriloop.evaluation.report import score_record

    record = {
        "run": "grounded",
        "item_id": "1",
        "question": "q?",
        "answer": None,
        "references": ["the reference"],
        "refusal": {"kind": "hard", "detail": "nothing relevant"},
        "wall_seconds": 1.5,
        "trace": {"usage": {"calls": 1}},
    }
    metrics = score_record(record, None, None, None)  # type: ignore[arg-type]
    assert metrics["refused"] == 100.0 and metrics["unsupported_per_item"] == 0
    assert metrics["unsupported_claims"] is None and metrics["ref_supported"] is None
    assert metrics["wall_seconds"] == 1.5 and not metrics["answered"]


def test_difference_verdicts_know_which_way_is_better() -> None:
    from veriloop.evaluation.tables import difference_verdict

    assert difference_verdict("f1", 1.0, 2.0) == " (better)"
    assert difference_verdict("f1", -2.0, -1.0) == " (worse)"
    assert difference_verdict("unsupported_claims", -2.0, -1.0) == " (better)"
    assert difference_verdict("unsupported_per_item", 0.5, 1.0) == " (worse)"
    assert difference_verdict("refused", 10.0, 20.0) == " (higher)"
    assert difference_verdict("f1", -1.0, 1.0) == ""


def test_runs_served_from_the_cache_are_flagged() -> None:
    from veriloop.evaluation.report import cache_notes

    def record(run: str, cached: int, calls: int) -> dict:
        return {"run": run, "trace": {"usage": {"cached_calls": cached, "calls": calls}}}

    notes = cache_notes([record("direct", 1, 1), record("direct", 1, 1), record("fresh", 0, 3)])
    assert notes == [
        "",
        "- direct: 2 of 2 model calls came from the model-call cache, so its model s/item and "
        "wall s/item understate an uncached run.",
    ]
    assert cache_notes([record("fresh", 0, 3)]) == []


def test_timed_bench_counts_records_failures_and_tokens_of_one_fresh_pass(fake_backend):
    name, _ = fake_backend(["one two three", "four five"])
    items = [Item(id="blank", question="   "), *ITEMS[:2]]
    timed = timed_bench(plan_runs([], ["direct"], []), items, {"backend": name}, workers=1)
    assert (timed["workers"], timed["items"], timed["failed"]) == (1, 3, 1)
    assert timed["calls"] == 2 and timed["cached_calls"] == 0  # the blank item asks nothing
    assert timed["tokens_out"] > 0 and timed["wall_seconds"] > 0
    assert timed["items_per_second"] > 0  # (wall time is rounded, so no exact ratio here)
