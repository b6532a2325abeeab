#!/usr/bin/env bash
# Factual Evidence vs plain RAG vs no retrieval, with the paper's three ablations, on
# PubMedQA test questions with all 1,000 PubMedQA abstracts as the corpus.
#   N=20 bash scripts/pubmedqa_fe.sh      (N test items after a seeded shuffle; default 20)
# Every run gets the same answer style (lead with yes/no/maybe, then explain), so the
# decision accuracy compares like with like. Resumable: rerun to finish an interrupted run.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-20}"
DATA="${DATA:-../shared/data/pubmedqa}"
CORPUS="${CORPUS:-runs/corpus/pubmedqa}"
OUT="${OUT:-docs/results/pubmedqa_fe_n${N}}"
if [ ! -f "$CORPUS/CURRENT" ]; then
  .venv/bin/veriloop index --dataset pubmedqa --data-dir "$DATA" --split all --out "$CORPUS"
fi
STYLE="$(tr -d '\n' < prompts/factual_evidence_answer_style.txt)"
OVERRIDES="$(.venv/bin/python -c 'import json,sys; print(json.dumps({"direct_answer": "Answer the question: \"{question}\" " + sys.argv[1]}))' "$STYLE")"
.venv/bin/veriloop bench --dataset pubmedqa --data-dir "$DATA" --split test \
  --limit "$N" --shuffle --seed 0 \
  --method fe --baseline rag --baseline direct \
  --ablation direct_generation --ablation triplets_instead_of_paragraphs \
  --ablation no_verification \
  --set "corpus_dir=$CORPUS" --set "prompt_overrides=$OVERRIDES" \
  --no-report --out "$OUT"
.venv/bin/veriloop report "$OUT"
