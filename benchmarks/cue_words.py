"""How well each question type's cue words find sentences of that type, three ways.

    python benchmarks/cue_words.py --out docs/benchmarks/cue_words.md

When the subject's pages hold no passage of the asked type, the grounded default quotes
only sentences holding one of the type's cue stems (`nodes.question_type`,
`QuestionTypeClassifier.mentions`). Measured on a seeded sample of 20,000 quotable units of
the bundled MedQuAD answers, each labelled with its answer's question type: recall (the
type's units that hold a cue) and precision (units holding a cue that are of the type),
for (a) the learned stems alone (training.json), (b) the learned stems plus the words that
name the type (cue_words.json, what ships), (c) a hand-written list replacing the learned
stems (below). Precision is low for every candidate because MedQuAD's answers mention
other types' words all the time (a treatment answer names symptoms); what the words must
do is let through the sentences of an information page that answer the asked type.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.knowledge.medquad import open_medquad
from veriloop.nodes.question_type import QUESTION_TYPE_DIR, question_types
from veriloop.quotable import quotable_texts

HAND_WRITTEN = {
    "symptoms": "symptom symptoms sign signs feel feeling pain experience complain",
    "causes": "cause causes caused due trigger triggers because blockage infection factor factors",
    "exams and tests": "diagnose diagnosed diagnosis test tests exam examination examine biopsy "
    "scan x-ray mri ultrasound screening detect confirm",
    "treatment": "treat treated treatment treatments therapy therapies surgery drug drugs "
    "medicine medicines medication medications antibiotics remove relieve manage management",
    "outlook": "outlook prognosis recover recovery survival survive fatal die death deadly "
    "life expectancy chance progress progresses worsen improve cure cured",
    "prevention": "prevent prevention avoid protect vaccine vaccination reduce lower risk",
    "susceptibility": "risk likely common anyone age people affects develop",
    "inheritance": "inherit inherited inheritance autosomal dominant recessive parent parents "
    "pass passed familial family",
    "complications": "complication complications lead damage untreated serious emergency "
    "rupture burst",
}
"""The hand-written replacement measured as (c): words a person would list per type."""

TYPES = tuple(HAND_WRITTEN)


def stems(words: str) -> frozenset[str]:
    """Return the index's stems of a space-separated word list."""
    return frozenset(lexical_tokens([words])[0])


def main() -> None:
    """Measure the three candidates and write the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--units", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks/cue_words.md"))
    args = parser.parse_args()

    shipped = question_types()
    learned = json.loads((QUESTION_TYPE_DIR / "training.json").read_text())["cue_stems"]
    candidates = {
        "learned stems": {t: frozenset(learned[t]) for t in TYPES},
        "learned + naming words (shipped)": {t: shipped.cues[t] for t in TYPES},
        "hand-written replacement": {t: stems(HAND_WRITTEN[t]) for t in TYPES},
    }
    units = [(u, p.qtype) for p in open_medquad().passages for u in quotable_texts(p.text)]
    sample = random.Random(args.seed).sample(units, min(args.units, len(units)))
    tokens = [frozenset(lexical_tokens([u])[0]) for u, _ in sample]
    lines = [
        "# Cue words per question type",
        "",
        f"Command: `python benchmarks/cue_words.py` ({len(sample):,} quotable units sampled "
        f"with seed {args.seed} from {len(units):,}; labels: each unit's MedQuAD answer type).",
        "",
        "| type | units of it | " + " | ".join(f"{name} R / P" for name in candidates) + " |",
        "|---|---|" + "---|" * len(candidates),
    ]
    for qtype in TYPES:
        positives = sum(label == qtype for _, label in sample)
        cells = []
        for cues in candidates.values():
            hits = [bool(cues[qtype] & words) for words in tokens]
            caught = sum(h and label == qtype for h, (_, label) in zip(hits, sample, strict=True))
            cells.append(f"{caught / max(positives, 1):.2f} / {caught / max(sum(hits), 1):.2f}")
        lines.append(f"| {qtype} | {positives} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "R: recall (units of the type holding a cue); P: precision (units holding a cue that",
        "are of the type). The hand-written list is no better than the learned stems overall",
        "(higher on some types, lower on others), so the learned stems stay and only the words",
        "naming each type are added (`nodes/data/question_type/cue_words.json`): they catch",
        "'Signs of ectopic pregnancy include ...' on an information page, which the learned",
        "symptoms stems ('symptom', 'exampl', 'were', ...) missed. Treatment's words include",
        "'cure', 'medicine' and 'medication' (2026-11-26): 'There is no cure, but there are",
        "many medicines to fight both HIV infection ...' is the HIV/AIDS page's treatment",
        "sentence, and it held no treatment stem; recall 0.55 -> 0.61, precision 0.60 -> 0.56.",
        "Learned stems that are words of any sentence are dropped (2026-11-27; cue_words.json",
        "'_dropped'): treatment's 'might' (recall unchanged, precision +0.01) and inheritance's",
        "'typic', 'each', 'new', 'show', 'suffici' (recall -0.01, precision +0.07); other",
        "types' function-word stems carry their recall (susceptibility 0.73 -> 0.59 without",
        "'you', 'get', ...) and stay. The shipped column is after the drop.",
    ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
