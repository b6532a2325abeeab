"""`YesNoJudge`: the scorer model's Yes/No probability.

P(" Yes") / (P(" Yes") + P(" No")) after Factored
Verification's prompt (what FV used first; near chance on SmolLM2-135M).
"""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.models import Models, ScoreError
from veriloop.nodes.judges.evidence import clip
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportQuery,
    SupportVerdict,
    check_queries,
    unusable,
)
from veriloop.nodes.scorers import yes_no_probability
from veriloop.prompts import load_prompt, render
from veriloop.trace import ModelCall


class YesNoJudge:
    """The scorer's normalised P(Yes) after Factored Verification's verification prompt."""

    def __init__(self, models: Models, *, max_evidence_chars: int = 800) -> None:
        """Judge with `models.scorer`."""
        self.models = models
        self.max_evidence_chars = max_evidence_chars
        self.name = f"P(Yes)/(P(Yes)+P(No)) on {models.scorer.name}"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the most supportive evidence text's P(Yes)."""
        check_queries(queries)
        demos = load_prompt("factored_verification_verify_demos").strip()
        calls: list[ModelCall] = []
        verdicts: list[SupportVerdict] = []
        for query in queries:
            best: SupportVerdict | None = None
            try:
                for index, text in enumerate(query.evidence):
                    document = clip(text, self.max_evidence_chars)
                    if not document:
                        continue
                    prompt = render(
                        "factored_verification_verify",
                        demos=demos,
                        number=5,
                        document=document,
                        claim=query.claim,
                    )
                    reading = yes_no_probability(self.models, prompt, purpose="support_yes")
                    calls.extend(reading.calls)
                    if best is None or reading.probability > (best["probability"] or 0.0):
                        best = SupportVerdict(
                            probability=round(reading.probability, 6),
                            evidence_index=index,
                            evidence_span=document,
                            scores=reading.scores(),
                            error=None,
                        )
            except ScoreError as exc:
                best = unusable(f"cannot score the claim: {exc}")
            verdicts.append(best or unusable("no evidence text left to score"))
        return verdicts, calls
