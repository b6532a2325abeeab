"""Grounded default on fakes: cite, hard and soft refusal, the coverage gate, modes, parts."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veriloop.cli import app
from veriloop.graphs.grounded import GroundedContext, after_check, after_retrieval, build_graph
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.sources import SourcePassage
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import Models
from veriloop.nodes.answer_units import extract_sentences
from veriloop.nodes.citations import strip_citations, with_marker
from veriloop.nodes.grounding import (
    CheckedSentence,
    cited_answer,
    retrieve_ranked,
)
from veriloop.nodes.judges import (
    CoverageGatedJudge,
    Judged,
    SupportQuery,
    SupportVerdict,
    content_coverage,
    evidence_windows,
)
from veriloop.nodes.refusals import retrieval_record

NOONAN = "Noonan syndrome is inherited in an autosomal dominant manner."
PARIS = "Paris is the capital of France."
QUESTION = "Is Noonan syndrome inherited?"
OFF_TOPIC = "What is the boiling point of liquid nitrogen?"
VECTORS = {
    NOONAN: [1, 0, 0, 0, 0, 0, 0, 0],
    PARIS: [0, 1, 0, 0, 0, 0, 0, 0],
    QUESTION: [0.8, 0, math.sqrt(1 - 0.64), 0, 0, 0, 0, 0],  # cosine 0.8 with NOONAN
    OFF_TOPIC: [0, 0, 0, 1, 0, 0, 0, 0],  # cosine 0 with both
}
Make = Callable[..., tuple[str, Models]]


class ScriptedJudge:
    """P(supported) by rule: 0.9 when the claim's words appear in the evidence, else `other`."""

    name = "scripted judge"

    def __init__(self, other: float = 0.1) -> None:
        self.other = other
        self.queries: list[SupportQuery] = []

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        self.queries.extend(queries)
        verdicts = []
        for query in queries:
            backed = any("autosomal" in e and "autosomal" in query.claim for e in query.evidence)
            verdicts.append(
                SupportVerdict(
                    probability=0.9 if backed else self.other,
                    evidence_index=0,
                    evidence_span=query.evidence[0],
                    scores={},
                    error=None,
                )
            )
        return verdicts, []


class ScriptedRelevance:
    """P(addresses the question) by rule: `off` for sentences holding `off_word`, else 0.9."""

    name = "scripted relevance"

    def __init__(self, off_word: str = "\x00", off: float = 0.1) -> None:
        self.off_word = off_word
        self.off = off
        self.asked: list[tuple[str, list[str]]] = []

    def scores(self, question: str, sentences: Sequence[str]) -> list[float]:
        self.asked.append((question, list(sentences)))
        return [self.off if self.off_word in s else 0.9 for s in sentences]


def setup(
    fake_backend: Make,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    replies: list[Any],
    judge: ScriptedJudge | None = None,
    relevance: ScriptedRelevance | None = None,
) -> tuple[str, Models, str, ScriptedJudge]:
    backend, models = fake_backend(replies, vectors=VECTORS)
    kb_dir = tmp_path / "kb"
    base = KnowledgeBase.create(kb_dir, models.embedder)
    base.add(
        [new_entry(NOONAN, 1.0, "https://example.org/noonan"), new_entry(PARIS, 1.0, "atlas")],
        models.embedder,
    )
    base.save()
    judge = judge or ScriptedJudge()
    monkeypatch.setattr("veriloop.nodes.grounding.support_judge", lambda kind, models, **_: judge)
    scripted = relevance or ScriptedRelevance()
    monkeypatch.setattr(
        "veriloop.graphs.grounded.relevance_judge",
        lambda kind: None if kind == "off" else scripted,
    )
    return backend, models, str(kb_dir), judge


def run(backend: str, kb_dir: str, question: str, **settings: Any) -> dict[str, Any]:
    settings.setdefault("answer_mode", "generate")  # the tests script the chat model's reply
    context = GroundedContext(backend=backend, kb_dir=kb_dir, top_k=2, **settings)
    return build_graph().compile().invoke({"question": question}, context=context)


