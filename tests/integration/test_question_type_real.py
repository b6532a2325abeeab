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
