"""Sentence embeddings: sentence-transformers locally, or any LangChain `Embeddings`."""

from __future__ import annotations

import os
import threading
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
