"""Labelled (claim, evidence) pairs for training and measuring claim-support judges.

Every set is split *by item*, so no held-out item is seen in training or calibration:

- `halueval`: HaluEval QA; each item gives two pairs (its right answer and its
  hallucinated answer, both against the item's knowledge, with the question). Items are
  shuffled with a fixed seed; the first `HALUEVAL_TRAIN` are for training and calibration,
  the rest are held out.
- `healthver`: HealthVer claims against their evidence. `healthver_sr` keeps Supports vs
  Refutes; `healthver_rest` is Supports vs Neutral + Refutes (the 3-way set seen by a
  support judge). Note: the MLP head (`nodes.judges.nli.EmbeddingNLI`) was trained on the *test*
  split, so its test numbers are in-sample; `healthver_dev_sr` / `healthver_dev_rest` (the
  dev split) are held out for every judge.
- `citation`: Citation-Integrity claims (citation markers removed) against the abstracts
  they cite, SUPPORT vs REFUTE.
- `pubmedqa_swap`: PubMedQA long answers against their own abstract (supported) and against
  another item's abstract (not supported): the own-vs-swapped reference check.
- `halueval_swap`, `healthver_dev_swap`: the same check on short evidence: each supported
  pair against its own evidence and against another item's (`swapped`). A judge that
  rewards any fluent medical-sounding sentence fails here, not on the long abstracts.
- `healthver_dev_negated`: each supported HealthVer dev pair against a perturbed copy of
  its claim (`perturbed_claim`: a negation added or removed, a direction word flipped, a
  number changed) on the same evidence. Synthetic: it measures whether a judge reads the
  claim's polarity at all, which HealthVer's real Refutes pairs need and do not isolate.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.evaluation.items import Item
from veriloop.evaluation.loaders.claims import load_claims
from veriloop.evaluation.loaders.halueval import load_halueval
from veriloop.evaluation.loaders.healthver import load_healthver
from veriloop.evaluation.loaders.pubmedqa import load_pubmedqa
from veriloop.nodes.judges import SupportQuery

HALUEVAL_TRAIN = 400
SEED = 0
CITATION_MARKER = re.compile(r"<\|[a-z_]+\|>")


@dataclass(frozen=True)
class LabelledPair:
    """A support query with its gold label and the item it came from."""

    query: SupportQuery
    supported: bool
    item: str
    label: int | None = None
    """The three-way gold class (`nodes.judges.THREE_WAY` order), where the set has one."""


def halueval_pairs(data_dir: Path, part: str) -> list[LabelledPair]:
    """Return HaluEval QA pairs of the `train` or `test` part (split by item, seeded)."""
    items = load_halueval(data_dir, "qa")
    random.Random(SEED).shuffle(items)
    chosen = items[:HALUEVAL_TRAIN] if part == "train" else items[HALUEVAL_TRAIN:]
    pairs = []
    for item in chosen:
        for answer, supported in (
            (item.references[0], True),
            (str(item.metadata["hallucinated_answer"]), False),
        ):
            query = SupportQuery(answer, [item.documents[0]], question=item.question)
            pairs.append(LabelledPair(query, supported, item.id))
    return pairs


def _with_negatives(
    pairs: list[LabelledPair], negative: Callable[[int, LabelledPair], SupportQuery | None]
) -> list[LabelledPair]:
    """Return each supported pair followed by its unsupported copy (`negative` of it).

    `negative` gets the pair's index among the supported pairs; a supported pair it returns
    None for is left out, with its copy.
    """
    out: list[LabelledPair] = []
    for index, pair in enumerate(p for p in pairs if p.supported):
        query = negative(index, pair)
        if query is not None:
            out += [pair, LabelledPair(query, False, pair.item)]
    return out


def swapped(pairs: list[LabelledPair], seed: int = SEED) -> list[LabelledPair]:
    """Return each supported pair and a copy against another item's evidence (unsupported).

    The other item is drawn by a seeded shuffle among items with a different claim, so the
    copy's evidence is about something else: the off-topic negative.
    """
    supported = [p for p in pairs if p.supported]
    order = list(range(len(supported)))
    random.Random(seed).shuffle(order)

    def other_evidence(index: int, pair: LabelledPair) -> SupportQuery | None:
        for step in range(len(order)):
            other = supported[order[(index + step) % len(order)]]
            if other.item != pair.item and other.query.claim != pair.query.claim:
                query = pair.query
                return SupportQuery(query.claim, other.query.evidence, query.question)
        return None  # no other item: nothing to swap in

    return _with_negatives(pairs, other_evidence)


_AUXILIARY = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|may|might|must|has|have|had|does|do|did)"
    r"\b(?! not\b)",
    re.IGNORECASE,
)
_NEGATION = (
    (re.compile(r"\b(can)not\b", re.IGNORECASE), r"\1"),
    (re.compile(r"\bwon['’]t\b", re.IGNORECASE), "will"),
    (re.compile(r"\bcan['’]t\b", re.IGNORECASE), "can"),
    (re.compile(r"\b(\w+)n['’]t\b", re.IGNORECASE), r"\1"),
    (re.compile(r"\b(there (?:is|are|was|were)) no\b", re.IGNORECASE), r"\1"),
    (re.compile(r"\bno (evidence|proof|link|effect|benefit|cure|vaccine)\b", re.IGNORECASE), r"\1"),
    (re.compile(r"\b(\w+) not\b", re.IGNORECASE), r"\1"),
)
_OPPOSITES = {
    "increase": "decrease",
    "increases": "decreases",
    "increased": "decreased",
    "increasing": "decreasing",
    "higher": "lower",
    "more": "less",
    "better": "worse",
    "reduce": "increase",
    "reduces": "increases",
    "reduced": "increased",
    "reducing": "increasing",
    "effective": "ineffective",
    "safe": "unsafe",
    "positive": "negative",
    "high": "low",
    "before": "after",
    "always": "never",
    "most": "least",
    "major": "minor",
    "benign": "malignant",
}
_OPPOSITES |= {v: k for k, v in list(_OPPOSITES.items()) if v not in _OPPOSITES}
_OPPOSITE_WORD = re.compile(
    r"\b(" + "|".join(sorted(_OPPOSITES, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")


def _same_case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def perturbed_claim(claim: str) -> str | None:
    """Return the claim with its meaning flipped by one edit, or None if no rule applies.

    Tried in order, first hit wins: remove a negation ("does not" -> "does", "there is
    no" -> "there is", "cannot" -> "can"); add "not" after the first auxiliary verb that
    does not open the claim (so a question's "Does ..." is left alone); swap a direction
    word for its opposite (increase/decrease, higher/lower, safe/unsafe, ...); change the
    first number (n -> 2n + 1; a year -> the next). The edit is mechanical and may read
    awkwardly; it is for training and measuring polarity, never shown to a user.
    """
    for pattern, replacement in _NEGATION:
        edited = pattern.sub(replacement, claim, count=1)
        if edited != claim:
            return edited
    for match in _AUXILIARY.finditer(claim):
        if match.start() > 0:
            return f"{claim[: match.end()]} not{claim[match.end() :]}"
    word = _OPPOSITE_WORD.search(claim)
    if word is not None:
        opposite = _same_case(_OPPOSITES[word.group(1).lower()], word.group(1))
        return f"{claim[: word.start()]}{opposite}{claim[word.end() :]}"
    number = _NUMBER.search(claim)
    if number is not None:
        value = float(number.group())
        text = f"{value + 1 if 1900 <= value <= 2100 else value * 2 + 1:g}"  # a year moves by one
        return f"{claim[: number.start()]}{text}{claim[number.end() :]}"
    return None


def negated(pairs: list[LabelledPair]) -> list[LabelledPair]:
    """Return each supported pair and a copy whose claim is perturbed (unsupported).

    The copy keeps the evidence and the question; only the claim's polarity changes
    (`perturbed_claim`). Supported pairs no rule applies to are left out, with their copy.
    """

    def perturbed(_index: int, pair: LabelledPair) -> SupportQuery | None:
        claim = perturbed_claim(pair.query.claim)
        query = pair.query
        return None if claim is None else SupportQuery(claim, query.evidence, query.question)

    return _with_negatives(pairs, perturbed)


def healthver_pairs(
    data_dir: Path, split: str, *, neutral_as_unsupported: bool
) -> list[LabelledPair]:
    """Return HealthVer pairs: Supports vs Refutes, or vs Refutes + Neutral."""
    pairs = []
    for item in load_healthver(data_dir, "test" if split == "test" else "dev"):
        label = (item.gold or "").lower()
        if label.startswith("neutral") and not neutral_as_unsupported:
            continue
        query = SupportQuery(item.question, item.documents)
        pairs.append(LabelledPair(query, label.startswith("support"), item.id))
    return pairs


def citation_pairs(data_dir: Path, split: str) -> list[LabelledPair]:
    """Return Citation-Integrity pairs with one gold label, SUPPORT vs REFUTE/CONTRADICT."""
    pairs = []
    for item in load_claims(data_dir, split, dataset="citation_integrity"):
        if item.gold not in {"SUPPORT", "REFUTE", "CONTRADICT"} or not item.documents:
            continue
        claim = " ".join(CITATION_MARKER.sub("", item.question).split())
        pairs.append(
            LabelledPair(SupportQuery(claim, item.documents), item.gold == "SUPPORT", item.id)
        )
    return pairs


def _long_answer(item: Item) -> str:
    return item.references[0].split(". ", 1)[-1]


def pubmedqa_swap_pairs(data_dir: Path, split: str) -> list[LabelledPair]:
    """Return each item's long answer against its own and a seeded other item's abstract."""
    items = load_pubmedqa(data_dir, "test" if split == "test" else "dev")
    others = list(range(len(items)))
    random.Random(SEED).shuffle(others)
    pairs = []
    for index, item in enumerate(items):
        other = items[others[index] if others[index] != index else (index + 1) % len(items)]
        answer = _long_answer(item)
        abstract = " ".join(item.documents)
        swapped = " ".join(other.documents)
        pairs.append(LabelledPair(SupportQuery(answer, [abstract], item.question), True, item.id))
        pairs.append(LabelledPair(SupportQuery(answer, [swapped], item.question), False, item.id))
    return pairs


def held_out_sets(data_root: Path) -> dict[str, list[LabelledPair]]:
    """Return every held-out measurement set by name (see the module docstring)."""
    root = Path(data_root)
    halueval = halueval_pairs(root / "halueval", "test")
    dev_sr = healthver_pairs(root / "healthver", "dev", neutral_as_unsupported=False)
    return {
        "halueval": halueval,
        "healthver_sr": healthver_pairs(root / "healthver", "test", neutral_as_unsupported=False),
        "healthver_rest": healthver_pairs(root / "healthver", "test", neutral_as_unsupported=True),
        "healthver_dev_sr": dev_sr,
        "healthver_dev_rest": healthver_pairs(
            root / "healthver", "dev", neutral_as_unsupported=True
        ),
        "citation": citation_pairs(root / "citation_integrity", "test"),
        "pubmedqa_swap": pubmedqa_swap_pairs(root / "pubmedqa", "test"),
        "halueval_swap": swapped(halueval),  # built from the same items, loaded once
        "healthver_dev_swap": swapped(dev_sr),
        "healthver_dev_negated": negated(dev_sr),
    }


def _healthver_test_sr(root: Path) -> list[LabelledPair]:
    return healthver_pairs(root / "healthver", "test", neutral_as_unsupported=False)


TRAINING_SOURCES: dict[str, Callable[[Path], list[LabelledPair]]] = {
    "halueval": lambda root: halueval_pairs(root / "halueval", "train"),
    "citation": lambda root: citation_pairs(root / "citation_integrity", "train"),
    "pubmedqa": lambda root: pubmedqa_swap_pairs(root / "pubmedqa", "dev"),
    "healthver": lambda root: healthver_pairs(
        root / "healthver", "test", neutral_as_unsupported=True
    ),
    "halueval_swap": lambda root: swapped(halueval_pairs(root / "halueval", "train")),
    "healthver_swap": lambda root: swapped(_healthver_test_sr(root)),
    "healthver_negated": lambda root: negated(_healthver_test_sr(root)),
    "halueval_negated": lambda root: negated(halueval_pairs(root / "halueval", "train")),
    "pubmedqa_negated": lambda root: negated(pubmedqa_swap_pairs(root / "pubmedqa", "dev")),
}


def training_pairs(data_root: Path, sources: tuple[str, ...]) -> list[LabelledPair]:
    """Return training pairs from the named sources, none from a held-out item.

    Sources: `halueval` (the train part), `citation` (Citation-Integrity train),
    `pubmedqa` (own-vs-swapped pairs on PubMedQA's non-test items), `healthver` (HealthVer
    test, Supports vs Refutes + Neutral: the split the MLP head was trained on, so
    `healthver_dev_*` stays held out for both; `healthver_*` rows are then in-sample),
    `halueval_swap` / `healthver_swap` (those training items' supported pairs against their
    own and another item's evidence: off-topic negatives on short evidence),
    `healthver_negated` / `halueval_negated` / `pubmedqa_negated` (those items' supported
    pairs against a perturbed copy of the claim on the same evidence: `negated`).
    Pairs come in the order of `TRAINING_SOURCES`, whatever the order of `sources`.

    Raises:
        InvalidInputError: a source name is not in `TRAINING_SOURCES`.
    """
    unknown = sorted(set(sources) - set(TRAINING_SOURCES))
    if unknown:
        raise InvalidInputError(
            f"unknown training source(s) {', '.join(unknown)}; choose from "
            f"{', '.join(TRAINING_SOURCES)}"
        )
    root = Path(data_root)
    return [
        pair for name, build in TRAINING_SOURCES.items() if name in sources for pair in build(root)
    ]
