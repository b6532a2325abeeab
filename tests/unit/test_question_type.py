"""The question-type classifier's arithmetic and cue test, on a hand-built classifier."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from veriloop.errors import InvalidInputError
from veriloop.nodes.linear_weights import LinearWeights
from veriloop.nodes.question_type import (
    QuestionTypeClassifier,
    asked_types,
    more_asked,
    question_parts,
    question_types,
    with_type_words_spelled,
)


def toy() -> QuestionTypeClassifier:
    weights = LinearWeights(
        classes=("information", "treatment"),
        coef=np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32),
        intercept=np.zeros(2, dtype=np.float32),
        encoder="toy",
        notes={},
    )
    return QuestionTypeClassifier(weights, cues={"treatment": frozenset({"treat", "therapi"})})


def test_probabilities_are_a_softmax_of_the_linear_scores() -> None:
    probs = toy().probabilities(np.array([[2.0, 0.0], [0.0, 0.0]]))
    assert probs[0, 0] == pytest.approx(np.exp(2) / (np.exp(2) + 1))
    assert probs[1].tolist() == pytest.approx([0.5, 0.5])
    best = toy().classify(np.array([0.0, 3.0]))
    assert [t.qtype for t in best] == ["treatment", "information"]
    assert best[0].probability == pytest.approx(np.exp(3) / (np.exp(3) + 1), abs=1e-6)


def test_a_sentence_is_about_a_type_when_it_holds_one_of_its_cue_stems() -> None:
    classifier = toy()
    assert classifier.mentions("treatment", "It is treated with light therapy.")
    assert not classifier.mentions("treatment", "It affects one in 2,000 people.")
    assert not classifier.mentions("symptoms", "It is treated with light therapy.")


def test_a_missing_classifier_says_how_to_train_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError, match="train_question_type.py"):
        QuestionTypeClassifier.load(tmp_path)


def test_the_bundled_classifier_has_every_medquad_type_and_cues_for_each() -> None:
    bundled = question_types()
    assert len(bundled.classes) == 15 and "exams and tests" in bundled.classes
    assert bundled.weights.coef.shape == (15, 384)
    assert {"diagnos", "test"} <= bundled.cues["exams and tests"]
    assert "treatment" in bundled.cues and bundled.cues["treatment"]


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "general health. What are the reasons for Hypoglycemia in newborns.. and what "
            "steps should a pregnent take to avoid this.",
            [
                "What are the reasons for Hypoglycemia in newborns",
                "and what steps should a pregnent take to avoid this",
            ],
        ),
        (
            "i was wondering the condition of trisomy progresses over time (gets worse as "
            "they become older) also, how to diognose the disorder thank you!",
            [
                "i was wondering the condition of trisomy progresses over time (gets worse as "
                "they become older)",
                "how to diognose the disorder thank you!",
            ],
        ),
        # "also" inside one question splits nothing; "and also" before a question does
        (
            "What can I also do to prevent it? How is it treated?",
            ["What can I also do to prevent it?", "How is it treated?"],
        ),
        (
            "Is it contagious, and also how long does it last?",
            ["Is it contagious", "how long does it last?"],
        ),
        # asking in a contraction: "I'd like to know", "I'm wondering"
        (
            "My son has asthma. I'd like to know how it is treated. I'm wondering if it lasts.",
            ["I'd like to know how it is treated", "I'm wondering if it lasts"],
        ),
        # a full stop that lost its space still ends a question
        (
            "What causes shingles in older adults.How is shingles treated in older adults?",
            ["What causes shingles in older adults", "How is shingles treated in older adults?"],
        ),
        # statements, thanks and short follow-ups are no parts
        ("My son is 4 months old. Is that normal? Thank you very much", []),
        ("is conception a requirement of a molar pregnancy. if so, when ?", []),
    ],
)
def test_a_message_is_split_into_the_questions_it_asks(question: str, parts: list[str]) -> None:
    found = question_parts(question)
    assert found == parts or (not parts and len(found) < 2)


class OwnEncoder:
    """Models whose embedder is not the classifier's: the parts are read by its own."""

    class embedder:  # noqa: N801 - stands in for Models.embedder
        name = "another encoder"


