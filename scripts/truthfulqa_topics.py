"""Write enrichment topics for a TruthfulQA subset: one per category, seeded by its questions.

    .venv/bin/python scripts/truthfulqa_topics.py --data-dir DIR --limit 200 --seed 0 > topics.jsonl

The multiple-choice file has no categories; they come from TruthfulQA.csv, matched by
question text. Each line is {"topic": "<category>", "seed_questions": [...]} for
`veriloop kb enrich --topics-file`. The seeds are benchmark questions (their text only,
never an answer), as L2R's automatic enrichment seeds its question agent with questions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from veriloop.evaluation.bench import select_items
from veriloop.evaluation.loaders.truthfulqa import load_truthfulqa


def main() -> None:
    """Print one JSON line per category of the selected items."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds-per-topic", type=int, default=8)
    args = parser.parse_args()
    items = select_items(
        load_truthfulqa(args.data_dir, "mc"), limit=args.limit, shuffle=True, seed=args.seed
    )
    category = {
        item.question: item.metadata.get("category") or "general knowledge"
        for item in load_truthfulqa(args.data_dir, "generation")
    }
    grouped: dict[str, list[str]] = defaultdict(list)
    for item in items:
        grouped[category.get(item.question, "general knowledge")].append(item.question)
    for topic, questions in sorted(grouped.items(), key=lambda kv: -len(kv[1])):
        row = {"topic": topic, "seed_questions": questions[: args.seeds_per_topic]}
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
