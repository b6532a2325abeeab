#!/usr/bin/env bash
# The grounded default against direct answering on real consumer questions: MEDIQA 2019
# Task 3 (validation + both training sets, 199 questions with an expert-rated correct
# answer), N of them after a seeded shuffle. Runs: direct (baseline), grounded (the
# default, answer_mode=extract: the passage sentences closest to the question are quoted),
# grounded-generate (SmolLM2 answers by copying from the 3 best MedQuAD passages). EXTRA
# adds runs, e.g.
#   EXTRA="-m self-reflection --variant sr-grounded=self-reflection,grounded=true"
# Resumable: run it again to finish an interrupted run; the report is written at the end
# (REPORT=--no-report skips it; `veriloop report DIR` writes it later).
#   N=120 bash scripts/mediqa_grounded.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-120}"
# shellcheck disable=SC2086
.venv/bin/veriloop bench --dataset mediqa2019 --data-dir "${DATA:-../shared/data/mediqa2019}" \
  --split all --shuffle --seed 0 --limit "$N" \
  -b direct -m grounded --variant grounded-generate=grounded,answer_mode=generate ${EXTRA:-} ${REPORT:-} \
  --out "${OUT:-docs/results/mediqa_grounded_n${N}}"
