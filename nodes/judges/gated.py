"""`CoverageGatedJudge` (`gated` = trained + gate): a judge gated on content coverage.

Another judge's probability, set to 0
where the evidence lacks 75% of the claim's content words (the grounded default's check and
the harness's reference check).
"""

from __future__ import annotations

from collections.abc import Sequence

from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.nodes.claims import word_coverage
from veriloop.nodes.judges.evidence import clip
from veriloop.nodes.judges.protocol import (
    Judged,
    SupportJudge,
    SupportQuery,
    SupportVerdict,
    check_queries,
    claim_verdict,
    unusable,
)


class CoverageGatedJudge:
    """Another judge's P(supported), kept only where the evidence holds the claim's words.

    Per evidence text: the inner judge's probability when that text holds at least
    `min_coverage` of the claim's content words (`content_coverage`), else 0 (and the inner
    judge is not asked, which is most of the saving on long references); the verdict is
    the best evidence text's. The inner judges here pass plausible on-topic inventions
    (docs/benchmarks/support_judges.md); the gate rejects words the evidence never says
    (invented names, numbers, drugs), at the cost of paraphrase, which it cannot tell
    from invention. Scores: the coverage, and the inner judge's probability (`inner_p`)
    where it was asked.

    The gate guards support, not denial: a text below `min_coverage` but holding at least
    `deny_coverage` of the claim's content words is still read by the inner judge, for
    its contradiction side only ("Warfarin causes hair loss in most patients" holds 67% of
    its words in "Hair loss is an uncommon side effect": too few to back it, enough to
    deny it). Such a text can make the claim contradicted, never supported.
    """

    def __init__(
        self, inner: SupportJudge, *, min_coverage: float = 0.75, deny_coverage: float = 0.5
    ) -> None:
        """Gate `inner`'s support at `min_coverage` and its denials at `deny_coverage`."""
        self.inner = inner
        self.min_coverage = min_coverage
        self.deny_coverage = min(deny_coverage, min_coverage)
        self.name = f"{getattr(inner, 'name', 'judge')} + coverage >= {min_coverage:g}"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: the best gated evidence text's probability."""
        check_queries(queries)
        # tokenise each distinct text once: a reference is read against every claim
        distinct = list(
            dict.fromkeys([q.claim for q in queries] + [e for q in queries for e in q.evidence])
        )
        words = {
            text: set(tokens)
            for text, tokens in zip(distinct, lexical_tokens(distinct), strict=True)
        }
        verdicts: list[SupportVerdict] = [unusable("no evidence") for _ in queries]
        best_coverage: list[float] = [-1.0 for _ in queries]
        asked: list[tuple[int, int, SupportQuery, float, bool]] = []
        for q_index, query in enumerate(queries):
            for e_index, text in enumerate(query.evidence):
                if not text.strip():
                    continue
                coverage = word_coverage(words[query.claim], words[text])
                value = -1.0 if coverage is None else coverage
                if coverage is not None and coverage >= self.deny_coverage:
                    asked.append(
                        (
                            q_index,
                            e_index,
                            SupportQuery(query.claim, [text], query.question),
                            coverage,
                            coverage < self.min_coverage,  # read for a denial only
                        )
                    )
                if coverage is not None and coverage >= self.min_coverage:
                    continue
                if verdicts[q_index]["error"] is not None or (
                    verdicts[q_index]["probability"] == 0.0 and value > best_coverage[q_index]
                ):
                    best_coverage[q_index] = value
                    verdicts[q_index] = SupportVerdict(
                        probability=0.0,
                        evidence_index=e_index,
                        evidence_span=clip(text, 300),
                        scores={} if coverage is None else {"coverage": round(coverage, 4)},
                        error=None,
                    )
        if not asked:
            return verdicts, []
        inner, calls = self.inner.judge([query for _, _, query, _, _ in asked])
        denials: dict[int, SupportVerdict] = {}
        for (q_index, e_index, _, coverage, deny_only), verdict in zip(asked, inner, strict=True):
            p = verdict["probability"]
            if p is None:
                continue  # a failed pair leaves the gated-out verdict (or "no evidence")
            if deny_only and verdict.get("verdict") != "contradicted":
                continue  # too little of the claim in this text to back it
            gated = SupportVerdict(
                **{
                    **verdict,
                    "probability": round(p, 6),
                    "evidence_index": e_index,
                    "scores": {
                        **verdict["scores"],
                        "inner_p": round(p, 6),
                        "coverage": round(coverage, 4),
                    },
                    "error": None,
                }
            )
            current = verdicts[q_index]["probability"]
            if not deny_only and (current is None or p > current or (p == current == 0.0)):
                verdicts[q_index] = gated
            if verdict.get("verdict") == "contradicted" and (
                q_index not in denials
                or (verdict.get("p_contradicted") or 0.0)
                > (denials[q_index].get("p_contradicted") or 0.0)
            ):
                denials[q_index] = gated
        # one rule with the three-way judge's: backed by any text wins, else denied by any
        for q_index, denial in denials.items():
            if claim_verdict(verdicts[q_index]) != "supported":
                verdicts[q_index] = denial
        return verdicts, calls
