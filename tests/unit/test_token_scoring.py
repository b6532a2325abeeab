import math

import numpy as np
import pytest

from veriloop.models.token_scoring import (
    ScoreError,
    align_echoed_logprobs,
    first_target_token,
    gather_target_logprobs,
    log_softmax,
    mean_logprob,
)


def test_log_softmax_matches_hand_computation():
    rows = log_softmax(np.array([[0.0, math.log(3.0)]]))
    # softmax([0, ln 3]) = [1/4, 3/4]
    assert rows[0, 0] == pytest.approx(math.log(0.25))
    assert rows[0, 1] == pytest.approx(math.log(0.75))


def test_log_softmax_is_stable_for_large_logits():
    rows = log_softmax(np.array([[1000.0, 1000.0]]))
    assert rows[0] == pytest.approx([math.log(0.5)] * 2)


def test_mean_logprob_of_nothing_is_an_error_not_nan():
    with pytest.raises(ScoreError):
        mean_logprob([])
    assert mean_logprob([-1.0, -2.0, -3.0]) == pytest.approx(-2.0)


def test_target_starts_at_token_straddling_the_boundary():
    # "Knowledge: " + "Noonan" tokenised as [Knowledge][:][ N][oon][an]: " N" holds the
    # prompt's trailing space and the target's first letter.
    prompt, target = b"Knowledge: ", b"Noonan"
    pieces = [b"Knowledge", b":", b" N", b"oon", b"an"]
    assert first_target_token(pieces, prompt + target, len(prompt)) == 2


def test_target_on_a_clean_token_boundary():
    pieces = [b"Q", b":", b" yes"]
    assert first_target_token(pieces, b"Q: yes", len(b"Q:")) == 2


def test_sentencepiece_leading_space_is_tolerated():
    pieces = [b" Q", b":", b" yes"]
    assert first_target_token(pieces, b"Q: yes", len(b"Q:")) == 2


def test_pieces_that_do_not_reassemble_the_text_are_rejected():
    with pytest.raises(ScoreError):
        first_target_token([b"a", b"b"], b"xyz", 1)


def test_gather_uses_previous_position_distribution():
    rows = np.log(np.array([[0.1, 0.9], [0.6, 0.4], [0.5, 0.5]]))
    # tokens [0, 1, 0]; scoring from index 1: P(t1=1 | row0)=0.9, P(t2=0 | row1)=0.6
    assert gather_target_logprobs([0, 1, 0], rows, 1) == pytest.approx(
        [math.log(0.9), math.log(0.6)]
    )
    with pytest.raises(ScoreError):
        gather_target_logprobs([0, 1], rows, 0)


def test_echoed_logprobs_keep_only_target_tokens():
    # text "Q: yes no" = prompt "Q: " + target "yes no"; server appended one token "!".
    result = align_echoed_logprobs(
        ["Q", ":", " yes", " no", "!"],
        [None, -1.0, -0.5, -1.5, -9.0],
        [0, 1, 2, 6, 9],
        prompt_chars=3,
        text_chars=9,
    )
    assert result.tokens == (" yes", " no")
    assert result.logprobs == (-0.5, -1.5)
    assert result.mean == pytest.approx(-1.0)
    assert result.prompt_tokens == 2


def test_echoed_logprobs_missing_value_for_target_is_an_error():
    with pytest.raises(ScoreError):
        align_echoed_logprobs(["a", "b"], [None, None], [0, 1], prompt_chars=1, text_chars=2)
