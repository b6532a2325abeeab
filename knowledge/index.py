"""FAISS vector indexes on unit vectors: exact (flat) and approximate (HNSW).

Both use the L2 metric, so a search reports squared Euclidean distances; on unit vectors
d = ||a - b||^2 = 2 - 2 cos(a, b), in [0, 4], which is what the L2R reference's
`IndexFlatL2` reports and what its refusal threshold alpha is set on.

- `flat` (`IndexFlatL2`): exact, no training, O(n) per query. The default; fine to ~100k.
- `hnsw` (`IndexHNSWFlat`): a navigable small-world graph, sub-millisecond queries at 1M
  with recall@4 measured in `benchmarks/knowledge_base_scale.py`. `ef_search` trades
  speed for recall at query time; `m` and `ef_construction` are fixed at build.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from veriloop.errors import InvalidInputError

if TYPE_CHECKING:
    import faiss  # imported where an index is made or read: `--help` need not load FAISS

IndexKind = Literal["flat", "hnsw"]
INDEX_KINDS: tuple[IndexKind, ...] = ("flat", "hnsw")


@dataclass(frozen=True)
class IndexSpec:
    """Which FAISS index to build and its parameters."""

    kind: IndexKind = "flat"
    hnsw_m: int = 32
    """HNSW: neighbours per node (memory and recall grow with it)."""
    ef_construction: int = 80
    """HNSW: candidate-list size while building."""
    ef_search: int = 64
    """HNSW: candidate-list size per query (recall vs latency)."""

    def to_json(self) -> dict[str, Any]:
        """Return the spec as a JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IndexSpec:
        """Rebuild a spec saved with `to_json`.

        Raises:
            InvalidInputError: The kind is unknown.
        """
        kind = data.get("kind", "flat")
        if kind not in INDEX_KINDS:
            raise InvalidInputError(f"unknown index kind {kind!r}; use one of {INDEX_KINDS}")
        return cls(
            kind=kind,
            hnsw_m=int(data.get("hnsw_m", 32)),
            ef_construction=int(data.get("ef_construction", 80)),
            ef_search=int(data.get("ef_search", 64)),
        )


def new_index(dim: int, spec: IndexSpec) -> faiss.Index:
    """Return an empty index of `dim` dimensions as `spec` describes."""
    import faiss

    if spec.kind == "flat":
        return faiss.IndexFlatL2(dim)
    index = faiss.IndexHNSWFlat(dim, spec.hnsw_m, faiss.METRIC_L2)
    index.hnsw.efConstruction = spec.ef_construction
    index.hnsw.efSearch = spec.ef_search
    return index


def build_index(vectors: npt.NDArray[np.float32], spec: IndexSpec) -> faiss.Index:
    """Return an index of `spec`'s kind holding `vectors` (rows in order: id = row)."""
    index = new_index(int(vectors.shape[1]), spec)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def search(
    index: faiss.Index, queries: npt.NDArray[np.float32], k: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """Return squared-L2 distances and row numbers of the `k` nearest rows per query.

    Rows missing when the index holds fewer than `k` vectors are -1 and are the caller's
    to drop.
    """
    if k < 1:
        raise InvalidInputError(f"k must be at least 1, got {k}")
    distances, rows = index.search(np.ascontiguousarray(queries, dtype=np.float32), k)
    return distances, rows


def write_index(index: faiss.Index, path: Path) -> None:
    """Write an index in FAISS's own binary format (no pickle)."""
    import faiss

    faiss.write_index(index, str(path))


def read_index(path: Path, spec: IndexSpec) -> faiss.Index:
    """Read an index written by `write_index`, applying query-time parameters."""
    import faiss

    index = faiss.read_index(str(path))
    if spec.kind == "hnsw":
        hnsw: Any = faiss.downcast_index(index)
        hnsw.hnsw.efSearch = spec.ef_search
    return index
