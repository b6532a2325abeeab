#!/usr/bin/env bash
# Learn to Refuse on CommonsenseQA (dev) and MedQA (test) with each dataset's gold base
# (the reference's upper-bound variant), next to plain RAG on the same base and direct
# answering. Resumable. N items per dataset, seeded shuffle.
#
#   bash scripts/choice_datasets_l2r.sh        # N=50
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-50}
V=.venv/bin/veriloop
for spec in "commonsenseqa:dev:../shared/data/commonsenseqa" "medqa:test:../shared/data/medqa"; do
  IFS=: read -r NAME SPLIT DATA <<< "$spec"
  KB=runs/kbs/${NAME}_gold
  if [ ! -f "$KB/CURRENT" ]; then
    $V kb create "$KB"
    $V kb import "$KB" --dataset "$NAME" --data-dir "$DATA" --split "$SPLIT"
  fi
  $V bench --dataset "$NAME" --data-dir "$DATA" --split "$SPLIT" --limit "$N" --shuffle --seed 0 \
    --method l2r --baseline rag --baseline direct --set "kb_dir=$KB" \
    --out "docs/results/${NAME}_${SPLIT}_n${N}_goldkb"
done
