"""`HeadJudge`: the MiniLM pair-feature MLP head (`nodes.judges.nli.EmbeddingNLI`), P(supports)."""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.models import Models
from veriloop.nodes.judges.evidence import (
    best_per_query,
    evidence_pairs,
)
from veriloop.nodes.judges.nli import EmbeddingNLI, pair_features
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportQuery,
    check_queries,
)


class HeadJudge:
    """The MiniLM pair-feature MLP head's probability of "supports" (for comparison)."""

    def __init__(self, models: Models, *, max_evidence_chars: int = 800) -> None:
        """Judge with the shipped head over `models.embedder`."""
        self.nli = EmbeddingNLI(models)
        self.models = models
        self.max_evidence_chars = max_evidence_chars
        self.name = f"MiniLM pair-feature MLP head on {models.embedder.name}"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the highest P(supports) over its evidence texts."""
        check_queries(queries)
        pairs = evidence_pairs(queries, self.max_evidence_chars)
        features = pair_features(
            self.models, [p[2] for p in pairs], [queries[p[0]].claim for p in pairs]
        )
        rows = self.nli.probabilities(features)  # classes: refutes, neutral, supports
        scored = [
            (float(r[2]), {"refutes": float(r[0]), "neutral": float(r[1]), "supports": float(r[2])})
            for r in rows
        ]
        return best_per_query(len(queries), pairs, scored), []
