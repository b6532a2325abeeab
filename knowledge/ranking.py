"""Top-k by cosine: the nearest rows of a vector table to a query vector."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def rank_rows(
    rows: Sequence[int],
    triplet_vectors: npt.NDArray[np.float32],
    query_vector: npt.NDArray[np.float32],
    k: int,
) -> list[tuple[int, float]]:
    """Return the `k` of `rows` whose vectors are nearest the query, with their cosines.

    The vectors are unit length (MiniLM's), so a dot product is the cosine; ties keep
    the order of `rows`.
    """
    if not rows:
        return []
    chosen = np.asarray(rows, dtype=np.int64)
    cosines = triplet_vectors[chosen] @ query_vector
    order = np.argsort(-cosines, kind="stable")[:k]
    return [(int(chosen[i]), float(cosines[i])) for i in order]
