#!/usr/bin/env bash
# Factored Verification on HaluEval QA: θ fitted on TRAIN items' answer pairs, detection
# accuracy on TEST disjoint items' pairs, then revision of the hallucinated test answers by
# FV (critique + revise) and by unfactored self-correction, scored by the same detector.
#   TRAIN=100 TEST=100 bash scripts/halueval_fv.sh                  # trained judge (default)
#   VERIFIER=auto OFFSET=0 TRAIN=25 TEST=25 bash scripts/halueval_fv.sh  # the paper's P(Yes)
# OFFSET=400 (default) skips the 400 items the trained support judge was fitted on.
# REVISE=--no-revise skips the revision phase.
# Claims are the answer's sentences (SmolLM2-135M's own decompositions were unusable:
# "at most 8 claims", "Claim 1"). Resumable: rerun to finish an interrupted run.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAIN="${TRAIN:-25}"
TEST="${TEST:-25}"
.venv/bin/veriloop detect-bench --dataset halueval --data-dir "${DATA:-../shared/data/halueval}" \
  --split qa --train "$TRAIN" --test "$TEST" --seed 0 --offset "${OFFSET:-400}" \
  --set sentences_as_claims=true --set verifier="${VERIFIER:-trained}" ${REVISE:-} \
  --out "${OUT:-docs/results/halueval_fv_${VERIFIER:-trained}_offset${OFFSET:-400}_train${TRAIN}_test${TEST}}"
