"""Measure the deterministic mismatch rules alone: what they catch and what they falsely flag.

    .venv/bin/python benchmarks/mismatch_rules.py --data-root ../shared/data

For every held-out set (`veriloop.evaluation.judge_data.nli_sets.all_held_out_sets`: the support
judges' sets, HealthVer dev three ways, the held-out NLI sets), runs
`nodes.judges.mismatch.find_mismatches(claim, evidence)` on every pair, the evidence texts joined,
and counts the pairs flagged per gold class: a flag on a contradicted pair is a catch, on
an entailed (supported) pair a false flag. Sets with only two labels count supported vs
not supported. Writes docs/benchmarks/mismatch_rules.{json,md}; the rules combined with
the three-way judge are measured by `support_judges.py` (the `three_way` judge is the model
with the rules, `three_way_model` the model alone).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm import tqdm

if not __package__:  # run as a script (the documented way): let `benchmarks.` resolve
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from veriloop.evaluation.judge_data.nli_sets import all_held_out_sets
from veriloop.evaluation.judge_data.support_sets import LabelledPair
from veriloop.nodes.judges.mismatch import find_mismatches

OUT = Path("docs/benchmarks")
CLASS_NAMES = {0: "entailed", 1: "neither", 2: "contradicted"}


def gold_class(pair: LabelledPair) -> str:
    """Return the pair's gold class name: three-way where known, else supported or not."""
    if pair.label is not None:
        return CLASS_NAMES[pair.label]
    return "entailed" if pair.supported else "not supported"


def measure_set(pairs: list[LabelledPair]) -> dict[str, Any]:
    """Return per gold class: pairs, pairs flagged, the share, and flags by kind."""
    totals: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = {}
    started = time.perf_counter()
    for pair in pairs:
        gold = gold_class(pair)
        totals[gold] += 1
        found = find_mismatches(pair.query.claim, " ".join(pair.query.evidence))
        if found:
            flagged[gold] += 1
            kinds.setdefault(gold, Counter()).update({m.kind for m in found})
    seconds = time.perf_counter() - started
    return {
        "pairs": len(pairs),
        "ms_per_pair": round(1000 * seconds / max(1, len(pairs)), 3),
        "classes": {
            gold: {
                "pairs": totals[gold],
                "flagged": flagged[gold],
                "share": flagged[gold] / totals[gold],
                "by_kind": dict(kinds.get(gold, Counter())),
            }
            for gold in sorted(totals)
        },
    }


def markdown(results: dict[str, dict[str, Any]], command: str) -> str:
    """Return the results as the report's markdown."""
    lines = [
        "# Deterministic mismatch rules alone, on held-out pairs",
        "",
        f"Written by `{command}`. Each pair's claim is compared with the evidence sentence "
        "that shares most of its content words (`nodes/judges/mismatch.py`); a pair is "
        "flagged when "
        "any rule fires. On contradicted pairs a flag is a catch; on entailed pairs it is a "
        "false flag (the verdict would wrongly become contradicted); on neither / not "
        "supported pairs it turns 'unsupported' into 'contradicted' (wrong by the label, "
        "harmless for the answer's verdict).",
        "",
        "Since issue 35 the rules include the aligned contrast rule (`nodes/judges/contrast.py`: a "
        "medical contrast lexicon, rates, same-kind entities, clause-level negation). The "
        "`medquad_mp_<edit>` sets are MedQuAD minimal pairs of held-out pages "
        "(`veriloop/evaluation/judge_data/minimal_pairs.py`): each contradicted pair of that "
        "edit beside its entailed twin, so 'contradicted' is the catch rate per edit type and "
        "'entailed' the false alarms on the twins. The generator's contrast edits use the "
        "rule's own lexicon: their catch rate is by construction; the sets it did not make are "
        "the test. "
        "The rules before issue 35 (at 514294a): `mismatch_rules_514294a.md`.",
        "",
        "| set | gold class | pairs | flagged | share | by kind |",
        "|---|---|---|---|---|---|",
    ]
    for name, result in results.items():
        for gold, row in result["classes"].items():
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(row["by_kind"].items())) or "-"
            lines.append(
                f"| {name} | {gold} | {row['pairs']} | {row['flagged']} | "
                f"{row['share']:.3f} | {kinds} |"
            )
    lines += [
        "",
        "Milliseconds per pair (2 cores, one process): "
        + ", ".join(f"{name} {r['ms_per_pair']:.2f}" for name, r in results.items())
        + ".",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Run the rules on every held-out set and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    sets = all_held_out_sets(args.data_root)
    results = {name: measure_set(pairs) for name, pairs in tqdm(sets.items(), desc="held-out sets")}
    OUT.mkdir(parents=True, exist_ok=True)
    command = "benchmarks/mismatch_rules.py --data-root ../shared/data"
    (OUT / "mismatch_rules.json").write_text(
        json.dumps({"command": command, "sets": results}, indent=2) + "\n"
    )
    text = markdown(results, command)
    (OUT / "mismatch_rules.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
