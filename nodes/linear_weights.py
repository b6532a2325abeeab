"""The files of a bundled linear classifier over MiniLM embeddings, and its probabilities.

The question-type classifier (`nodes.question_type`) and the unit-type classifier
(`nodes.unit_type`) are both a multinomial logistic regression trained by a script in
benchmarks/: its weights in `weights.npz` (`coef`, `intercept`), everything else
(classes, the encoder's name, what it was trained on and measured at) in
`training.json`. One reader, one writer and one softmax for both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veriloop.errors import InvalidInputError

WEIGHTS = "weights.npz"
NOTES = "training.json"


@dataclass(frozen=True)
class LinearWeights:
    """A trained classifier's weights and its training notes."""

    classes: tuple[str, ...]
    coef: npt.NDArray[np.float32]
    intercept: npt.NDArray[np.float32]
    encoder: str
    """The embedding model the classifier reads (the bundled MiniLM)."""
    notes: dict[str, Any]
    """training.json as written ({} for weights built in code)."""

    @classmethod
    def read(cls, folder: Path, what: str, trainer: str) -> LinearWeights:
        """Read the classifier in `folder` (`what` and `trainer` name it in the error).

        Raises:
            InvalidInputError: The folder holds no classifier.
        """
        weights, meta = folder / WEIGHTS, folder / NOTES
        if not weights.is_file() or not meta.is_file():
            raise InvalidInputError(f"no {what} classifier in {folder}; train one with {trainer}")
        arrays = np.load(weights)
        notes = json.loads(meta.read_text(encoding="utf-8"))
        return cls(
            classes=tuple(notes["classes"]),
            coef=np.asarray(arrays["coef"], dtype=np.float32),
            intercept=np.asarray(arrays["intercept"], dtype=np.float32),
            encoder=str(notes["encoder"]),
            notes=notes,
        )

    def probabilities(self, vectors: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Return P(class) per row of embeddings, in `classes` order (rows sum to 1)."""
        return probabilities(vectors, self.coef, self.intercept)


def probabilities(
    vectors: npt.NDArray[Any], coef: npt.NDArray[Any], intercept: npt.NDArray[Any]
) -> npt.NDArray[np.float64]:
    """Return P(class) per row of embeddings under a linear classifier (rows sum to 1)."""
    logits = np.asarray(vectors, dtype=np.float64) @ coef.T.astype(np.float64)
    logits += intercept.astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def write_weights(
    folder: Path, coef: npt.NDArray[Any], intercept: npt.NDArray[Any], notes: dict[str, Any]
) -> None:
    """Write a trained classifier (float32 weights) and its notes where `LinearWeights` reads."""
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        folder / WEIGHTS, coef=coef.astype(np.float32), intercept=intercept.astype(np.float32)
    )
    (folder / NOTES).write_text(json.dumps(notes, indent=2) + "\n", encoding="utf-8")
