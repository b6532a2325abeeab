"""Answer relevance: the MEDIQA Task 3 measures on hand-computed cases, the training pairs' split."""

from __future__ import annotations

import pytest

from veriloop.evaluation.answer_ranking import (
    ScoredAnswer,
    classification,
    fit_threshold,
    mean_reciprocal_rank,
    mean_spearman,
    reciprocal_rank,
    top_mean,
)
from veriloop.evaluation.judge_data.relevance_sets import (
    MedQuADAnswer,
    held_out_focus,
    medquad_relevance_pairs,
)


def answer(score: float, correct: bool, rank: int = 1) -> ScoredAnswer:
    return ScoredAnswer(score, correct, rank)


def test_top_mean_reads_the_best_three() -> None:
    assert top_mean([0.1, 0.9, 0.5, 0.7]) == pytest.approx((0.9 + 0.7 + 0.5) / 3)
    assert top_mean([0.4]) == 0.4 and top_mean([]) == 0.0


def test_the_threshold_maximises_training_accuracy() -> None:
    # scores 0.2 (wrong), 0.4 (right), 0.6 (wrong), 0.8 (right), 0.9 (right):
    # >= 0.7 classifies 4 of 5 right; >= 0.3 also 4 of 5; the lower one wins the tie
    threshold = fit_threshold([0.2, 0.4, 0.6, 0.8, 0.9], [False, True, False, True, True])
    assert threshold == pytest.approx(0.3)
    assert fit_threshold([], []) == 0.5


def test_accuracy_and_precision() -> None:
    questions = [[answer(0.9, True), answer(0.8, False)], [answer(0.1, False), answer(0.7, True)]]
    accuracy, precision = classification(questions, 0.75)
    assert accuracy == 0.5  # 0.9 right, 0.8 wrong, 0.1 right, 0.7 wrong
    assert precision == 0.5  # predicted correct: 0.9 (yes), 0.8 (no)
    assert classification(questions, 2.0) == (0.5, None)  # nothing predicted correct


def test_reciprocal_rank_of_the_first_correct_answer() -> None:
    assert reciprocal_rank([answer(0.9, False), answer(0.5, True), answer(0.7, False)]) == 1 / 3
    assert reciprocal_rank([answer(0.1, False)]) == 0.0
    # a question with no correct answer is left out of the mean
    questions = [[answer(0.9, True)], [answer(0.9, False), answer(0.8, True)], [answer(1, False)]]
    assert mean_reciprocal_rank(questions) == pytest.approx((1 + 0.5) / 2)


def test_spearman_against_the_experts_order() -> None:
    agree = [answer(0.9, True, 1), answer(0.5, True, 2), answer(0.1, False, 3)]
    disagree = [answer(0.1, True, 1), answer(0.5, True, 2), answer(0.9, False, 3)]
    assert mean_spearman([agree]) == pytest.approx(1.0)
    assert mean_spearman([disagree]) == pytest.approx(-1.0)
    assert mean_spearman([agree, disagree, [answer(0.3, True, 1)]]) == pytest.approx(0.0)


def test_the_held_out_split_is_by_focus_and_stable() -> None:
    assert held_out_focus("Anal Fissure") == held_out_focus("  anal fissure ")
    foci = [f"Condition {i}" for i in range(400)]
    share = sum(held_out_focus(f) for f in foci) / len(foci)
    assert 0.05 < share < 0.15  # about a tenth


def test_training_pairs_have_each_negative_kind_and_no_held_out_focus() -> None:
    def page(qid: str, focus: str, qtype: str, question: str) -> MedQuADAnswer:
        return MedQuADAnswer(qid, focus, qtype, question, (f"{focus} {qtype} sentence one two.",))

    foci = [
        f
        for f in (f"Anal {w}" for w in ("fissure", "cancer", "warts", "itch"))
        if not held_out_focus(f)
    ]
    foci += [f for f in ("Dengue", "Asthma", "Gout") if not held_out_focus(f)]
    assert len(foci) >= 4 and sum(f.startswith("Anal") for f in foci) >= 2
    answers = [
        page(f"{f}-{t}", f, t, f"What are the {t} of {f} ?")
        for f in foci
        for t in ("treatment", "symptoms")
    ]
    pairs = medquad_relevance_pairs(answers, split="train", questions=0, positives=1)
    assert all(
        not held_out_focus(p.sentence.split(" treatment")[0].split(" symptoms")[0]) for p in pairs
    )
    anal = [p for p in pairs if p.qid == f"{foci[0]}-treatment"]
    kinds = {p.kind: p for p in anal}
    assert set(kinds) == {"own", "other_type", "neighbour", "other_focus"}
    assert kinds["own"].relevant and not any(p.relevant for k, p in kinds.items() if k != "own")
    assert kinds["other_type"].sentence == f"{foci[0]} symptoms sentence one two."
    neighbour = kinds["neighbour"].sentence
    assert neighbour.startswith("Anal") and not neighbour.startswith(foci[0])
    assert medquad_relevance_pairs(answers, split="held_out", questions=0) == []


