"""Claim-support judges: (claim, evidence texts[, question]) -> P(supported), with reasons.

Every verification decision in veriloop asks one question: is this claim backed by this
text? A `SupportJudge` answers it for a batch of queries, each with one or more evidence
texts, and says which evidence the answer rests on and the scores behind it.

- `LikelihoodJudge` (the small model as a *scorer*, not a judge): how much the evidence
  raises the scorer model's likelihood of the claim, P(claim | evidence, question) against
  P(claim | question), teacher-forced, as a mean log-prob gain per claim token (pointwise
  mutual information). A logistic calibration fitted on a training split turns the gain
  into a probability. The evidence comes first in the prompt, so the llama.cpp scorer's
  prefix reuse scores several claims against one evidence text cheaply.
- `YesNoJudge`: the scorer's P(" Yes") / (P(" Yes") + P(" No")) after Factored
  Verification's prompt (what FV used so far; near chance on SmolLM2-135M).
- `HeadJudge`: the MiniLM pair-feature MLP head (`nodes.nli.EmbeddingNLI`), P(supports).
- `CrossEncoderJudge` (`trained`): all-MiniLM-L6-v2 fine-tuned as a cross-encoder.
- `CoverageGatedJudge` (`gated` = trained + gate): another judge's probability, set to 0
  where the evidence lacks 75% of the claim's content words (the grounded default's check
  and the harness's reference check).

How well each judges is measured on held-out data by `benchmarks/support_judges.py`
(docs/benchmarks/support_judges.md); print that beside any number a judge produces.
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal, NotRequired, Protocol

import numpy as np
from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.models import Models, ScoreError
from veriloop.nodes.claims import word_coverage
from veriloop.nodes.nli import EmbeddingNLI, pair_features
from veriloop.nodes.scorers import yes_no_probability
from veriloop.prompts import load_prompt, render
from veriloop.text import split_sentences
from veriloop.trace import ModelCall

Feature = Literal["mean_gain", "min_gain", "conditional"]
Unit = Literal["text", "sentence"]
CALIBRATION_DIR = Path(__file__).resolve().with_name("data")

ENTAILED, NEITHER, CONTRADICTED = 0, 1, 2
THREE_WAY: tuple[str, str, str] = ("entailed", "neither", "contradicted")
"""The three-way judge's classes, in the order of its logits."""

ClaimVerdict = Literal["supported", "contradicted", "unsupported"]
"""What a claim is, read against its evidence: backed, denied, or not in it."""


@dataclass(frozen=True)
class SupportQuery:
    """One claim to check against one or more evidence texts."""

    claim: str
    evidence: Sequence[str]
    question: str = ""
    """The question the claim answers, if any (it conditions both likelihoods)."""


class SupportVerdict(TypedDict):
    """A judge's answer for one query, with what it rests on."""

    probability: float | None
    """P(supported); None when the judge could not score the query (see `error`)."""
    evidence_index: int | None
    """Which evidence text the verdict rests on (the most supportive one)."""
    evidence_span: str
    """The text (or sentence) of that evidence the judge read."""
    scores: dict[str, float]
    """The raw scores behind the probability (e.g. conditional, prior, mean_gain)."""
    error: str | None
    verdict: NotRequired[ClaimVerdict]
    """supported / contradicted / unsupported, from a judge that tells the last two apart
    (the three-way judge); absent from a support-only judge (read it with `claim_verdict`)."""
    p_contradicted: NotRequired[float | None]
    """P(the evidence denies the claim), from a three-way judge."""
    p_neither: NotRequired[float | None]
    """P(the evidence neither backs nor denies it), from a three-way judge."""
    evidence_sentence: NotRequired[str]
    """The sentence of `evidence_span` closest to the claim (what a person should read)."""
    mismatches: NotRequired[list[dict[str, Any]]]
    """Deterministic conflicts found (`nodes.mismatch.Mismatch.to_json`), each naming both
    spans; any makes the verdict contradicted."""


Judged = tuple[list[SupportVerdict], list[ModelCall]]
"""One verdict per query, in order, and the model calls made."""


