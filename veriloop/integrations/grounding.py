"""One answer checked against its contexts, for the evaluation tools people already run.

The RAGAS and DeepEval metrics (`veriloop.integrations.ragas`, `.deepeval`) are thin
shapes over `GroundingChecker`: the verify engine's check of one row (each answer sentence
a claim, judged against the contexts by the three-way judge and its rules; offline, no
LLM, no network), read as a faithfulness-shaped score with a reason:

- `score`: the share of the answer's claims the contexts support (contradicted claims are
  not supported, and are counted apart in `contradicted`);
- `verdict`: the row's verdict (supported / hallucinated / undetermined), or "unusable"
  when the row cannot be checked (no answer, no context): then `score` is 0.0 and
  `reason` says what was missing. Never NaN.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from veriloop.context import resolve_context
from veriloop.graphs.factored_verification import FactoredVerificationContext
from veriloop.verify.claims import DEFAULT_MAX_CLAIMS, BatchSettings, check_settings
from veriloop.verify.rows import RowError, rows_from
from veriloop.verify.run import check_chunk, judge_fingerprint, row_fingerprint

QUOTE_CHARS = 160
"""How much of a claim or a source sentence a reason quotes."""


@dataclass(frozen=True)
class GroundingFinding:
    """One answer's check: its score, verdict, claims and a reason a person can read."""

    score: float
    verdict: str
    reason: str
    claims: list[dict[str, Any]] = field(default_factory=list)
    supported: int = 0
    contradicted: int = 0
    unsupported: int = 0

    def as_dict(self) -> dict[str, Any]:
        """Return the finding as plain data (a table row, a JSON line)."""
        return {
            "score": self.score,
            "verdict": self.verdict,
            "reason": self.reason,
            "supported_claims": self.supported,
            "contradicted_claims": self.contradicted,
            "unsupported_claims": self.unsupported,
            "claims": self.claims,
        }


class GroundingChecker:
    """Checks one answer at a time with the verify engine's judge, loaded once.

    Thread-safe: the metrics' async scoring runs checks in worker threads, one at a time
    (the judge is one model; two cores gain nothing from running it twice at once).
    """

    def __init__(self, max_windows: int = 2, **settings: Any) -> None:
        """Build the checker.

        Args:
            max_windows: Context windows each claim is judged against (0: all of them).
            **settings: Factored Verification settings, as for `veriloop.check`
                (`threshold`, `supported_at`, `contradicted_at`, `verifier`, ...).

        Raises:
            InvalidInputError: An unknown setting, or a verifier a batch cannot run.
        """
        given = {"max_claims": DEFAULT_MAX_CLAIMS, **settings, "sentences_as_claims": True}
        context = resolve_context({**given, "max_revisions": 0}, FactoredVerificationContext)
        self.settings = BatchSettings(context=context, chunk_rows=1, max_windows=max_windows)
        check_settings(self.settings)
        self._lock = threading.Lock()
        self._judge: str | None = None

    def check(
        self, answer: str | None, contexts: Sequence[str] | None, question: str = ""
    ) -> GroundingFinding:
        """Check one answer against its contexts; an unusable row is a finding, not an error."""
        record = {"answer": answer or "", "sources": list(contexts or []), "question": question}
        row = next(iter(rows_from([record])))
        if isinstance(row, RowError):
            return GroundingFinding(0.0, "unusable", f"not checked: {row.field}: {row.message}")
        with self._lock:
            if self._judge is None:
                self._judge = judge_fingerprint(self.settings.context)
            (result,) = check_chunk(
                [row], [row_fingerprint(row, self.settings, self._judge)], self.settings
            )
        return finding_of(result)


def shared_checker(
    max_windows: int = 2, settings: dict[str, Any] | None = None
) -> GroundingChecker:
    """Return the process's checker for these settings (the judge loads once per process).

    Metric objects are copied by the tools that run them (DeepEval copies a metric per
    test case); they hold their settings and reach the judge through here.
    """
    return _checker_for(max_windows, json.dumps(settings or {}, sort_keys=True, default=str))


@lru_cache(maxsize=8)
def _checker_for(max_windows: int, settings: str) -> GroundingChecker:
    return GroundingChecker(max_windows=max_windows, **json.loads(settings))


def finding_of(record: dict[str, Any]) -> GroundingFinding:
    """Return the finding a verify result record says (score, verdict, reason)."""
    claims = list(record.get("claims", []))
    if not claims:
        return GroundingFinding(0.0, "unusable", "not checked: the answer holds no sentence")
    counts = {name: sum(c.get("verdict") == name for c in claims) for name in _VERDICTS}
    score = counts["supported"] / len(claims)
    return GroundingFinding(
        score=round(score, 6),
        verdict=str(record.get("verdict")),
        reason=reason_of(claims, counts),
        claims=claims,
        supported=counts["supported"],
        contradicted=counts["contradicted"],
        unsupported=counts["unsupported"],
    )


_VERDICTS = ("supported", "contradicted", "unsupported")


def reason_of(claims: Sequence[dict[str, Any]], counts: dict[str, int]) -> str:
    """Return why: how many claims the contexts back, and each they do not, with its source."""
    head = f"{counts['supported']} of {len(claims)} claims supported by the contexts"
    if counts["contradicted"]:
        head += f", {counts['contradicted']} contradicted"
    lines = [head + "."]
    for claim in claims:
        verdict = claim.get("verdict")
        if verdict == "supported":
            continue
        said = _quote(claim.get("evidence_sentence") or claim.get("evidence_span") or "")
        where = claim.get("evidence_index")
        source = f"context {where + 1}" if isinstance(where, int) else "the contexts"
        p = claim.get("p_supported")
        score = f"P(supported) {p:.2f}" if isinstance(p, int | float) else "not judged"
        if verdict == "contradicted":
            mismatch = "; ".join(str(m.get("reason", "")) for m in claim.get("mismatches", []))
            detail = f" ({mismatch})" if mismatch.strip("; ") else ""
            lines.append(
                f'- contradicted: "{_quote(claim["claim"])}" — {source} says "{said}"{detail}'
            )
        else:
            closest = f'; closest in {source}: "{said}"' if said else ""
            lines.append(f'- unsupported ({score}): "{_quote(claim["claim"])}"{closest}')
    return "\n".join(lines)


def _quote(text: str) -> str:
    """Return text shortened to `QUOTE_CHARS` on one line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…"
