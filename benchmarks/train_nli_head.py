"""Train the embedding NLI head shipped in nodes/data/ (reproducible).

    .venv/bin/python benchmarks/train_nli_head.py --hidden 256 \
        --citation-integrity ../shared/data/citation_integrity --healthver ../shared/data/healthver

By default the head is trained on HealthVer's test split (disjoint from dev, and used for
nothing else in veriloop). `--train-on citation-integrity` trains on Citation-Integrity
instead; measured: 48.8% on HealthVer dev, below the 51.8% majority, so not the default.
Citation-Integrity pairs come from its train split (biomedical citing sentences vs
the cited abstract): the annotated evidence sentences give SUPPORT (+1) and REFUTE (-1)
pairs; sentences of the same cited abstract that are not evidence give neutral (0) pairs.
Features are all-MiniLM-L6-v2 embeddings u (premise) and v (hypothesis) combined as
[u, v, |u - v|, u * v]; the head is a class-balanced multinomial logistic regression.
It is evaluated on HealthVer dev, a different dataset, and the numbers are written to
nodes/data/nli_head_minilm.json next to the weights.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
import torch

from veriloop.context import ModelSettings
from veriloop.evaluation.loaders.healthver import load_healthver
from veriloop.evaluation.nli import HEALTHVER_LABEL, pair_features
from veriloop.models import get_models

OUT = Path("nodes/data")


def citation_integrity_pairs(folder: Path, seed: int) -> list[tuple[str, str, int]]:
    """Build (premise, hypothesis, label) pairs from claims_train.jsonl and corpus.jsonl."""
    corpus = {}
    for line in (folder / "corpus.jsonl").open():
        doc = json.loads(line)
        corpus[str(doc["doc_id"])] = doc["abstract"]
    rng = random.Random(seed)
    pairs = []
    for line in (folder / "claims_train.jsonl").open():
        claim = json.loads(line)
        text = claim["claim"].replace("[<|multi_cit|>]", "").replace("<|multi_cit|>", "")
        for doc_id, labelled in claim["evidence"].items():
            abstract = corpus.get(str(doc_id), [])
            used: set[int] = set()
            for annotation in labelled:
                label = {"SUPPORT": 1, "REFUTE": -1}[annotation["label"]]
                sentences = [abstract[i] for i in annotation["sentences"] if i < len(abstract)]
                used.update(annotation["sentences"])
                if sentences:
                    pairs.append((" ".join(sentences), text, label))
            others = [s for i, s in enumerate(abstract) if i not in used]
            if others:
                pairs.append((rng.choice(others), text, 0))
    return pairs


def main() -> None:
    """Train, evaluate on HealthVer dev, and write the weights and the measurements."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--citation-integrity", type=Path, required=True)
    parser.add_argument("--healthver", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--train-on", choices=["citation-integrity", "healthver-test"], default="healthver-test"
    )
    parser.add_argument("--hidden", type=int, default=0, help="0 = logistic regression")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    models = get_models(ModelSettings())

    if args.train_on == "citation-integrity":
        train = citation_integrity_pairs(args.citation_integrity, args.seed)
    else:
        train = [
            (i.documents[0], i.question, HEALTHVER_LABEL[str(i.gold)])
            for i in load_healthver(args.healthver, "test")
        ]
    x = torch.tensor(pair_features(models, [p for p, _, _ in train], [h for _, h, _ in train]))
    y = torch.tensor([label + 1 for _, _, label in train])  # -1,0,1 -> 0,1,2
    counts = torch.bincount(y, minlength=3).float()
    weights = counts.sum() / (3 * counts)
    head: torch.nn.Module = (
        torch.nn.Linear(x.shape[1], 3)
        if not args.hidden
        else torch.nn.Sequential(
            torch.nn.Linear(x.shape[1], args.hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(args.hidden, 3),
        )
    )
    optimiser = torch.optim.LBFGS(head.parameters(), max_iter=300)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)

    def closure() -> torch.Tensor:
        optimiser.zero_grad()
        loss = loss_fn(head(x), y) + 1e-3 * sum(p.pow(2).sum() for p in head.parameters())
        loss.backward()
        return loss

    optimiser.step(closure)
    items = load_healthver(args.healthver, "dev")
    xh = torch.tensor(
        pair_features(models, [i.documents[0] for i in items], [i.question for i in items])
    )
    gold = np.array([HEALTHVER_LABEL[str(i.gold)] for i in items])
    with torch.no_grad():
        predicted = head(xh).argmax(dim=1).numpy() - 1
        train_accuracy = float((head(x).argmax(dim=1) == y).float().mean())
    names = {1: "Supports", -1: "Refutes", 0: "Neutral"}
    report = {
        "trained_on": f"{args.train_on}: {len(train)} pairs "
        f"(support {int(counts[2])}, neutral {int(counts[1])}, refute {int(counts[0])})",
        "head": f"MLP hidden {args.hidden}" if args.hidden else "logistic regression",
        "train_accuracy": round(train_accuracy, 4),
        "healthver_dev_pairs": len(items),
        "healthver_dev_accuracy": round(float((predicted == gold).mean()), 4),
        "healthver_dev_majority_baseline": round(
            float(max((gold == v).mean() for v in (-1, 0, 1))), 4
        ),
        "healthver_dev_recall": {
            names[v]: round(float((predicted[gold == v] == v).mean()), 4) for v in (-1, 0, 1)
        },
        "features": "[u, v, |u-v|, u*v] of all-MiniLM-L6-v2 (premise u, hypothesis v)",
        "seed": args.seed,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez(
        OUT / "nli_head_minilm.npz",
        **{key.replace(".", "_"): v.detach().numpy() for key, v in head.state_dict().items()},
    )
    (OUT / "nli_head_minilm.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
