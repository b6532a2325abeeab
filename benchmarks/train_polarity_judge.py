"""Train the three-way judge for polarity at scale, resumably, on licensed data only.

    # a run of 200,000 pair presentations (6,250 steps of 32), checkpointed every 250 steps
    .venv/bin/python benchmarks/train_polarity_judge.py --out runs/polarity_v2 --steps 6250
    # the same command again resumes from runs/polarity_v2/checkpoint.pt
    .venv/bin/python benchmarks/train_polarity_judge.py --out runs/polarity_v2 --steps 6250

Issue 35's deliverable 4. Every batch mixes two pools, `--replay` of it general NLI so that
what the judge knows of SNLI does not fall:

- **polarity pool**: the MedQuAD minimal pairs of training pages
  (`veriloop.evaluation.judge_data.minimal_pairs`: cross-page paraphrases and trims, their one-edit
  contradictions, related-page neithers), CANNOT, ScoNe, CliniFact and SciFact training
  parts, and the support sources that carry a licence (HaluEval, Citation-Integrity,
  PubMedQA, and their swapped and negated copies). HealthVer states no licence: nothing
  of it trains these weights;
- **general pool**: SNLI dev, MultiNLI, counterfactual SNLI, Breaking NLI, ConjNLI, FEVER,
  FM2 dev and WiCE dev, capped at `--nli-per-class` per folder and class.

Held out of both (`nli_sets.NLI_HELD_OUT`, `NLI_DEV`, by premise too): every measured set,
and the dev parts (CANNOT, CliniFact, ScoNe) that choose the checkpoint: every
`--eval-every` steps the judge is scored on them (balanced accuracy, entailed vs the
rest, and contradictions caught) and the best scoring weights are kept in `OUT/best/` —
never chosen on the generator's own pairs nor on a reported set. `OUT/curve.jsonl` records
each evaluation against pairs seen (`scripts/plot_polarity_curve.py` draws it).

Starts from the bundled all-MiniLM-L6-v2 (not from the shipped judge, which saw HealthVer)
with a fresh three-way head; every encoder layer trains (embeddings frozen). The whole
state (weights, optimizer, schedule, step, the pools' fingerprint) is written atomically to
`OUT/checkpoint.pt` every `--checkpoint-every` steps; the batch plan is a function of the
seed and the step, so a resumed run sees exactly the batches the uninterrupted run would
have. Plain PyTorch: the same script runs on CPU (2 cores) or a GPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm
from transformers import AutoModel, AutoTokenizer

if not __package__:  # run as a script (the documented way): let `benchmarks.` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.judge_training import (
    THREE_WAY,
    Example,
    allowed_loss,
    mean_pooled,
    read_pools,
    run_notes,
    save_weights,
    write_pools,
)

ENTAILED, NEITHER, CONTRADICTED = (
    THREE_WAY.index(c) for c in ("entailed", "neither", "contradicted")
)
GENERAL = ("snli", "mnli", "cad", "breaking", "conj", "fever", "fm2", "wice")
POLARITY_NLI = ("cannot", "scone", "clinifact", "scifact")
LICENSED_SUPPORT = "halueval,citation,pubmedqa,halueval_swap,halueval_negated,pubmedqa_negated"
SELECTION = ("cannot_dev", "clinifact_dev", "scone_dev")
LABELS = {"entailed": ENTAILED, "neither": NEITHER, "contradicted": CONTRADICTED}
EXTRA_LICENCES = {
    "cannot": "CANNOT (Anschuetz et al. 2023), CC BY-SA 4.0 (see its SOURCE.txt caveat)",
    "scone": "ScoNe (She et al. 2023), CC0 1.0",
    "clinifact": "CliniFact (Zhang et al. 2025), MIT (README statement)",
    "medquad_minimal_pairs": "built by veriloop from MedQuAD (Ben Abacha & Demner-Fushman "
    "2019), CC BY 4.0",
}


def build_pools(args: argparse.Namespace) -> tuple[dict[str, list[Example]], dict[str, Any]]:
    """Return the pools (general, polarity, one per selection set) and their notes.

    The one step that reads `../shared/data` and needs veriloop installed; its result is
    what `--write-pools` writes, so training can run where neither is.
    """
    # Imported here, not above: training from a pools file needs torch alone.
    from benchmarks.train_three_way_judge import LICENCES, evidence_text  # noqa: PLC0415
    from veriloop.evaluation.judge_data.minimal_pairs import cached_pairs  # noqa: PLC0415
    from veriloop.evaluation.judge_data.nli_sets import (  # noqa: PLC0415
        NLI_DEV,
        NLI_HELD_OUT,
        capped,
        nli_pairs,
        nli_training_pairs,
        support_training_pairs,
    )
    from veriloop.nodes.judges import THREE_WAY as INFERENCE_CLASSES  # noqa: PLC0415
    from veriloop.nodes.judges import cross_encoder_input  # noqa: PLC0415

    if tuple(INFERENCE_CLASSES) != THREE_WAY:
        raise SystemExit(f"the judge's classes are {INFERENCE_CLASSES}, the trainer's {THREE_WAY}")

    def example(pair: Any) -> Example:
        return (
            evidence_text(pair, args.window_chars),
            cross_encoder_input(pair.query),
            pair.allowed,
            pair.source,
        )

    rng = random.Random(args.seed)
    nli, _ = nli_training_pairs(args.data_root)
    general_pairs = [
        p
        for folder in GENERAL
        for p in capped([q for q in nli if q.source == folder], args.nli_per_class, rng)
    ]
    polarity_pairs = [p for p in nli if p.source in POLARITY_NLI]
    sources = tuple(s for s in args.support_sources.split(",") if s)
    polarity_pairs += support_training_pairs(args.data_root, sources, args.support_per_class)
    general = [example(p) for p in tqdm(general_pairs, desc="general pool")]
    polarity = [example(p) for p in tqdm(polarity_pairs, desc="polarity pool")]
    for pair in cached_pairs(seed=args.seed):
        if pair.split == "train":
            polarity.append(
                (pair.evidence, pair.claim, frozenset({LABELS[pair.label]}), f"mp_{pair.label}")
            )
    pools: dict[str, list[Example]] = {"general": general, "polarity": polarity}
    select_rng = random.Random(args.seed)
    for name in SELECTION:
        folder, split = NLI_DEV[name]
        pairs = nli_pairs(args.data_root, folder, split)
        select_rng.shuffle(pairs)
        pools[f"select:{name}"] = [example(p) for p in pairs[: args.eval_pairs]]
    counts: dict[str, int] = {}
    for item in general + polarity:
        counts[item[3]] = counts.get(item[3], 0) + 1
    meta = {
        "pairs": counts,
        "data_fingerprint": fingerprint(general, polarity),
        "held_out": {
            **{k: f"{f} / {s or 'all splits'}" for k, (f, s) in NLI_HELD_OUT.items()},
            "selection (dev, never reported)": list(SELECTION),
        },
        "licences": {**LICENCES, **EXTRA_LICENCES},
        "built_with": {
            k: getattr(args, k)
            for k in ("nli_per_class", "support_sources", "support_per_class", "window_chars")
        }
        | {"eval_pairs": args.eval_pairs, "seed": args.seed},
    }
    return pools, meta


def fingerprint(general: list[Example], polarity: list[Example]) -> str:
    """Return a fingerprint of the two pools, so a resume never mixes other data in."""
    digest = hashlib.sha256()
    for pool in (general, polarity):
        for evidence, hypothesis, allowed, source in pool:
            digest.update(
                f"{evidence}\x1f{hypothesis}\x1f{sorted(allowed)}\x1f{source}\x1e".encode()
            )
    return digest.hexdigest()[:16]


def batch_at(
    step: int, sizes: tuple[int, int], per_batch: tuple[int, int], seed: int
) -> list[tuple[int, int]]:
    """Return the (pool, index) pairs of batch `step`: a pure function of step and seed.

    Each pool is read in a seeded permutation per pass over it, so every example is seen
    once per pass and a resumed run draws exactly what the uninterrupted run would.
    """
    out = []
    for pool, (size, count) in enumerate(zip(sizes, per_batch, strict=True)):
        for k in range(step * count, (step + 1) * count):
            epoch, offset = divmod(k, size)
            order = _permutation(pool, epoch, size, seed)
            out.append((pool, order[offset]))
    return out


_PERMUTATIONS: dict[tuple[int, int, int, int], list[int]] = {}


def _permutation(pool: int, epoch: int, size: int, seed: int) -> list[int]:
    key = (pool, epoch, size, seed)
    if key not in _PERMUTATIONS:
        order = list(range(size))
        random.Random(f"{seed}:{pool}:{epoch}").shuffle(order)
        for old in [k for k in _PERMUTATIONS if k[0] == pool]:  # one pass per pool is kept:
            del _PERMUTATIONS[old]  # clearing all re-shuffled both pools on every step
        _PERMUTATIONS[key] = order
    return _PERMUTATIONS[key]


@torch.no_grad()
def evaluate(
    model: Any, head: Any, tokenizer: Any, examples: list[Example], max_length: int
) -> dict[str, float | None]:
    """Return balanced accuracy (entailed vs rest at P >= 0.5), 3-way accuracy, denials caught."""
    model.eval()
    probs = []
    for start in range(0, len(examples), 64):
        batch = examples[start : start + 64]
        inputs = tokenizer(
            [b[0] for b in batch],
            [b[1] for b in batch],
            truncation="longest_first",
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        ).to(model.device)
        hidden = model(**inputs).last_hidden_state
        probs += torch.softmax(head(mean_pooled(hidden, inputs["attention_mask"])), -1).tolist()
    model.train()
    positives = [
        p[ENTAILED] >= 0.5 for p, e in zip(probs, examples, strict=True) if ENTAILED in e[2]
    ]
    negatives = [
        p[ENTAILED] < 0.5 for p, e in zip(probs, examples, strict=True) if ENTAILED not in e[2]
    ]
    recalls = [sum(x) / len(x) for x in (positives, negatives) if x]
    denials = [
        max(range(3), key=lambda c: p[c]) == CONTRADICTED
        for p, e in zip(probs, examples, strict=True)
        if e[2] == frozenset({CONTRADICTED})
    ]
    correct = [
        max(range(3), key=lambda c: p[c]) in e[2] for p, e in zip(probs, examples, strict=True)
    ]
    return {
        "balanced_accuracy": round(sum(recalls) / len(recalls), 4) if recalls else 0.0,
        "three_way_accuracy": round(sum(correct) / len(correct), 4),
        "contradictions_caught": round(sum(denials) / len(denials), 4) if denials else None,
    }


def main() -> None:  # noqa: PLR0915 - one training loop, read top to bottom
    """Train (or resume), checkpoint, evaluate on the dev parts, keep the best."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("runs/polarity_v2"))
    parser.add_argument("--steps", type=int, default=6250, help="batches in the whole run")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--replay", type=float, default=0.5, help="share of general NLI per batch")
    parser.add_argument("--nli-per-class", type=int, default=5000)
    parser.add_argument("--support-sources", default=LICENSED_SUPPORT)
    parser.add_argument("--support-per-class", type=int, default=1500)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--window-chars", type=int, default=400)
    parser.add_argument("--checkpoint-every", type=int, default=250)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--eval-pairs", type=int, default=300)
    parser.add_argument(
        "--stop-after",
        type=int,
        default=0,
        help="stop this process after N steps (0: run to --steps)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--version", type=int, default=2)
    parser.add_argument(
        "--pools",
        type=Path,
        default=Path("runs/polarity_pools.json.xz"),
        help="the training and selection pairs; built from --data-root when absent",
    )
    parser.add_argument(
        "--write-pools", action="store_true", help="(re)build --pools from --data-root and stop"
    )
    parser.add_argument(
        "--base", type=Path, default=None, help="the encoder to start from (default: bundled)"
    )
    parser.add_argument("--device", default="auto", help="auto (a GPU if any), cpu, cuda")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = torch.device(
        ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    )
    if args.write_pools or not args.pools.is_file():
        built, meta = build_pools(args)
        args.pools.parent.mkdir(parents=True, exist_ok=True)
        write_pools(args.pools, built, meta)
        print(f"wrote {args.pools} ({args.pools.stat().st_size / 1e6:.1f} MB)")
        if args.write_pools:
            return
    loaded, meta = read_pools(args.pools)
    general, polarity = loaded["general"], loaded["polarity"]
    select = {k.removeprefix("select:"): v for k, v in loaded.items() if k.startswith("select:")}
    data_id, counts = fingerprint(general, polarity), meta["pairs"]
    if data_id != meta["data_fingerprint"]:
        raise SystemExit(f"{args.pools} does not hold the data its notes name: rebuild it")
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"general {len(general)}, polarity {len(polarity)} pairs ({data_id}): {counts}")
    if args.base is None:  # veriloop's bundled encoder; --base names a copy where it is absent
        from veriloop.models.locate import bundled_embedding_model_path  # noqa: PLC0415

        args.base = bundled_embedding_model_path()
    base = args.base
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModel.from_pretrained(base).float().to(device)  # a copy may be carried in fp16
    for name, param in model.named_parameters():
        param.requires_grad = not name.startswith("embeddings.")
    head = torch.nn.Linear(model.config.hidden_size, len(THREE_WAY)).to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        [
            {"params": params, "lr": args.lr},
            {"params": list(head.parameters()), "lr": args.head_lr},
        ],
        weight_decay=0.01,
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=[args.lr, args.head_lr], total_steps=args.steps, pct_start=0.06
    )
    checkpoint_path = args.out / "checkpoint.pt"
    step, losses, seconds, best = 0, [], 0.0, -1.0
    if checkpoint_path.is_file():
        state = torch.load(checkpoint_path, weights_only=False, map_location=device)
        if state["data"] != data_id or state["steps"] != args.steps:
            raise SystemExit(
                f"{checkpoint_path} is a run on other data or of another length "
                f"({state['data']}, {state['steps']} steps; now {data_id}, {args.steps}): "
                "choose another --out"
            )
        model.load_state_dict(state["model"])
        head.load_state_dict(state["head"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        step, losses, seconds, best = (
            state["step"],
            state["losses"],
            state["seconds"],
            state["best"],
        )
        print(f"resumed at step {step} of {args.steps} ({step * args.batch_size} pairs seen)")

    general_count = round(args.batch_size * args.replay)
    per_batch = (general_count, args.batch_size - general_count)
    sizes = (len(general), len(polarity))
    notes: dict[str, Any] = {
        "version": args.version,
        "kind": "three_way",
        "classes": list(THREE_WAY),
        "mode": "full",
        "pooling": "mean",
        "pairs": counts,
        "data_fingerprint": data_id,
        "held_out": meta["held_out"],
        "pools": meta["built_with"],
        "healthver": "not trained on (its repository states no licence)",
        "replay": args.replay,
        "batch_size": args.batch_size,
        "steps_planned": args.steps,
        "lr": args.lr,
        "head_lr": args.head_lr,
        "max_length": args.max_length,
        "window_chars": args.window_chars,
        "init_from": "all-MiniLM-L6-v2 (bundled), fresh head",
        "licences": meta["licences"],
        "command": "benchmarks/train_polarity_judge.py "
        + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()),
    }
    started = time.perf_counter() - seconds
    model.train()
    stop_at = min(args.steps, step + args.stop_after) if args.stop_after else args.steps
    with tqdm(total=args.steps, initial=step, desc="training") as bar:
        while step < stop_at:
            picks = batch_at(step, sizes, per_batch, args.seed)
            batch = [(general, polarity)[pool][index] for pool, index in picks]
            inputs = tokenizer(
                [b[0] for b in batch],
                [b[1] for b in batch],
                truncation="longest_first",
                max_length=args.max_length,
                padding=True,
                return_tensors="pt",
            ).to(device)
            allowed = torch.zeros(len(batch), len(THREE_WAY), dtype=torch.bool)
            for row, example in enumerate(batch):
                allowed[row, list(example[2])] = True
            allowed = allowed.to(device)
            hidden = model(**inputs).last_hidden_state
            loss = allowed_loss(head(mean_pooled(hidden, inputs["attention_mask"])), allowed)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            schedule.step()
            losses.append(round(loss.item(), 4))
            step += 1
            bar.set_postfix(loss=f"{sum(losses[-50:]) / len(losses[-50:]):.3f}")
            bar.update()
            if step % args.eval_every == 0 or step == args.steps:
                scores = {
                    n: evaluate(model, head, tokenizer, ex, args.max_length)
                    for n, ex in select.items()
                }
                balanced = [s["balanced_accuracy"] or 0.0 for s in scores.values()]
                selection = sum(balanced) / len(balanced)
                point = {
                    "step": step,
                    "pairs_seen": step * args.batch_size,
                    "loss_last_50": round(sum(losses[-50:]) / len(losses[-50:]), 4),
                    "selection": round(selection, 4),
                    "sets": scores,
                    "seconds": round(time.perf_counter() - started, 1),
                }
                with (args.out / "curve.jsonl").open("a") as handle:
                    handle.write(json.dumps(point) + "\n")
                tqdm.write(json.dumps(point))
                if selection > best:
                    best = selection
                    seconds = time.perf_counter() - started
                    run = run_notes(losses, seconds, args.threads, str(device))
                    save_weights(
                        args.out / "best",
                        model,
                        head,
                        {
                            **notes,
                            **run,
                            "steps": step,
                            "pairs_seen": step * args.batch_size,
                            "selection": point,
                        },
                    )
            if step % args.checkpoint_every == 0 or step == stop_at:
                state = {
                    "model": model.state_dict(),
                    "head": head.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "schedule": schedule.state_dict(),
                    "step": step,
                    "losses": losses,
                    "best": best,
                    "data": data_id,
                    "steps": args.steps,
                    "seconds": time.perf_counter() - started,
                }
                partial = checkpoint_path.with_suffix(".partial")
                torch.save(state, partial)
                partial.replace(checkpoint_path)
    print(
        f"stopped at step {step} of {args.steps}; best selection score {best:.4f} "
        f"in {args.out / 'best'}"
    )


if __name__ == "__main__":
    main()
