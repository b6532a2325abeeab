"""Medical minimal pairs: entailed claims and their one-edit contradicted twins, split by page.

A small judge learns polarity from data made for the failure, not from size (FactCC's rule
rewrites, VitaminC's contrastive evidence). This module makes such data from MedQuAD's
answers (NIH pages, CC BY 4.0; `knowledge/data/medquad`), which state most facts two or
three times on different sites (GHR, GARD, MedlinePlus, NIDDK ...):

- **entailed**: a sentence of one page as the claim, against a window (the sentence and its
  neighbours) of *another* page that says the same in other words (`cross_page`:
  content-word Jaccard of at least `PARAPHRASE_MIN`, `PARAPHRASE_COVERAGE` of the claim's
  content words in the twin sentence, and not the same words in the same order); or the
  source sentence itself trimmed of a parenthesis or a trailing "which ..." / "such as
  ..." part (`trimmed`), or with the name the page itself gives the subject ("also called
  ...": `synonym`); on training pages only, also the source sentence copied word for word
  (`copied`, one sentence in `COPY_EVERY`), with its neighbours around it: a judge trained
  without copies called "The most common serious side effect of warfarin is bleeding."
  contradicted by a passage that says exactly that and then names another side effect;
- **contradicted**: one meaning edit of such an entailed claim (so a contradicted claim and
  its entailed twin sit at the same distance from the evidence): a term of the contrast
  lexicon swapped for its opposite (`contrast`), a negation added or removed
  (`negation`), a number with its unit changed (`number`), a rate changed (`frequency`),
  a disease or gene swapped for another of its kind (`entity`);
- **neither**: the claim against a window of another page about a related subject (a
  focus that shares a word with this one).

Pages are split by their focus (sha256 of the folded name: 10% `test`, 10% `dev`, 80%
`train`), and a cross-page pair takes the split of both its pages' focus (they share it),
so no page that trains appears in a measured set. The contrast edits draw on the same
lexicon the aligned rule reads (`nodes/data/contrast_lexicon.tsv`): the rule's catch rate on
`contrast` pairs is by construction; sets this generator did not make (HealthVer, CANNOT,
ScoNe, CliniFact) are the test of what transfers.

This module reads the pages, pairs them and keeps the sets; what is done to one sentence
(the `trimmed` and `synonym` forms, the five edits and the choice of one) is in
`claim_edits`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from veriloop.evaluation.judge_data.claim_edits import (
    GENE,
    MAX_WORDS,
    MIN_WORDS,
    one_edit,
    trimmed,
    with_synonym,
)
from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.knowledge.stated_names import stated_synonym
from veriloop.nodes.judges.contrast import content_stems
from veriloop.text import split_sentences

Label = Literal["entailed", "contradicted", "neither"]
Split = Literal["train", "dev", "test"]
EDITS = ("contrast", "negation", "number", "frequency", "entity")
FORMS = ("cross_page", "trimmed", "synonym", "copied")
COPY_EVERY = 8
"""One quotable sentence of a training page in this many is also an entailed copy."""

PARAPHRASE_MIN = 0.4
"""Content-word Jaccard from which two sentences of two pages may state one fact."""
PARAPHRASE_COVERAGE = 0.8
"""Share of the claim's content words its twin sentence must hold (the fact is there)."""
WINDOW = 1
"""Sentences either side of the source sentence in the evidence window."""


@dataclass(frozen=True)
class MinimalPair:
    """One (evidence, claim) pair with its label, how it was made, and its page's split."""

    evidence: str
    claim: str
    label: Label
    kind: str
    """entailed: a FORMS value; contradicted: an EDITS value; neither: `other_page`."""
    twin: str
    """The entailed claim a contradicted one was edited from ('' for the others)."""
    spans: tuple[str, str]
    """(the twin's span, the edited span) of a contradiction; ('', '') otherwise."""
    focus: str
    page: str
    split: Split

    def to_json(self) -> dict[str, Any]:
        """Return the pair as a JSON object."""
        return asdict(self)


@dataclass(frozen=True)
class _Sentence:
    text: str
    page: str
    focus: str
    index: int
    stems: frozenset[str]


def focus_split(focus: str) -> Split:
    """Return the split of every page about `focus` (stable, by sha256 of the folded name)."""
    key = " ".join(re.sub(r"\([^)]*\)", " ", focus.lower()).split())
    bucket = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 10
    return "test" if bucket == 0 else "dev" if bucket == 1 else "train"


def _quotable(sentence: str) -> bool:
    words = sentence.split()
    return (
        MIN_WORDS <= len(words) <= MAX_WORDS
        and sentence.endswith(".")
        and " - " not in sentence
        and not sentence.startswith(("-", "*"))
        and ":" not in sentence
        and sentence[0].isupper()
    )


