"""The OpenAI backend against a real engine: llama-cpp-python's server on loopback.

The server (`python -m llama_cpp.server`, installed by the dev extras) serves the bundled
SmolLM2-135M-Instruct with logits for every token, as a user would start it. What it
really does, and what veriloop must cope with: it rejects `json_schema` response formats
(HTTP 500) and takes `json_object` + schema, drops `max_completion_tokens`, and shifts its
echoed log-probs by one position unless the prompt starts with the BOS token.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.servers import free_port, running_server
from veriloop.api import method
from veriloop.context import ModelSettings
from veriloop.models import get_models
from veriloop.models.locate import bundled_chat_model_path
from veriloop.models.token_scoring import LlamaCppTokenScorer
from veriloop.nodes.scorers import demonstrations
from veriloop.prompts import render

pytestmark = [pytest.mark.integration, pytest.mark.served_engine]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Start llama-cpp-python's server on a free loopback port; yield backend settings."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(bundled_chat_model_path()),
        "--model_alias",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--logits_all",
        "true",
    ]
    url = f"http://127.0.0.1:{port}/v1"
    with running_server(
        command,
        ready_url=f"{url}/models",
        log=tmp_path_factory.mktemp("llama_server") / "server.log",
        name="llama_cpp.server",
    ):
        yield {"backend": "openai", "base_url": url, "model_name": "smollm2"}


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


def test_self_reflection_runs_with_finite_scores(served: dict[str, str]) -> None:
    result = method("self-reflection").invoke(
        "Is Noonan syndrome inherited?",
        **served,
        max_rounds=1,
        max_knowledge_loops=1,
        max_answer_loops=1,
        factuality_demos=0,
    )
    scored = [c for c in result["trace"]["candidates"] if c["stage"] in ("knowledge", "answer")]
    values = [v for c in scored for v in c["scores"].values() if v is not None]
    assert values and all(math.isfinite(v) for v in values)
    assert result["trace"]["settings"]["models"]["scorer"].endswith("+bos<|im_start|>")


def test_structured_methods_get_valid_replies(served: dict[str, str], tmp_path: Path) -> None:
    from veriloop.knowledge.entries import new_entry
    from veriloop.knowledge.store import KnowledgeBase

    embedder = get_models(ModelSettings()).embedder
    base = KnowledgeBase.create(tmp_path / "kb", embedder)
    base.add(
        [new_entry("Noonan syndrome is inherited in an autosomal dominant pattern.", 0.9)],
        embedder,
    )
    base.save()
    l2r = method("l2r").invoke(
        "Is Noonan syndrome inherited?", **served, kb_dir=str(tmp_path / "kb")
    )
    answer = l2r["trace"]["candidates"][1]
    assert answer["error"] is None  # json_object + schema: the reply parsed
    assert answer["scores"]["can_answer"] in (0.0, 1.0)

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
