"""A text is embedded once per process: the memo behind `Models.embed`."""

from __future__ import annotations

import numpy as np

from veriloop.models.embeddings import EmbeddingMemo
from veriloop.models.fakes import fake_models


class Counting:
    """An embedder that records every batch it is asked for."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_only_texts_not_embedded_before_are_embedded() -> None:
    memo, embed = EmbeddingMemo(), Counting()
    first, cached = memo.vectors("m", ["a", "bb", "a"], embed)
    assert not cached and embed.batches == [["a", "bb"]]  # each text once
    assert first.tolist() == [[1.0, 1.0], [2.0, 1.0], [1.0, 1.0]]
    again, cached = memo.vectors("m", ["bb", "ccc"], embed)
    assert not cached and embed.batches[-1] == ["ccc"]
    assert again.tolist() == [[2.0, 1.0], [3.0, 1.0]]
    assert memo.vectors("m", ["ccc", "a"], embed)[1] is True  # nothing embedded
    assert len(embed.batches) == 2
    memo.vectors("other model", ["a"], embed)  # another embedder's vectors are its own
    assert embed.batches[-1] == ["a"]


def test_the_least_recently_used_text_is_dropped_past_the_size() -> None:
    memo, embed = EmbeddingMemo(size=2), Counting()
    memo.vectors("m", ["a", "bb"], embed)
    memo.vectors("m", ["a"], embed)  # "a" used last
    memo.vectors("m", ["ccc"], embed)  # "bb" dropped
    memo.vectors("m", ["a", "bb"], embed)
    assert embed.batches[-1] == ["bb"]


def test_kept_rows_are_copies_not_views_of_their_batch() -> None:
    memo, embed = EmbeddingMemo(), Counting()
    batch, _ = memo.vectors("m", ["a", "bb"], embed)
    batch[0, 0] = 99.0  # the caller's array is its own
    again, _ = memo.vectors("m", ["a"], embed)
    assert again.tolist() == [[1.0, 1.0]] and again[0].base is not batch


def test_models_embed_each_text_once_and_never_with_another_embedders_vectors() -> None:
    models = fake_models([], vectors={"x": [1.0, 0.0], "y": [0.0, 1.0]}, dim=2)
    seen: list[list[str]] = []
    inner = models.embedder.embed
    models.embedder.embed = lambda texts: seen.append(list(texts)) or inner(texts)  # type: ignore[method-assign]
    models.embed(["x", "y"], purpose="rerank")
    vectors, call = models.embed(["y", "x"], purpose="rerank")
    assert seen == [["x", "y"]] and vectors.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert call["cached"] is False  # `cached` is the on-disk model-call cache's
    # a new embedder under the same name embeds afresh
    models.embedder = fake_models([], vectors={"x": [0.0, 1.0]}, dim=2).embedder
    assert models.embed(["x"], purpose="rerank")[0].tolist() == [[0.0, 1.0]]
