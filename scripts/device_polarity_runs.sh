#!/usr/bin/env bash
# Issue 35's polarity training runs on a lent GPU machine (docs/benchmarks/polarity.md).
#
# Here, first: `.venv/bin/python benchmarks/train_polarity_judge.py --write-pools`, then copy
# runs/polarity_pools.json.xz and an fp16 copy of the bundled encoder into runs/device/
# (docs/DEVELOPING.md, "Training on a lent GPU"). The machine needs PyTorch, transformers,
# safetensors and tqdm, not veriloop: the trainer reads everything from the pools file.
# The runs named as arguments share the GPU; each stops itself before the call's 10-minute limit, its best
# weights and curve kept. The two best runs' weights come back split in 15 MB parts.
set -u
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
OUT=${OUT:-/tmp/polarity_out}
mkdir -p "$OUT"
POOLS=runs/device/polarity_pools.json.xz
BASE=runs/device/base
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
run() {
  local name=$1
  shift
  timeout "${LIMIT:-500}" python3 benchmarks/train_polarity_judge.py --pools "$POOLS" \
    --base "$BASE" --out "/tmp/runs/$name" --threads 4 "$@" >"/tmp/runs/$name.log" 2>&1
  echo "run $name exit $?"
}
mkdir -p /tmp/runs
# each argument is one run: its name, then its trainer options
#   round 1: "steps6250 --steps 6250" "steps12500 --steps 12500" "replay03 --steps 6250 --replay 0.3"
names=()
for spec in "$@"; do
  read -r -a words <<<"$spec"
  names+=("${words[0]}")
  run "${words[@]}" &
done
wait
cd /tmp/runs || exit 1
for name in "${names[@]}"; do
  echo "== $name"
  grep -v 'it/s\]\|s/it\]' "$name.log" | tail -2 | cut -c1-600
  tail -1 "$name/curve.jsonl" | cut -c1-300
done
tar cf "$OUT/curves.tar" ./*/curve.jsonl ./*/best/training.json ./*.log
# the two runs whose best selection score is highest bring their weights back
best=$(python3 - <<'PY'
import json, pathlib
scores = {}
for curve in pathlib.Path(".").glob("*/curve.jsonl"):
    points = [json.loads(line) for line in curve.read_text().splitlines() if line]
    scores[curve.parent.name] = max(p["selection"] for p in points)
print(" ".join(sorted(scores, key=scores.get, reverse=True)[:2]))
PY
)
echo "weights back: $best"
tar cf - $(for name in $best; do echo "$name/best"; done) | split -b 15m - "$OUT/weights.tar.part-"
ls -la "$OUT"
