"""Build the claim-support judges that `support_judges.py measure` runs, by name.

`make_judge` turns a `--judges` entry into a judge and the name its records carry: the
shipped judges (`head`, `yesno`, `likelihood[_<feature>]`, `cross_encoder`, `gated`,
`three_way`, `three_way_model`), a judge trained elsewhere (`cross_encoder@DIR`,
`gated@DIR`, `three_way@DIR`, `three_way_model@DIR`), the polarity probes of
`polarity_probes.py` (`onnx_nli@DIR`, `flip_contrast`) and any of them under a question
policy (`JUDGE:no_question`, `JUDGE:question_always`: `QuestionPolicy`).
`judge_identity` fingerprints a trained judge's weights, so records of other weights are
never mixed with its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.polarity_probes import FlipContrastJudge, OnnxPairClassifierJudge
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.models import get_models
from veriloop.nodes.judges import (
    QUESTION_CHARS,
    CoverageGatedJudge,
    CrossEncoderJudge,
    Judged,
    LikelihoodJudge,
    SupportJudge,
    SupportQuery,
    clip,
    support_judge,
)
from veriloop.nodes.judges.cross_encoder import HYPOTHESIS_RULE
from veriloop.nodes.judges.mismatch import rules_fingerprint
from veriloop.nodes.judges.three_way import MismatchCheckedJudge, ThreeWayJudge

FEATURES = ("mean_gain", "min_gain", "conditional")
"""The likelihood judge's features (`likelihood_<feature>`, `calibrate --feature`)."""

QUESTION_POLICIES = ("no_question", "question_always")


class QuestionPolicy:
    """A judge that reads every query's question another way (deliverable 0 of issue 35).

    `no_question`: the question is dropped (a bare answer is then read alone);
    `question_always`: the question is read before every claim, statement or not (the
    judges' behaviour before a question was kept out of the hypothesis).
    """

    def __init__(self, inner: SupportJudge, policy: str) -> None:
        """Wrap `inner`; `policy` is one of `QUESTION_POLICIES`."""
        self.inner, self.policy = inner, policy
        self.name = f"{getattr(inner, 'name', 'judge')} ({policy})"

    def judge(self, queries: Sequence[SupportQuery]) -> Judged:
        """Judge the queries with their questions dropped, or read before every claim."""
        if self.policy == "no_question":
            changed = [SupportQuery(q.claim, q.evidence) for q in queries]
        else:
            changed = [
                SupportQuery(
                    " ".join(f"{clip(q.question, QUESTION_CHARS)} {q.claim}".split()), q.evidence
                )
                if q.question
                else q
                for q in queries
            ]
        return self.inner.judge(changed)


def make_judge(name: str, cache_dir: str) -> tuple[str, SupportJudge]:
    """Build the judge called `name` and the name its records carry.

    `JUDGE:no_question` / `JUDGE:question_always` is that judge under a question policy
    (`QuestionPolicy`), recorded as `JUDGE_no_question` / `JUDGE_question_always`.

    Records call the trained judge `cross_encoder`; `cross_encoder@DIR` is an adapter
    trained elsewhere (`train_support_judge.py --out DIR`), recorded as
    `cross_encoder_<DIR's name>` (`gated@DIR`: that adapter inside the coverage gate,
    `gated_<DIR's name>`); `onnx_nli@DIR` and `flip_contrast` are the polarity probes of
    `polarity_probes.py`. `likelihood_<feature>` is the
    likelihood judge deciding on that feature with its own calibration (see `calibrate
    --feature`); plain `likelihood` is the shipped default, recorded under the feature it
    decides on.
    """
    name, _, policy = name.partition(":")
    if policy:
        if policy not in QUESTION_POLICIES:
            raise SystemExit(f"unknown question policy {policy!r}; choose {QUESTION_POLICIES}")
        recorded, inner = make_judge(name, cache_dir)
        return f"{recorded}_{policy}", QuestionPolicy(inner, policy)
    kind, _, folder = name.partition("@")
    if kind in ("three_way", "three_way_model"):  # the three-way judge with rules, or alone
        try:
            three_way = ThreeWayJudge(judge_dir=Path(folder)) if folder else ThreeWayJudge()
        except InvalidInputError as error:
            raise SystemExit(str(error)) from error
        recorded = f"{kind}_{Path(folder).name}" if folder else kind
        return recorded, MismatchCheckedJudge(three_way) if kind == "three_way" else three_way
    if folder:  # a judge from a folder needs no chat or scoring model
        if kind not in ("cross_encoder", "gated", "onnx_nli"):
            raise SystemExit(f"{name!r}: only cross_encoder@, gated@ and onnx_nli@ take a folder")
        try:
            if kind == "onnx_nli":
                return f"{kind}_{Path(folder).name}", OnnxPairClassifierJudge(Path(folder))
            inner = CrossEncoderJudge(adapter_dir=Path(folder))
        except InvalidInputError as error:  # no model there: say so, no traceback
            raise SystemExit(str(error)) from error
        judge = CoverageGatedJudge(inner) if kind == "gated" else inner
        return f"{kind}_{Path(folder).name}", judge
    models = get_models(ModelSettings(cache_dir=cache_dir))
    if name == "flip_contrast":
        return name, FlipContrastJudge(models)
    if name.startswith("likelihood_"):
        feature = name.removeprefix("likelihood_")
        if feature not in FEATURES:
            raise SystemExit(f"unknown likelihood feature {feature!r}; choose from {FEATURES}")
        return name, LikelihoodJudge(models, feature=feature)  # type: ignore[arg-type]
    kind = "trained" if name == "cross_encoder" else name
    try:
        judge = support_judge(kind, models)
    except InvalidInputError as error:
        raise SystemExit(f"{error} (here: cross_encoder for trained)") from error
    if isinstance(judge, LikelihoodJudge):
        return f"likelihood_{judge.feature}", judge
    return name, judge


def judge_identity(judge: SupportJudge) -> str | None:
    """Return a fingerprint of a trained judge's weights (the gate's threshold included).

    None for the judges whose behaviour is code and shipped calibration (head, likelihood,
    P(Yes)): their records are not fingerprinted.
    """
    if isinstance(judge, QuestionPolicy):
        inner = judge_identity(judge.inner)
        return inner and f"{inner}+{judge.policy}"
    if isinstance(judge, ThreeWayJudge):
        decision = f"decision:{judge.supported_at:g}/{judge.contradicted_at:g}"
        return f"{judge.identity}+{HYPOTHESIS_RULE}+{decision}"
    if isinstance(judge, CrossEncoderJudge):
        return judge.identity
    if isinstance(judge, MismatchCheckedJudge):
        inner = judge_identity(judge.inner)  # type: ignore[arg-type]
        return inner and f"{inner}+rules:{rules_fingerprint()}"
    if isinstance(judge, CoverageGatedJudge) and isinstance(judge.inner, CrossEncoderJudge):
        return f"{judge.inner.identity}+coverage>={judge.min_coverage:g}"
    return None
