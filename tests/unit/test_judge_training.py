"""The torch-only trainer helpers agree with the judge that reads their weights."""

from __future__ import annotations

from pathlib import Path

import torch

from benchmarks import judge_training
from veriloop.nodes import judges


def test_training_pools_and_inference_pool_alike_in_the_same_class_order() -> None:
    hidden = torch.randn(3, 7, 5)
    mask = torch.tensor([[1] * 7, [1] * 4 + [0] * 3, [1] + [0] * 6])
    assert torch.allclose(
        judge_training.mean_pooled(hidden, mask), judges.mean_pooled(hidden, mask)
    )
    # a padded position must not move the mean
    assert torch.allclose(judge_training.mean_pooled(hidden, mask)[2], hidden[2, 0])
    assert judge_training.THREE_WAY == tuple(judges.THREE_WAY)


def test_pools_written_are_read_back_with_their_notes(tmp_path: Path) -> None:
    pools = {
        "general": [("an evidence", "a claim", frozenset({0}), "snli")],
        "polarity": [("an evidence", "not a claim", frozenset({1, 2}), "cannot")],
    }
    path = tmp_path / "pools.json.xz"
    judge_training.write_pools(path, pools, {"data_fingerprint": "x"})
    read, meta = judge_training.read_pools(path)
    assert read == pools and meta == {"data_fingerprint": "x"}
