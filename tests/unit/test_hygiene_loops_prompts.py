import pytest

from veriloop.errors import InvalidInputError
from veriloop.nodes.hygiene import clean_generation
from veriloop.nodes.input import check_question
from veriloop.nodes.self_reflection.loops import close_loop, format_score, passes
from veriloop.prompts import demonstrations, placeholders, render
from veriloop.trace import Candidate, best_candidate


def cand(iteration: int, value: float | None, *, text: str = "t", threshold: float = -1.0):
    return Candidate(
        stage="knowledge",
        round=0,
        iteration=iteration,
        text=text,
        scores={"factuality": value},
        thresholds={"factuality": threshold},
        passed=passes(value, threshold),
        error=None if text else "empty",
    )


def test_clean_generation_strips_tokens_labels_and_echoes():
    instruction = "Please refine the knowledge to improve its factuality."
    raw = f"Knowledge: {instruction} Noonan syndrome is autosomal dominant.<|im_end|>"
    assert clean_generation(raw, [instruction]) == "Noonan syndrome is autosomal dominant."


def test_clean_generation_drops_paraphrased_feedback():
    feedback = (
        "The factuality score for the knowledge is -2.61 (less than -1.0), which means the "
        "knowledge is not strongly supported by empirical evidence."
    )
    raw = (
        "The knowledge is -3.16 (less than -0.5), which means the knowledge is not strongly "
        "supported by empirical evidence. It is inherited."
    )
    assert clean_generation(raw, [feedback]) == "It is inherited."


def test_clean_generation_of_pure_echo_is_empty():
    instruction = "Provide background knowledge to answer the given question:"
    assert clean_generation(instruction, [instruction]) == ""


def test_check_question():
    assert check_question("  Is it?  ", max_chars=10) == "Is it?"
    for bad in ["", "   \n", None, 3]:
        with pytest.raises(InvalidInputError):
            check_question(bad, max_chars=10)
    with pytest.raises(InvalidInputError, match="limit of 10"):
        check_question("x" * 11, max_chars=10)


def test_format_score_and_passes():
    assert format_score(-1.234) == "-1.23"
    assert format_score(None) == "-inf"
    assert passes(-1.0, -1.0) and not passes(-1.01, -1.0) and not passes(None, -5.0)


def test_best_candidate_ranks_failed_scores_lowest_and_keeps_first_on_ties():
    candidates = [cand(0, None), cand(1, -2.0), cand(2, -2.0)]
    assert best_candidate(candidates, "factuality")["iteration"] == 1  # type: ignore[index]


def test_close_loop_met_keeps_last():
    chosen, stop = close_loop(
        [cand(0, -3.0), cand(1, -0.5)],
        loop="knowledge",
        round_index=0,
        score_name="factuality",
        single_pass=False,
    )
    assert chosen is not None and chosen["iteration"] == 1 and stop["reason"] == "met"


def test_close_loop_cap_keeps_best():
    chosen, stop = close_loop(
        [cand(0, -3.0), cand(1, -1.5), cand(2, -2.0)],
        loop="knowledge",
        round_index=0,
        score_name="factuality",
        single_pass=False,
    )
    assert chosen is not None and chosen["iteration"] == 1
    assert stop["reason"] == "cap_reached" and stop["chosen_iteration"] == 1


def test_close_loop_skips_unusable_best():
    chosen, stop = close_loop(
        [cand(0, -3.0), cand(1, None, text="")],
        loop="knowledge",
        round_index=0,
        score_name="factuality",
        single_pass=True,
    )
    assert chosen is not None and chosen["iteration"] == 0
    assert "unusable" in stop["detail"]


def test_close_loop_with_nothing_usable():
    chosen, stop = close_loop(
        [cand(0, None, text="")],
        loop="knowledge",
        round_index=0,
        score_name="factuality",
        single_pass=False,
    )
    assert stop["reason"] == "no_usable_output"


def test_render_and_placeholders():
    text = render("self_reflection_knowledge", question="Is {this} safe?")
    assert text == 'Provide background knowledge to answer the given question: "Is {this} safe?"'
    assert placeholders("a {x} b {y}") == {"x", "y"}
    with pytest.raises(InvalidInputError, match="unknown placeholder"):
        render("self_reflection_knowledge", {"self_reflection_knowledge": "{nope}"}, question="q")
    with pytest.raises(InvalidInputError, match="no prompt template"):
        render("does_not_exist")


def test_demonstrations_count():
    assert demonstrations(0) == ""
    assert demonstrations(1).count("Question:") == 1
    assert demonstrations(3).count("Question:") == 3
    assert demonstrations(3).endswith("\n\n")


def test_clean_generation_drops_a_restated_question_but_keeps_answers_using_its_words():
    instruction = 'Provide background knowledge to answer the given question: ""'
    raw = 'Provide background knowledge to answer the given question: "Is X inherited?"'
    assert clean_generation(raw, [instruction], ["Is X inherited?"]) == ""
    answer = "Yes, X is inherited in an autosomal dominant manner."
    assert clean_generation(answer, [instruction], ["Is X inherited?"]) == answer


def test_demonstration_turns_parse_and_reject_bad_transcripts():
    from veriloop.prompts import demonstration_turns

    turns = demonstration_turns("knowledge_enrichment_answer_demo")
    assert [t["role"] for t in turns] == ["user", "assistant"]
    assert turns[1]["content"].startswith('{"answer"')
    demo = "knowledge_enrichment_answer_demo"
    override = {demo: "USER: hi\nASSISTANT: hello\nUSER: again"}
    assert [t["content"] for t in demonstration_turns(demo, override)] == ["hi", "hello", "again"]
    with pytest.raises(InvalidInputError, match="must start with a USER"):
        demonstration_turns(demo, {demo: "ASSISTANT: hello"})
    with pytest.raises(InvalidInputError, match="must start with USER: or ASSISTANT:"):
        demonstration_turns(demo, {demo: "SYSTEM: hello"})


def test_an_override_of_no_template_is_an_error_not_a_silent_no_op():
    from veriloop.prompts import render

    with pytest.raises(
        InvalidInputError, match="names no template 'grounded_answr'.*grounded_answer"
    ):
        render("direct_answer", {"grounded_answr": "x"}, question="q")


def test_an_old_prompt_name_still_overrides_with_a_warning_naming_the_new_one():
    from veriloop.prompts import RENAMED, render, template_names

    assert set(RENAMED.values()) <= template_names()
    assert not set(RENAMED) & template_names()
    with pytest.warns(
        DeprecationWarning, match="'fe_answer_style' is now called 'factual_evidence_answer_style'"
    ):
        text = render("factual_evidence_answer_style", {"fe_answer_style": "Begin: yes."})
    assert text == "Begin: yes."
    with pytest.raises(InvalidInputError, match="both 'fv_revise' and its new name"):
        render(
            "direct_answer",
            {"fv_revise": "a", "factored_verification_revise": "b"},
            question="q",
        )