def test_the_other_parts_of_a_question_ask_their_own_types() -> None:
    models: Any = OwnEncoder()
    two = (
        "What are the reasons for hypoglycemia in newborns? And what steps should a pregnant "
        "woman take to avoid it?"
    )
    more, calls = more_asked(models, two, "causes")
    assert [p.qtype for p in more] == ["prevention"] and calls == []
    assert more[0].text == "And what steps should a pregnant woman take to avoid it?"
    assert more_asked(models, two, "prevention")[0][0].qtype == "causes"
    # a misspelt word is read as meant: "diognose" asks how it is diagnosed
    typo = "Does trisomy 13 get worse over time? Also, how to diognose the disorder?"
    typed = more_asked(models, typo, None)[0]
    assert "exams and tests" in [p.qtype for p in typed]
    assert [p.number for p in typed if p.qtype == "exams and tests"] == [2]  # its place
    assert with_type_words_spelled("how to diognose statins") == "how to diagnose statins"
    # one question: nothing more
    assert more_asked(models, "What causes hypoglycemia in newborns?", "causes") == ([], [])


@pytest.mark.parametrize(
    "question",
    [
        "Hi, I want to know about Lupus and its treatment. Best, NAME",
        "Please tell me about diabetes and its treatments.",
        "I need information on psoriasis and the treatment options.",
    ],
)
def test_asking_about_a_subject_and_its_aspect_asks_what_it_is_first(question: str) -> None:
    models: Any = OwnEncoder()
    types = asked_types(models, question, 0.5)
    assert types.first == "information"
    assert [(p.qtype, p.number) for p in types.more] == [("treatment", 1)]


def test_an_aspect_asked_alone_is_not_made_two_asks() -> None:
    models: Any = OwnEncoder()
    for question in (
        "What is the treatment for lupus and its rashes?",
        "I read about lupus and I worry about my joints. What is the treatment?",
    ):
        types = asked_types(models, question, 0.5)
        assert types.first == "treatment" and types.more == []


@pytest.mark.parametrize(
    ("question", "first", "more"),
    [
        (
            "Please inform me of the recommended treatment and prevention protocol for mite "
            "infestation in humans.",
            "treatment",
            ["prevention"],
        ),
        ("What are the causes and treatments of gout?", "causes", ["treatment"]),
        ("What are the signs, causes and treatment of gout?", "symptoms", ["causes", "treatment"]),
        (  # an "and" between each: every noun is listed
            "What are the signs and symptoms and treatment of gout?",
            "symptoms",
            ["treatment"],
        ),
        (
            "What are the causes and complications and outlook of gout?",
            "causes",
            ["complications", "outlook"],
        ),
        (  # research is a type MedQuAD answers; "looking for" asks without a question mark
            "My granddaughter was born with Klippel-Trenaunay Syndrome. We are looking for "
            "the current research and treatments available.",
            "research",
            ["treatment"],
        ),
    ],
)
def test_types_named_together_are_each_asked(question: str, first: str, more: list[str]) -> None:
    models: Any = OwnEncoder()
    types = asked_types(models, question, 0.5)
    assert [types.first, *(p.qtype for p in types.more)] == [first, *more]


def test_one_type_named_twice_is_one_ask() -> None:
    models: Any = OwnEncoder()
    types = asked_types(models, "What are the signs and symptoms of gout?", 0.5)
    assert types.first == "symptoms" and types.more == []


def test_the_rules_keep_what_was_asked_before_them() -> None:
    models: Any = OwnEncoder()
    both = asked_types(models, "I want to know about gout and its causes and treatment.", 0.5)
    assert [both.first, *(p.qtype for p in both.more)] == ["information", "causes", "treatment"]
    asked = asked_types(
        models, "How is lupus diagnosed? I would like to know about lupus and its treatment.", 0.5
    )
    assert "exams and tests" in [asked.first, *(p.qtype for p in asked.more)]
    # type nouns in a statement are no asks
    said = asked_types(models, "My blood tests and symptoms suggest anemia. What do I do?", 0.5)
    assert said.more == [] and said.first == said.asked.qtype  # the classifier's reading


def test_a_message_asking_about_a_vaccine_asks_prevention_first() -> None:
    models: Any = OwnEncoder()
    asked = asked_types(
        models,
        "Shingles vacine. At what age should you get the Shingles shot. My children are in "
        "their late 30's.",
        0.5,
    )
    assert asked.first == "prevention"
    assert asked_types(models, "Should I get the flu vaccine when pregnant?", 0.5).first == (
        "prevention"
    )
    # a vaccine stated, not asked about, asks nothing of it
    stated = asked_types(
        models,
        "SSPE. My son is 33 years of age and did not have the measles vaccination.Could SSPE "
        "occur at this age or in the future?",  # (no space after the full stop, as written)
        0.5,
    )
    assert "prevention" not in [stated.first, *(p.qtype for p in stated.more)]
    # what a vaccine causes is no prevention ask; a statement is no subject line
    for message in ("Is autism caused by vaccines?", "I got vaccinated. Why am I sick?"):
        asked = asked_types(models, message, 0.5)
        assert "prevention" not in [asked.first, *(p.qtype for p in asked.more)]
    # asked after another ask, it comes after it
    later = asked_types(
        models, "What are the symptoms and treatment of shingles? Should I get the vaccine?", 0.5
    )
    assert [later.first, *(p.qtype for p in later.more)] == ["symptoms", "treatment", "prevention"]


