"""`CrossEncoderJudge` (`trained`): all-MiniLM-L6-v2 fine-tuned as a cross-encoder.

Also the
loader and pooling the other MiniLM judges (three-way, relevance) share.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

from veriloop.errors import InvalidInputError
from veriloop.nodes.claims import MIN_STATEMENT_WORDS, word_count
from veriloop.nodes.judges.calibration import (
    CALIBRATION_DIR,
    sigmoid,
)
from veriloop.nodes.judges.evidence import (
    best_per_query,
    clip,
)
from veriloop.nodes.judges.pair_classifier import DEFAULT_READING, PairReading, mean_pooled
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportQuery,
    check_queries,
)

ADAPTER_DIR = CALIBRATION_DIR / "support_cross_encoder"
THREE_WAY_DIR = CALIBRATION_DIR / "three_way_judge"


QUESTION_CHARS = 200
"""Question text the cross-encoder reads before the claim (longer questions are clipped)."""


def cross_encoder_input(query: SupportQuery) -> str:
    """Return the second segment a cross-encoder reads after the evidence: the hypothesis.

    A question is not a claim: read as part of the hypothesis it turned backed answers
    contradicted ("Aspirin was first synthesised in 1897." against a source saying so: 0.90
    supported alone, P(contradicted) 0.77 after "When was aspirin first synthesised?"). So
    a claim that is a statement (`MIN_STATEMENT_WORDS` words or more) is read alone; only a
    bare answer ("1897", "Felix Hoffmann"), which says nothing without its question, is
    read after the question, clipped to `QUESTION_CHARS` characters so that a long
    question never pushes the answer out of the model's tokens.
    """
    claim = " ".join(query.claim.split())
    if not query.question or is_statement(claim):
        return claim
    return " ".join(f"{clip(query.question, QUESTION_CHARS)} {claim}".split())


HYPOTHESIS_RULE = "statement-alone"
"""How `cross_encoder_input` builds the hypothesis (a statement alone, a bare answer after
its question); records and fingerprints name it, since it changes verdicts as weights do."""


def is_statement(claim: str) -> bool:
    """Return whether `claim` has `MIN_STATEMENT_WORDS` words that contain a letter."""
    return word_count(claim) >= MIN_STATEMENT_WORDS


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
        reading: PairReading = DEFAULT_READING,
    ) -> None:
        """Load the adapter from `adapter_dir` (once per process).

        Args:
            adapter_dir: The trained adapter (`benchmarks/train_support_judge.py`).
            reading: How pairs are read (token length, batch, evidence windows).
        """
        self.tokenizer, self.encoder, self.head, self.pooling = load_cross_encoder(
            Path(adapter_dir)
        )
        self.reading = reading
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
        rows = self.reading.logits(
            (self.tokenizer, self.encoder, self.head),
            evidence,
            second,
            pool=lambda hidden, batch: pooled(hidden, batch, self.pooling),
        )
        return [row[0] for row in rows]

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the most supportive evidence text's probability."""
        check_queries(queries)
        pairs = self.reading.pairs(queries)
        logits = self.logits(
            [p[2] for p in pairs], [cross_encoder_input(queries[p[0]]) for p in pairs]
        )
        scored = [(sigmoid(v), {"logit": round(v, 6)}) for v in logits]
        return best_per_query(len(queries), pairs, scored), []
