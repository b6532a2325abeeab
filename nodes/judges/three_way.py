"""The three-way claim judge: does the evidence back the claim, deny it, or neither?

`ThreeWayJudge` is the bundled all-MiniLM-L6-v2 fine-tuned on entailment / neutral /
contradiction pairs (NLI data plus the support judge's sources;
`benchmarks/train_three_way_judge.py`). It reads (evidence window, question + claim) as
the support cross-encoder does and gives P(entailed), P(neither), P(contradicted) per
window. Per claim, over all its evidence windows, the one decision of `nodes.judges.decision`:

- **contradicted** when the most contradicting window has P(contradicted) >=
  `contradicted_at`, above the best P(entailed), and shares a content word with the claim
  (`CONTRADICTION_SHARED`);
- else **supported** when the most entailing window has P(entailed) >= `supported_at`;
- else **unsupported** (not in the evidence).

The thresholds are the ones fitted for the weights (`decision.json` beside them).

The verdict's `probability` is P(entailed) of the most entailing window (so every caller
that reads P(supported) keeps working), `p_contradicted` the highest P(contradicted), and
the span is the window the verdict rests on, with its sentence closest to the claim.

`MismatchCheckedJudge` puts the deterministic checks of `nodes.judges.mismatch` beside any
judge: a conflict between the claim and the evidence the inner verdict rests on (a dose,
a year, a negation, "most" vs "uncommon") makes the verdict contradicted, names both
spans, and sets P(supported) to 0 (the model's own value stays in `scores`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from veriloop.nodes.judges.cross_encoder import THREE_WAY_DIR, cross_encoder_input
from veriloop.nodes.judges.decision import Decision, decide, load_decision
from veriloop.nodes.judges.mismatch import closest_sentence, copied_sentence, find_mismatches
from veriloop.nodes.judges.pair_classifier import (
    DEFAULT_READING,
    PairReading,
    load_pair_classifier,
    weights_fingerprint,
)
from veriloop.nodes.judges.protocol import (
    CONTRADICTED,
    ENTAILED,
    NEITHER,
    THREE_WAY,
    Judged,
    SupportJudge,
    SupportQuery,
    SupportVerdict,
    check_queries,
    unusable,
)

CONTRADICTION_SHARED = 1
"""Content words (numbers and units aside) a window must share with the claim before its
P(contradicted) can make the claim contradicted. The model learnt from SNLI that a text
about something else contradicts (it gave "Warfarin is sold in blue tablets" against "Paris
is the capital of France" 0.96); a text that is not about the claim cannot deny it."""


@cache
def load_three_way(judge_dir: Path = THREE_WAY_DIR) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Return (tokenizer, encoder, head, training.json) of a trained three-way judge.

    Raises:
        InvalidInputError: The folder holds no trained three-way judge, or its head does not
            have three outputs.
    """
    return load_pair_classifier(
        Path(judge_dir), "three_way", len(THREE_WAY), "benchmarks/train_three_way_judge.py"
    )


class ThreeWayJudge:
    """The bundled MiniLM fine-tuned to tell entailed, contradicted and neither apart."""

    def __init__(
        self,
        *,
        judge_dir: Path = THREE_WAY_DIR,
        supported_at: float | None = None,
        contradicted_at: float | None = None,
        reading: PairReading = DEFAULT_READING,
    ) -> None:
        """Load the judge from `judge_dir` (once per process).

        Args:
            judge_dir: The trained judge (`benchmarks/train_three_way_judge.py`).
            supported_at: P(entailed) from which a claim is supported (None: the decision
                fitted for these weights, `decision.json` in `judge_dir`; see
                `nodes.judges.decision`).
            contradicted_at: P(contradicted) from which a claim is contradicted (None: the
                fitted decision's).
            reading: How pairs are read (token length, batch, evidence windows).

        Raises:
            InvalidInputError: No trained judge in `judge_dir`, or thresholds outside [0, 1].
        """
        fitted = load_decision(Path(judge_dir))
        chosen = Decision(  # validates the thresholds
            fitted.supported_at if supported_at is None else supported_at,
            fitted.contradicted_at if contradicted_at is None else contradicted_at,
        )
        self.tokenizer, self.encoder, self.head, self.training = load_three_way(Path(judge_dir))
        self.judge_dir = Path(judge_dir)
        self.supported_at = chosen.supported_at
        self.contradicted_at = chosen.contradicted_at
        self.reading = reading
        version = self.training.get("version")
        self.name = (
            f"MiniLM three-way judge ({self.judge_dir.name}{f' v{version}' if version else ''})"
        )

    @cached_property
    def identity(self) -> str:
        """Return a fingerprint of the judge's weights: sha256 of its safetensors, 16 hex."""
        return weights_fingerprint(self.judge_dir)

    def probabilities(
        self, evidence: Sequence[str], second: Sequence[str]
    ) -> list[tuple[float, float, float]]:
        """Return (P(entailed), P(neither), P(contradicted)) per (evidence, claim text) pair.

        Pairs are run in order of length (`pair_logits`), so a batch check mixing one-line
        sources with long passages pads each batch to its own longest pair.
        """
        rows = self.reading.logits((self.tokenizer, self.encoder, self.head), evidence, second)
        out = []
        for logits in rows:
            top = max(logits)
            exp = [math.exp(v - top) for v in logits]
            total = sum(exp)
            out.append((exp[ENTAILED] / total, exp[NEITHER] / total, exp[CONTRADICTED] / total))
        return out

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return one verdict per query: supported, contradicted or unsupported, with its span."""
        check_queries(queries)
        pairs = self.reading.pairs(queries)
        probs = self.probabilities(
            [p[2] for p in pairs], [cross_encoder_input(queries[p[0]]) for p in pairs]
        )
        decision = Decision(self.supported_at, self.contradicted_at)
        entailing: dict[int, int] = {}
        contradicting: dict[int, int] = {}
        for row, ((q_index, _, _), p) in enumerate(zip(pairs, probs, strict=True)):
            if q_index not in entailing or p[ENTAILED] > probs[entailing[q_index]][ENTAILED]:
                entailing[q_index] = row
            best = contradicting.get(q_index)
            if best is None or p[CONTRADICTED] > probs[best][CONTRADICTED]:
                contradicting[q_index] = row
        verdicts: list[SupportVerdict] = []
        for q_index, query in enumerate(queries):
            if q_index not in entailing:
                verdicts.append(unusable("no evidence"))
                continue
            e_row, c_row = entailing[q_index], contradicting[q_index]
            p_entailed, p_contradicted = probs[e_row][ENTAILED], probs[c_row][CONTRADICTED]
            about_it = closest_sentence(query.claim, pairs[c_row][2])[1] >= CONTRADICTION_SHARED
            verdict = decide(p_entailed, p_contradicted, decision, about_it=about_it)
            row = c_row if verdict == "contradicted" else e_row
            _, e_index, window = pairs[row]
            verdicts.append(
                SupportVerdict(
                    probability=round(p_entailed, 6),
                    evidence_index=e_index,
                    evidence_span=window,
                    scores={
                        name: round(value, 6)
                        for name, value in zip(THREE_WAY, probs[row], strict=True)
                    },
                    error=None,
                    verdict=verdict,
                    p_contradicted=round(p_contradicted, 6),
                    p_neither=round(probs[row][NEITHER], 6),
                    evidence_sentence=closest_sentence(query.claim, window)[0] or window,
                )
            )
        return verdicts, []


def _copied(query: SupportQuery, verdict: SupportVerdict) -> SupportVerdict | None:
    """Return the verdict made supported when the claim copies a sentence of its evidence."""
    for index, text in enumerate(query.evidence):
        sentence = copied_sentence(query.claim, text)
        if sentence is None:
            continue
        scores = {**verdict["scores"], "model_p_supported": verdict["probability"] or 0.0}
        if verdict.get("p_contradicted") is not None:
            scores["model_p_contradicted"] = verdict.get("p_contradicted") or 0.0
        return SupportVerdict(
            **{
                **verdict,
                "probability": 1.0,
                "evidence_index": index,
                "evidence_span": sentence,
                "scores": {**scores, "copied": 1.0},
                "verdict": "supported",
                "p_contradicted": 0.0,
                "evidence_sentence": sentence,
            }
        )
    return None


class MismatchCheckedJudge:
    """Any judge, with the deterministic checks of `nodes.judges.mismatch` beside it."""

    def __init__(self, inner: SupportJudge) -> None:
        """Check the spans `inner`'s verdicts rest on."""
        self.inner = inner
        self.name = f"{getattr(inner, 'name', 'judge')} + mismatch rules"

    @property
    def identity(self) -> str | None:
        """Return the inner judge's weight fingerprint, if it has one."""
        return getattr(self.inner, "identity", None)

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Return the inner verdicts, made contradicted where a rule finds a conflict.

        And made supported where the claim is one of the evidence's sentences word for
        word (`copied_sentence`), before any rule reads it; the model's own numbers stay
        in the scores.
        """
        verdicts, calls = self.inner.judge(queries)
        out: list[SupportVerdict] = []
        for query, verdict in zip(queries, verdicts, strict=True):
            span = verdict["evidence_span"]
            # a copy is what the evidence says: the rules, reading the copy against a
            # sentence the scrape glued to it ("... Chest pain These signs ... blood"),
            # would find a conflict that is not there
            copied = _copied(query, verdict) if verdict["error"] is None else None
            if copied is not None:
                out.append(copied)
                continue
            found = find_mismatches(query.claim, span) if verdict["error"] is None and span else []
            if not found:
                out.append(verdict)
                continue
            checked = SupportVerdict(**verdict)
            checked["scores"] = {
                **verdict["scores"],
                "model_p_supported": verdict["probability"] or 0.0,
            }
            checked["probability"] = 0.0
            checked["verdict"] = "contradicted"
            checked["mismatches"] = [m.to_json() for m in found]
            checked["evidence_sentence"] = found[0].evidence_sentence
            out.append(checked)
        return out, calls