def test_a_message_asking_who_gets_its_subject_asks_susceptibility_first() -> None:
    from veriloop.nodes.question_type import who_gets_asked

    models: Any = OwnEncoder()
    for message in (
        "Who gets shingles?",
        "who develops Parkinson disease",
        "Who gets gout?",
        "Who's likely to get gout?",
        "Who are more likely to get gout?",
    ):
        assert who_gets_asked(message)
        assert asked_types(models, message, 0.5).first == "susceptibility"
    for message in (
        "Who should get the flu vaccine?",  # a vaccine: prevention's rule
        "Who can get a flu shot?",
        "Who gets tested for HIV?",
        "Who gets screened for colon cancer?",
        "who gets better faster after a stroke?",
        "Who is likely to have side effects from statins?",
        "What causes gout? Who gets it?",  # asked second: the classifier decides first
        "I got shingles. What helps?",
        "Who is the best doctor for lupus?",
    ):
        assert not who_gets_asked(message)


def test_a_message_asking_about_side_effects_asks_treatment_not_symptoms() -> None:
    models: Any = OwnEncoder()
    asked = asked_types(models, "what are the side effects of chemotherapy for breast cancer", 0.5)
    assert asked.asked.qtype == "symptoms"  # the classifier's reading of "side effects"
    assert [asked.first, *(p.qtype for p in asked.more)] == ["treatment"]
    # side effects stated, not asked about, ask nothing of them
    stated = asked_types(
        models, "The prednisone was causing other side effects. How long until I feel well?", 0.5
    )
    assert "treatment" not in [stated.first, *(p.qtype for p in stated.more)]
    from veriloop.nodes.question_type import side_effects_asked

    assert side_effects_asked("What side effects does hydroxyurea have?")
    assert side_effects_asked("Does metformin have side effects?")
    assert side_effects_asked("What are its side effects?")
    assert not side_effects_asked("Is there a cure for eczema without any side effects?")
    assert not side_effects_asked(  # a wish about them, no ask
        "Please inform me of the recommended treatment for mite infestation, particularly "
        "one that is non-toxic or has minimal side effects."
    )
    # a symptoms part of its own is still asked
    both = asked_types(
        models, "What are the symptoms of gout? What are the side effects of allopurinol?", 0.5
    )
    assert [both.first, *(p.qtype for p in both.more)] == ["symptoms", "treatment"]


def test_a_search_for_a_doctor_lists_no_types() -> None:
    models: Any = OwnEncoder()
    asked = asked_types(models, "I have been looking for a doctor. My knee hurts.", 0.5)
    assert asked.more == []


def test_stems_that_are_words_of_any_sentence_are_no_cues() -> None:
    classifier = question_types()
    # NHLBI's sickle cell treatment page opens on referral; "might" was a treatment stem
    assert not classifier.mentions("treatment", "The doctor might be a hematologist.")
    assert classifier.mentions("treatment", "Hydroxyurea might help, and it treats pain.")
    assert not classifier.mentions(
        "inheritance", "People with advanced dementia typically need round-the-clock care."
    )
    assert classifier.mentions("inheritance", "It is inherited in an autosomal dominant pattern.")


def test_thin_stems_and_stop_words_count_only_beside_the_classifier() -> None:
    weights = toy().weights
    cues = {"complications": frozenset({"complic", "bacteria", "you"})}
    classifier = QuestionTypeClassifier(weights, cues, {"complications": frozenset({"bacteria"})})
    germs = "Many types of bacteria can cause pneumonia."
    assert classifier.mentions("complications", germs)
    assert not classifier.mentions("complications", germs, alone=True)
    assert not classifier.mentions("complications", "It is an infection you get.", alone=True)
    assert classifier.mentions("complications", "Its complications are rare.", alone=True)
    # the bundled file lists complications' chance words, and never its own name
    thin = question_types().thin["complications"]
    assert {"bacteri", "fever"} <= thin and "complic" not in thin
