"""The real embedded model (SmolLM2-135M via llama.cpp, MiniLM embeddings), offline."""

import math

import numpy as np
import pytest
from pydantic import BaseModel

from veriloop.context import ModelSettings
from veriloop.graphs.direct import DirectContext
from veriloop.graphs.direct import build_graph as build_direct
from veriloop.graphs.self_reflection import SelfReflectionContext, build_graph
from veriloop.models import get_models
from veriloop.models.locate import bundled_chat_model_path
from veriloop.models.structured import ask_structured
from veriloop.models.token_scoring import log_softmax

pytestmark = pytest.mark.integration
QUESTION = "Is Noonan syndrome inherited?"


def test_scorer_matches_an_independent_teacher_forced_pass():
    from llama_cpp import Llama

    models = get_models(ModelSettings())
    prompt, target = "Question: Is Noonan syndrome inherited?\nKnowledge: ", "It is inherited."
    scored = models.score(prompt, target, purpose="test").logprobs
    llm = Llama(str(bundled_chat_model_path()), n_ctx=256, logits_all=True, verbose=False)
    tokens = llm.tokenize((prompt + target).encode(), add_bos=True)
    first = len(tokens) - len(scored.logprobs)
    # The prompt's trailing space merges into the first target token (" It").
    assert llm.detokenize([tokens[first]]) == b" It"
    expected = []
    for position in range(first, len(tokens)):
        llm.reset()
        llm.eval(tokens[:position])
        row = log_softmax(np.asarray(llm.scores[position - 1]))
        expected.append(row[tokens[position]])
    assert scored.logprobs == pytest.approx(expected, abs=1e-3)
    assert all(value < 0 for value in scored.logprobs)


class Verdict(BaseModel):
    answer: str
    confident: bool


def test_grammar_constrained_structured_output_is_valid():
    models = get_models(ModelSettings())
    turns = [{"role": "user", "content": f"{QUESTION} Reply with JSON: answer, confident."}]
    for _ in range(3):
        reply = ask_structured(models, turns, Verdict, purpose="test", max_string_length=120)
        assert reply.value is not None, reply.raw
        assert len(reply.calls) == 1  # valid on the first attempt: the grammar holds
        assert len(reply.value.answer) <= 120


def test_self_reflection_end_to_end_on_the_embedded_model():
    result = build_graph().compile().invoke({"question": QUESTION}, context=SelfReflectionContext())
    trace = result["trace"]
    assert result["answer"] and result["knowledge"]
    assert trace["settings"]["models"]["scorer"] == "llama.cpp:SmolLM2-135M-Instruct.Q4_1.gguf"
    assert trace["settings"]["models"]["embeddings"] == "sentence-transformers:all-MiniLM-L6-v2"
    usable = [c for c in trace["candidates"] if c["text"]]
    assert usable
    for candidate in usable:
        for name, value in candidate["scores"].items():
            assert value is not None and math.isfinite(value), (name, candidate)
    for candidate in trace["candidates"]:
        if candidate["stage"] == "round":
            assert -1.0 <= candidate["scores"]["entailment"] <= 1.0
        if candidate["stage"] in {"knowledge", "answer"}:
            score = next(iter(candidate["scores"].values()))
            assert score is None or score < 0  # mean log-probs are negative
    assert {stop["loop"] for stop in trace["stops"]} == {"knowledge", "answer", "entailment"}
    usage = trace["usage"]
    assert usage["chat_calls"] >= 2 and usage["score_calls"] >= 3 and usage["embed_calls"] >= 1
    assert usage["tokens_in"] > 0 and usage["tokens_out"] > 0 and usage["model_seconds"] > 0


def test_direct_baseline_on_the_embedded_model():
    result = build_direct().compile().invoke({"question": QUESTION}, context=DirectContext())
    assert result["answer"]
    assert result["trace"]["usage"]["tokens_out"] > 0


def test_scorer_reuses_the_prompt_cache_exactly():
    """Scores after a shared prompt (cache reused) equal scores from a fresh instance."""
    from veriloop.models.token_scoring import LlamaCppTokenScorer

    path = bundled_chat_model_path()
    reused = LlamaCppTokenScorer(path)
    prompt = "Question: What does aspirin do?\nAnswer: "
    targets = ["It thins the blood.", "It cures colds.", "It thins the blood and more."]
    warm = [reused.target_logprobs(prompt, t).logprobs for t in targets]
    reused.target_logprobs("Another prompt. ", "Another target.")
    again = reused.target_logprobs(prompt, targets[0]).logprobs
    for target, values in zip(targets, warm, strict=True):
        fresh = LlamaCppTokenScorer(path).target_logprobs(prompt, target).logprobs
        assert values == pytest.approx(fresh, abs=1e-4)
    assert again == pytest.approx(warm[0], abs=1e-4)
