"""Three-way (entailed / neither / contradicted) pairs for training and measuring judges.

Two kinds of material, both read from `../shared/data`:

- **NLI pairs** (`nli/*/pairs.jsonl.gz`, see `nli/README.md`): human-written
  premise-hypothesis pairs. Held out, never trained on (`NLI_HELD_OUT`): SNLI test, the
  counterfactual-SNLI test split, FM2 test, WiCE test and the whole of negation NLI.
  Everything else trains, after two filters: pairs are deduplicated on (premise,
  hypothesis), and any pair whose premise (case and spacing folded) occurs in a held-out
  set is dropped, so a reported set is disjoint *by premise* from training (CAD reuses SNLI
  premises, Breaking NLI and negation NLI draw on SNLI/MNLI ones).
- **Support sources** (`support_sets.TRAINING_SOURCES`): the claim-support judge's own
  data, re-labelled three ways. A pair whose gold label only says "not supported" (a
  HaluEval hallucinated answer) allows both *neither* and *contradicted*: the loss asks the
  model to put its mass on either, not to guess which (`allowed`).

Labels are class indices in the judge's order, `nodes.judges.THREE_WAY`:
0 entailed, 1 neither, 2 contradicted.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.evaluation.judge_data.support_sets import (
    SEED,
    TRAINING_SOURCES,
    LabelledPair,
    held_out_sets,
    training_pairs,
)
from veriloop.evaluation.loaders.healthver import load_healthver
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa
from veriloop.nodes.judges import CONTRADICTED, ENTAILED, NEITHER, SupportQuery

NLI_LABELS: dict[str, frozenset[int]] = {
    "entailment": frozenset({ENTAILED}),
    "neutral": frozenset({NEITHER}),
    "contradiction": frozenset({CONTRADICTED}),
    "not_entailment": frozenset({NEITHER, CONTRADICTED}),
    "partially_supported": frozenset({NEITHER}),
}
"""Each source label as the classes it allows. WiCE's `partially_supported` claims are not
entailed by the page and not denied by it: neither."""

SCIFACT_LABELS: dict[str, frozenset[int]] = {
    **NLI_LABELS,
    "not_entailment": frozenset({CONTRADICTED}),
}
"""SciFact's binary pairs keep only SUPPORT and CONTRADICT (NEI was excluded by its
preparers), so its `not_entailment` is a contradiction (nli/scifact/LICENCE_NOTE.txt)."""

NLI_FOLDERS: dict[str, str] = {
    "snli": "snli_devtest_esnli/pairs.jsonl.gz",
    "mnli": "mnli_taxinli/pairs.jsonl.gz",
    "cad": "cad_nli_counterfactual_snli/pairs.jsonl.gz",
    "breaking": "breaking_nli/pairs.jsonl.gz",
    "conj": "conjnli/pairs.jsonl.gz",
    "negation": "negation_nli/pairs.jsonl.gz",
    "fever": "fever/pairs.jsonl.gz",
    "fm2": "fm2_fool_me_twice/pairs.jsonl.gz",
    "wice": "wice/pairs.jsonl.gz",
    "scifact": "scifact/pairs_rte_binary.jsonl.gz",
    "cannot": "cannot/pairs.jsonl.gz",
    "scone": "scone/pairs.jsonl.gz",
    "clinifact": "clinifact/pairs.jsonl.gz",
    "medhallu": "medhallu/pairs.jsonl.gz",
}

FOLDER_LABELS: dict[str, dict[str, frozenset[int]]] = {
    "scifact": SCIFACT_LABELS,
    "scone": {**NLI_LABELS, "neutral": frozenset({NEITHER, CONTRADICTED})},
}
"""Folders whose labels read otherwise than `NLI_LABELS`. ScoNe's `neutral` is "not
entailed" (its negated hypotheses are often denials), so it allows either class."""

