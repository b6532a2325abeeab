"""The OpenAI backend against a real engine: llama-cpp-python's server on loopback.

The server (`python -m llama_cpp.server`, installed by the dev extras) serves the bundled
SmolLM2-135M-Instruct with logits for every token, as a user would start it. What it
really does, and what veriloop must cope with: it rejects `json_schema` response formats
(HTTP 500) and takes `json_object` + schema, drops `max_completion_tokens`, and shifts its
echoed log-probs by one position unless the prompt starts with the BOS token. The server
fixture `served` is in conftest.py (one server for every served-engine module).
"""

from __future__ import annotations

import pytest

from veriloop.api import method
from veriloop.context import ModelSettings
from veriloop.models import get_models
from veriloop.models.locate import bundled_chat_model_path
from veriloop.models.token_scoring import LlamaCppTokenScorer
from veriloop.nodes.scorers import demonstrations
from veriloop.prompts import render

pytestmark = [pytest.mark.integration, pytest.mark.served_engine, pytest.mark.full]


def test_the_probe_finds_what_the_server_supports(served: dict[str, str]) -> None:
    models = get_models(ModelSettings(**served))  # probed once per process
    found = models.capabilities
    assert found is not None
    assert found.structured_output == "json_object"  # json_schema is rejected with a 500
    assert found.token_scoring == "echo" and found.bos_prefix == "<|im_start|>"
    assert found.max_tokens_param == "max_tokens"
    assert any("raw echo" in f and "shifted" in f for f in found.findings)
    assert models.describe()["capabilities"].startswith("structured output: json_object")


def test_served_scores_equal_embedded_scores(served: dict[str, str]) -> None:
    models = get_models(ModelSettings(**served))  # probed once per process
    path = bundled_chat_model_path()
    same_conditioning = LlamaCppTokenScorer(path, bos=True)
    default = LlamaCppTokenScorer(path)
    texts = [
        ("The capital of France is", " Paris, a city in Europe."),
        (
            render(
                "factuality_scorer",
                None,
                demos=demonstrations(1, None),
                question="Is Noonan syndrome inherited?",
            ),
            " Noonan syndrome is inherited in an autosomal dominant manner.",
        ),
    ]
    for prompt, target in texts:
        served_scores = models.score(prompt, target, purpose="test").logprobs
        local = same_conditioning.target_logprobs(prompt, target)
        assert served_scores.tokens == local.tokens
        # Same model, same tokens, same conditioning: equal up to float rounding.
        assert (
            max(abs(a - b) for a, b in zip(served_scores.logprobs, local.logprobs, strict=True))
            < 1e-3
        )
        # Against the embedded default (no BOS) the BOS prefix moves the mean a little.
        assert abs(served_scores.mean - default.target_logprobs(prompt, target).mean) < 0.15


def test_the_generation_limit_reaches_the_server(served: dict[str, str]) -> None:
    models = get_models(ModelSettings(**served))  # probed once per process
    reply = models.chat(
        [{"role": "user", "content": "Tell me a long story about a dragon."}],
        purpose="test",
        max_tokens=8,
    )
    assert 0 < reply.call["tokens_out"] <= 8


def test_factored_verification_scores_yes_no_through_the_server(served: dict[str, str]) -> None:
    fv = method("factored").invoke(
        {
            "question": "Is Noonan syndrome inherited?",
            "answer": "Noonan syndrome is inherited in an autosomal dominant pattern.",
            "sources": ["Noonan syndrome is inherited in an autosomal dominant pattern."],
        },
        **served,
        verifier="yesno",
        max_revisions=0,
    )
    checks = fv["claims"]
    assert checks and all(c["error"] is None for c in checks)
    assert all(0.0 <= (c["p_supported"] or 0.0) <= 1.0 for c in checks)
    assert any(c["method"] == "logprob" for c in checks)


def test_yes_no_targets_come_from_one_request_equal_to_echoed_scores(
    served: dict[str, str],
) -> None:
    models = get_models(ModelSettings(**served))  # probed once per process
    prompt = "Question: Is the sky blue on a clear day? Answer Yes or No.\nAnswer:"
    targets = (" Yes", " yes", " No", " no")
    values, calls = models.score_targets(prompt, targets, purpose="test")
    assert len(calls) < len(targets)  # at least two answered by the one top-20 request
    for target, value in zip(targets, values, strict=True):
        echoed = models.score(prompt, target, purpose="test").logprobs
        assert echoed.tokens == value.tokens
        assert abs(echoed.mean - value.mean) < 1e-3
