#!/usr/bin/env bash
# Measure the three-way judge (with and without the mismatch rules) on every held-out set,
# the older MiniLM judges on the held-out NLI sets, then rewrite
# docs/benchmarks/support_judges.{md,json}. Resumable (records are appended per pair).
#   bash scripts/measure_three_way.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=(.venv/bin/python benchmarks/support_judges.py --data-root "${DATA:-../shared/data}")
SUPPORT_SETS=halueval,healthver_sr,healthver_rest,healthver_dev_sr,healthver_dev_rest,citation,pubmedqa_swap,halueval_swap,healthver_dev_swap,healthver_dev_negated,healthver_dev_3way
NLI_SETS=snli_test,cad_test,fm2_test,wice_test,negation_nli
"${BENCH[@]}" measure --judges three_way_model,three_way --sets "$SUPPORT_SETS" --max-items 300
"${BENCH[@]}" measure --judges three_way_model,three_way --sets "$NLI_SETS" --max-items 3000
"${BENCH[@]}" measure --judges head,cross_encoder,gated --sets "$NLI_SETS,healthver_dev_3way" --max-items 1000
"${BENCH[@]}" report > /dev/null
