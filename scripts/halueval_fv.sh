#!/usr/bin/env bash
# Factored Verification on HaluEval QA: θ fitted on TRAIN items' answer pairs, detection
# accuracy on TEST disjoint items' pairs, then revision of the hallucinated test answers by
# FV (critique + revise) and by unfactored self-correction, scored by the same detector.
#   TRAIN=25 TEST=25 bash scripts/halueval_fv.sh
# Claims are the answer's sentences (SmolLM2-135M's own decompositions were unusable:
# "at most 8 claims", "Claim 1"). Resumable: rerun to finish an interrupted run.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAIN="${TRAIN:-25}"
TEST="${TEST:-25}"
.venv/bin/veriloop detect-bench --dataset halueval --data-dir "${DATA:-../shared/data/halueval}" \
  --split qa --train "$TRAIN" --test "$TEST" --seed 0 --set sentences_as_claims=true \
  --out "${OUT:-docs/results/halueval_fv_train${TRAIN}_test${TEST}}"
