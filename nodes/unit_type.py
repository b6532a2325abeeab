"""Which question type a passage unit answers: MedQuAD's types, read by a classifier.

The classifier (`nodes/data/unit_type/`, trained by benchmarks/train_unit_type.py on the
quotable units of MedQuAD's typed answers, each labelled with its answer's type) is a
logistic regression over the bundled all-MiniLM-L6-v2 embedding of the unit. Where the
subject's pages hold no passage of the asked type, a unit of its other pages is about the
asked type when the classifier gives that type enough probability, less when the unit
holds one of the type's cue stems (`is_about`, at each type's thresholds fitted on
held-out foci; used by `nodes.answer_units.TypeTest`): "If your child isn't old enough to
say 'My ear hurts,' here are a few things to look for: tugging at ears; ..." lists ear
infection symptoms without the word. A list is read whole (its lead-in and items), as it
is quoted. Recall and precision per type on held-out foci, beside the cue stems', are in
`training.json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veriloop.nodes.linear_weights import LinearWeights

UNIT_TYPE_DIR = Path(__file__).parent / "data" / "unit_type"


def is_about(probability: float, has_cue: bool, alone_at: float, with_cue_at: float) -> bool:
    """Tell whether a unit is about a type, from the classifier's probability and its cue.

    It is when the probability reaches `alone_at`, or `with_cue_at` and the unit holds one
    of the type's cue stems: the words are evidence too ("Cervical cancer is caused by a
    virus called HPV"), but the meaning can pass a unit without them ("here are a few
    things to look for: tugging at ears; ..." for ear infection symptoms).
    """
    return probability >= alone_at or (has_cue and probability >= with_cue_at)


@dataclass(frozen=True)
class UnitTypeClassifier:
    """The trained unit-type classifier."""

    weights: LinearWeights
    thresholds: dict[str, tuple[float, float]]
    """Each type's (alone_at, with_cue_at) for `is_about`, fitted on held-out foci."""

    @property
    def encoder(self) -> str:
        """Return the embedding model the classifier reads (the bundled MiniLM)."""
        return self.weights.encoder

    @classmethod
    def load(cls, folder: Path = UNIT_TYPE_DIR) -> UnitTypeClassifier:
        """Read a classifier written by benchmarks/train_unit_type.py.

        Raises:
            InvalidInputError: The folder holds no classifier.
        """
        read = LinearWeights.read(folder, "unit-type", "benchmarks/train_unit_type.py")
        thresholds = read.notes["thresholds"]
        return cls(read, {t: (float(a), float(c)) for t, (a, c) in thresholds.items()})

    def probability(self, qtype: str, vectors: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Return P(`qtype`) for each row of unit embeddings (0 for a type it lacks)."""
        classes = self.weights.classes
        if qtype not in classes:
            return np.zeros(len(vectors))
        return self.weights.probabilities(vectors)[:, classes.index(qtype)]

    def about(self, qtype: str, probability: float, has_cue: bool) -> bool:
        """Tell whether a unit is about `qtype` (`is_about` at the type's thresholds)."""
        if qtype not in self.thresholds:
            return False
        return is_about(probability, has_cue, *self.thresholds[qtype])


@cache
def unit_types() -> UnitTypeClassifier:
    """Return the bundled classifier (read once per process)."""
    return UnitTypeClassifier.load()
