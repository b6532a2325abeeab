"""What the judge trainers share, importable with torch alone (no veriloop, no LangChain).

The polarity trainer runs where veriloop's stack is not installed (a lent GPU machine holds
PyTorch and transformers, nothing else): everything its training loop needs lives here,
and the data comes as one pools file (`write_pools` / `read_pools`) built beforehand where
`../shared/data` is. `mean_pooled` and `THREE_WAY` must equal veriloop's inference-side
definitions (`veriloop.nodes.judges`); `tests/unit/test_judge_training.py` holds them
equal.
"""

from __future__ import annotations

import json
import lzma
import platform
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

THREE_WAY = ("entailed", "neither", "contradicted")
"""The three-way head's classes, in the order of its outputs."""

Example = tuple[str, str, frozenset[int], str]
"""(evidence, hypothesis, allowed classes, source)."""

POOLS_FORMAT = 1


def mean_pooled(hidden: Any, attention_mask: Any) -> Any:
    """Return the mean of the token states where `attention_mask` is 1 (MiniLM's pooling)."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)


def allowed_loss(logits: Any, allowed: Any) -> Any:
    """Return the mean of -log P(a class the label allows): log-sum-exp over the allowed."""
    masked = logits.masked_fill(~allowed, float("-inf"))
    return (torch.logsumexp(logits, dim=-1) - torch.logsumexp(masked, dim=-1)).mean()


def run_notes(
    losses: list[float], seconds: float, threads: int, device: str = "cpu"
) -> dict[str, Any]:
    """Return what a training.json records of a run: the loss curve, time and machine."""
    return {
        "final_loss_mean_last_50": sum(losses[-50:]) / max(1, len(losses[-50:])),
        "loss_every_50_steps": [
            round(sum(losses[i : i + 50]) / len(losses[i : i + 50]), 4)
            for i in range(0, len(losses), 50)
        ],
        "seconds": round(seconds, 1),
        "threads": threads,
        "device": device,
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }


def save_weights(folder: Path, model: Any, head: Any, notes: dict[str, Any]) -> None:
    """Write a judge as `nodes/data/three_way_judge` holds it (fp16 layers, head, json).

    The embeddings are left out: they are frozen in training and read from the bundled
    all-MiniLM-L6-v2 at inference.
    """
    folder.mkdir(parents=True, exist_ok=True)
    layers = {
        n: p.detach().to("cpu", torch.float16).contiguous()
        for n, p in model.state_dict().items()
        if not n.startswith("embeddings.")
    }
    save_file(layers, str(folder / "encoder.safetensors"))
    save_file(
        {k: v.detach().to("cpu").contiguous() for k, v in head.state_dict().items()},
        str(folder / "head.safetensors"),
    )
    (folder / "training.json").write_text(json.dumps(notes, indent=2) + "\n")


def write_pools(path: Path, pools: dict[str, list[Example]], meta: dict[str, Any]) -> None:
    """Write named pools of examples to one xz-compressed JSON file, evidence stored once.

    Args:
        path: The file to write (written whole, then renamed into place).
        pools: Name → examples (`general`, `polarity`, `select:<dev part>`).
        meta: What the reader must know (fingerprint, pairs per source, licences, ...).
    """
    texts: dict[str, int] = {}

    def index(text: str) -> int:
        return texts.setdefault(text, len(texts))

    encoded = {
        name: [[index(e), index(h), sorted(a), s] for e, h, a, s in examples]
        for name, examples in pools.items()
    }
    document = {
        "format": POOLS_FORMAT,
        "classes": list(THREE_WAY),
        "meta": meta,
        "texts": list(texts),
        "pools": encoded,
    }
    partial = path.with_name(path.name + ".partial")
    with lzma.open(partial, "wt", encoding="utf-8", preset=6) as handle:
        json.dump(document, handle, ensure_ascii=False)
    partial.replace(path)


def read_pools(path: Path) -> tuple[dict[str, list[Example]], dict[str, Any]]:
    """Return (pools, meta) as `write_pools` wrote them.

    Raises:
        SystemExit: The file is of another format or another class order.
    """
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    if document.get("format") != POOLS_FORMAT or tuple(document.get("classes", ())) != THREE_WAY:
        raise SystemExit(
            f"{path}: a pools file of another format or class order; rebuild it with "
            "benchmarks/train_polarity_judge.py --write-pools"
        )
    texts = document["texts"]
    pools = {
        name: [(texts[e], texts[h], frozenset(a), s) for e, h, a, s in rows]
        for name, rows in document["pools"].items()
    }
    return pools, document["meta"]
