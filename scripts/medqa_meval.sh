#!/usr/bin/env bash
# M-Eval on MedQA: per question a right and a wrong response ("The answer is X: ..."), each
# citing the 2 articles BM25 finds in the PubMed/MEDLINE sample; the full method and its
# three ablations (random reliability, no heterogeneity, no extra evidence).
#   N=15 bash scripts/medqa_meval.sh          (resumable)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-15}"
.venv/bin/veriloop validate-bench --dataset medqa --data-dir "${DATA:-../shared/data/medqa}" \
  --split test --limit "$N" --seed 0 \
  --evidence-corpus "${CORPUS:-../shared/data/pubmed_medline_sample/medline16n0902_sample.jsonl}" \
  --out "${OUT:-docs/results/medqa_meval_n${N}}"
