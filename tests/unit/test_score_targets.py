"""Scoring alternative answers (" Yes" / " No") in one request where the scorer can."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from veriloop.models.calls import RejectedRequest
from veriloop.models.fakes import ScriptedTokenScorer, fake_models
from veriloop.models.token_scoring import OpenAICompletionsTokenScorer, ScoreError

TARGETS = (" Yes", " yes", " No", " no")


class NextTokenScorer(ScriptedTokenScorer):
    """A scripted scorer that also answers next-token top log-probs (as a server does)."""

    def __init__(self, top: dict[str, float] | Exception) -> None:
        super().__init__(lambda prompt, target: -7.0)
        self.top = top
        self.next_calls = 0

    def next_token_logprobs(
        self, prompt: str, top: int, continuation: str
    ) -> tuple[dict[str, float], int]:
        self.next_calls += 1
        assert continuation == " Yes"  # the first target not yet cached
        if isinstance(self.top, Exception):
            raise self.top
        return dict(self.top), 12


def test_targets_among_the_top_tokens_come_from_one_request() -> None:
    models = fake_models([])
    scorer = NextTokenScorer({" Yes": -1.0, " No": -2.0, "\n": -0.5})
    models.scorer = scorer
    values, calls = models.score_targets("Is it? Answer:", TARGETS, purpose="t")
    assert [v.logprobs for v in values] == [(-1.0,), (-7.0,), (-2.0,), (-7.0,)]
    assert scorer.next_calls == 1
    assert [target for _, target in scorer.calls] == [" yes", " no"]  # not in the top: echo
    assert len(calls) == 3 and calls[0]["tokens_in"] == 12


def test_a_rejected_next_token_request_falls_back_to_echo_for_good() -> None:
    models = fake_models([])
    scorer = NextTokenScorer(RejectedRequest("logprobs must be <= 5"))
    models.scorer = scorer
    for _ in range(2):
        values, calls = models.score_targets("Is it? Answer:", TARGETS, purpose="t")
        assert [v.logprobs for v in values] == [(-7.0,)] * 4 and len(calls) == 4
    assert scorer.next_calls == 1  # asked once, then never again


def test_without_next_token_support_each_target_is_scored() -> None:
    models = fake_models([], score_rule=lambda prompt, target: -1.5)
    values, calls = models.score_targets("p", TARGETS, purpose="t")
    assert [v.mean for v in values] == [-1.5] * 4 and len(calls) == 4


def test_cached_targets_skip_the_request(tmp_path: Any) -> None:
    models = fake_models([], cache_dir=str(tmp_path))
    scorer = NextTokenScorer({" Yes": -1.0, " yes": -3.0, " No": -2.0, " no": -4.0})
    models.scorer = scorer
    first, _ = models.score_targets("q", TARGETS, purpose="t")
    again, calls = models.score_targets("q", TARGETS, purpose="t")
    assert scorer.next_calls == 1 and [v.logprobs for v in again] == [v.logprobs for v in first]
    assert all(call["cached"] for call in calls)


def test_the_served_request_reads_the_alternatives_at_the_continuation() -> None:
    sent: dict[str, Any] = {}
    prompt = "Claim: x. Answer:"

    def create(**request: Any) -> Any:
        sent.update(request)
        # llama-cpp-python drops the BOS from the echo; offsets count from the text
        logprobs = SimpleNamespace(
            tokens=["Claim", ": x.", " Answer", ":", " Yes", "."],
            token_logprobs=[None, -2.0, -1.0, -0.1, -0.4, -1.0],
            text_offset=[0, 5, 9, 16, 17, 21],
            top_logprobs=[None, {}, {}, {}, {" No": -1.2, " A": -2.0}, {".": -1.0}],
        )
        return SimpleNamespace(choices=[SimpleNamespace(logprobs=logprobs)])

    client = SimpleNamespace(completions=SimpleNamespace(create=create))
    scorer = OpenAICompletionsTokenScorer(client, "m", prefix="<|im_start|>")
    top, prompt_tokens = scorer.next_token_logprobs(prompt, 20, " Yes")
    assert top == {" No": -1.2, " A": -2.0, " Yes": -0.4} and prompt_tokens == 4
    assert sent["prompt"] == "<|im_start|>Claim: x. Answer: Yes"
    assert sent["logprobs"] == 20 and sent["echo"] is True and sent["max_tokens"] == 1

    def merged(**request: Any) -> Any:
        logprobs = SimpleNamespace(
            tokens=["Answer", ":Yes"],
            token_logprobs=[None, -1.0],
            text_offset=[0, 6],
            top_logprobs=[None, {":Yes": -1.0}],
        )
        return SimpleNamespace(choices=[SimpleNamespace(logprobs=logprobs)])

    joined = OpenAICompletionsTokenScorer(
        SimpleNamespace(completions=SimpleNamespace(create=merged)), "m"
    )
    with pytest.raises(ScoreError, match="runs into the continuation"):
        joined.next_token_logprobs("Answer:", 5, "Yes")
