#!/usr/bin/env bash
# M-Eval where the evidence exists and may disagree: Citation-Integrity test claims, each
# checked against the abstract(s) it cites; N SUPPORT and N REFUTE/CONTRADICT claims after a
# seeded shuffle. A REFUTE claim is a wrong response (M-Eval should label it incorrect).
# The full method and its three ablations; extra evidence from the PubMed/MEDLINE sample.
#   N=15 bash scripts/citation_meval.sh          (resumable)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-15}"
# shellcheck disable=SC2086
.venv/bin/veriloop validate-bench --dataset citation_integrity \
  --data-dir "${DATA:-../shared/data/citation_integrity}" --split test --limit "$N" --seed 0 \
  --evidence-corpus "${CORPUS:-../shared/data/pubmed_medline_sample/medline16n0902_sample.jsonl}" \
  ${SETTINGS:-} --out "${OUT:-docs/results/citation_meval_n${N}}"
