"""`ask` and `verify` output at 80 and 200 columns: compact lines that fit, tables on --details."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console

import veriloop.cli.render as render

LONG = (
    "Noonan syndrome is inherited in an autosomal dominant manner. This means that having one "
    "changed (mutated) copy of the responsible gene in each cell is enough to cause the condition."
)
URL = "https://rarediseases.info.nih.gov/gard/10955/noonan-syndrome"
GROUNDED: dict[str, Any] = {
    "answer": f"{LONG} [1]. Noonan syndrome is a genetic disorder [1].",
    "refusal": None,
    "sources": [{"number": "1", "id": "MQ-0004450-3-1", "title": "Noonan syndrome", "url": URL}],
    "sentences": [
        {
            "text": LONG,
            "probability": 0.93,
            "coverage": 1.0,
            "passage_id": "MQ-0004450-3-1",
            "supported": True,
            "reason": "P(supported) 0.93, 100% of its content words",
        },
        {
            "text": "It is caused by eating too much salt.",
            "probability": 0.12,
            "coverage": 0.4,
            "passage_id": "MQ-0004450-3-1",
            "supported": False,
            "reason": "only 40% of its content words",
        },
    ],
    "passages": [{"id": "MQ-0004450-3-1", "relevance": 0.88, "title": "Noonan", "text": LONG}],
    "trace": {
        "method": "grounded",
        "stops": [{"loop": "grounded", "reason": "single_pass", "detail": "1 of 2 backed"}],
        "usage": {
            "calls": 2,
            "chat_calls": 0,
            "embed_calls": 2,
            "cached_calls": 0,
            "tokens_in": 0,
            "tokens_out": 0,
            "model_seconds": 2.0,
        },
    },
}
QUESTION = "What are the side effects of warfarin?"
VERIFIED: dict[str, Any] = {
    "question": QUESTION,
    "verdict": "hallucinated",
    "answer_probabilities": [0.0],
    "claims": [
        {
            "round": 0,
            "index": 0,
            "method": "three_way",
            "claim": f'Answer to "{QUESTION}": Warfarin causes hair loss in most patients, '
            "according to a long list of sources that nobody has read in full.",
            "verdict": "contradicted",
            "p_supported": 0.004,
            "p_contradicted": 0.09,
            "evidence_sentence": "Hair loss is an uncommon side effect.",
            "mismatches": [
                {"reason": "quantifier: the claim says 'most', the evidence says 'uncommon'"}
            ],
            "error": None,
        }
    ],
}


def rendered(monkeypatch: pytest.MonkeyPatch, width: int, draw: Any) -> list[str]:
    console = Console(width=width, record=True, highlight=False, force_terminal=False)
    monkeypatch.setattr(render, "out", console)
    with console.capture() as captured:
        draw()
    return captured.get().splitlines()


@pytest.mark.parametrize("width", [80, 200])
def test_a_grounded_answer_fits_the_terminal_one_line_per_sentence(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    lines = rendered(monkeypatch, width, lambda: render.render_result(GROUNDED))
    assert all(len(line) <= width for line in lines), [x for x in lines if len(x) > width]
    checks = [line for line in lines if line.startswith(("  ✓", "  ✗"))]
    assert len(checks) == 2
    assert checks[0].startswith("  ✓ 0.93 100% MQ-0004450-3-1  Noonan syndrome is inherited")
    assert checks[1].startswith("  ✗ 0.12  40% MQ-0004450-3-1  It is caused by eating")
    assert any(URL in line for line in lines)  # a URL is never broken
    assert not any("Passages retrieved" in line for line in lines)  # tables on --details
    assert len(lines) <= (20 if width == 80 else 12)


def test_details_keeps_the_full_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = rendered(monkeypatch, 200, lambda: render.render_result(GROUNDED, details=True))
    text = "\n".join(lines)
    assert "Each answer sentence against the passages" in text and "Passages retrieved" in text


@pytest.mark.parametrize("width", [80, 200])
def test_a_verified_claim_is_one_line_with_what_the_source_says(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    lines = rendered(monkeypatch, width, lambda: render.render_verification(VERIFIED))
    assert all(len(line) <= width for line in lines), [x for x in lines if len(x) > width]
    [claim] = [line for line in lines if "contradicted" in line and "0.00/0.09" in line]
    assert "Warfarin causes hair loss" in claim and "Answer to" not in claim  # frame dropped
    assert "      source says: Hair loss is an uncommon side effect." in lines
    assert "      quantifier: the claim says 'most', the evidence says 'uncommon'" in lines
    assert lines[-1] == "P(answer) per round: 0.000; verdict: hallucinated"