def test_a_copied_sentence_is_cited_with_its_source(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, models, kb, judge = setup(fake_backend, tmp_path, monkeypatch, [NOONAN])
    result = run(backend, kb, QUESTION)
    assert result["answer"] == "Noonan syndrome is inherited in an autosomal dominant manner [1]."
    assert result["refusal"] is None and result["stop_reason"] == "single_pass"
    assert result["sources"] == [
        {"number": "1", "id": "K-1", "title": "", "url": "https://example.org/noonan"}
    ]
    assert [p["id"] for p in result["passages"]] == ["K-1", "K-2"]
    assert result["passages"][0]["relevance"] == pytest.approx(0.8, abs=1e-5)
    [sentence] = result["sentences"]
    assert sentence["supported"] and sentence["coverage"] == 1.0
    assert sentence["probability"] == 0.9 and sentence["passage_id"] == "K-1"
    # the judge read the sentence after the question, against the one passage holding
    # its content words (the Paris passage was gated out without asking the judge)
    assert [q.evidence for q in judge.queries] == [[NOONAN]]
    assert {q.question for q in judge.queries} == {QUESTION}
    # the passages are in the prompt; only the instructions are echo-guarded
    prompt = models.chat_model.conversations[0][-1].content  # type: ignore[attr-defined]
    assert f"[1] {NOONAN}" in prompt and prompt.rstrip().endswith("Answer:")
    assert result["trace"]["evidence_ids"] == ["K-1"]


def test_nothing_relevant_is_a_hard_refusal_without_a_chat_call(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, models, kb, judge = setup(fake_backend, tmp_path, monkeypatch, [])
    result = run(backend, kb, OFF_TOPIC)
    assert result["answer"] is None and result["stop_reason"] == "refused"
    assert result["refusal"]["kind"] == "hard"
    assert "below relevant_at = 0.5" in result["refusal"]["detail"]
    assert models.chat_model.conversations == []  # type: ignore[attr-defined]
    assert judge.queries == [] and result["sources"] == []


def test_no_backed_sentence_is_a_soft_refusal(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invented = "Noonan syndrome was first described in 2013. It is caused by the NDN gene."
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [invented])
    result = run(backend, kb, QUESTION)
    assert result["answer"] is None and result["refusal"]["kind"] == "soft"
    assert "none of the answer's 2 sentences" in result["refusal"]["detail"]
    assert [s["supported"] for s in result["sentences"]] == [False, False]
    # neither sentence's content words are in a passage: gated to 0, the judge not asked
    assert all("no passage holds its content words" in s["reason"] for s in result["sentences"])
    assert all(s["probability"] == 0.0 for s in result["sentences"])


def test_an_on_topic_invention_the_judge_passes_fails_the_coverage_gate(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a lenient judge (0.8 for everything) passes the invention; its words are not in K-1
    reply = f"{NOONAN} Doctors treat it with mastachin and atroshine tablets."
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [reply], ScriptedJudge(0.8))
    result = run(backend, kb, QUESTION)
    kept, dropped = result["sentences"]
    assert kept["supported"] and not dropped["supported"]
    assert dropped["probability"] == 0.0 and dropped["coverage"] == 0.0
    assert "no passage holds its content words (best: 0%, < 75%)" in dropped["reason"]
    assert "mastachin" not in result["answer"] and result["answer"].endswith("[1].")


def test_mark_keeps_unsupported_sentences_flagged(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = f"{NOONAN} It was first described in 2013."
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [reply])
    result = run(backend, kb, QUESTION, unsupported="mark")
    assert result["answer"] == (
        "Noonan syndrome is inherited in an autosomal dominant manner [1]. "
        "It was first described in 2013. [unsupported]"
    )


def test_extract_mode_quotes_the_source_without_a_chat_call(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, models, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    result = run(backend, kb, QUESTION, answer_mode="extract", extract_sentences=1)
    assert result["answer"] == "Noonan syndrome is inherited in an autosomal dominant manner [1]."
    assert result["sentences"][0]["origin"] == "extracted"
    assert models.chat_model.conversations == []  # type: ignore[attr-defined]


def test_an_empty_reply_ends_without_an_answer_or_a_refusal(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, ["   "])
    result = run(backend, kb, QUESTION)
    assert result["answer"] is None and result["refusal"] is None
    assert result["stop_reason"] == "no_usable_output"


def test_options_are_rejected(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    context = GroundedContext(backend=backend, kb_dir=kb)
    with pytest.raises(Exception, match="answers free-text questions"):
        build_graph().compile().invoke(
            {"question": QUESTION, "options": {"A": "yes", "B": "no"}}, context=context
        )


def test_the_cli_default_prints_the_cited_answer_and_its_url(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [NOONAN])
    result = CliRunner().invoke(
        app,
        [
            "ask",
            QUESTION,
            "--backend",
            backend,
            "--no-cache",
            "--kb",
            kb,
            "--set",
            "answer_mode=generate",
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "autosomal dominant manner [1]." in result.output
    assert "https://example.org/noonan" in result.output
    assert "grounded: single_pass — 1 of 1 sentences backed" in result.output


# ------------------------------------------------------------------------ routers


class _Routed:
    def __init__(self, relevant: bool = False, sentences: list[dict[str, Any]] | None = None):
        self.relevant = relevant
        self.sentences = sentences or []


def test_routers() -> None:
    assert after_retrieval(_Routed(relevant=True)) == "answer"  # type: ignore[arg-type]
    assert after_retrieval(_Routed(relevant=False)) == "refuse_hard"  # type: ignore[arg-type]
    kept, dropped = {"supported": True}, {"supported": False}
    assert after_check(_Routed(sentences=[dropped, kept])) == "cite"  # type: ignore[arg-type]
    assert after_check(_Routed(sentences=[dropped])) == "refuse_soft"  # type: ignore[arg-type]
    assert after_check(_Routed(sentences=[])) == "finish"  # type: ignore[arg-type]


# -------------------------------------------------------------------------- parts


def test_content_coverage_counts_stemmed_content_words() -> None:
    # stems: noonan, syndrom, inherit, domin (dominantly = dominant) -> all in the evidence
    assert content_coverage("Noonan syndrome is inherited dominantly.", NOONAN) == 1.0
    # noonan, syndrom, inherit in the evidence; recess not: 3 of 4
    assert content_coverage("Noonan syndrome is inherited recessively.", NOONAN) == 0.75
    assert content_coverage("It is caused by mastachin.", NOONAN) == 0.0
    assert content_coverage("It is.", NOONAN) is None


def test_cited_answer_numbers_passages_in_order_of_first_citation() -> None:
    def sentence(text: str, passage: str | None, supported: bool) -> CheckedSentence:
        return CheckedSentence(
            text=text,
            origin="generated",
            passage_id=passage,
            evidence_span=None,
            probability=0.9,
            coverage=1.0,
            supported=supported,
            reason="",
        )

    checked = [
        sentence("A is so.", "MQ-2", True),
        sentence("B is so", "MQ-1", True),
        sentence("C is not.", "MQ-1", False),
        sentence("D is so!", "MQ-2", True),
    ]
    text, order = cited_answer(checked)
    assert text == "A is so [1]. B is so [2] D is so [1]!"
    assert order == ["MQ-2", "MQ-1"]
    marked, _ = cited_answer(checked, mark_unsupported=True)
    assert "C is not. [unsupported]" in marked
    assert strip_citations(text) == "A is so. B is so D is so!"
    assert with_marker("Yes", 3) == "Yes [3]"


def test_extract_sentences_keeps_source_order(fake_backend: Make) -> None:
    first, second, third = "Alpha is a letter.", "Beta follows it.", "Gamma is third."
    heading = "Which letters are there?"  # a question in the source is never quoted
    question = "Which letters?"
    vectors = {
        question: [1, 0, 0, 0],
        heading: [1, 0, 0, 0],
        first: [0.6, 0.8, 0, 0],
        second: [0.9, math.sqrt(1 - 0.81), 0, 0],
        third: [0, 0, 1, 0],
    }
    _, models = fake_backend([], vectors=vectors, dim=4)
    passages = [
        {
            "id": "P1",
            "text": f"{heading} {first} {second}",
            "title": "",
            "url": "",
            "relevance": 0.0,
        },
        {"id": "P2", "text": third, "title": "", "url": "", "relevance": 0.0},
    ]
    quoted, call = extract_sentences(models, question, passages, 2)  # type: ignore[arg-type]
    assert quoted == [(first, "P1"), (second, "P1")] and call is not None
    assert extract_sentences(models, question, [], 2) == ([], None)


def test_evidence_windows_cover_a_long_text_with_one_sentence_of_overlap() -> None:
    sentences = [f"Sentence number {i} is here." for i in range(10)]  # 26-27 chars each
    windows = evidence_windows(" ".join(sentences), 60)
    assert windows[0] == f"{sentences[0]} {sentences[1]}"
    assert windows[1].startswith(sentences[1])  # one sentence shared
    assert windows[-1].endswith(sentences[-1])
    assert all(len(w) <= 60 for w in windows)
    assert evidence_windows("short", 60) == ["short"]
    assert evidence_windows("x" * 100 + ". " + "y" * 10 + ".", 60)[0] == "x" * 100 + "."


def test_a_plain_folder_corpus_is_indexed_once_and_reindexed_when_it_changes(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriloop.knowledge import folder_index as module

    monkeypatch.setenv("VERILOOP_INDEX_CACHE", str(tmp_path / "cache"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "noonan.txt").write_text(NOONAN + "\n")
    (docs / "paris.md").write_text("# Paris\n\n" + PARIS + "\n")
    backend, _, _, _ = setup(fake_backend, tmp_path, monkeypatch, [NOONAN, NOONAN])
    builds: list[Path] = []
    real_build = module.CorpusIndex.build

    def counting_build(directory: Path, *args: Any, **kwargs: Any) -> Any:
        builds.append(directory)
        return real_build(directory, *args, **kwargs)

    monkeypatch.setattr(module.CorpusIndex, "build", counting_build)
    context = GroundedContext(
        backend=backend, corpus_dir=str(docs), top_k=1, relevant_at=-1.0, subject_relevant_at=-1.0
    )
    graph = build_graph().compile()
    first = graph.invoke({"question": QUESTION}, context=context)
    assert first["answer"] and first["sources"][0]["url"] == "noonan.txt"
    graph.invoke({"question": QUESTION}, context=context)
    assert len(builds) == 1 and builds[0].parent == tmp_path / "cache"
    (docs / "new.txt").write_text("Gout is a form of arthritis.\n")
    assert module.folder_fingerprint(docs, "fake-embedder") not in builds[0].name
    graph.invoke({"question": QUESTION}, context=context)  # the changed folder: a new index
    assert len(builds) == 2 and builds[1] != builds[0]


def test_an_empty_folder_corpus_says_what_to_do(tmp_path: Path, fake_backend: Make) -> None:
    from veriloop.knowledge.corpus_index import CorpusIndexError
    from veriloop.knowledge.folder_index import folder_index

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "scan.pdf").write_bytes(b"%PDF")
    _, models = fake_backend([])
    with pytest.raises(CorpusIndexError, match=r"holds no usable document.*scan.pdf"):
        folder_index(tmp_path / "docs", models.embedder, tmp_path / "cache")


def test_the_gate_keeps_the_best_covered_evidence_and_the_inner_scores() -> None:
    judge = CoverageGatedJudge(ScriptedJudge(other=0.6), min_coverage=0.75)
    claim = "Paris is the capital of France."
    [verdict], _ = judge.judge([SupportQuery(claim, [NOONAN, "", PARIS], "")])
    # Noonan: coverage 0 -> 0; Paris: coverage 1 -> the inner 0.6 stands
    assert verdict["probability"] == 0.6 and verdict["evidence_index"] == 2
    assert verdict["scores"] == {"inner_p": 0.6, "coverage": 1.0}
    [lacking], _ = judge.judge([SupportQuery("Rome is in Italy.", [PARIS], "")])
    assert lacking["probability"] == 0.0 and lacking["scores"] == {"coverage": 0.0}
    # only the Paris pair of the first query reached the inner judge
    assert [q.evidence for q in judge.inner.queries] == [[PARIS]]  # type: ignore[attr-defined]


def test_every_outcome_returns_the_same_output_keys(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    refused = run(backend, kb, OFF_TOPIC)
    answered = run(backend, kb, QUESTION, answer_mode="extract")
    for result in (refused, answered):
        assert {"passages", "sentences", "sources", "refusal", "trace"} <= set(result)
    assert refused["sentences"] == [] and refused["sources"] == []


# ------------------------------------------------------------------ answer relevance


def test_a_backed_sentence_off_the_question_is_dropped_and_said_so(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # both sentences are backed (autosomal), but the second does not address the question
    off = "Noonan syndrome is autosomal dominant, so it is inherited."
    relevance = ScriptedRelevance(off_word="so it is")
    reply = f"{NOONAN} {off}"
    backend, _, kb, _ = setup(
        fake_backend, tmp_path, monkeypatch, [reply, reply], relevance=relevance
    )
    result = run(backend, kb, QUESTION, relevance_judge="trained")
    assert result["answer"] == "Noonan syndrome is inherited in an autosomal dominant manner [1]."
    kept, dropped = result["sentences"]
    assert kept["supported"] and kept["relevance"] == 0.9
    assert not dropped["supported"] and dropped["verdict"] == "supported"  # backed, not kept
    assert dropped["relevance"] == 0.1
    assert dropped["reason"] == (
        "backed (P(supported) 0.90) but off the question: relevance 0.10 < 0.5"
    )
    assert relevance.asked == [(QUESTION, [NOONAN, off])]
    sentence_stages = [c for c in result["trace"]["candidates"] if c["stage"] == "sentence"]
    assert [c["scores"]["relevance"] for c in sentence_stages] == [0.9, 0.1]
    assert [c["passed"] for c in sentence_stages] == [True, False]
    marked = run(backend, kb, QUESTION, unsupported="mark", relevance_judge="trained")
    assert marked["answer"].endswith(f"{off} [off-question]")


def test_the_soft_refusal_says_which_test_failed(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    off = "Noonan syndrome is autosomal dominant, so it is inherited."
    reply = f"{off} It was first described in 2013."
    backend, _, kb, _ = setup(
        fake_backend,
        tmp_path,
        monkeypatch,
        [reply],
        relevance=ScriptedRelevance("so it is"),
    )
    result = run(backend, kb, QUESTION, relevance_judge="trained")
    assert result["answer"] is None and result["refusal"]["kind"] == "soft"
    assert result["refusal"]["detail"] == (
        "none of the answer's 2 sentences is both backed by the retrieved passages and about "
        "the question: 1 backed but off the question (relevance < relevant_sentence_at = 0.5), "
        "1 not backed"
    )


def test_relevance_off_checks_support_only(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    off = "Noonan syndrome is autosomal dominant, so it is inherited."
    relevance = ScriptedRelevance("so it is")
    backend, _, kb, _ = setup(
        fake_backend, tmp_path, monkeypatch, [f"{NOONAN} {off}"], relevance=relevance
    )
    result = run(backend, kb, QUESTION)  # off by default
    assert [s["supported"] for s in result["sentences"]] == [True, True]
    assert [s["relevance"] for s in result["sentences"]] == [None, None]
    assert relevance.asked == []


def test_extract_mode_quotes_what_the_relevance_judge_ranks_highest(fake_backend: Make) -> None:
    first, second, third = "Alpha is a letter.", "Beta follows it.", "Gamma is third."
    _, models = fake_backend([], vectors={}, dim=4)
    passages = [
        {"id": "P1", "text": f"{first} {second}", "title": "", "url": "", "relevance": 0.0},
        {"id": "P2", "text": third, "title": "", "url": "", "relevance": 0.0},
    ]

    class ByLetter:
        name = "by letter"

        def scores(self, question: str, sentences: Sequence[str]) -> list[float]:
            return [{"A": 0.2, "B": 0.3, "G": 0.9}[s[0]] for s in sentences]

    quoted, call = extract_sentences(models, "q?", passages, 2, ByLetter())  # type: ignore[arg-type]
    assert quoted == [(second, "P1"), (third, "P2")]  # best two, kept in source order
    assert call is None  # no embedding call: the judge ranked them


def test_an_extracted_unit_is_checked_and_cited_whole(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a unit joining "It ..." to its antecedent must not be split again by the check, or
    # the anaphoric half could be kept and cited alone
    unit = f"{NOONAN} It is autosomal in most families."
    backend, _, kb, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    monkeypatch.setattr(
        "veriloop.nodes.answer_units.extract_sentences", lambda *a, **k: ([(unit, "K-1")], None)
    )
    result = run(backend, kb, QUESTION, answer_mode="extract")
    assert [s["text"] for s in result["sentences"]] == [unit]
    assert result["answer"] == f"{unit[:-1]} [1]."


class TitledSource:
    """A source whose passages carry page foci, as MedQuAD's do."""

    name = "titled pages"

    def __init__(self, pages: list[tuple[str, str]]) -> None:
        self.pages = pages

    def normalized(self, question: str) -> str:
        return question

    def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[Any]]:
        return [
            SourcePassage(id=f"P-{n}", text=text, title=title, url="u", relevance=0.0)
            for n, (title, text) in enumerate(self.pages[:k], start=1)
        ], []

    def opening(self, passage: SourcePassage) -> SourcePassage | None:
        return None  # each page is one passage

    def typed(self, title: str, qtype: str) -> list[SourcePassage]:
        return []  # no index of pages by type

    def openings_of(self, title: str) -> list[SourcePassage]:
        return []  # no index of pages by subject

    def foci_named(self, name: str) -> list[str]:
        return []  # no index of pages by name

    def parts(self, passage: SourcePassage) -> list[SourcePassage]:
        return [passage]  # each page is one passage


def use_source(monkeypatch: pytest.MonkeyPatch, source: Any) -> None:
    """Make retrieval search `source` (a fake PassageSource) instead of MedQuAD."""
    monkeypatch.setattr("veriloop.nodes.grounding.open_source", lambda *a, **k: source)


def retrieved(models: Models, question: str, **settings: Any) -> Any:
    """Run `retrieve_ranked` on the monkeypatched source: 10 candidates, 5 kept, unless set."""
    return retrieve_ranked(
        models,
        question,
        **{"kb_dir": "", "corpus_dir": "", "candidates": 10, "keep": 5, **settings},
    )


FISSURE_PAGES = [
    ("Anal Disorders", "Problems with the anus include hemorrhoids and fissures."),
    ("Crohn's Disease", "Complications can include anal fissures, small tears in the anus."),
    ("Anal Cancer", "Anal cancer is treated with radiation therapy."),
]


def test_a_subject_no_page_is_about_is_refused_by_name(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, models, _, judge = setup(fake_backend, tmp_path, monkeypatch, [])
    source = TitledSource(FISSURE_PAGES)
    use_source(monkeypatch, source)
    question = "I have been battling anal fissure for two years. What should I do?"
    result = run(backend, "", question, answer_mode="extract")
    assert result["stop_reason"] == "refused" and result["refusal"]["kind"] == "hard"
    detail = result["refusal"]["detail"]
    assert detail.startswith(
        "the source has no page about 'anal fissure' (the pages retrieved are about "
        "Anal Disorders, Crohn's Disease)"  # Anal Cancer: a neighbouring condition, dropped
    )
    # what was found and why it was set aside is said too (issue 38)
    assert "1 about a neighbouring condition, dropped" in detail
    assert "set aside: Anal Cancer" in detail and "kept none" in detail
    assert result["passages"] == [] and judge.queries == []
    retrieval = result["trace"]["candidates"][0]["text"]
    assert "1 about a neighbouring condition" in retrieval and "no page about" in retrieval


SLEEP_PARALYSIS_PAGES = [
    (
        "Narcolepsy",
        "Narcolepsy is a disorder that causes daytime sleepiness. Many people with narcolepsy "
        "also experience sleep paralysis, which is an inability to move or speak for a while.",
    ),
    ("Paralysis", "Paralysis is the loss of muscle function in part of your body."),
    ("Sleep Apnea", "Sleep apnea is a common disorder in which breathing stops."),
]


def test_a_subject_another_page_says_what_it_is_is_answered_from_that_alone(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = ScriptedJudge(other=0.9)  # every quoted sentence backed: the quoting is tested
    backend, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [], judge)
    use_source(monkeypatch, TitledSource(SLEEP_PARALYSIS_PAGES))
    question = "What exactly is sleep paralysis?"
    settings = {"relevant_at": -1.0, "subject_relevant_at": -1.0, "question_types": False}
    result = run(backend, "", question, answer_mode="extract", **settings)
    # "sleep" names a page (Sleep Apnea, set aside): Paralysis is not on "sleep paralysis"
    assert result["answer"] == (
        "Many people with narcolepsy also experience sleep paralysis, which is an inability "
        "to move or speak for a while [1]."
    )
    assert [s["title"] for s in result["sources"]] == ["Narcolepsy"]
    retrieval = result["trace"]["candidates"][0]["text"]
    assert "no page about 'sleep paralysis'" in retrieval
    # asked how it is treated, a page that only says what it is answers nothing
    treated = retrieved(models, "How is sleep paralysis treated?", asked="treatment")
    assert treated.ranked == [] and treated.subject.uncovered.text == "sleep paralysis"


CANKER_PAGES = [
    ("Mouth Disorders", "Mouth problems include canker sores and cold sores."),
    ("Canker Sores", "Canker sores are small, round sores in your mouth. A canker sore hurts."),
    ("Cold Sores", "Cold sores are caused by a virus. Cold sores hurt."),
]


def test_a_page_named_by_its_first_word_alone_is_no_neighbour(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    use_source(monkeypatch, TitledSource(CANKER_PAGES))
    # "canker" is written only in "canker sore(s)": Canker Sores is on it, and the organ's
    # family page goes (was: Canker Sores dropped as a neighbour, Mouth Disorders kept)
    got = retrieved(models, "How do I get rid of a canker in my mouth?")
    assert [p["title"] for p in got.ranked] == ["Canker Sores"]
    # "cold" is no name's alone: a page writes it without "sores" (the common cold; its
    # title holds no "cold", so only the text can tell)
    common = [*CANKER_PAGES, ("Flu", "A cold is milder than the flu.")]
    use_source(monkeypatch, TitledSource(common))
    got = retrieved(models, "What do I take for a cold in my mouth?")
    assert "Cold Sores" not in [p["title"] for p in got.ranked]


def test_pages_defining_the_subject_in_passing_are_kept_only_where_quotable(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    listed = (
        "Cataplexy",
        "These resources address the diagnosis or management of sleep paralysis, which is "
        "a brief loss of movement: Gene Review.",
    )
    use_source(monkeypatch, TitledSource([*SLEEP_PARALYSIS_PAGES, listed]))
    got = retrieved(models, "What exactly is sleep paralysis?")
    # the resource list defines it too, but in no unit an answer may quote
    assert [p["title"] for p in got.ranked] == ["Narcolepsy"]
    assert all(p.get("defines") == "sleep paralysis" for p in got.ranked)
    # every page not kept is named as set aside, the ones that define nothing too
    assert set(got.set_aside) == {"Paralysis", "Sleep Apnea", "Cataplexy"}


def test_only_pages_on_the_subject_reach_the_answer(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [("Crohn's Disease", "Anal fissures are small tears."), *FISSURE_PAGES[:1]]
    use_source(monkeypatch, TitledSource(pages))
    result = run(
        backend,
        "",
        "What are anal disorders?",
        answer_mode="extract",
        relevant_at=-1.0,
        subject_relevant_at=-1.0,
    )
    assert [p["title"] for p in result["passages"]] == ["Anal Disorders"]
    assert "1 off the question's subject, dropped" in result["trace"]["candidates"][0]["text"]
    unmatched = run(
        backend,
        "",
        "What are anal disorders?",
        answer_mode="extract",
        relevant_at=-1.0,
        subject_relevant_at=-1.0,
        match_focus=False,
    )
    assert {p["title"] for p in unmatched["passages"]} == {"Anal Disorders", "Crohn's Disease"}


def test_pages_on_the_subject_below_the_gate_are_not_replaced_by_other_pages(
    fake_backend: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "Is it ok to drink quinine in seltzer water?"
    pages = [
        ("Drinking Water", "Drinking water comes from wells."),  # named by its words only
        ("Thrombocytopenia", "Quinine can cause thrombocytopenia."),
    ]
    vectors = {
        question: [1, 0, 0, 0, 0, 0, 0, 0],
        "Drinking Water. Drinking water comes from wells.": [
            0.2,
            math.sqrt(0.96),
            0,
            0,
            0,
            0,
            0,
            0,
        ],
        "Thrombocytopenia. Quinine can cause thrombocytopenia.": [
            0.7,
            0,
            math.sqrt(0.51),
            0,
            0,
            0,
            0,
            0,
        ],
    }
    backend, models = fake_backend([], vectors=vectors)
    use_source(monkeypatch, TitledSource(pages))

    def titles(relevant_at: float) -> list[str]:
        got = retrieved(models, question, candidates=5, keep=2, relevant_at=relevant_at)
        assert got.subject is not None and got.subject.dropped == 1
        assert got.on_subject and got.set_aside == ["Thrombocytopenia"]
        return [p["title"] for p in got.ranked]

    # below the subject's gate or not, only the page on the subject is kept: that gate then
    # refuses, and Thrombocytopenia (closer to the question) never answers for it
    assert titles(0.5) == titles(0.1) == ["Drinking Water"]
    result = run(backend, "", question, question_types=False)
    detail = result["refusal"]["detail"]
    assert result["answer"] is None
    assert [p["title"] for p in result["passages"]] == ["Drinking Water"]
    assert detail.startswith(
        "the pages on the question's subject (Drinking Water) are not close enough to what "
        "it asks: the best passage's relevance 0.20 is below subject_relevant_at = 0.51"
    )
    assert (
        retrieval_record(
            retrieved(models, question, candidates=5, keep=2, relevant_at=0.5),
            0.5,
        )["passed"]
        is False
    )


def test_pages_off_a_matched_subject_are_named_but_never_embedded(
    fake_backend: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = [
        ("Drinking Water", "Drinking water comes from wells."),
        ("Thrombocytopenia", "Quinine can cause thrombocytopenia."),
        ("Gout", "Gout is treated with colchicine."),
    ]
    _, models = fake_backend([], vectors={})
    use_source(monkeypatch, TitledSource(pages))
    embedded: list[str] = []
    embed = models.embed

    def spy(texts: list[str], *, purpose: str) -> Any:
        embedded.extend(texts)
        return embed(texts, purpose=purpose)

    monkeypatch.setattr(models, "embed", spy)
    got = retrieved(models, "Is it ok to drink quinine in seltzer water?", keep=2)
    assert [p["title"] for p in got.ranked] == ["Drinking Water"]
    assert got.set_aside == ["Thrombocytopenia", "Gout"]  # named, in the search's order
    assert not any("Quinine can" in t or "Gout is" in t for t in embedded)
    assert "Drinking Water. Drinking water comes from wells." in embedded
    embedded.clear()
    unmatched = retrieved(models, "Is it ok to drink quinine?", keep=3, match_focus=False)
    assert len(unmatched.ranked) == 3 and len(embedded) == 4  # no subject rule: all ranked


class TypedSource(TitledSource):
    """Titled pages that also carry MedQuAD's question type and UMLS concepts."""

    def __init__(
        self,
        pages: list[tuple[str, str, str, list[str]]],
        unsearched: list[tuple[str, str, str, list[str]]] | None = None,
        sites: dict[str, str] | None = None,
    ) -> None:
        self.pages_typed = pages
        self.unsearched = unsearched or []
        """Pages search never returns; found only by focus and type (`typed`)."""
        self.sites = sites if sites is not None else {}
        """Each title's NIH site ("GHR", ...); a title not in it has none."""

    def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[Any]]:
        return [
            self._passage(f"P-{n}", page) for n, page in enumerate(self.pages_typed[:k], start=1)
        ], []

    def typed(self, title: str, qtype: str) -> list[SourcePassage]:
        return [
            self._passage(f"U-{n}", page)
            for n, page in enumerate(self.unsearched, start=1)
            if page[0] == title and page[2] == qtype
        ]

    def openings_of(self, title: str) -> list[SourcePassage]:
        return [
            self._passage(f"U-{n}", page)
            for n, page in enumerate(self.unsearched, start=1)
            if page[0] == title
        ]

    def foci_named(self, name: str) -> list[str]:
        titles = [page[0] for page in [*self.pages_typed, *self.unsearched]]
        return list(dict.fromkeys(t for t in titles if t.lower() == name.lower()))

    def _passage(self, pid: str, page: tuple[str, str, str, list[str]]) -> SourcePassage:
        title, text, qtype, cuis = page
        passage = SourcePassage(
            id=pid, text=text, title=title, url="u", relevance=0.0, qtype=qtype, cuis=cuis
        )
        if title in self.sites:
            passage["site"] = self.sites[title]
        return passage


def test_passages_of_the_asked_type_and_the_subjects_other_names_are_kept(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [
        ("Hypertension", "Hypertension is blood pressure that stays high.", "information", ["C1"]),
        ("Hypertension", "Hypertension is treated with diuretics.", "treatment", ["C1"]),
        ("High Blood Pressure", "Medicines for high blood pressure help.", "treatment", ["C1"]),
        ("Hypotension", "Hypotension is blood pressure that is low.", "treatment", ["C2"]),
    ]
    use_source(monkeypatch, TypedSource(pages))
    question = "how is hypertension treated"
    got = retrieved(models, question, asked="treatment")
    assert got.typed is True and got.on_subject
    assert sorted(p["title"] for p in got.ranked) == ["High Blood Pressure", "Hypertension"]
    assert all(p.get("qtype") == "treatment" for p in got.ranked)
    other = retrieved(models, question, asked="outlook")
    assert other.typed is False  # the subject's pages answer other questions only


def test_a_named_adult_gets_no_childrens_page_of_the_same_concept(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [
        (
            "Irritable Bowel Syndrome",
            "Irritable bowel syndrome (IBS) is a problem of the large intestine.",
            "information",
            ["C1"],
        ),
        (
            "Irritable Bowel Syndrome in Children",
            "Children with IBS may want to eat less fat.",
            "treatment",
            ["C1"],
        ),
    ]
    use_source(monkeypatch, TypedSource(pages))

    def titles(question: str) -> set[str]:
        got = retrieved(models, question)
        return {p["title"] for p in got.ranked}

    assert titles("what helps IBS") == {p[0] for p in pages}  # one concept (C1)
    assert titles("my father has IBS, what helps") == {pages[0][0]}


def test_a_kind_listing_the_subjects_concept_stays_a_kind(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    # CancerGov's Childhood Hodgkin Lymphoma lists Lymphoma's concept (C0024299) beside
    # its own: joined as the subject's own page, its treatment answer crowded out the
    # adults' kinds, and "What is the treatment for lymphoma?" was refused below the gate
    pages = [
        ("Lymphoma", "Lymphoma is a cancer of the lymph system.", "information", ["C1"]),
        (
            "Childhood Hodgkin Lymphoma",
            "Childhood Hodgkin lymphoma is treated with chemotherapy.",
            "treatment",
            ["C2", "C1"],
        ),
        (
            "Adult Hodgkin Lymphoma",
            "Adult Hodgkin lymphoma is treated with radiation therapy.",
            "treatment",
            ["C3"],
        ),
    ]
    use_source(monkeypatch, TypedSource(pages, sites={"Lymphoma": "MPlus"}))
    got = retrieved(models, "What is the treatment for lymphoma?", asked="treatment")
    assert "Adult Hodgkin Lymphoma" in {p["title"] for p in got.ranked}
    assert "Childhood Hodgkin Lymphoma" not in {p["title"] for p in got.ranked}


def test_pages_without_a_concept_share_none(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [  # CDC's pages carry no UMLS concept: the index holds [None] for them
        ("Parasites - Scabies", "Scabies is treated with scabicides.", "treatment", [None]),
        (
            "Parasites - Lice - Head Lice",
            "Head lice are treated with a lotion.",
            "treatment",
            [None],
        ),
    ]
    use_source(monkeypatch, TypedSource(pages))  # type: ignore[arg-type]
    got = retrieved(models, "how is scabies treated", asked="treatment")
    assert [p["title"] for p in got.ranked] == ["Parasites - Scabies"]
    assert got.set_aside == ["Parasites - Lice - Head Lice"]


def test_the_subjects_page_of_the_asked_type_is_found_when_the_search_missed_it(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    searched = [
        (
            "Leigh Syndrome",
            "Leigh syndrome is a severe disorder of the nervous system.",
            "information",
            [],
        ),
        ("Infant Botulism", "Infant botulism is treated with an antitoxin.", "treatment", []),
    ]
    unsearched = [
        (
            "Leigh Syndrome",
            "Leigh syndrome is treated with vitamins such as thiamine.",
            "treatment",
            [],
        ),
        ("Leigh Syndrome", "Leigh syndrome is rare.", "outlook", []),
    ]
    source = TypedSource(searched, unsearched)
    use_source(monkeypatch, source)
    question = "how is leigh syndrome treated"
    got = retrieved(models, question, asked="treatment")
    assert got.typed is True and got.on_subject
    assert [p["id"] for p in got.ranked] == ["U-1"]
    assert got.ranked[0]["relevance"] != 0.0  # ranked like any candidate
    # nothing of the type anywhere: the overview stays, typed False
    source.unsearched = []
    again = retrieved(models, question, asked="treatment")
    assert again.typed is False and [p["title"] for p in again.ranked] == ["Leigh Syndrome"]


def test_a_looked_up_page_of_the_asked_type_is_held_to_the_gate(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    searched = [("Hypoglycemia", "Hypoglycemia is low blood sugar in the body.", "information", [])]
    unsearched = [("Hypoglycemia", "Too much insulin causes it.", "causes", [])]
    source = TypedSource(searched, unsearched)
    use_source(monkeypatch, source)
    question = "what causes hypoglycemia"
    kept = retrieved(models, question, relevant_at=-1.0, asked="causes")
    assert kept.typed is True and [p["id"] for p in kept.ranked] == ["U-1"]
    looked_up = kept.ranked[0]["relevance"]
    overview = retrieved(models, question, relevant_at=-1.0)
    between = (looked_up + overview.ranked[0]["relevance"]) / 2
    assert looked_up < overview.ranked[0]["relevance"]  # the fake embedder's (fixed) order
    held = retrieved(models, question, relevant_at=between, asked="causes")
    assert held.on_subject  # the subject's page passed the gate ...
    assert held.typed is False  # ... the looked-up one did not, so it is not kept
    assert [p["title"] for p in held.ranked] == ["Hypoglycemia"]
    assert len([c for c in held.calls if c["purpose"] == "rerank"]) == 2  # the lookup's call kept


class SpellingSource(TitledSource):
    """Titled pages whose source reads one misspelt name as its page spells it."""

    def normalized(self, question: str) -> str:
        return question.replace("Mediterean", "Mediterranean")


def test_the_subject_rule_reads_the_question_as_the_source_spells_its_pages(
    fake_backend: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models = fake_backend([])
    pages = [
        ("Familial Mediterranean fever", "Familial Mediterranean fever causes fevers."),
        ("Q Fever", "Q fever is an infection caught from farm animals."),
    ]
    question = "I want more about familial Mediterean fever"

    def titles(source: TitledSource) -> list[str]:
        use_source(monkeypatch, source)
        got = retrieved(models, question, candidates=5, keep=2)
        return [p["title"] for p in got.ranked]

    assert titles(SpellingSource(pages)) == ["Familial Mediterranean fever"]
    assert titles(TitledSource(pages)) != ["Familial Mediterranean fever"]  # as written


EXTRACT_UNGATED: dict[str, Any] = {
    "answer_mode": "extract",
    "relevant_at": -1.0,
    "subject_relevant_at": -1.0,
}
"""Quoted answers with both relevance gates open: the subject and type rules decide."""


HYPOGLYCEMIA_PAGES = [
    ("Hypoglycemia", "Hypoglycemia is low blood glucose in the body.", "information", []),
    ("Hypoglycemia", "Too much insulin causes hypoglycemia in many people.", "causes", []),
    ("Hypoglycemia", "Eating regular meals helps prevent hypoglycemia.", "prevention", []),
]
TWO_PARTS = (
    "What causes hypoglycemia in newborns? And what steps should a pregnant woman take to avoid it?"
)


def test_each_part_of_a_two_part_question_is_answered_from_its_own_type(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, _, _ = setup(
        fake_backend, tmp_path, monkeypatch, [], judge=ScriptedJudge(other=0.95)
    )
    source = TypedSource(HYPOGLYCEMIA_PAGES)
    use_source(monkeypatch, source)
    settings = EXTRACT_UNGATED
    result = run(backend, "", TWO_PARTS, **settings)
    assert result["answer"] is not None and result["not_covered"] is None
    assert "Too much insulin causes hypoglycemia" in result["answer"]  # causes
    assert "Eating regular meals helps prevent hypoglycemia" in result["answer"]  # prevention
    assert "low blood glucose" not in result["answer"]  # the overview answers neither part
    # one search per part, and the trace says what each found
    searches = [c for c in result["trace"]["candidates"] if c["stage"] == "retrieval"]
    assert [c["iteration"] for c in searches] == [0, 1]
    assert searches[1]["text"].startswith("part 2, prevention: 'And what steps should")
    # the part the subject's pages do not answer is said with the answer
    source.pages_typed = HYPOGLYCEMIA_PAGES[:2]
    partly = run(backend, "", TWO_PARTS, **settings)
    assert "Too much insulin" in partly["answer"]
    assert partly["not_covered"] == (
        "titled pages describes Hypoglycemia but says nothing about how to prevent it"
    )
    assert partly["not_covered"] in partly["trace"]["stops"][0]["detail"]
    shown = CliRunner().invoke(
        app,
        ["ask", TWO_PARTS, "--backend", backend, "--no-cache"]
        + [f"--set={k}={v}" for k, v in settings.items()],
        env={"COLUMNS": "200"},
    )
    assert shown.exit_code == 0, shown.output
    assert "Not covered: titled pages describes Hypoglycemia but says nothing" in shown.output
    # one part only: no second search, nothing said missing
    single = run(backend, "", "What causes hypoglycemia in newborns?", **settings)
    assert "Eating regular meals" not in (single["answer"] or "")
    assert single["not_covered"] is None
    assert len([c for c in single["trace"]["candidates"] if c["stage"] == "retrieval"]) == 1


def test_a_kinds_page_of_the_asked_type_below_the_gate_leaves_the_subjects_pages_read(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [
        ("Flu", "Flu is an infection of the nose, throat and lungs.", "information", []),
        ("2009 H1N1 Flu", "Antiviral drugs treat 2009 H1N1 flu.", "treatment", []),
    ]
    use_source(monkeypatch, TypedSource(pages))
    question = "What are the treatments of flu?"
    kept = retrieved(models, question, relevant_at=-1.0, asked="treatment")
    assert kept.typed is True and [p["title"] for p in kept.ranked] == ["2009 H1N1 Flu"]
    relevance = {p["title"]: p["relevance"] for p in retrieved(models, question).ranked}
    assert relevance["2009 H1N1 Flu"] < relevance["Flu"]  # the fake embedder's (fixed) order
    between = (relevance["2009 H1N1 Flu"] + relevance["Flu"]) / 2
    read = retrieved(models, question, relevant_at=between, asked="treatment")
    assert read.typed is False and read.on_subject
    assert {p["title"] for p in read.ranked} == {"Flu", "2009 H1N1 Flu"}
    assert [p["title"] for p in read.ranked if p.get("kin")] == ["2009 H1N1 Flu"]
    assert read.typed_far is False  # the subject's own pages have no treatment answer
    # the subject's own page of the type below the gate: it is there, just too far
    own = [*pages, ("Flu", "Antiviral drugs treat flu in some people.", "treatment", [])]
    use_source(monkeypatch, TypedSource(own))
    relevance = {
        (p["title"], p.get("qtype")): p["relevance"] for p in retrieved(models, question).ranked
    }
    typed_own, overview = relevance[("Flu", "treatment")], relevance[("Flu", "information")]
    assert typed_own < overview  # the fake embedder's (fixed) order
    far = retrieved(models, question, relevant_at=(typed_own + overview) / 2, asked="treatment")
    assert far.typed is False and far.typed_far is True


def test_a_rare_disorders_page_does_not_answer_a_type_for_a_common_condition(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [
        ("Epilepsy", "Scientists study the causes of the epilepsies.", "research", []),
        ("Pyridoxine-dependent epilepsy", "Babies with it have seizures at birth.", "symptoms", []),
    ]
    overview = [("Epilepsy", "People with epilepsy may lose consciousness.", "information", [])]
    sites = {"Epilepsy": "NINDS", "Pyridoxine-dependent epilepsy": "GHR"}
    use_source(monkeypatch, TypedSource(pages, unsearched=overview, sites=sites))
    question = "What are the symptoms of epilepsy?"
    read = retrieved(models, question, relevant_at=-1.0, asked="symptoms")
    assert read.typed is False and read.on_subject
    assert {p["title"] for p in read.ranked} == {"Epilepsy"}  # the rare form's page: gone
    assert "People with epilepsy may lose consciousness." in [p["text"] for p in read.ranked]
    # a rare disorder's own kinds (its variants) answer for it
    use_source(
        monkeypatch, TypedSource(pages, unsearched=overview, sites={**sites, "Epilepsy": "GARD"})
    )
    kinds = retrieved(models, question, relevant_at=-1.0, asked="symptoms")
    assert kinds.typed is True
    assert [p["title"] for p in kinds.ranked] == ["Pyridoxine-dependent epilepsy"]


DEMENTIA_OVERVIEW = (
    "Dementia is a group of symptoms caused by disorders that affect the brain. Many "
    "different diseases can cause dementia, including Alzheimer disease and stroke."
)
ALZHEIMER_INHERITANCE = "The early-onset form of Alzheimer disease is inherited in families."
STROKE_TREATMENT = "Medicines that break up clots treat a stroke."


def test_a_kind_the_subjects_pages_name_answers_a_type_they_do_not(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, models, _, _ = setup(
        fake_backend, tmp_path, monkeypatch, [], judge=ScriptedJudge(other=0.95)
    )
    pages = [("Dementia", DEMENTIA_OVERVIEW, "information", [])]
    kinds = [
        ("Alzheimer disease", "Alzheimer disease affects millions.", "frequency", []),
        ("Alzheimer disease", ALZHEIMER_INHERITANCE, "inheritance", []),
        ("Stroke", STROKE_TREATMENT, "treatment", []),
    ]
    sites = {"Dementia": "MPlusHealthTopics", "Alzheimer disease": "GHR"}
    use_source(monkeypatch, TypedSource(pages, unsearched=kinds, sites=sites))
    settings = EXTRACT_UNGATED
    question = "Is dementia genetically passed down?"
    result = run(backend, "", question, **settings)
    assert result["answer"] == f"{ALZHEIMER_INHERITANCE[:-1]} [1]."
    named = (
        'quoted instead: Alzheimer disease, which its pages name ("Many different diseases '
        'can cause dementia, including Alzheimer disease and stroke.")'
    )
    assert result["not_covered"] == (
        "titled pages describes Dementia but says nothing about how it is inherited; for how "
        f"it is inherited, {named}"
    )
    assert [s["title"] for s in result["sources"]] == ["Alzheimer disease"]
    # the message asks treatment first (the classifier's reading of it whole): the first
    # kind named with a treatment page answers (Alzheimer disease has none here), and the
    # inheritance part the subject's pages do not answer is said in the same clause
    two = f"{question} What are the treatments for dementia?"
    both = run(backend, "", two, **settings)
    assert both["answer"] == f"{STROKE_TREATMENT[:-1]} [1]."
    assert both["not_covered"] == (
        "titled pages describes Dementia but says nothing about how it is treated or how "
        "it is inherited; for how it is treated, quoted instead: Stroke, which its pages "
        'name ("Many different diseases can cause dementia, including Alzheimer disease '
        'and stroke.")'
    )
    # the kind's page is held to the gate the subject's passed, read as asked of the kind
    near = retrieved(models, question, relevant_at=-1.0, asked="inheritance")
    assert [p["title"] for p in near.stand_ins] == ["Alzheimer disease"]
    own_relevance = near.ranked[0]["relevance"]
    assert near.stand_ins[0]["relevance"] < own_relevance  # the fake embedder's order
    gate = (near.stand_ins[0]["relevance"] + own_relevance) / 2
    far = retrieved(models, question, relevant_at=gate, asked="inheritance")
    assert far.on_subject and far.stand_ins == []
    # a page of the subject's own that says it is quoted, and no kind's
    said = "Dementia is inherited in a few families."
    own = [("Dementia", f"{DEMENTIA_OVERVIEW} {said}", "information", [])]
    use_source(monkeypatch, TypedSource(own, unsearched=kinds, sites=sites))
    result = run(backend, "", question, **settings)
    assert result["answer"] == f"{said[:-1]} [1]."
    assert result["not_covered"] is None
    # a kind the subject's pages do not name is no stand-in: refused as before
    unnamed = [("Dementia", "Dementia is a group of symptoms.", "information", [])]
    use_source(monkeypatch, TypedSource(unnamed, unsearched=kinds, sites=sites))
    result = run(backend, "", question, **settings)
    assert result["answer"] is None
    assert result["refusal"]["detail"].startswith(
        "titled pages describes Dementia but says nothing about how it is inherited"
    )


def test_a_common_condition_whose_only_pages_are_a_rare_kinds_is_not_answered_from_them(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    svas = "Supravalvular aortic stenosis is a heart defect that develops before birth."
    pages = [
        ("Supravalvular aortic stenosis", svas, "information", []),
        ("Heart Valve Disease", "Aortic stenosis narrows the aortic valve.", "information", []),
    ]
    sites = {"Supravalvular aortic stenosis": "GHR", "Heart Valve Disease": "NHLBI"}
    use_source(monkeypatch, TypedSource(pages, sites=sites))
    question = "I want to know more about aortic stenosis."
    got = retrieved(models, question, relevant_at=-1.0)
    assert got.ranked == [] and not got.on_subject
    assert got.subject.uncovered is not None and got.subject.uncovered.text == "aortic stenosis"
    # no general page writes its name (a rare disorder's own variant): the kind answers
    use_source(monkeypatch, TypedSource(pages[:1], sites=sites))
    kinds = retrieved(models, question, relevant_at=-1.0)
    assert [p["title"] for p in kinds.ranked] == ["Supravalvular aortic stenosis"]
    # a general page naming only the kind does not make it common; one of its pages the
    # search did not return, writing the name itself, does
    only_kind = ("Heart Valve Disease", "Some children have supravalvular aortic stenosis.")
    found = [pages[0], (*only_kind, "information", [])]
    use_source(monkeypatch, TypedSource(found, sites=sites))
    assert retrieved(models, question, relevant_at=-1.0).ranked != []
    elsewhere = [("Heart Valve Disease", "Aortic stenosis narrows the valve.", "causes", [])]
    use_source(monkeypatch, TypedSource(found, unsearched=elsewhere, sites=sites))
    assert retrieved(models, question, relevant_at=-1.0).ranked == []


def test_a_page_on_a_conditions_medicines_answers_how_it_is_treated_and_nothing_else(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [
        ("HIV/AIDS", "HIV most often spreads through unprotected sex.", "information", []),
        (
            "HIV/AIDS Medicines",
            "Medicines fight HIV and help people live longer.",
            "information",
            [],
        ),
    ]
    use_source(monkeypatch, TypedSource(pages))
    treated = retrieved(models, "What are the treatments of HIV/AIDS?", asked="treatment")
    assert treated.typed is True
    assert [(p["title"], p.get("qtype")) for p in treated.ranked] == [
        ("HIV/AIDS Medicines", "treatment")
    ]
    caused = retrieved(models, "What causes HIV/AIDS?", asked="causes")
    assert {p["title"] for p in caused.ranked} == {"HIV/AIDS"}  # no medicines for causes
    named = retrieved(models, "What are HIV/AIDS medicines?", asked="information")
    assert "HIV/AIDS Medicines" in {p["title"] for p in named.ranked}  # the page asked for
    assert all(p.get("qtype") == "information" for p in named.ranked)


def test_a_parts_passages_are_held_to_the_gate_and_said_too_far_when_below_it(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriloop.nodes.grounding import retrieve_parts
    from veriloop.nodes.question_type import AskedPart

    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    source = TypedSource(HYPOGLYCEMIA_PAGES)
    use_source(monkeypatch, source)
    part = AskedPart(
        "And what steps should a pregnant woman take to avoid it?", "prevention", 0.9, 2
    )
    search = {"kb_dir": "", "corpus_dir": "", "candidates": 10, "keep": 5}
    near = retrieve_parts(models, TWO_PARTS, [part], relevant_at=-1.0, **search)
    [(_, got)] = near.searches
    [prevention] = [p for p in got.ranked if p.get("qtype") == "prevention"]
    assert near.parts[0]["passage_ids"] == [prevention["id"]] and not near.missing
    above = prevention["relevance"] + 0.01  # the subject's pages stay on it, this one not
    monkeypatch.setattr(
        "veriloop.nodes.grounding.rank_passages",
        _ranked_with_floor(above, qtype="prevention"),
    )
    far = retrieve_parts(models, TWO_PARTS, [part], relevant_at=above, **search)
    assert far.parts == [] and far.missing == ["prevention"] and far.far == ["prevention"]


def test_a_part_whose_type_no_page_of_the_subject_has_is_read_from_its_other_pages(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriloop.nodes.grounding import retrieve_parts
    from veriloop.nodes.question_type import AskedPart

    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    use_source(monkeypatch, TypedSource(HYPOGLYCEMIA_PAGES[:2]))  # no prevention page
    part = AskedPart(
        "And what steps should a pregnant woman take to avoid it?", "prevention", 0.9, 2
    )
    search = {"kb_dir": "", "corpus_dir": "", "candidates": 10, "keep": 5}
    found = retrieve_parts(models, TWO_PARTS, [part], relevant_at=-1.0, **search)
    [read] = found.parts
    assert read["typed"] is False and not found.missing
    assert {p["qtype"] for p in found.passages if p["id"] in read["passage_ids"]} == {
        "information",
        "causes",
    }
    # a page of the type there, below the gate: too far, not read from the others
    use_source(monkeypatch, TypedSource(HYPOGLYCEMIA_PAGES))
    [prevention] = [
        p
        for p in retrieve_parts(models, TWO_PARTS, [part], relevant_at=-1.0, **search).passages
        if p.get("qtype") == "prevention"
    ]
    above = prevention["relevance"] + 0.01
    monkeypatch.setattr(
        "veriloop.nodes.grounding.rank_passages",
        _ranked_with_floor(above, qtype="prevention"),
    )
    far = retrieve_parts(models, TWO_PARTS, [part], relevant_at=above, **search)
    assert far.parts == [] and far.far == ["prevention"]


def _ranked_with_floor(gate: float, qtype: str) -> Any:
    """Rank as retrieval does, with every passage but `qtype`'s lifted over `gate`."""
    from veriloop.nodes import grounding

    real = grounding.rank_passages

    def ranked(*args: Any, **kwargs: Any) -> Any:
        passages, call = real(*args, **kwargs)
        return [
            {**p, "relevance": p["relevance"] if p.get("qtype") == qtype else gate + 0.1}
            for p in passages
        ], call

    return ranked


def test_no_page_on_a_subject_the_question_never_names_is_a_refusal(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, _, _ = setup(
        fake_backend, tmp_path, monkeypatch, [], judge=ScriptedJudge(other=0.95)
    )
    pages = [("Hearing Loss", "Hearing loss is a common problem caused by noise and aging.")]
    use_source(monkeypatch, TitledSource(pages))
    question = "My son woke up with a bit of drainage this morning. Is that normal?"
    settings: dict[str, Any] = {"answer_mode": "extract", "relevant_at": -1.0}
    refused = run(backend, "", question, **settings)
    assert refused["answer"] is None and refused["refusal"]["kind"] == "hard"
    assert refused["refusal"]["detail"].startswith(
        "no retrieved page is on the question's subject, and the question names none"
    )
    assert "set aside: Hearing Loss" in refused["refusal"]["detail"]
    answered = run(backend, "", question, answer_off_subject=True, **settings)
    assert "Hearing loss is a common problem" in answered["answer"]


def test_a_subjects_risk_factors_are_looked_up_for_what_causes_it(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [("Colon Cancer", "Colon cancer is a disease of the colon.", "information", ["C1"])]
    risk = ("Colon Cancer", "Risk factors for colon cancer include age.", "susceptibility", ["C1"])
    use_source(monkeypatch, TypedSource(pages, unsearched=[risk]))
    question = "What causes colon cancer?"
    got = retrieved(models, question, asked="causes")
    assert got.typed is False and got.on_subject
    # the search never returns the who-is-at-risk page: it is looked up by focus and type
    assert [p["qtype"] for p in got.ranked].count("susceptibility") == 1
    # no type stands in for treatment; and a stand-in page below the gate is not kept
    treated = retrieved(models, "How is colon cancer treated?", asked="treatment")
    assert all(p.get("qtype") != "susceptibility" for p in treated.ranked)
    own = got.ranked[[p["qtype"] for p in got.ranked].index("information")]["relevance"]
    gated = retrieved(models, question, asked="causes", relevant_at=own)
    risk_relevance = next(p["relevance"] for p in got.ranked if p["qtype"] == "susceptibility")
    assert risk_relevance < own  # (the fake embedder's vectors)
    assert gated.on_subject and all(p["qtype"] != "susceptibility" for p in gated.ranked)


def test_a_passage_is_ranked_on_its_own_text_not_its_lead() -> None:
    from veriloop.nodes.grounding import rank_passages

    lead = "Late Symptoms Four days after the first symptoms, late symptoms appear."
    with_lead = SourcePassage(
        id="MQ-1-2",
        text=f"{lead} HPS can be fatal.",
        title="Hantavirus",
        url="u",
        relevance=0.0,
        lead=lead,
    )
    other = SourcePassage(
        id="MQ-2-1", text="Fatal symptoms are rare.", title="Other", url="u", relevance=0.0
    )
    from veriloop.models.fakes import fake_models

    models = fake_models(
        [],
        vectors={
            "Is it fatal?": [1.0, 0.0],
            "Hantavirus. HPS can be fatal.": [1.0, 0.0],  # its own text: on the question
            f"Hantavirus. {lead} HPS can be fatal.": [0.0, 1.0],  # read with its lead: off
            "Other. Fatal symptoms are rare.": [0.6, 0.8],
        },
        dim=2,
    )
    ranked, _ = rank_passages(models, "Is it fatal?", [other, with_lead], keep=1)
    assert [p["id"] for p in ranked] == ["MQ-1-2"]
    assert ranked[0]["text"].startswith(lead)  # quoted with its lead


def test_how_an_infection_is_caught_read_as_who_is_at_risk_is_answered_from_every_page(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veriloop.nodes.question_type import AskedTypes

    # "Is hepatitis B contagious?" read as susceptibility quoted only the risk groups
    judge = ScriptedJudge(other=0.9)
    backend, _, _, _ = setup(fake_backend, tmp_path, monkeypatch, [], judge)
    read = AskedTypes(None, "susceptibility", [], [])
    monkeypatch.setattr("veriloop.graphs.grounded.asked_types", lambda *a, **k: read)
    pages = [
        (
            "What I need to know about Hepatitis B",
            "Anyone can get hepatitis B, but those more likely to are people who were born "
            "to a mother with hepatitis B.",
            "susceptibility",
            [],
        ),
        (
            "Hepatitis B",
            "Hepatitis B spreads by contact with an infected person's blood.",
            "information",
            [],
        ),
    ]
    use_source(monkeypatch, TypedSource(pages))
    settings = {"relevant_at": -1.0, "subject_relevant_at": -1.0}
    result = run(backend, "", "Is hepatitis B contagious?", answer_mode="extract", **settings)
    assert "Hepatitis B spreads by contact" in (result["answer"] or "")
    assert "Anyone can get hepatitis B" not in (result["answer"] or "")


def test_retrieval_keeps_the_subjects_passages_saying_the_asked_type_when_none_is_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from veriloop.models.fakes import fake_models

    # "How is macular degeneration diagnosed?" with no diagnosis page: the closest passages
    # (what it is, who gets it) crowded out the one saying how it is found
    title = "Macular Degeneration"
    texts = [
        "Macular degeneration is an eye disease that blurs central vision.",
        "It is most common in people over 60.",
        "Smoking raises the risk of macular degeneration.",
        "The macula is the part of the eye that sees fine detail.",
        "Regular eye exams can detect macular degeneration before vision is lost.",
    ]
    question = "How is macular degeneration diagnosed?"
    vectors = {question: [1.0, 0.0]}
    vectors |= {f"{title}. {text}": [1.0, 0.1 * n] for n, text in enumerate(texts[:-1])}
    vectors[f"{title}. {texts[-1]}"] = [0.0, 1.0]  # the farthest from the question
    models = fake_models([], vectors=vectors, dim=2)
    use_source(monkeypatch, TypedSource([(title, text, "information", []) for text in texts]))
    got = retrieved(models, question, asked="exams and tests", keep=1)
    assert got.typed is False and got.on_subject
    kept = [p["text"] for p in got.ranked]
    assert len(kept) == 3 and texts[-1] in kept  # the type's words (`asked_cues`) keep it
    assert texts[0] in kept  # the closest keep their places


def test_a_page_sharing_the_lettered_subjects_concept_but_not_its_letter_is_not_kept(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MedlinePlus's "Hepatitis" lists hepatitis A's UMLS concept among its own: it joined
    # "How long does hepatitis A last?" as if on the subject
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    pages = [
        ("Hepatitis", "Hepatitis is an inflammation of the liver.", "information", ["C8", "C9"]),
        ("Hepatitis A", "Hepatitis A usually gets better in a few weeks.", "information", ["C9"]),
    ]
    use_source(monkeypatch, TypedSource(pages))
    got = retrieved(models, "How long does hepatitis A last?")
    assert [p["title"] for p in got.ranked] == ["Hepatitis A"]
    # asked by its bare name too, the wider page stays
    wider = retrieved(models, "Is hepatitis A the worst kind of hepatitis?")
    assert sorted(p["title"] for p in wider.ranked) == ["Hepatitis", "Hepatitis A"]


MENOPAUSE_OVERVIEW = (
    "Menopause is the time in a woman's life when her period stops. Some symptoms require "
    "treatment. Make sure the doctor knows your medical history."
)
HRT_RELIEF = (
    "Some women take hormone replacement therapy, also called menopausal hormone therapy, "
    "to relieve these symptoms."
)


def test_a_treatments_page_answers_for_a_subject_whose_pages_name_no_treatment(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, _, _, _ = setup(
        fake_backend, tmp_path, monkeypatch, [], judge=ScriptedJudge(other=0.95)
    )
    pages = [
        ("Menopause", MENOPAUSE_OVERVIEW, "information", []),
        ("Hormone Replacement Therapy", HRT_RELIEF, "information", []),
    ]
    sites = {"Menopause": "MPlusHealthTopics", "Hormone Replacement Therapy": "MPlusHealthTopics"}
    use_source(monkeypatch, TypedSource(pages, sites=sites))
    settings = EXTRACT_UNGATED
    result = run(backend, "", "What is the treatment for menopause?", **settings)
    assert result["answer"] == f"{HRT_RELIEF[:-1]} [1]."  # not "Some symptoms require ..."
    assert [s["title"] for s in result["sources"]] == ["Hormone Replacement Therapy"]
    assert result["not_covered"] == (
        "titled pages's pages on Menopause name no treatment; quoted instead: Hormone "
        f'Replacement Therapy, whose page says it treats it ("{HRT_RELIEF}")'
    )
    # the subject's own page naming a treatment answers itself
    named = MENOPAUSE_OVERVIEW.replace("Some symptoms require treatment.", "Hormone pills help.")
    own = [("Menopause", named, "information", []), pages[1]]
    use_source(monkeypatch, TypedSource(own, sites=sites))
    itself = run(backend, "", "What is the treatment for menopause?", **settings)
    assert [s["title"] for s in itself["sources"]] == ["Menopause"]
    assert "Hormone pills help" in itself["answer"]


def test_the_gate_reads_the_closest_passage_before_the_asked_types_words_chose(
    fake_backend: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, models, _, _ = setup(fake_backend, tmp_path, monkeypatch, [])
    plain = ("Arrhythmia", "Most arrhythmias are harmless and need no treatment.")
    worded = [
        ("Arrhythmia", text)
        for text in (
            "The prognosis of arrhythmia is good for most people.",
            "Arrhythmia has a good prognosis in most people.",
            "The prognosis for an arrhythmia depends on its cause.",
        )
    ]
    pages = [(title, text, "information", []) for title, text in [plain, *worded]]
    use_source(monkeypatch, TypedSource(pages))
    question = "What is the outlook for arrhythmia?"
    every = retrieved(models, question).ranked  # no type asked: all four, by relevance
    assert every[0]["text"] == plain[1]  # the fake embedder's (fixed) order
    # the outlook's words keep the three "prognosis" passages (keep 1, read x3): the
    # closest passage is not among them, and the gate still reads it
    read = retrieved(models, question, keep=1, asked="outlook")
    assert plain[1] not in [p["text"] for p in read.ranked]
    assert read.best_relevance == every[0]["relevance"]
