"""Datasets the harness can load, by name, with their default split."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.evaluation.items import Item, with_unique_ids
from veriloop.evaluation.loaders.choice import load_commonsenseqa, load_medqa
from veriloop.evaluation.loaders.claims import load_claims
from veriloop.evaluation.loaders.halueval import load_halueval
from veriloop.evaluation.loaders.healthver import load_healthver
from veriloop.evaluation.loaders.liveqa import load_liveqa2017
from veriloop.evaluation.loaders.mashqa import load_mashqa
from veriloop.evaluation.loaders.mediqa import load_mediqa2019
from veriloop.evaluation.loaders.medquad import load_medquad
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa
from veriloop.evaluation.loaders.truthfulqa import load_truthfulqa


@dataclass(frozen=True)
class DatasetSpec:
    """How to load one dataset."""

    name: str
    loader: Callable[[Path, str], list[Item]]
    default_split: str
    splits: tuple[str, ...]


DATASETS: dict[str, DatasetSpec] = {
    "pubmedqa": DatasetSpec("pubmedqa", load_pubmedqa, "test", ("test", "dev", "all")),  # type: ignore[arg-type]
    "medquad": DatasetSpec("medquad", load_medquad, "sample", ("sample", "all", "xml")),
    "healthver": DatasetSpec("healthver", load_healthver, "dev", ("dev", "test")),  # type: ignore[arg-type]
    "mediqa2019": DatasetSpec(
        "mediqa2019", load_mediqa2019, "validation", ("validation", "train", "all")
    ),
    "liveqa2017": DatasetSpec("liveqa2017", load_liveqa2017, "test", ("test",)),
    "mashqa": DatasetSpec("mashqa", load_mashqa, "test", ("train", "val", "test")),
    "truthfulqa": DatasetSpec("truthfulqa", load_truthfulqa, "mc", ("mc", "generation")),
    "halueval": DatasetSpec("halueval", load_halueval, "qa", ("qa", "general")),
    "medqa": DatasetSpec("medqa", load_medqa, "test", ("test", "dev", "train")),
    "commonsenseqa": DatasetSpec("commonsenseqa", load_commonsenseqa, "dev", ("dev", "train")),
    "scifact": DatasetSpec("scifact", load_claims, "dev", ("train", "dev", "test")),
    "citation_integrity": DatasetSpec(
        "citation_integrity",
        lambda path, split: load_claims(path, split, "citation_integrity"),
        "dev",
        ("train", "dev", "test"),
    ),
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
    return with_unique_ids(spec.loader(Path(data_dir), chosen))