def test_rqe_and_rated_answers_are_read_from_the_xml(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from veriloop.evaluation.items import DatasetError
    from veriloop.evaluation.judge_data.relevance_sets import RQE_FILES, mediqa_answers, rqe_pairs
    from veriloop.evaluation.loaders.mediqa import FILES

    (tmp_path / "rqe").mkdir()
    (tmp_path / "rqe" / RQE_FILES["validation"]).write_text(
        '<?xml version="1.0"?><x><pair pid="1" value="true"><chq> Can I use  heparin? </chq>'
        "<faq>Heparin in pregnancy?</faq></pair>"
        '<pair pid="2" value="false"><chq>a</chq><faq>b</faq></pair></x>'
    )
    [first, second] = rqe_pairs(tmp_path, "validation")
    assert (first.consumer, first.faq, first.entails) == (
        "Can I use heparin?",
        "Heparin in pregnancy?",
        True,
    )
    assert not second.entails
    (tmp_path / "rqe" / RQE_FILES["train"]).write_text(
        '<?xml version="1.0"?><x><pair pid="7" value="maybe"><chq>a</chq><faq>b</faq></pair></x>'
    )
    with pytest.raises(DatasetError, match="pair 7 has value 'maybe'"):
        rqe_pairs(tmp_path, "train")
    (tmp_path / FILES["validation"][0]).write_text(
        '<?xml version="1.0"?><x><Question QID="2"><QuestionText>about uveitis?</QuestionText>'
        '<AnswerList><Answer AID="2_1" SystemRank="1" ReferenceRank="3" ReferenceScore="4">'
        "<AnswerText>Uveitis is eye inflammation.</AnswerText></Answer>"
        '<Answer AID="2_2" SystemRank="2" ReferenceRank="1" ReferenceScore="2">'
        "<AnswerText>Other.</AnswerText></Answer></AnswerList></Question></x>"
    )
    [question] = mediqa_answers(tmp_path, "validation")
    assert question.qid == "2" and question.question == "about uveitis?"
    assert [(a.aid, a.correct, a.reference_rank, a.system_rank) for a in question.answers] == [
        ("2_1", True, 3, 1),
        ("2_2", False, 1, 2),
    ]


def test_consumer_pairs_label_sentences_by_the_experts_and_leave_out_excluded_questions(
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    from veriloop.evaluation.judge_data.relevance_sets import mediqa_relevance_pairs
    from veriloop.evaluation.loaders.mediqa import FILES

    def question(qid: str) -> str:
        return (
            f'<Question QID="{qid}"><QuestionText>question {qid}?</QuestionText><AnswerList>'
            '<Answer AID="a" SystemRank="1" ReferenceRank="1" ReferenceScore="3"><AnswerText>'
            "Uveitis is a form of eye inflammation in the uvea. Short one. It often comes on "
            "suddenly and gets worse quickly in one eye.</AnswerText></Answer>"
            '<Answer AID="b" SystemRank="2" ReferenceRank="2" ReferenceScore="1"><AnswerText>'
            "Glaucoma is a group of eye diseases that damage the optic nerve.</AnswerText>"
            "</Answer></AnswerList></Question>"
        )

    first, second = FILES["train"]
    (tmp_path / first).write_text(f'<?xml version="1.0"?><x>{question("1")}{question("2")}</x>')
    (tmp_path / second).write_text('<?xml version="1.0"?><x></x>')
    stem = first.removesuffix(".xml")
    pairs = mediqa_relevance_pairs(tmp_path, units=10, exclude={f"{stem}:2"})
    assert {p.qid for p in pairs} == {f"{stem}:1"}  # question 2 is a benchmark item
    assert [(p.relevant, p.sentence[:12]) for p in pairs] == [
        (True, "Uveitis is a"),
        (True, "Short one. I"),  # "It ..." stays joined to the sentence before it
        (False, "Glaucoma is "),
    ]
    assert mediqa_relevance_pairs(tmp_path, units=0, exclude=set()) == []
