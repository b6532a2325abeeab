"""Datasets the harness can load, by name, with their default split."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.evaluation.items import Item
from veriloop.evaluation.loaders.healthver import load_healthver
from veriloop.evaluation.loaders.medquad import load_medquad
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa


@dataclass(frozen=True)
class DatasetSpec:
    """How to load one dataset."""

    name: str
    loader: Callable[[Path, str], list[Item]]
    default_split: str
    splits: tuple[str, ...]


DATASETS: dict[str, DatasetSpec] = {
    "pubmedqa": DatasetSpec("pubmedqa", load_pubmedqa, "test", ("test", "all")),  # type: ignore[arg-type]
    "medquad": DatasetSpec("medquad", load_medquad, "sample", ("sample", "all", "xml")),
    "healthver": DatasetSpec("healthver", load_healthver, "dev", ("dev", "test")),  # type: ignore[arg-type]
}


def load_dataset(name: str, data_dir: Path, split: str | None = None) -> list[Item]:
    """Load dataset `name` from `data_dir`.

    Raises:
        InvalidInputError: Unknown dataset or split.
        DatasetError: Missing or malformed files.
    """
    spec = DATASETS.get(name)
    if spec is None:
        raise InvalidInputError(f"unknown dataset {name!r}; choose one of: {', '.join(DATASETS)}")
    chosen = split or spec.default_split
    if chosen not in spec.splits:
        raise InvalidInputError(
            f"dataset {name} has no split {chosen!r}; choose one of: {', '.join(spec.splits)}"
        )
    return spec.loader(Path(data_dir), chosen)
