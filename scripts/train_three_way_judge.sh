#!/usr/bin/env bash
# Reproduce the shipped three-way judge (nodes/data/three_way_judge/): the bundled
# all-MiniLM-L6-v2, every encoder layer fine-tuned (embeddings frozen) from the v2 support
# adapter, one epoch over 49,451 pairs: the NLI pairs of ../shared/data/nli capped at 2,500
# per folder and class (held-out sets and their premises excluded, deduplicated) plus the
# support sources at 600 per class. About 60-70 minutes on 2 idle CPU cores (the time is
# recorded in training.json); the same script runs on a GPU where torch sees one.
#   bash scripts/train_three_way_judge.sh            writes runs/three_way_v1
#   OUT=nodes/data/three_way_judge bash scripts/train_three_way_judge.sh
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python benchmarks/train_three_way_judge.py --data-root "${DATA:-../shared/data}" \
  --mode full --nli-per-class 2500 --support-per-class 600 --epochs 1 --batch-size 32 \
  --lr 5e-5 --head-lr 1e-3 --max-length 192 --seed 0 --threads 2 \
  --init-from nodes/data/support_cross_encoder --out "${OUT:-runs/three_way_v1}" --version 1
