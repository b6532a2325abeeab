"""The grounded default and `veriloop verify` give one verdict per (claim, source) pair."""

from __future__ import annotations

import pytest

import veriloop
from veriloop.context import ModelSettings
from veriloop.knowledge.sources import SourcePassage
from veriloop.models import get_models
from veriloop.nodes.grounding import check_sentences, sentence_judge

pytestmark = pytest.mark.integration

SOURCE = (
    "Hyperthyroidism speeds up the body's metabolism. It is more common in women than in "
    "men. The usual adult dose of the drug is 5 mg twice a day. Graves disease is the most "
    "common cause of hyperthyroidism. The condition is not contagious."
)
CLAIMS = [
    "Hyperthyroidism speeds up the body's metabolism.",
    "Hyperthyroidism slows the body's metabolism.",
    "Hyperthyroidism slows down the body's metabolism.",
    "It is more common in women than in men.",
    "It is more common in men than in women.",
    "Hyperthyroidism is more common in women than in men.",
    "The usual adult dose of the drug is 5 mg twice a day.",
    "The usual adult dose of the drug is 50 mg twice a day.",
    "The usual adult dose of the drug is 5 mg once a day.",
    "The usual adult dose of the drug is 5 mg twice a week.",
    "Graves disease is the most common cause of hyperthyroidism.",
    "Graves disease is a rare cause of hyperthyroidism.",
    "Graves disease is the most common cause of hypothyroidism.",
    "The condition is not contagious.",
    "The condition is contagious.",
    "Hyperthyroidism is not contagious.",
    "Hyperthyroidism speeds up metabolism.",
    "The usual dose of the drug is 5 mg twice a day.",
    "Graves disease causes hyperthyroidism.",
    "Hyperthyroidism is more common in women.",
]


def test_grounded_and_verify_agree_on_twenty_claims() -> None:
    answer = " ".join(CLAIMS)
    [row] = veriloop.check([{"id": "h", "answer": answer, "sources": [SOURCE]}], report=False)
    by_verify = {c["claim"]: c["verdict"] for c in row["claims"]}
    assert set(by_verify) == set(CLAIMS)
    judge = sentence_judge("three_way", get_models(ModelSettings()), min_coverage=0.75)
    passage = SourcePassage(id="S1", title="", url="", text=SOURCE, relevance=1.0)
    checked = check_sentences(judge, [(c, "extracted") for c in CLAIMS], [passage], "")
    by_grounded = {c["text"]: c.get("verdict") for c in checked}
    assert by_grounded == by_verify
    # and the verdicts are the right ones where the source decides them word for word
    assert by_verify["Hyperthyroidism slows the body's metabolism."] == "contradicted"
    assert by_verify["The usual adult dose of the drug is 50 mg twice a day."] == "contradicted"
    assert by_verify["The condition is contagious."] == "contradicted"
    assert by_verify["The usual adult dose of the drug is 5 mg twice a day."] == "supported"
