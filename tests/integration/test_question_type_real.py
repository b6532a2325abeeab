"""The bundled question-type classifier on consumer wordings (real MiniLM encoder)."""

from __future__ import annotations

from veriloop.nodes.question_type import classify_questions


def test_consumer_wordings_get_their_type() -> None:
    questions = {
        "what is the treatment for leukemia": "treatment",
        "how is turner syndrome diagnosed": "exams and tests",
        "Can uveitis be cured?": "treatment",
        "what causes kidney stones": "causes",
        "is hemophilia passed from parents to children": "inheritance",
    }
    got = classify_questions(list(questions))
    assert [types[0].qtype for types in got] == list(questions.values())
    assert all(types[0].probability > 0.5 for types in got)


def test_the_unit_classifier_reads_what_a_unit_says_not_its_words() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import TypeTest

    models = fake_models([])  # not the classifier's encoder: it reads with its own MiniLM
    # a symptom list said without the word "symptom", read whole (the page's whole list, as
    # the answer quotes it: P(symptoms) 0.53; its first two items alone read 0.39, under
    # the type's 0.4)
    lead = (
        'If your child isn\'t old enough to say "My ear hurts," here are a few things to look for'
    )
    items = (
        "tugging at ears",
        "crying more than usual",
        "fluid draining from the ear",
        "trouble sleeping",
        "balance difficulties",
        "hearing problems",
    )
    ear = [(f"{lead}: {item}", "P-1") for item in items]
    ear.append(
        ("Ear infections are the most common reason parents bring a child to a doctor.", "P-1")
    )
    assert TypeTest("symptoms", models)(ear) == [True] * len(items) + [False]
    # "cause" named, but of death: no cause of breast cancer
    causes = [
        "Breast cancer is the second leading cause of death from cancer in American women.",
        "Breast cancer is sometimes caused by inherited gene mutations (changes).",
        "Flu is a respiratory infection caused by a number of viruses.",
    ]
    assert TypeTest("causes", models)([(c, "P-2") for c in causes]) == [False, True, True]