HASH_SPLIT_FOLDERS = ("cannot",)
"""Folders released without the splits veriloop needs (CANNOT has only `train`): their rows
get a split by a stable hash of the premise (`hash_split`): 10% `test`, 10% `dev`, the
rest `train`, so one premise never sits in two splits. MedHallu (also only `train`) shares
its 1,000 items with PubMedQA PQA-L, whose dev half the support judges train on: its rows
take their item's PubMedQA split (`test` for the 500 test PMIDs, else `train`), so
`medhallu_test` is held out from every judge. ScoNe has train and test only: a tenth of
its train premises (by the same hash) is its `dev`."""

NLI_HELD_OUT: dict[str, tuple[str, str | None]] = {
    "snli_test": ("snli", "test"),
    "cad_test": ("cad", "test"),
    "fm2_test": ("fm2", "test"),
    "wice_test": ("wice", "test"),
    "negation_nli": ("negation", None),
    "cannot_test": ("cannot", "test"),
    "scone_test": ("scone", "test"),
    "clinifact_test": ("clinifact", "test"),
    "medhallu_test": ("medhallu", "test"),
}
"""Held-out set -> (folder, split; None: every split). Never trained on, never used to
choose a checkpoint or fit a threshold."""

NLI_DEV: dict[str, tuple[str, str]] = {
    "cannot_dev": ("cannot", "dev"),
    "clinifact_dev": ("clinifact", "dev"),
    "scone_dev": ("scone", "dev"),
}
"""Dev parts: never trained on either; they choose checkpoints and fit thresholds, and are
never reported as results."""

NOT_TRAINED: frozenset[str] = frozenset({"medhallu"})
"""Folders no judge trains on: MedHallu's items are PubMedQA PQA-L items, which the support
sources (`pubmedqa`) train on; its test part measures, nothing else."""


@dataclass(frozen=True)
class ThreeWayPair:
    """One (evidence, claim[, question]) pair with the classes its gold label allows."""

    query: SupportQuery
    allowed: frozenset[int]
    source: str
    item: str

    @property
    def label(self) -> int | None:
        """Return the single gold class, or None when the label allows two."""
        return next(iter(self.allowed)) if len(self.allowed) == 1 else None


def premise_key(text: str) -> str:
    """Return a premise with case and spacing folded, for the disjointness check."""
    return " ".join(text.lower().split())


def hash_split(premise: str) -> str:
    """Return `test`, `dev` or `train` for a premise, stably (sha256 of the folded text)."""
    bucket = int(hashlib.sha256(premise_key(premise).encode()).hexdigest()[:8], 16) % 10
    return {0: "test", 1: "dev"}.get(bucket, "train")


def _read(data_root: Path, folder: str) -> Iterator[dict[str, str]]:
    path = Path(data_root) / "nli" / NLI_FOLDERS[folder]
    if not path.is_file():
        raise InvalidInputError(
            f"no NLI pairs at {path}; the NLI data lives in ../shared/data/nli "
            "(give --data-root the folder that holds nli/)"
        )
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                if folder in HASH_SPLIT_FOLDERS:
                    row["split"] = hash_split(row["premise"])
                elif folder == "scone" and row["split"] == "train":
                    row["split"] = "dev" if hash_split(row["premise"]) == "dev" else "train"
                elif folder == "medhallu":
                    asked = " ".join(str(row.get("question", "")).split())
                    in_test = asked in _pubmedqa_test_questions(Path(data_root))
                    row["split"] = "test" if in_test else "train"
                yield row


@cache
def _pubmedqa_test_questions(data_root: Path) -> frozenset[str]:
    items = load_pubmedqa(data_root / "pubmedqa", "test")
    return frozenset(" ".join(item.question.split()) for item in items)