def read_pages(path: Path = MEDQUAD_FILE) -> dict[str, tuple[str, list[str]]]:
    """Return MedQuAD's pages: page id -> (focus, its quotable sentences in order).

    A page is one answer (`qid`); MedQuAD answers on one site repeat one another, so
    sentences already seen on the page are kept once.
    """
    pages: dict[str, tuple[str, list[str]]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            focus = (row.get("focus") or "").strip()
            if not focus:
                continue
            sentences = list(dict.fromkeys(split_sentences(row.get("answer") or "")))
            pages[str(row.get("qid") or row.get("doc_id"))] = (focus, sentences)
    return pages


def _window(sentences: list[str], index: int) -> str:
    return " ".join(sentences[max(0, index - WINDOW) : index + WINDOW + 1])


def _folded(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def cross_page_paraphrases(
    pages: dict[str, tuple[str, list[str]]],
) -> Iterator[tuple[_Sentence, _Sentence]]:
    """Yield (claim sentence, twin sentence) of two pages on one focus that state one fact.

    Pages are grouped by focus (case folded); a pair needs content-word Jaccard of at least
    `PARAPHRASE_MIN`, the twin must hold `PARAPHRASE_COVERAGE` of the claim's content
    words, and the two may not be the same words in the same order (a copy). Answers of
    one document are never paired with each other.
    """
    by_focus: dict[str, list[_Sentence]] = defaultdict(list)
    for page, (focus, sentences) in pages.items():
        for index, text in enumerate(sentences):
            if _quotable(text):
                stems = frozenset(content_stems(text))
                if len(stems) >= 4:
                    by_focus[focus.lower()].append(_Sentence(text, page, focus, index, stems))
    for group in by_focus.values():
        for claim in group:
            best: tuple[float, _Sentence] | None = None
            for twin in group:
                if twin.page.split("-")[0] == claim.page.split("-")[0]:
                    continue  # one document's answers repeat one another
                similarity = _jaccard(claim.stems, twin.stems)
                covered = len(claim.stems & twin.stems) / len(claim.stems)
                if similarity < PARAPHRASE_MIN or _folded(twin.text) == _folded(claim.text):
                    continue  # another fact, or the same sentence copied
                if covered >= PARAPHRASE_COVERAGE and (best is None or similarity > best[0]):
                    best = (similarity, twin)
            if best is not None:
                yield claim, best[1]


# ------------------------------------------------------------------ generator


def _related_foci(foci: Iterable[str]) -> dict[str, list[str]]:
    """Return, per focus, other foci that share a content word with it (related subjects)."""
    by_word: dict[str, list[str]] = defaultdict(list)
    unique = sorted(set(foci))
    for focus in unique:
        for stem in content_stems(focus):
            by_word[stem].append(focus)
    out: dict[str, list[str]] = {}
    for focus in unique:
        kin = {f for stem in content_stems(focus) for f in by_word[stem][:200] if f != focus}
        out[focus] = sorted(kin)
    return out


def generate(
    pages: dict[str, tuple[str, list[str]]] | None = None,
    seed: int = 0,
    splits: tuple[Split, ...] = ("train", "dev", "test"),
) -> list[MinimalPair]:
    """Return the minimal pairs of MedQuAD's pages (see the module docstring).

    Each entailed claim gets at most one contradicted twin (one edit: a rate, a number or an
    entity where the claim has one, since few claims do; else a lexicon contrast or a
    negation in a seeded order) and one `neither` pair.

    Args:
        pages: `read_pages()` output (read from the bundled MedQuAD file when None).
        seed: Seeds the choice of edits and of the other page.
        splits: Keep only pairs whose page falls in these splits.
    """
    pages = read_pages() if pages is None else pages
    rng = random.Random(seed)
    related = _related_foci(focus for focus, _ in pages.values())
    genes = sorted(
        {g for _, sentences in pages.values() for s in sentences for g in GENE.findall(s)}
    )
    page_of_focus: dict[str, list[str]] = defaultdict(list)
    for page, (focus, _) in pages.items():
        page_of_focus[focus].append(page)
    entailed: list[tuple[str, str, str, str, str]] = []  # evidence, claim, form, focus, page
    for said, twin in cross_page_paraphrases(pages):
        evidence = _window(pages[twin.page][1], twin.index)
        entailed.append((evidence, said.text, "cross_page", said.focus, twin.page))
    for page, (focus, sentences) in pages.items():
        synonym = stated_synonym(" ".join(sentences), focus)
        for index, sentence in enumerate(sentences):
            if not _quotable(sentence):
                continue
            evidence = _window(sentences, index)
            cut = trimmed(sentence)
            if cut is not None:
                entailed.append((evidence, cut, "trimmed", focus, page))
            named = with_synonym(sentence, focus, synonym) if synonym else None
            if named is not None:
                entailed.append((evidence, named, "synonym", focus, page))
    copy_rng = random.Random(
        f"{seed}:copied"
    )  # its own draws: the measured pairs stay as they were
    copies = [
        (_window(sentences, index), sentence, "copied", focus, page)
        for page, (focus, sentences) in pages.items()
        if focus_split(focus) == "train"
        for index, sentence in enumerate(sentences)
        if _quotable(sentence) and copy_rng.randrange(COPY_EVERY) == 0
    ]
    return _with_twins(entailed, pages, related, genes, page_of_focus, splits, rng) + _with_twins(
        copies, pages, related, genes, page_of_focus, splits, copy_rng
    )


def _with_twins(
    entailed: list[tuple[str, str, str, str, str]],
    pages: dict[str, tuple[str, list[str]]],
    related: dict[str, list[str]],
    genes: list[str],
    page_of_focus: dict[str, list[str]],
    splits: tuple[Split, ...],
    rng: random.Random,
) -> list[MinimalPair]:
    """Return each entailed pair of `splits` with its one-edit twin and its `neither` pair."""
    out: list[MinimalPair] = []
    for evidence, claim, form, focus, page in entailed:
        split = focus_split(focus)
        if split not in splits:
            continue
        out.append(MinimalPair(evidence, claim, "entailed", form, "", ("", ""), focus, page, split))
        edit = one_edit(claim, focus, related.get(focus, []), genes, rng)
        if edit is not None:
            kind, edited, old, new = edit
            out.append(
                MinimalPair(
                    evidence, edited, "contradicted", kind, claim, (old, new), focus, page, split
                )
            )
        others = [f for f in related.get(focus, []) if focus_split(f) == split]
        if others:
            other = rng.choice(others)
            other_page = rng.choice(page_of_focus[other])
            sentences = pages[other_page][1]
            if sentences:
                window = _window(sentences, rng.randrange(len(sentences)))
                out.append(
                    MinimalPair(
                        window,
                        claim,
                        "neither",
                        "other_page",
                        "",
                        ("", ""),
                        focus,
                        other_page,
                        split,
                    )
                )
    return out


def write_pairs(pairs: Iterable[MinimalPair], path: Path) -> int:
    """Write pairs as gzipped JSON lines; return how many were written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair.to_json()) + "\n")
            count += 1
    return count


def read_pairs(path: Path) -> list[MinimalPair]:
    """Read pairs written by `write_pairs`."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [
            MinimalPair(**{**row, "spans": tuple(row["spans"])})
            for row in (json.loads(line) for line in handle if line.strip())
        ]


def generator_fingerprint(seed: int = 0) -> str:
    """Return a fingerprint of what `generate` reads: its code, the lexicon, MedQuAD, seed.

    Its code is this module and `claim_edits` (the forms and edits it applies).
    """
    from veriloop.nodes.judges.contrast import LEXICON_FILE

    digest = hashlib.sha256(f"seed={seed}".encode())
    for path in (Path(__file__), Path(__file__).with_name("claim_edits.py"), LEXICON_FILE):
        digest.update(path.read_bytes())
    stat = MEDQUAD_FILE.stat()
    digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def cached_pairs(cache_dir: Path | None = None, seed: int = 0) -> list[MinimalPair]:
    """Return `generate(seed=seed)`, from a file keyed by `generator_fingerprint` when one is there.

    The file (`~/.cache/veriloop/minimal_pairs/<fingerprint>.jsonl.gz` by default) is
    written atomically after the first generation (about 40 s on 2 cores).
    """
    folder = cache_dir or Path.home() / ".cache" / "veriloop" / "minimal_pairs"
    path = folder / f"{generator_fingerprint(seed)}.jsonl.gz"
    if path.is_file():
        return read_pairs(path)
    pairs = generate(seed=seed)
    partial = path.with_suffix(".partial")
    write_pairs(pairs, partial)
    partial.replace(path)
    return pairs


def per_edit_sets(pairs: list[MinimalPair], split: Split = "test") -> dict[str, list[Any]]:
    """Return one measurement set per edit type and one for `neither`, of `split`'s pairs.

    `medquad_mp_<edit>` holds each contradicted pair of that edit beside its entailed twin
    (same evidence, the claim before the edit), so a judge's catch rate and its false alarms
    on the twins come from one set; `medquad_mp_neither` holds each `neither` pair beside
    the entailed pair of the same claim. Pairs are `LabelledPair`s with the three-way label;
    an edit with no pair in the split has no set.
    """
    from veriloop.evaluation.judge_data.support_sets import LabelledPair
    from veriloop.nodes.judges import CONTRADICTED, ENTAILED, NEITHER, SupportQuery

    chosen = [p for p in pairs if p.split == split]
    entailed = {(p.evidence, p.claim): p for p in chosen if p.label == "entailed"}
    by_claim = {p.claim: p for p in chosen if p.label == "entailed"}
    out: dict[str, list[Any]] = {}
    for index, pair in enumerate(chosen):
        if pair.label == "contradicted":
            twin = entailed.get((pair.evidence, pair.twin))
            name, label = f"medquad_mp_{pair.kind}", CONTRADICTED
        elif pair.label == "neither":
            twin = by_claim.get(pair.claim)
            name, label = "medquad_mp_neither", NEITHER
        else:
            continue
        if twin is None:
            continue
        item = f"mp{index}"
        out.setdefault(name, []).extend(
            [
                LabelledPair(SupportQuery(twin.claim, [twin.evidence]), True, item, ENTAILED),
                LabelledPair(SupportQuery(pair.claim, [pair.evidence]), False, item, label),
            ]
        )
    return out
