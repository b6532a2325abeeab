"""A DeepEval metric backed by veriloop's offline judge: no LLM, no network.

    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase
    from veriloop.integrations.deepeval import VeriloopGroundingMetric

    case = LLMTestCase(input=question, actual_output=answer, retrieval_context=passages)
    assert_test(case, [VeriloopGroundingMetric(threshold=0.8)])

The score is the share of `actual_output`'s sentences that `retrieval_context` supports
(each sentence a claim, judged by the verify engine's three-way judge and rules;
`veriloop.integrations.grounding`). A case passes when the score reaches `threshold`
*and* no claim is contradicted: a sentence the context denies is a hallucination
whatever the share. `reason` names each unsupported or contradicted claim with what the
source says. A case that cannot be checked (no output, no context) scores 0.0 and fails,
with the reason saying what was missing. `context` is read when `retrieval_context` is
not given.

Needs `pip install 'veriloop[deepeval]'`. Set `DEEPEVAL_TELEMETRY_OPT_OUT=1` to keep
DeepEval's own telemetry off (veriloop sends nothing).
"""

from __future__ import annotations

import asyncio
from typing import Any

try:
    from deepeval.metrics import BaseMetric
    from deepeval.test_case import LLMTestCase, SingleTurnParams
except ImportError as exc:  # pragma: no cover - the message is the behaviour
    raise ImportError(
        f"veriloop.integrations.deepeval needs DeepEval: pip install 'veriloop[deepeval]' ({exc})"
    ) from exc

from veriloop.integrations.grounding import GroundingFinding, shared_checker


class VeriloopGroundingMetric(BaseMetric):  # type: ignore[no-untyped-call]
    """Share of the output's claims the retrieval context supports (veriloop's judge)."""

    # DeepEval's base class annotates this list as a type, hence the ignore.
    _required_params = [  # type: ignore[assignment]
        SingleTurnParams.ACTUAL_OUTPUT,
        SingleTurnParams.RETRIEVAL_CONTEXT,
    ]

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        strict_mode: bool = False,
        max_windows: int = 2,
        settings: dict[str, Any] | None = None,
        async_mode: bool = True,
        verbose_mode: bool = False,
    ) -> None:
        """Set the metric up (the judge loads on the first case, once per process).

        Args:
            threshold: The share of supported claims a case needs (and no contradiction).
            strict_mode: Every claim must be supported (threshold 1.0).
            max_windows: Context windows each claim is judged against (0: all).
            settings: Factored Verification settings, as for `veriloop.check`.
            async_mode: Let DeepEval run `a_measure` (in a worker thread).
            verbose_mode: Keep each claim's verdict in `verbose_logs`.
        """
        self.threshold = 1.0 if strict_mode else threshold
        self.strict_mode = strict_mode
        self.max_windows = max_windows
        self.settings = dict(settings or {})
        self.async_mode = async_mode
        self.verbose_mode = verbose_mode
        self.include_reason = True
        self.evaluation_model = "veriloop three-way judge (offline)"
        self.finding: GroundingFinding | None = None

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        """Check the case's output against its retrieval context; set score and reason."""
        given = test_case.retrieval_context or test_case.context or []
        contexts = [c if isinstance(c, str) else getattr(c, "context", str(c)) for c in given]
        finding = shared_checker(self.max_windows, self.settings).check(
            test_case.actual_output, contexts, test_case.input or ""
        )
        self.finding = finding
        self.score = finding.score
        self.reason = finding.reason
        self.score_breakdown = {
            "supported": finding.supported,
            "contradicted": finding.contradicted,
            "unsupported": finding.unsupported,
            "verdict": finding.verdict,
        }
        self.success = self.is_successful()
        if self.verbose_mode:
            self.verbose_logs = "\n".join(
                f"{c.get('verdict')}: {c.get('claim')}" for c in finding.claims
            )
        return self.score

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        """Run `measure` in a worker thread (the judge is CPU work, not I/O)."""
        return await asyncio.to_thread(self.measure, test_case)

    def is_successful(self) -> bool:
        """Tell whether the case passed: score >= threshold and no claim contradicted."""
        finding = self.finding
        self.success = bool(
            finding is not None
            and finding.verdict != "unusable"
            and finding.contradicted == 0
            and self.score is not None
            and self.score >= (self.threshold if self.threshold is not None else 0.5)
        )
        return self.success

    @property
    def __name__(self) -> str:
        """Return the name DeepEval shows."""
        return "Veriloop Grounding"
