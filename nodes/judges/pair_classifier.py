"""Pair classifiers on the bundled MiniLM: loading a trained one, and reading it.

The three-way claim judge (`nodes.judges.three_way`) and the answer-relevance judge
(`nodes.judges.relevance`) are the same kind of model: the bundled all-MiniLM-L6-v2 reading two
texts as one sequence, its encoder layers fine-tuned (saved in float16 as
`encoder.safetensors`, or a LoRA adapter), the token states mean-pooled and mapped to
logits by a linear head (`head.safetensors`); `training.json` says what it is (`kind`),
how it was trained and on what. This module loads such a folder once per process and runs
pairs through it in length-ordered batches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from veriloop.errors import InvalidInputError
from veriloop.nodes.judges.evidence import windowed_pairs
from veriloop.nodes.judges.protocol import SupportQuery

Pool = Callable[[Any, Any], Any]
"""(token states, tokenized batch) -> the head's input."""


def mean_pooled(hidden: Any, attention_mask: Any) -> Any:
    """Return the mean of the token states where `attention_mask` is 1 (MiniLM's pooling)."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)


def _mean_of_batch(hidden: Any, batch: Any) -> Any:
    return mean_pooled(hidden, batch["attention_mask"])


WEIGHT_FILES = ("encoder.safetensors", "adapter_model.safetensors", "head.safetensors")


@cache
def load_pair_classifier(
    folder: Path, kind: str, outputs: int, trained_by: str
) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Return (tokenizer, encoder, head, training.json) of a trained pair classifier.

    The encoder is the bundled MiniLM with the folder's float16 layers loaded over it
    (`mode: full`) or its LoRA adapter merged (`mode: lora`).

    Args:
        folder: The trained model's folder.
        kind: The `kind` its training.json must name.
        outputs: The number of logits its head must have.
        trained_by: The script that trains one (named in the error).

    Raises:
        InvalidInputError: The folder holds no trained model of that kind, or its head does
            not have `outputs` outputs.
    """
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    from veriloop.models.locate import bundled_embedding_model_path

    try:
        training = json.loads((folder / "training.json").read_text())
    except (OSError, ValueError):
        training = {}
    if training.get("kind") != kind or not (folder / "head.safetensors").is_file():
        raise InvalidInputError(
            f"no trained {kind.replace('_', '-')} judge in {folder}; train one with "
            f"{trained_by} or choose another judge"
        )
    base_path = bundled_embedding_model_path()
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    encoder = AutoModel.from_pretrained(base_path)
    if training.get("mode") == "lora":
        from peft import PeftModel

        encoder = PeftModel.from_pretrained(encoder, str(folder)).merge_and_unload()
    else:
        layers = load_file(str(folder / "encoder.safetensors"))
        missing = set(layers) - set(encoder.state_dict())
        if missing:
            raise InvalidInputError(
                f"{folder}/encoder.safetensors holds weights this MiniLM lacks "
                f"({sorted(missing)[:3]}...): it was trained on another base model"
            )
        encoder.load_state_dict({k: v.float() for k, v in layers.items()}, strict=False)
    encoder.eval()
    weights = load_file(str(folder / "head.safetensors"))
    hidden = encoder.config.hidden_size
    if tuple(weights["weight"].shape) != (outputs, hidden):
        raise InvalidInputError(
            f"{folder}/head.safetensors has shape {tuple(weights['weight'].shape)}, not "
            f"({outputs}, {hidden}): copy the head and the weights from one training run"
        )
    head = torch.nn.Linear(hidden, outputs)
    head.load_state_dict(weights)
    head.eval()
    return tokenizer, encoder, head, training


def weights_fingerprint(folder: Path) -> str:
    """Return a fingerprint of a trained model's weights: sha256 of its safetensors, 16 hex."""
    digest = hashlib.sha256()
    for name in WEIGHT_FILES:
        path = folder / name
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def pair_logits(
    model: tuple[Any, Any, Any],
    first: Sequence[str],
    second: Sequence[str],
    *,
    max_length: int,
    batch_size: int,
    pool: Pool = _mean_of_batch,
) -> list[list[float]]:
    """Return the head's logits per (first, second) pair, in the caller's order.

    Pairs are run in order of length, so a batch pads to its own longest pair and not to
    the longest of all.

    Args:
        model: (tokenizer, encoder, head).
        first: The first text of each pair (the evidence).
        second: The second text of each pair (the claim, or question + claim).
        max_length: Tokens per pair; longer pairs lose tokens ("longest_first").
        batch_size: Pairs per forward pass.
        pool: How token states become the head's input (default: the mean over the
            attention mask).
    """
    import torch

    tokenizer, encoder, head = model
    order = sorted(range(len(first)), key=lambda i: len(first[i]) + len(second[i]))
    out: list[list[float]] = [[] for _ in order]
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        batch = tokenizer(
            [first[i] for i in rows],
            [second[i] for i in rows],
            truncation="longest_first",
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        )
        with torch.no_grad():
            hidden = encoder(**batch).last_hidden_state
            logits = head(pool(hidden, batch))
        for i, row in zip(rows, logits, strict=True):
            out[i] = [float(v) for v in row]
    return out


@dataclass(frozen=True)
class PairReading:
    """How a cross-encoder judge reads (evidence, claim) pairs."""

    max_length: int = 192
    """Tokens per (evidence window, question + claim) pair; longer pairs lose evidence
    tokens from the end."""
    batch_size: int = 16
    """Pairs per forward pass."""
    max_evidence_chars: int = 20_000
    """Evidence text read per evidence item (the rest is ignored)."""
    window_chars: int = 600
    """Evidence longer than this is read in windows of whole sentences of about this size
    (one sentence of overlap) and the best window counts, so a long reference is read
    whole, not cut at `max_length`."""

    def pairs(self, queries: Sequence[SupportQuery]) -> list[tuple[int, int, str]]:
        """Return (query index, evidence index, window) for every window it reads."""
        return windowed_pairs(queries, self.max_evidence_chars, self.window_chars)

    def logits(
        self,
        model: tuple[Any, Any, Any],
        first: Sequence[str],
        second: Sequence[str],
        pool: Pool | None = None,
    ) -> list[list[float]]:
        """Return the head's logits per (first, second) pair (`pair_logits`), in order."""
        return pair_logits(
            model,
            first,
            second,
            max_length=self.max_length,
            batch_size=self.batch_size,
            pool=pool or _mean_of_batch,
        )


DEFAULT_READING = PairReading()