class SupportJudge(Protocol):
    """Anything that estimates P(claim supported | evidence) for a batch of queries."""

    name: str

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query (in order) and the model calls made."""
        ...


def claim_verdict(verdict: SupportVerdict, supported_at: float = 0.5) -> ClaimVerdict | None:
    """Return what the verdict says of the claim: its own three-way verdict when it has one.

    A support-only judge's verdict is `supported` at P >= `supported_at`, else
    `unsupported` (it cannot say contradicted); None for an unusable verdict.
    """
    if verdict.get("verdict") is not None:
        return verdict["verdict"]
    probability = verdict["probability"]
    if probability is None:
        return None
    return "supported" if probability >= supported_at else "unsupported"


def unusable(error: str) -> SupportVerdict:
    """Return the verdict of a query the judge could not score."""
    return SupportVerdict(
        probability=None, evidence_index=None, evidence_span="", scores={}, error=error
    )


def check_queries(queries: Sequence[SupportQuery]) -> None:
    """Refuse queries without a claim or without evidence, naming the first bad one.

    Raises:
        InvalidInputError: A query has an empty claim or no non-empty evidence text.
    """
    for number, query in enumerate(queries, start=1):
        if not query.claim.strip():
            raise InvalidInputError(f"support query {number}: the claim is empty")
        if isinstance(query.evidence, str) or not any(text.strip() for text in query.evidence):
            raise InvalidInputError(
                f"support query {number}: give the evidence as a list of non-empty texts"
            )


# ----------------------------------------------------------------------- calibration


def sigmoid(z: float) -> float:
    """Return the logistic function of `z`, without overflow for any finite `z`."""
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass(frozen=True)
class Calibration:
    """A logistic map from a judge's raw score to P(supported), and where it was fitted."""

    slope: float
    intercept: float
    feature: Feature = "mean_gain"
    scorer: str = ""
    fitted_on: str = ""
    pairs: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def probability(self, value: float) -> float:
        """Return sigmoid(slope * value + intercept)."""
        return sigmoid(self.slope * value + self.intercept)

    def to_json(self) -> dict[str, Any]:
        """Return the calibration as a JSON object."""
        return {
            "slope": self.slope,
            "intercept": self.intercept,
            "feature": self.feature,
            "scorer": self.scorer,
            "fitted_on": self.fitted_on,
            "pairs": self.pairs,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        """Read a calibration written by `to_json`."""
        known = {"slope", "intercept", "feature", "scorer", "fitted_on", "pairs"}
        return cls(
            slope=float(data["slope"]),
            intercept=float(data["intercept"]),
            feature=data.get("feature", "mean_gain"),
            scorer=str(data.get("scorer", "")),
            fitted_on=str(data.get("fitted_on", "")),
            pairs=int(data.get("pairs", 0)),
            extra={k: v for k, v in data.items() if k not in known},
        )


def fit_calibration(
    values: Sequence[float], supported: Sequence[bool], **about: Any
) -> Calibration:
    """Fit P(supported) = sigmoid(a * value + b) by logistic regression (Platt scaling).

    Args:
        values: The judge's raw scores on training pairs.
        supported: Whether each training claim is supported.
        **about: `feature`, `scorer`, `fitted_on`, `pairs` and any extra notes to record.

    Raises:
        InvalidInputError: Fewer than two pairs, or only one class.
    """
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    if len(values) < 2 or len(set(supported)) < 2:
        raise InvalidInputError("calibration needs supported and unsupported training pairs")
    model = LogisticRegression(C=1e4)
    model.fit(np.asarray(values, dtype=float).reshape(-1, 1), np.asarray(supported, dtype=int))
    return Calibration(
        slope=float(model.coef_[0][0]),
        intercept=float(model.intercept_[0]),
        pairs=int(about.pop("pairs", len(values))),
        feature=about.pop("feature", "mean_gain"),
        scorer=str(about.pop("scorer", "")),
        fitted_on=str(about.pop("fitted_on", "")),
        extra=about,
    )


def calibration_file(judge: str, scorer: str, feature: str = "") -> Path:
    """Return where the shipped calibration of `judge` on `scorer` lives.

    Args:
        judge: The judge's kind, e.g. `likelihood`.
        scorer: The scorer model's name.
        feature: A variant's own calibration (e.g. `mean_gain`); empty: the judge's default,
            whose file names the feature it decides on.
    """
    slug = "".join(ch if ch.isalnum() else "_" for ch in scorer.lower()).strip("_")
    variant = f"{feature}_" if feature else ""
    return CALIBRATION_DIR / f"support_{judge}_{variant}{slug}.json"


def load_calibration(judge: str, scorer: str, feature: str = "") -> Calibration | None:
    """Return the shipped calibration of `judge` on `scorer`, or None if none was fitted.

    With `feature`, the variant's own file, else the default one if it is of that feature.
    """
    path = calibration_file(judge, scorer, feature)
    if path.exists():
        return Calibration.from_json(json.loads(path.read_text()))
    if feature:
        default = load_calibration(judge, scorer)
        return default if default is not None and default.feature == feature else None
    return None


# ----------------------------------------------------------------------- the judges


def _clip(text: str, max_chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[:max_chars].rsplit(" ", 1)[0]


def evidence_pairs(queries: Sequence[SupportQuery], max_chars: int) -> list[tuple[int, int, str]]:
    """Return (query index, evidence index, clipped text) for every non-empty evidence text."""
    return [
        (q_index, e_index, _clip(text, max_chars))
        for q_index, query in enumerate(queries)
        for e_index, text in enumerate(query.evidence)
        if text.strip()
    ]


def evidence_windows(text: str, window_chars: int) -> list[str]:
    """Split `text` into windows of whole sentences of about `window_chars` characters.

    Consecutive windows share one sentence, so a claim drawn from two neighbouring
    sentences is read together; a text no longer than `window_chars` is one window, and a
    single sentence longer than it is its own window.
    """
    if len(text) <= window_chars:
        return [text]
    sentences = split_sentences(text)
    windows: list[str] = []
    start = 0
    while start < len(sentences):
        end, size = start, 0
        while end < len(sentences) and (end == start or size + len(sentences[end]) <= window_chars):
            size += len(sentences[end]) + 1
            end += 1
        windows.append(" ".join(sentences[start:end]))
        if end >= len(sentences):
            break
        start = max(start + 1, end - 1)
    return windows


def windowed_pairs(
    queries: Sequence[SupportQuery], max_chars: int, window_chars: int
) -> list[tuple[int, int, str]]:
    """Return (query index, evidence index, window) for every window of every evidence text.

    Evidence is clipped to `max_chars` (`evidence_pairs`), then read in `evidence_windows`.
    """
    return [
        (q_index, e_index, window)
        for q_index, e_index, text in evidence_pairs(queries, max_chars)
        for window in evidence_windows(text, window_chars)
    ]


def best_per_query(
    count: int,
    pairs: Sequence[tuple[int, int, str]],
    scored: Sequence[tuple[float, dict[str, float]]],
) -> list[SupportVerdict]:
    """Keep, per query, the evidence with the highest probability (and its scores)."""
    verdicts: list[SupportVerdict] = [unusable("no evidence") for _ in range(count)]
    for (q_index, e_index, text), (p, scores) in zip(pairs, scored, strict=True):
        current = verdicts[q_index]["probability"]
        if current is None or p > current:
            verdicts[q_index] = SupportVerdict(
                probability=round(p, 6),
                evidence_index=e_index,
                evidence_span=text,
                scores=scores,
                error=None,
            )
    return verdicts


def likelihood_prompts(question: str) -> tuple[str, str]:
    """Return the (with evidence, prior) prompt names for a claim with or without a question."""
    if question.strip():
        return "support_answer_given_evidence", "support_answer_prior"
    return "support_claim_given_evidence", "support_claim_prior"


class LikelihoodJudge:
    """How much the evidence raises the scorer model's likelihood of the claim."""

    def __init__(
        self,
        models: Models,
        *,
        calibration: Calibration | None = None,
        feature: Feature | None = None,
        unit: Unit = "text",
        max_evidence_chars: int = 800,
    ) -> None:
        """Judge with `models.scorer`.

        Args:
            models: Where the scorer comes from.
            calibration: Raw score -> probability; default: the shipped calibration for this
                scorer (of `feature`, when given), if any. Without one, the raw score goes
                through a unit sigmoid and the judge's name says it is uncalibrated.
            feature: Which score decides (default: the calibration's, else `mean_gain`):
                `mean_gain` (mean per-token log-prob gain), `min_gain` (the least raised
                token), `conditional` (mean log-prob given the evidence, no contrast).
            unit: Score each evidence `text` whole, or each `sentence` of it (best kept).
            max_evidence_chars: Evidence texts are cut to this many characters.
        """
        self.models = models
        self.calibration = calibration or load_calibration(
            "likelihood", models.scorer.name, feature or ""
        )
        self.feature: Feature = feature or (
            self.calibration.feature if self.calibration else "mean_gain"
        )
        self.unit = unit
        self.max_evidence_chars = max_evidence_chars
        state = "calibrated" if self.calibration else "uncalibrated"
        self.name = (
            f"evidence likelihood gain ({self.feature}, {unit}s, {state}) on {models.scorer.name}"
        )

    def _units(self, evidence: Sequence[str]) -> list[tuple[int, str]]:
        units: list[tuple[int, str]] = []
        for index, text in enumerate(evidence):
            clipped = _clip(text, self.max_evidence_chars)
            if not clipped:
                continue
            if self.unit == "sentence":
                units.extend((index, sentence) for sentence in split_sentences(clipped))
            else:
                units.append((index, clipped))
        return units

    def raw_scores(
        self, query: SupportQuery, calls: list[ModelCall]
    ) -> tuple[int, str, dict[str, float]]:
        """Return the most supportive evidence unit and its scores (all features).

        Raises:
            ScoreError: The claim cannot be scored.
        """
        with_evidence, prior_name = likelihood_prompts(query.question)
        target = " " + " ".join(query.claim.split())
        prior = self.models.score(
            render(prior_name, question=query.question.strip()).rstrip(),
            target,
            purpose="support_prior",
        )
        calls.append(prior.call)
        best: tuple[int, str, dict[str, float]] | None = None
        for index, text in self._units(query.evidence):
            prompt = render(with_evidence, evidence=text, question=query.question.strip()).rstrip()
            scored = self.models.score(prompt, target, purpose="support_evidence")
            calls.append(scored.call)
            gains = [
                c - p
                for c, p in zip(scored.logprobs.logprobs, prior.logprobs.logprobs, strict=False)
            ]
            scores = {
                "conditional": scored.logprobs.mean,
                "prior": prior.logprobs.mean,
                "mean_gain": scored.logprobs.mean - prior.logprobs.mean,
                "min_gain": min(gains) if gains else 0.0,
            }
            if best is None or scores[self.feature] > best[2][self.feature]:
                best = (index, text, scores)
        if best is None:
            raise ScoreError("no evidence text left to score")
        return best

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the calibrated probability of its best evidence."""
        check_queries(queries)
        calls: list[ModelCall] = []
        verdicts: list[SupportVerdict] = []
        for query in queries:
            try:
                index, text, scores = self.raw_scores(query, calls)
            except ScoreError as exc:
                verdicts.append(unusable(f"cannot score the claim: {exc}"))
                continue
            value = scores[self.feature]
            probability = (
                self.calibration.probability(value) if self.calibration else sigmoid(value)
            )
            verdicts.append(
                SupportVerdict(
                    probability=round(probability, 6),
                    evidence_index=index,
                    evidence_span=text,
                    scores={k: round(v, 6) for k, v in scores.items()},
                    error=None,
                )
            )
        return verdicts, calls


class YesNoJudge:
    """The scorer's normalised P(Yes) after Factored Verification's verification prompt."""

    def __init__(self, models: Models, *, max_evidence_chars: int = 800) -> None:
        """Judge with `models.scorer`."""
        self.models = models
        self.max_evidence_chars = max_evidence_chars
        self.name = f"P(Yes)/(P(Yes)+P(No)) on {models.scorer.name}"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the most supportive evidence text's P(Yes)."""
        check_queries(queries)
        demos = load_prompt("fv_verify_demos").strip()
        calls: list[ModelCall] = []
        verdicts: list[SupportVerdict] = []
        for query in queries:
            best: SupportVerdict | None = None
            try:
                for index, text in enumerate(query.evidence):
                    document = _clip(text, self.max_evidence_chars)
                    if not document:
                        continue
                    prompt = render(
                        "fv_verify", demos=demos, number=5, document=document, claim=query.claim
                    )
                    reading = yes_no_probability(self.models, prompt, purpose="support_yes")
                    calls.extend(reading.calls)
                    if best is None or reading.probability > (best["probability"] or 0.0):
                        best = SupportVerdict(
                            probability=round(reading.probability, 6),
                            evidence_index=index,
                            evidence_span=document,
                            scores=reading.scores(),
                            error=None,
                        )
            except ScoreError as exc:
                best = unusable(f"cannot score the claim: {exc}")
            verdicts.append(best or unusable("no evidence text left to score"))
        return verdicts, calls


class HeadJudge:
    """The MiniLM pair-feature MLP head's probability of "supports" (for comparison)."""

    def __init__(self, models: Models, *, max_evidence_chars: int = 800) -> None:
        """Judge with the shipped head over `models.embedder`."""
        self.nli = EmbeddingNLI(models)
        self.models = models
        self.max_evidence_chars = max_evidence_chars
        self.name = f"MiniLM pair-feature MLP head on {models.embedder.name}"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the highest P(supports) over its evidence texts."""
        check_queries(queries)
        pairs = evidence_pairs(queries, self.max_evidence_chars)
        features = pair_features(
            self.models, [p[2] for p in pairs], [queries[p[0]].claim for p in pairs]
        )
        rows = self.nli.probabilities(features)  # classes: refutes, neutral, supports
        scored = [
            (float(r[2]), {"refutes": float(r[0]), "neutral": float(r[1]), "supports": float(r[2])})
            for r in rows
        ]
        return best_per_query(len(queries), pairs, scored), []


ADAPTER_DIR = CALIBRATION_DIR / "support_cross_encoder"
THREE_WAY_DIR = CALIBRATION_DIR / "three_way_judge"


QUESTION_CHARS = 200
"""Question text the cross-encoder reads before the claim (longer questions are clipped)."""


def cross_encoder_input(query: SupportQuery) -> str:
    """Return the second segment a cross-encoder reads after the evidence.

    The question is clipped to `QUESTION_CHARS` characters so that a long question (a
    consumer's whole message) never pushes the claim out of the model's 192 tokens; the
    judge was trained on short HaluEval and PubMedQA questions, which are not clipped.
    """
    return " ".join(f"{_clip(query.question, QUESTION_CHARS)} {query.claim}".split())


def mean_pooled(hidden: Any, attention_mask: Any) -> Any:
    """Return the mean of the token states where `attention_mask` is 1 (MiniLM's pooling)."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)


Pooling = Literal["mean", "mean+claim"]
POOLINGS: tuple[Pooling, ...] = ("mean", "mean+claim")
"""How the cross-encoder's token states become the head's input.

`mean`: the mean over every token (v1, v2). `mean+claim`: that mean beside the mean over
the second segment's tokens only (question + claim, which have attended to the evidence),
so one changed claim word weighs about 1/20 of half the input instead of about 1/150 of
all of it: a read-out meant to let polarity through (an experiment, see
docs/benchmarks/support_judges.md).
"""


POOLING_WIDTH: dict[Pooling, int] = {"mean": 1, "mean+claim": 2}
"""The head's input width under each pooling, in multiples of the encoder's hidden size."""


def pooled(hidden: Any, batch: Any, pooling: Pooling) -> Any:
    """Return the head's input for a tokenized (evidence, claim) batch under `pooling`."""
    everything = mean_pooled(hidden, batch["attention_mask"])
    if pooling == "mean":
        return everything
    import torch

    claim_mask = batch["attention_mask"] * batch["token_type_ids"]
    return torch.cat([everything, mean_pooled(hidden, claim_mask)], dim=-1)


def adapter_pooling(adapter_dir: Path) -> Pooling:
    """Return the pooling an adapter was trained with (training.json; `mean` when unsaid).

    Raises:
        InvalidInputError: training.json names a pooling this code does not know.
    """
    try:
        pooling = json.loads((Path(adapter_dir) / "training.json").read_text()).get("pooling")
    except (OSError, ValueError):
        pooling = None
    if pooling is None:
        return "mean"
    if pooling not in POOLINGS:
        raise InvalidInputError(
            f"{adapter_dir}/training.json names pooling {pooling!r}; this veriloop knows "
            f"{', '.join(POOLINGS)}: update veriloop or retrain the adapter"
        )
    return pooling  # type: ignore[no-any-return]


def adapter_label(adapter_dir: Path) -> str:
    """Return the adapter's folder name and, when its training.json records one, its version.

    The shipped adapter keeps its folder name across retraining, so reports name the
    version (`support_cross_encoder v2`); the first adapter recorded none.
    """
    try:
        version = json.loads((adapter_dir / "training.json").read_text()).get("version")
    except (OSError, ValueError):
        version = None
    return adapter_dir.name + (f" v{version}" if version else "")


@cache
def load_cross_encoder(adapter_dir: Path = ADAPTER_DIR) -> tuple[Any, Any, Any, Pooling]:
    """Return (tokenizer, encoder, head, pooling): the bundled MiniLM, LoRA merged, the head.

    Raises:
        InvalidInputError: The adapter folder is missing (train it with
            benchmarks/train_support_judge.py), or its head does not fit the pooling its
            training.json names.
    """
    import torch
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    from veriloop.models.locate import bundled_embedding_model_path

    if not (Path(adapter_dir) / "adapter_config.json").is_file():
        raise InvalidInputError(
            f"no trained support judge in {adapter_dir}; train one with "
            "benchmarks/train_support_judge.py or choose another judge"
        )
    base_path = bundled_embedding_model_path()
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    base = AutoModel.from_pretrained(base_path)
    with warnings.catch_warnings():
        # peft calls a transformers method deprecated in favour of a renamed one; nothing
        # for a user to act on, so it stays out of `veriloop ask`'s output
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*")
        encoder = PeftModel.from_pretrained(base, str(adapter_dir)).merge_and_unload()
    encoder.eval()
    pooling = adapter_pooling(Path(adapter_dir))
    width = POOLING_WIDTH[pooling] * encoder.config.hidden_size
    weights = load_file(str(Path(adapter_dir) / "head.safetensors"))
    if tuple(weights["weight"].shape) != (1, width):
        raise InvalidInputError(
            f"{adapter_dir}/head.safetensors holds a head of shape "
            f"{tuple(weights['weight'].shape)}, but pooling {pooling!r} (training.json) needs "
            f"(1, {width}): the head and training.json come from different runs; copy both "
            "from one training run's folder"
        )
    head = torch.nn.Linear(width, 1)
    head.load_state_dict(weights)
    head.eval()
    return tokenizer, encoder, head, pooling


class CrossEncoderJudge:
    """The bundled all-MiniLM-L6-v2 fine-tuned (LoRA) as a claim-support cross-encoder."""

    def __init__(
        self,
        *,
        adapter_dir: Path = ADAPTER_DIR,
        max_length: int = 192,
        batch_size: int = 16,
        max_evidence_chars: int = 20_000,
        window_chars: int = 600,
    ) -> None:
        """Load the adapter from `adapter_dir` (once per process).

        Args:
            adapter_dir: The trained adapter (`benchmarks/train_support_judge.py`).
            max_length: Tokens per (evidence, question + claim) pair; longer pairs lose
                evidence tokens from the end.
            batch_size: Pairs per forward pass.
            max_evidence_chars: Evidence text read per evidence item (the rest is ignored).
            window_chars: Evidence longer than this is read in windows of whole sentences
                of about this size (one sentence of overlap) and the best window counts,
                so a long reference is read whole, not cut at `max_length`.
        """
        self.tokenizer, self.encoder, self.head, self.pooling = load_cross_encoder(
            Path(adapter_dir)
        )
        self.max_length = max_length
        self.batch_size = batch_size
        self.max_evidence_chars = max_evidence_chars
        self.window_chars = window_chars
        self.name = f"MiniLM cross-encoder ({adapter_label(Path(adapter_dir))})"
        self.adapter_dir = Path(adapter_dir)

    @cached_property
    def identity(self) -> str:
        """Return a fingerprint of the adapter's weights: sha256 of its safetensors, 16 hex.

        Read on first use only (not at start-up); measurement records carry it so that a
        retrained adapter in the same folder is never mixed with the old one's records.
        """
        digest = hashlib.sha256()
        for name in ("adapter_model.safetensors", "head.safetensors"):
            digest.update((self.adapter_dir / name).read_bytes())
        return digest.hexdigest()[:16]

    def logits(self, evidence: Sequence[str], second: Sequence[str]) -> list[float]:
        """Return the model's support logit for each (evidence, claim text) pair."""
        import torch

        out: list[float] = []
        for start in range(0, len(evidence), self.batch_size):
            batch = self.tokenizer(
                list(evidence[start : start + self.batch_size]),
                list(second[start : start + self.batch_size]),
                truncation="longest_first",
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            with torch.no_grad():
                hidden = self.encoder(**batch).last_hidden_state
                logits = self.head(pooled(hidden, batch, self.pooling))[:, 0]
            out.extend(float(v) for v in logits)
        return out

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the most supportive evidence text's probability."""
        check_queries(queries)
        pairs = windowed_pairs(queries, self.max_evidence_chars, self.window_chars)
        logits = self.logits(
            [p[2] for p in pairs], [cross_encoder_input(queries[p[0]]) for p in pairs]
        )
        scored = [(sigmoid(v), {"logit": round(v, 6)}) for v in logits]
        return best_per_query(len(queries), pairs, scored), []


def content_coverage(claim: str, evidence: str) -> float | None:
    """Return the share of the claim's content words that the evidence holds.

    Words are lower-cased, stop words removed and Snowball-stemmed (the BM25 tokeniser);
    None when the claim has no content word.
    """
    claim_words, evidence_words = lexical_tokens([claim, evidence])
    return word_coverage(set(claim_words), set(evidence_words))


class CoverageGatedJudge:
    """Another judge's P(supported), kept only where the evidence holds the claim's words.

    Per evidence text: the inner judge's probability when that text holds at least
    `min_coverage` of the claim's content words (`content_coverage`), else 0 (and the inner
    judge is not asked, which is most of the saving on long references); the verdict is
    the best evidence text's. The inner judges here pass plausible on-topic inventions
    (docs/benchmarks/support_judges.md); the gate rejects words the evidence never says
    (invented names, numbers, drugs), at the cost of paraphrase, which it cannot tell
    from invention. Scores: the coverage, and the inner judge's probability (`inner_p`)
    where it was asked.

    The gate guards support, not denial: a text below `min_coverage` but holding at least
    `deny_coverage` of the claim's content words is still read by the inner judge, for
    its contradiction side only ("Warfarin causes hair loss in most patients" holds 67% of
    its words in "Hair loss is an uncommon side effect": too few to back it, enough to
    deny it). Such a text can make the claim contradicted, never supported.
    """

    def __init__(
        self, inner: SupportJudge, *, min_coverage: float = 0.75, deny_coverage: float = 0.5
    ) -> None:
        """Gate `inner`'s support at `min_coverage` and its denials at `deny_coverage`."""
        self.inner = inner
        self.min_coverage = min_coverage
        self.deny_coverage = min(deny_coverage, min_coverage)
        self.name = f"{getattr(inner, 'name', 'judge')} + coverage >= {min_coverage:g}"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the best gated evidence text's probability."""
        check_queries(queries)
        # tokenise each distinct text once: a reference is read against every claim
        distinct = list(
            dict.fromkeys([q.claim for q in queries] + [e for q in queries for e in q.evidence])
        )
        words = {
            text: set(tokens)
            for text, tokens in zip(distinct, lexical_tokens(distinct), strict=True)
        }
        verdicts: list[SupportVerdict] = [unusable("no evidence") for _ in queries]
        best_coverage: list[float] = [-1.0 for _ in queries]
        asked: list[tuple[int, int, SupportQuery, float, bool]] = []
        for q_index, query in enumerate(queries):
            for e_index, text in enumerate(query.evidence):
                if not text.strip():
                    continue
                coverage = word_coverage(words[query.claim], words[text])
                value = -1.0 if coverage is None else coverage
                if coverage is not None and coverage >= self.deny_coverage:
                    asked.append(
                        (
                            q_index,
                            e_index,
                            SupportQuery(query.claim, [text], query.question),
                            coverage,
                            coverage < self.min_coverage,  # read for a denial only
                        )
                    )
                if coverage is not None and coverage >= self.min_coverage:
                    continue
                if verdicts[q_index]["error"] is not None or (
                    verdicts[q_index]["probability"] == 0.0 and value > best_coverage[q_index]
                ):
                    best_coverage[q_index] = value
                    verdicts[q_index] = SupportVerdict(
                        probability=0.0,
                        evidence_index=e_index,
                        evidence_span=_clip(text, 300),
                        scores={} if coverage is None else {"coverage": round(coverage, 4)},
                        error=None,
                    )
        if not asked:
            return verdicts, []
        inner, calls = self.inner.judge([query for _, _, query, _, _ in asked])
        denials: dict[int, SupportVerdict] = {}
        for (q_index, e_index, _, coverage, deny_only), verdict in zip(asked, inner, strict=True):
            p = verdict["probability"]
            if p is None:
                continue  # a failed pair leaves the gated-out verdict (or "no evidence")
            if deny_only and verdict.get("verdict") != "contradicted":
                continue  # too little of the claim in this text to back it
            gated = SupportVerdict(
                **{
                    **verdict,
                    "probability": round(p, 6),
                    "evidence_index": e_index,
                    "scores": {
                        **verdict["scores"],
                        "inner_p": round(p, 6),
                        "coverage": round(coverage, 4),
                    },
                    "error": None,
                }
            )
            current = verdicts[q_index]["probability"]
            if not deny_only and (current is None or p > current or (p == current == 0.0)):
                verdicts[q_index] = gated
            if verdict.get("verdict") == "contradicted" and (
                q_index not in denials
                or (verdict.get("p_contradicted") or 0.0)
                > (denials[q_index].get("p_contradicted") or 0.0)
            ):
                denials[q_index] = gated
        # one rule with the three-way judge's: backed by any text wins, else denied by any
        for q_index, denial in denials.items():
            if claim_verdict(verdicts[q_index]) != "supported":
                verdicts[q_index] = denial
        return verdicts, calls


JudgeKind = Literal[
    "three_way", "three_way_model", "trained", "gated", "likelihood", "yesno", "head"
]


def support_judge(kind: str, models: Models) -> SupportJudge:
    """Return the claim-support judge called `kind` (see the module docstring).

    `three_way` is the three-way judge with the deterministic mismatch checks beside it
    (`nodes.three_way`); `three_way_model` the model alone.

    Raises:
        InvalidInputError: An unknown kind, or the trained judge's weights are missing.
    """
    if kind in ("three_way", "three_way_model"):
        from veriloop.nodes.three_way import MismatchCheckedJudge, ThreeWayJudge

        model = ThreeWayJudge()
        return MismatchCheckedJudge(model) if kind == "three_way" else model
    if kind == "trained":
        return CrossEncoderJudge()
    if kind == "gated":
        return CoverageGatedJudge(CrossEncoderJudge())
    if kind == "likelihood":
        return LikelihoodJudge(models)
    if kind == "yesno":
        return YesNoJudge(models)
    if kind == "head":
        return HeadJudge(models)
    raise InvalidInputError(
        f"unknown support judge {kind!r}; choose three_way, three_way_model, trained, gated, "
        "likelihood, yesno or head"
    )


class SupportStances:
    """A support judge read as a stance judge: +1 supports, -1 contradicts, 0 neither.

    A support judge estimates P(supported); it does not tell "contradicts" from "is about
    something else". This adapter maps P >= `supports_at` to +1 and P < `contradicts_below`
    to -1 *only when the evidence is on the claim's topic* (MiniLM cosine of claim and
    evidence >= `relevant_at`, when `models` are given); everything else is 0. So an
    off-topic abstract is neutral, as M-Eval's stance prompt asks. It satisfies
    `nodes.nli.NLIJudge`.
    """

    def __init__(
        self,
        judge: SupportJudge,
        *,
        supports_at: float = 0.5,
        contradicts_below: float = 0.1,
        models: Models | None = None,
        relevant_at: float = 0.5,
    ) -> None:
        """Wrap `judge`; the thresholds need 0 <= contradicts_below <= supports_at <= 1."""
        if not 0.0 <= contradicts_below <= supports_at <= 1.0:
            raise InvalidInputError(
                f"stance thresholds must satisfy 0 <= contradicts_below ({contradicts_below}) "
                f"<= supports_at ({supports_at}) <= 1"
            )
        self.judge = judge
        self.supports_at = supports_at
        self.contradicts_below = contradicts_below
        self.models = models
        self.relevant_at = relevant_at
        gate = f" on evidence with cosine >= {relevant_at}" if models else ""
        self.name = (
            f"{judge.name} as stances (+1 at P >= {supports_at}, -1 below "
            f"{contradicts_below}{gate})"
        )

    def stance(self, probability: float | None, relevance: float | None = None) -> int | None:
        """Return +1, 0 or -1 for a probability (None stays None: unusable)."""
        if probability is None:
            return None
        if probability >= self.supports_at:
            return 1
        on_topic = relevance is None or relevance >= self.relevant_at
        return -1 if probability < self.contradicts_below and on_topic else 0

    def verdicts(
        self,
        premises: Sequence[str],
        hypotheses: Sequence[str],
        questions: str | Sequence[str] = "",
    ) -> Judged:
        """Return the judge's verdict for each (premise, hypothesis) pair, in one batch.

        `questions` is one question for every pair, or one per pair.
        """
        if len(premises) != len(hypotheses):
            raise InvalidInputError(
                f"{len(premises)} premises but {len(hypotheses)} hypotheses; give one each"
            )
        if not premises:
            return [], []
        asked = [questions] * len(premises) if isinstance(questions, str) else list(questions)
        return self.judge.judge(
            [SupportQuery(h, [p], q) for p, h, q in zip(premises, hypotheses, asked, strict=True)]
        )

    def relevances(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float | None]:
        """Return the claim-evidence cosine per pair (None each without `models`).

        Each distinct text is embedded once, however many pairs it is in.
        """
        if self.models is None or not premises:
            return [None] * len(premises)
        texts = list(dict.fromkeys([*premises, *hypotheses]))
        vectors, _ = self.models.embed(texts, purpose="stance relevance")
        row = {text: np.asarray(vectors[i]) for i, text in enumerate(texts)}
        return [round(float(row[p] @ row[h]), 6) for p, h in zip(premises, hypotheses, strict=True)]

    def judge_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Return +1 / 0 / -1 per pair (an unusable verdict counts as 0, neither)."""
        verdicts, _ = self.verdicts(premises, hypotheses)
        relevances = self.relevances(premises, hypotheses)
        return [
            self.stance(v["probability"], r) or 0 for v, r in zip(verdicts, relevances, strict=True)
        ]
