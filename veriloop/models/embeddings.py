"""Sentence embeddings: sentence-transformers locally, or any LangChain `Embeddings`."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt


class Embedder(Protocol):
    """Anything that turns texts into unit-length vectors."""

    name: str

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Return one L2-normalised row per text."""
        ...


def normalise_rows(vectors: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Scale each row to unit length (zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1.0, norms), dtype=np.float32)


MEMO_TEXTS = 20_000
"""Texts whose vectors an `EmbeddingMemo` keeps (384 floats each for MiniLM: about 30 MB;
each row is a copy, so no batch is held by one of its rows)."""


class EmbeddingMemo:
    """The vectors of the texts embedded last, so a text is not embedded again.

    The grounded default embeds the same texts again and again: a question's candidate
    passages for each part it asks, a page's units for the type test and then for the
    ranking, the pages of one subject for every question about it in a batch. Keyed by the
    embedder (the object, and its name) and the text, least recently used dropped past
    `MEMO_TEXTS`; thread-safe (two threads missing the same text at once may both embed
    it). A kept vector is the one the text got in the batch that first embedded it: a
    batch pads its texts, and its attention mask keeps the padding out up to float noise,
    so a score at a threshold's edge can differ in the last digits from a fresh batch's.
    """

    def __init__(self, size: int = MEMO_TEXTS) -> None:
        """Keep at most `size` vectors."""
        self.size = size
        self._vectors: OrderedDict[tuple[str, str], npt.NDArray[np.float32]] = OrderedDict()
        """(embedder key, text) -> a copy of its row."""
        self._lock = threading.Lock()

    def vectors(
        self, name: str, texts: list[str], embed: Callable[[list[str]], npt.NDArray[np.float32]]
    ) -> tuple[npt.NDArray[np.float32], bool]:
        """Return one row per text, embedding (with `embed`) only the texts not kept.

        `name` keys the embedder: callers pass its object id with its name, so a swapped or
        rebuilt embedder never gets another's vectors.

        Returns:
            The rows, and whether every text was kept (nothing was embedded).
        """
        if not texts:
            return embed(texts), False
        with self._lock:
            kept = {t: self._vectors[(name, t)] for t in texts if (name, t) in self._vectors}
            for text in kept:
                self._vectors.move_to_end((name, text))
        missing = list(dict.fromkeys(t for t in texts if t not in kept))
        if missing:
            new = embed(missing)
            with self._lock:
                for text, row in zip(missing, new, strict=True):
                    row = np.array(row, dtype=np.float32)  # a copy: not a view of the batch
                    kept[text] = row
                    self._vectors[(name, text)] = row
                    self._vectors.move_to_end((name, text))
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        return np.stack([kept[t] for t in texts]), not missing


class SentenceTransformerEmbedder:
    """sentence-transformers on a local model directory or name, on the CPU, no hub access."""

    def __init__(self, model: Path | str, *, name: str | None = None) -> None:
        """Load the model; a local directory is read with the hub switched off."""
        if Path(model).is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

        self.name = name or f"sentence-transformers:{Path(model).name}"
        self._model = SentenceTransformer(str(model), device="cpu")
        # One encode at a time: torch already spreads one batch over every core, and
        # concurrent calls from benchmark workers oversubscribe the CPU (measured: 16
        # workers against a served model went from 79% to 85% of linear with the lock).
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Return one L2-normalised row per text."""
        with self._lock:
            vectors = self._model.encode(
                texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32)


class LangChainEmbedder:
    """Adapter for any LangChain `Embeddings` (served models, fakes)."""

    def __init__(self, embeddings: Any, *, name: str | None = None) -> None:
        """Wrap `embeddings`, an object with `embed_documents`."""
        self.name = name or f"langchain:{type(embeddings).__name__}"
        self._embeddings = embeddings

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Return one L2-normalised row per text."""
        return normalise_rows(self._embeddings.embed_documents(texts))
