#!/usr/bin/env bash
# Reproduce the shipped answer-relevance judge (nodes/data/relevance_judge/): the bundled
# all-MiniLM-L6-v2, every encoder layer fine-tuned (embeddings frozen), one epoch over
# 22,815 (question, sentence) pairs from the bundled MedQuAD answers: 5,000 questions of the
# foci outside the held-out tenth, 2 sentences of each one's own answer (relevant) and one
# each of another question type's answer on the same page, a neighbouring condition's page
# and an unrelated page (not relevant). About 9 minutes on 2 idle CPU cores (the time is
# recorded in training.json); the same script runs on a GPU where torch sees one.
#   bash scripts/train_relevance_judge.sh            writes runs/relevance_v1
#   OUT=nodes/data/relevance_judge bash scripts/train_relevance_judge.sh
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python benchmarks/train_relevance_judge.py --questions 5000 --positives 2 \
  --epochs 1 --batch-size 32 --lr 5e-5 --head-lr 1e-3 --max-length 160 --seed 0 --threads 2 \
  --out "${OUT:-runs/relevance_v1}" --version 1