def nli_pairs(data_root: Path, folder: str, split: str | None = None) -> list[ThreeWayPair]:
    """Return one NLI folder's pairs (of one split, or all), as three-way pairs.

    Raises:
        InvalidInputError: The folder's pairs file is missing, or a label is unknown.
    """
    labels = FOLDER_LABELS.get(folder, NLI_LABELS)
    out = []
    for row in _read(data_root, folder):
        if split is not None and row["split"] != split:
            continue
        if row["label"] not in labels:
            raise InvalidInputError(f"{folder} pair {row['id']}: unknown label {row['label']!r}")
        query = SupportQuery(" ".join(row["hypothesis"].split()), [row["premise"].strip()])
        out.append(
            ThreeWayPair(
                query,
                labels[row["label"]],
                folder,
                f"{folder}:{row.get('id') or row.get('source_id')}",
            )
        )
    return out


def nli_held_out_sets(data_root: Path) -> dict[str, list[ThreeWayPair]]:
    """Return every held-out NLI set by name (`NLI_HELD_OUT`)."""
    return {
        name: nli_pairs(data_root, folder, split) for name, (folder, split) in NLI_HELD_OUT.items()
    }


def held_out_premises(data_root: Path) -> set[str]:
    """Return the folded premise of every held-out and dev NLI pair."""
    sets = [*nli_held_out_sets(data_root).values()]
    sets += [nli_pairs(data_root, folder, split) for folder, split in NLI_DEV.values()]
    return {premise_key(pair.query.evidence[0]) for pairs in sets for pair in pairs}


def nli_training_pairs(data_root: Path) -> tuple[list[ThreeWayPair], dict[str, int]]:
    """Return the NLI training pairs and how many each filter removed.

    Every pair not in a held-out set, deduplicated on (premise, hypothesis), without any
    pair whose premise is a held-out premise. The counts say what was kept per folder and
    what the two filters dropped (`duplicate`, `held_out_premise`).
    """
    held_out = {(folder, split) for folder, split in (*NLI_HELD_OUT.values(), *NLI_DEV.values())}
    held_out |= {(folder, None) for folder in NOT_TRAINED}
    blocked = held_out_premises(data_root)
    seen: set[tuple[str, str]] = set()
    kept: list[ThreeWayPair] = []
    counts: dict[str, int] = {"duplicate": 0, "held_out_premise": 0}
    for folder in NLI_FOLDERS:
        if (folder, None) in held_out:
            continue
        for row_split in _splits(data_root, folder):
            if (folder, row_split) in held_out:
                continue
            for pair in nli_pairs(data_root, folder, row_split):
                key = (premise_key(pair.query.evidence[0]), premise_key(pair.query.claim))
                if key in seen:
                    counts["duplicate"] += 1
                    continue
                seen.add(key)
                if key[0] in blocked:
                    counts["held_out_premise"] += 1
                    continue
                kept.append(pair)
                counts[folder] = counts.get(folder, 0) + 1
    return kept, counts


def _splits(data_root: Path, folder: str) -> list[str]:
    return list(dict.fromkeys(row["split"] for row in _read(data_root, folder)))


def _three_way(
    pairs: list[LabelledPair], source: str, negative: frozenset[int]
) -> list[ThreeWayPair]:
    return [
        ThreeWayPair(p.query, frozenset({ENTAILED}) if p.supported else negative, source, p.item)
        for p in pairs
    ]


SUPPORT_NEGATIVES: dict[str, frozenset[int]] = {
    "halueval": frozenset({NEITHER, CONTRADICTED}),
    "citation": frozenset({CONTRADICTED}),
    "pubmedqa": frozenset({NEITHER}),
    "halueval_swap": frozenset({NEITHER}),
    "healthver_swap": frozenset({NEITHER}),
    "healthver_negated": frozenset({CONTRADICTED}),
    "halueval_negated": frozenset({CONTRADICTED}),
    "pubmedqa_negated": frozenset({CONTRADICTED}),
}
"""What an unsupported pair of each support source is. Citation-Integrity's negatives are
REFUTE/CONTRADICT; swapped evidence is about something else (neither); a perturbed claim
(negation, direction, number) is denied by the evidence that backed the original; a
HaluEval hallucination may be either."""


