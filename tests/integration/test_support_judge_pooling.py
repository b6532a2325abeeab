"""An adapter trained with the `mean+claim` read-out loads and is read the way it was trained.

The adapter here is built, not trained: a LoRA whose update is zero (peft's default
initialisation, so the merged encoder is the bundled MiniLM itself) and a head that reads
only the claim half of the pooled input. The judge's logits must then equal that head
applied to the mean of the claim segment's token states, computed here straight from the
base model: if the judge pooled as `mean`, loaded the wrong half, or mixed up the segments,
the numbers would differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")


def _build_adapter(
    folder: Path, *, pooling: str, head_width: int, claim_weights: torch.Tensor
) -> None:
    from peft import LoraConfig, get_peft_model
    from safetensors.torch import save_file
    from transformers import AutoModel

    from veriloop.models.locate import bundled_embedding_model_path

    base = AutoModel.from_pretrained(bundled_embedding_model_path())
    config = LoraConfig(
        r=2, lora_alpha=4, target_modules=r".*encoder\.layer\.\d+\..*(query|value)$"
    )
    get_peft_model(base, config).save_pretrained(str(folder), safe_serialization=True)
    weight = torch.zeros(1, head_width)
    weight[0, head_width - claim_weights.numel() :] = claim_weights
    save_file({"weight": weight, "bias": torch.tensor([0.25])}, str(folder / "head.safetensors"))
    (folder / "training.json").write_text(json.dumps({"pooling": pooling}))


def test_a_claim_pooled_adapter_reads_the_mean_over_the_claim_segment(tmp_path: Path) -> None:
    from transformers import AutoModel, AutoTokenizer

    from veriloop.models.locate import bundled_embedding_model_path
    from veriloop.nodes.judges import CrossEncoderJudge, SupportQuery, cross_encoder_input

    hidden = 384
    claim_weights = torch.linspace(-1.0, 1.0, hidden)
    _build_adapter(
        tmp_path, pooling="mean+claim", head_width=2 * hidden, claim_weights=claim_weights
    )
    judge = CrossEncoderJudge(adapter_dir=tmp_path)
    assert judge.pooling == "mean+claim"

    evidence = "Warfarin is an anticoagulant; its most common serious side effect is bleeding."
    queries = [
        SupportQuery("Bleeding.", [evidence], "What is warfarin's main risk?"),
        SupportQuery("Warfarin does not cause bleeding.", [evidence]),
    ]
    got = judge.logits([evidence, evidence], [cross_encoder_input(q) for q in queries])

    path = bundled_embedding_model_path()
    tokenizer, base = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path)
    base.eval()
    expected = []
    for query in queries:
        batch = tokenizer(evidence, cross_encoder_input(query), return_tensors="pt")
        with torch.no_grad():
            states = base(**batch).last_hidden_state[0]
        claim_tokens = (batch["token_type_ids"][0] == 1) & (batch["attention_mask"][0] == 1)
        expected.append(float(states[claim_tokens].mean(dim=0) @ claim_weights) + 0.25)
    assert got == pytest.approx(expected, abs=1e-4)
    assert abs(got[0] - got[1]) > 1e-3  # the claim half is read: different claims, logits

    verdicts, _ = judge.judge(queries[:1])
    assert verdicts[0]["scores"]["logit"] == pytest.approx(expected[0], abs=1e-4)


def test_a_head_that_does_not_fit_the_recorded_pooling_is_refused_clearly(tmp_path: Path) -> None:
    from veriloop.errors import InvalidInputError
    from veriloop.nodes.judges import CrossEncoderJudge

    # a mean+claim head (768 inputs) beside a training.json that says `mean` (384)
    _build_adapter(tmp_path, pooling="mean", head_width=768, claim_weights=torch.ones(384))
    with pytest.raises(InvalidInputError, match=r"head of shape \(1, 768\).*needs \(1, 384\)"):
        CrossEncoderJudge(adapter_dir=tmp_path)
