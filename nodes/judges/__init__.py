"""Claim-support judges: (claim, evidence texts[, question]) -> P(supported), with reasons.

Every verification decision in veriloop asks one question: is this claim backed by this
text? A `SupportJudge` answers it for a batch of queries, each with one or more evidence
texts, and says which evidence the answer rests on and the scores behind it.

- `LikelihoodJudge` (the small model as a *scorer*, not a judge): how much the evidence
  raises the scorer model's likelihood of the claim, P(claim | evidence, question) against
  P(claim | question), teacher-forced, as a mean log-prob gain per claim token (pointwise
  mutual information). A logistic calibration fitted on a training split turns the gain
  into a probability. The evidence comes first in the prompt, so the llama.cpp scorer's
  prefix reuse scores several claims against one evidence text cheaply.
- `YesNoJudge`: the scorer's P(" Yes") / (P(" Yes") + P(" No")) after Factored
  Verification's prompt (what FV used so far; near chance on SmolLM2-135M).
- `HeadJudge`: the MiniLM pair-feature MLP head (`nodes.judges.nli.EmbeddingNLI`), P(supports).
- `CrossEncoderJudge` (`trained`): all-MiniLM-L6-v2 fine-tuned as a cross-encoder.
- `CoverageGatedJudge` (`gated` = trained + gate): another judge's probability, set to 0
  where the evidence lacks 75% of the claim's content words (the grounded default's check
  and the harness's reference check).

How well each judges is measured on held-out data by `benchmarks/support_judges.py`
(docs/benchmarks/support_judges.md); print that beside any number a judge produces.

The package, one module per judge: `protocol` (queries and verdicts), `calibration`,
`evidence` (windows shared by the judges), `likelihood`, `yesno`, `head`, `cross_encoder`,
`three_way`, `gated`, `stances`, and `relevance` (answer relevance, beside support).
`registry` lists them once: `support_judge(name, models, supported_at=, contradicted_at=)`
builds any of them by name, with its thresholds.
"""

from __future__ import annotations

from veriloop.nodes.judges.calibration import (
    CALIBRATION_DIR,
    Calibration,
    Feature,
    calibration_file,
    fit_calibration,
    load_calibration,
    sigmoid,
)
from veriloop.nodes.judges.cross_encoder import (
    ADAPTER_DIR,
    POOLING_WIDTH,
    POOLINGS,
    QUESTION_CHARS,
    THREE_WAY_DIR,
    CrossEncoderJudge,
    Pooling,
    adapter_label,
    adapter_pooling,
    cross_encoder_input,
    load_cross_encoder,
    pooled,
)
from veriloop.nodes.judges.evidence import (
    best_per_query,
    clip,
    content_coverage,
    evidence_pairs,
    evidence_windows,
    windowed_pairs,
)
from veriloop.nodes.judges.gated import CoverageGatedJudge
from veriloop.nodes.judges.head import HeadJudge
from veriloop.nodes.judges.likelihood import LikelihoodJudge, Unit, likelihood_prompts
from veriloop.nodes.judges.pair_classifier import mean_pooled
from veriloop.nodes.judges.protocol import (
    CONTRADICTED,
    ENTAILED,
    NEITHER,
    THREE_WAY,
    ClaimVerdict,
    Judged,
    SupportJudge,
    SupportQuery,
    SupportVerdict,
    check_queries,
    claim_verdict,
    unusable,
)
from veriloop.nodes.judges.registry import (
    JUDGES,
    DecidedJudge,
    DecisionSettings,
    JudgeEntry,
    JudgeName,
    Thresholds,
    check_judge_name,
    register_judge,
    support_judge,
    supported_at_of,
    unregister_judge,
)
from veriloop.nodes.judges.stances import SupportStances
from veriloop.nodes.judges.yesno import YesNoJudge

__all__ = [
    "clip",
    "fit_calibration",
    "ADAPTER_DIR",
    "CALIBRATION_DIR",
    "CONTRADICTED",
    "Calibration",
    "ClaimVerdict",
    "CoverageGatedJudge",
    "CrossEncoderJudge",
    "ENTAILED",
    "Feature",
    "HeadJudge",
    "JudgeName",
    "JudgeEntry",
    "JUDGES",
    "DecidedJudge",
    "DecisionSettings",
    "Thresholds",
    "check_judge_name",
    "register_judge",
    "unregister_judge",
    "supported_at_of",
    "Judged",
    "LikelihoodJudge",
    "NEITHER",
    "POOLINGS",
    "POOLING_WIDTH",
    "Pooling",
    "QUESTION_CHARS",
    "SupportJudge",
    "SupportQuery",
    "SupportStances",
    "SupportVerdict",
    "THREE_WAY",
    "THREE_WAY_DIR",
    "Unit",
    "YesNoJudge",
    "adapter_label",
    "adapter_pooling",
    "best_per_query",
    "calibration_file",
    "check_queries",
    "claim_verdict",
    "content_coverage",
    "cross_encoder_input",
    "evidence_pairs",
    "evidence_windows",
    "likelihood_prompts",
    "load_calibration",
    "load_cross_encoder",
    "mean_pooled",
    "pooled",
    "sigmoid",
    "support_judge",
    "unusable",
    "windowed_pairs",
]