def healthver_three_way(data_dir: Path, split: str) -> list[ThreeWayPair]:
    """Return HealthVer pairs with their three labels (Supports / Neutral / Refutes)."""
    classes = {"support": ENTAILED, "neutral": NEITHER, "refute": CONTRADICTED}
    out = []
    for item in load_healthver(data_dir, "test" if split == "test" else "dev"):
        label = (item.gold or "").lower()
        cls = next((c for prefix, c in classes.items() if label.startswith(prefix)), None)
        if cls is None:
            continue
        out.append(
            ThreeWayPair(
                SupportQuery(item.question, item.documents), frozenset({cls}), "healthver", item.id
            )
        )
    return out


def support_training_pairs(
    data_root: Path, sources: tuple[str, ...], per_class: int, seed: int = SEED
) -> list[ThreeWayPair]:
    """Return the support sources' training pairs, three ways, at most `per_class` a class.

    `healthver` (HealthVer test) keeps its three labels; the others map their negatives by
    `SUPPORT_NEGATIVES`. Each source is capped at `per_class` pairs per allowed-set (0: no
    cap), sampled by a seeded generator.

    Raises:
        InvalidInputError: A source name is not a training source.
    """
    unknown = sorted(set(sources) - set(TRAINING_SOURCES))
    if unknown:
        raise InvalidInputError(
            f"unknown training source(s) {', '.join(unknown)}; choose from "
            f"{', '.join(TRAINING_SOURCES)}"
        )
    rng = random.Random(seed)
    out: list[ThreeWayPair] = []
    for source in sources:
        if source == "healthver":
            pairs = healthver_three_way(Path(data_root) / "healthver", "test")
        else:
            pairs = _three_way(
                training_pairs(data_root, (source,)), source, SUPPORT_NEGATIVES[source]
            )
        out += capped(pairs, per_class, rng)
    return out


def capped(pairs: list[ThreeWayPair], per_class: int, rng: random.Random) -> list[ThreeWayPair]:
    """Keep at most `per_class` pairs of each allowed-set (0: all), seeded."""
    if per_class <= 0:
        return pairs
    out: list[ThreeWayPair] = []
    for allowed in sorted({p.allowed for p in pairs}, key=sorted):
        chosen = [p for p in pairs if p.allowed == allowed]
        rng.shuffle(chosen)
        out += chosen[:per_class]
    return out


def as_labelled(pairs: list[ThreeWayPair]) -> list[LabelledPair]:
    """Return three-way pairs as support pairs: supported = entailed, the class kept.

    A pair whose label allows two classes keeps `label` None (binary metrics only).
    """
    return [
        LabelledPair(p.query, p.allowed == frozenset({ENTAILED}), p.item, p.label) for p in pairs
    ]


def all_held_out_sets(data_root: Path) -> dict[str, list[LabelledPair]]:
    """Return the support judges' held-out sets, the held-out NLI sets and HealthVer dev 3-way.

    `healthver_dev_3way` is HealthVer dev with its three labels (Supports / Neutral /
    Refutes), the pairs of `healthver_dev_rest`; the NLI sets are `NLI_HELD_OUT`'s; the
    `medquad_mp_*` sets are the MedQuAD minimal pairs of held-out pages, one set per edit
    type (`minimal_pairs.per_edit_sets`).
    """
    from veriloop.evaluation.judge_data.minimal_pairs import cached_pairs, per_edit_sets

    root = Path(data_root)
    return {
        **held_out_sets(root),
        "healthver_dev_3way": as_labelled(healthver_three_way(root / "healthver", "dev")),
        **{name: as_labelled(pairs) for name, pairs in nli_held_out_sets(root).items()},
        **per_edit_sets(cached_pairs(), "test"),
    }
