#!/usr/bin/env bash
# Learn to Refuse on TruthfulQA MC: build both knowledge bases, run the benchmark, report.
# Resumable: every step skips or continues what is already done.
#
#   bash scripts/truthfulqa_l2r.sh            # N=200 seeded-shuffled items (default)
#   N=817 bash scripts/truthfulqa_l2r.sh      # all of TruthfulQA
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-../shared/data/truthfulqa}
N=${N:-200}
OUT=${OUT:-docs/results/truthfulqa_mc_n${N}}
KBS=${KBS:-runs/kbs/truthfulqa_n${N}}
V=.venv/bin/veriloop
mkdir -p "$KBS" "$OUT"

# 1. Gold base (the reference's upper bound): every question with its best answer, confidence 1.
if [ ! -f "$KBS/gold/CURRENT" ]; then
  $V kb create "$KBS/gold"
  $V kb import "$KBS/gold" --dataset truthfulqa --data-dir "$DATA" --split mc
fi

# 2. Enriched base: the model's own knowledge, one enrichment run per TruthfulQA category,
#    its question agent seeded with that category's questions from the subset.
[ -f "$KBS/enriched/CURRENT" ] || $V kb create "$KBS/enriched"
.venv/bin/python scripts/truthfulqa_topics.py --data-dir "$DATA" --limit "$N" --seed 0 > "$KBS/topics.jsonl"
$V kb enrich "$KBS/enriched" --topics-file "$KBS/topics.jsonl" --target 5 --batch-size 5 --max-batches 2
$V kb export "$KBS/enriched" "$OUT/enriched_kb.jsonl"

# 3. The benchmark: L2R on both bases, its no-reasoning ablation, plain RAG on both, direct.
$V bench --dataset truthfulqa --data-dir "$DATA" --split mc --limit "$N" --shuffle --seed 0 \
  --method l2r --ablation no_reasoning \
  --variant "l2r-gold=l2r,kb_dir=$KBS/gold" \
  --variant "rag-gold=rag,kb_dir=$KBS/gold" \
  --baseline rag --baseline direct \
  --set "kb_dir=$KBS/enriched" --out "$OUT"
