"""A RAGAS metric backed by veriloop's offline judge: no LLM, no network, no NaN.

    from ragas import EvaluationDataset, evaluate
    from veriloop.integrations.ragas import VeriloopGrounding

    grounding = VeriloopGrounding()
    result = evaluate(dataset, metrics=[grounding])      # beside RAGAS's own metrics
    result.to_pandas()["veriloop_grounding"]              # share of claims supported
    grounding.explain(result)                             # + verdict, reason, counts per row

Faithfulness-shaped: each sentence of `response` is a claim judged against
`retrieved_contexts` (the verify engine's three-way judge and rules,
`veriloop.integrations.grounding`); the score is the share the contexts support.
Contradicted claims score as unsupported and are counted apart (`explain`). A row that
cannot be checked (no response, no contexts) scores 0.0 with the reason recorded, never
NaN. `user_input` is optional: with it, a one-word answer is read as an answer to it.

Needs `pip install 'veriloop[ragas]'`. Set `RAGAS_DO_NOT_TRACK=true` to keep RAGAS's own
usage analytics off (veriloop sends nothing).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

try:
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics.base import MetricType, SingleTurnMetric
except ImportError as exc:  # pragma: no cover - the message is the behaviour
    raise ImportError(
        f"veriloop.integrations.ragas needs RAGAS: pip install 'veriloop[ragas]' ({exc})"
    ) from exc

from veriloop.integrations.grounding import GroundingChecker, GroundingFinding, shared_checker

if TYPE_CHECKING:
    import pandas as pd
    from langchain_core.callbacks import Callbacks
    from ragas.run_config import RunConfig


def sample_key(response: str | None, contexts: Sequence[str] | None, question: str | None) -> str:
    """Return the key a sample's finding is kept under (its text, hashed)."""
    text = json.dumps([response or "", list(contexts or []), question or ""], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class VeriloopGrounding(SingleTurnMetric):
    """Share of the response's claims its retrieved contexts support (veriloop's judge).

    Attributes:
        name: The column the score appears under.
        settings: Factored Verification settings, as for `veriloop.check`
            (e.g. `{"supported_at": 0.6}`).
        max_windows: Context windows each claim is judged against (0: all).
        findings: Each scored sample's finding (score, verdict, reason, claims), by
            `sample_key`; `explain` reads them.
    """

    name: str = "veriloop_grounding"
    _required_columns: dict[MetricType, set[str]] = field(
        default_factory=lambda: {
            MetricType.SINGLE_TURN: {"response", "retrieved_contexts", "user_input:optional"}
        }
    )
    settings: dict[str, Any] = field(default_factory=dict)
    max_windows: int = 2
    findings: dict[str, GroundingFinding] = field(default_factory=dict, repr=False)

    def init(self, run_config: RunConfig) -> None:
        """Load the judge (once; RAGAS calls this before scoring)."""
        self.checker()

    def checker(self) -> GroundingChecker:
        """Return the checker for this metric's settings (one per process and settings)."""
        return shared_checker(self.max_windows, self.settings)

    async def _single_turn_ascore(self, sample: SingleTurnSample, callbacks: Callbacks) -> float:
        """Score one sample in a worker thread (the judge runs one check at a time)."""
        finding = await asyncio.to_thread(
            self.checker().check,
            sample.response,
            sample.retrieved_contexts,
            sample.user_input or "",
        )
        key = sample_key(sample.response, sample.retrieved_contexts, sample.user_input)
        self.findings[key] = finding
        return finding.score

    def finding(self, sample: SingleTurnSample) -> GroundingFinding:
        """Return a sample's finding, checking it now if it was not scored yet."""
        key = sample_key(sample.response, sample.retrieved_contexts, sample.user_input)
        if key not in self.findings:
            self.findings[key] = self.checker().check(
                sample.response, sample.retrieved_contexts, sample.user_input or ""
            )
        return self.findings[key]

    def explain(self, result: Any) -> pd.DataFrame:
        """Return `result.to_pandas()` with veriloop's verdict, reason and counts per row.

        Args:
            result: What `ragas.evaluate` returned with this metric among its metrics.

        Returns:
            The result's table plus `veriloop_verdict` (supported / hallucinated /
            undetermined / unusable), `veriloop_reason`, `supported_claims`,
            `contradicted_claims` and `unsupported_claims`.
        """
        table = result.to_pandas()
        found = [self.finding(sample).as_dict() for sample in result.dataset.samples]
        table["veriloop_verdict"] = [f["verdict"] for f in found]
        table["veriloop_reason"] = [f["reason"] for f in found]
        for column in ("supported_claims", "contradicted_claims", "unsupported_claims"):
            table[column] = [f[column] for f in found]
        return table
