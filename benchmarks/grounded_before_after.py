r"""The grounded default before and after a change, item by item, on the same MEDIQA items.

    .venv/bin/python benchmarks/grounded_before_after.py \
        --before docs/results/mediqa_grounded_three_way_n120 \
        --after docs/results/mediqa_grounded_standalone_n120 \
        --out docs/results/mediqa_grounded_standalone_n120/before_after.md

Per item of the `grounded` run in both folders (same seeded items):
- refused (0/1);
- unsupported claims per answer: the answer's sentences (citations removed) judged against
  the item's expert-rated correct answers by the reference judge of `veriloop report` (the
  gated three-way judge; a refusal makes no claim);
- **off-topic sentences per answer**, by this rule (`off_topic`): a quoted sentence is off
  topic when the page it was quoted from is about a neighbouring condition of the
  question's subject (`nodes.grounding.off_focus`), or when neither the sentence nor its
  page's focus shares a specific word with the question (`focus_words`: stemmed, stop words
  and generic words like "disease" out);
- token F1 against the references.
Means, and after-minus-before with a paired bootstrap interval (2,000 resamples, seed 0).
`--hand-check 30` prints 30 seeded (question, sentence, rule's label) triples to check by eye.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script (the documented way): let `veriloop` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.context import ModelSettings
from veriloop.evaluation.bench import ResultsFile
from veriloop.evaluation.grounding import answer_claims, faithfulness
from veriloop.evaluation.metrics import unigram_f1
from veriloop.evaluation.tables import bootstrap_interval
from veriloop.models import get_models
from veriloop.nodes.grounding import focus_words, off_focus
from veriloop.nodes.judges import CoverageGatedJudge, support_judge


def off_topic(question: str, sentence: str, focus: str) -> bool:
    """Tell whether a quoted sentence is off the question's topic (see the module docstring)."""
    if focus and off_focus(question, focus):
        return True
    asked = focus_words(question)
    return not (focus_words(sentence) & asked) and not (focus_words(focus) & asked)


def quoted(record: dict[str, Any]) -> list[tuple[str, str]]:
    """Return the answer's kept sentences with their page focus."""
    outputs = record.get("outputs") or {}
    titles = {p["id"]: p.get("title", "") for p in outputs.get("passages", [])}
    return [
        (s["text"], titles.get(s.get("passage_id") or "", ""))
        for s in outputs.get("sentences", [])
        if s.get("supported")
    ]


def measures(record: dict[str, Any], judge: Any) -> dict[str, float]:
    """Return one item's refused, unsupported, off-topic and F1 figures."""
    answer = record.get("answer") or ""
    if not answer or record.get("refusal"):
        return {"refused": 1.0, "unsupported": 0.0, "off_topic": 0.0, "f1": 0.0}
    claims = answer_claims(answer)
    found = faithfulness(judge, claims, record["references"], question=record["question"])
    return {
        "refused": 0.0,
        "unsupported": float(found["unsupported"]),
        "off_topic": float(
            sum(off_topic(record["question"], text, focus) for text, focus in quoted(record))
        ),
        "f1": 100 * unigram_f1(answer, record["references"]),
    }


def load(run_dir: Path, run: str) -> dict[str, dict[str, Any]]:
    """Return the run's records by item id."""
    return {
        r["item_id"]: r for r in ResultsFile(run_dir / "results.jsonl").records() if r["run"] == run
    }


def main() -> None:
    """Compare the two folders' grounded runs item by item; write the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--run", default="grounded")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--hand-check", type=int, default=0)
    args = parser.parse_args()
    before, after = load(args.before, args.run), load(args.after, args.run)
    items = sorted(set(before) & set(after))
    judge = CoverageGatedJudge(support_judge("three_way", get_models(ModelSettings())))
    rows = {i: (measures(before[i], judge), measures(after[i], judge)) for i in items}
    answered_b = [rows[i][0] for i in items if not rows[i][0]["refused"]]
    answered_a = [rows[i][1] for i in items if not rows[i][1]["refused"]]
    lines = [
        f"# Grounded default before and after ({len(items)} MEDIQA items)",
        "",
        f"Command: `python benchmarks/grounded_before_after.py {' '.join(sys.argv[1:])}`  ",
        f"Before: {args.before}; after: {args.after} (run `{args.run}`, same seeded items).",
        "",
        "| measure | before | after | after - before [95% paired bootstrap CI] |",
        "|---|---|---|---|",
    ]
    for key, label, over in (
        ("refused", "Refused %", "all"),
        ("unsupported", "Unsupp. claims per answered item", "answered"),
        ("off_topic", "Off-topic sentences per answered item", "answered"),
        ("unsupported", "Unsupp. claims per item (refusal = 0)", "all"),
        ("off_topic", "Off-topic sentences per item (refusal = 0)", "all"),
        ("f1", "F1 (refusal = 0)", "all"),
    ):
        scale = 100.0 if key == "refused" else 1.0
        if over == "answered":
            b = sum(r[key] for r in answered_b) / max(len(answered_b), 1)
            a = sum(r[key] for r in answered_a) / max(len(answered_a), 1)
            ci = "(different answered items: no paired interval)"
        else:
            b = scale * sum(rows[i][0][key] for i in items) / len(items)
            a = scale * sum(rows[i][1][key] for i in items) / len(items)
            low, high = bootstrap_interval(
                [scale * (rows[i][1][key] - rows[i][0][key]) for i in items]
            )
            ci = f"{a - b:+.3f} [{low:+.3f}, {high:+.3f}]"
        lines.append(f"| {label} | {b:.3f} | {a:.3f} | {ci} |")
    lines += [
        "",
        f"Answered: before {len(answered_b)}, after {len(answered_a)} of {len(items)}.",
        "",
        "Off-topic rule: a quoted sentence is off topic when its page is about a neighbouring "
        "condition of the question's subject (the page focus shares some of its specific "
        "words with the question but not all), or when neither the sentence nor its page "
        "focus shares a specific word with the question.",
    ]
    if args.hand_check:
        pool = [
            (after[i]["question"], text, focus, off_topic(after[i]["question"], text, focus))
            for i in items
            for text, focus in quoted(after[i])
        ]
        for question, text, focus, label in random.Random(0).sample(
            pool, min(args.hand_check, len(pool))
        ):
            print(json.dumps({"q": question[:160], "s": text, "focus": focus, "off": label}))
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
