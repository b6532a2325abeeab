"""Rewrite one claim for the minimal pairs: its entailed forms and its one-meaning edits.

`minimal_pairs` builds the pairs from MedQuAD's pages; this module holds what it does to a
single sentence:

- **forms** that keep the meaning (the entailed claims besides the cross-page paraphrases):
  the sentence trimmed of a parenthesis or a trailing "which ..." part (`trimmed`), or with
  its subject's name replaced by the name the page itself gives it
  (`knowledge.stated_names.stated_synonym`, `with_synonym`);
- **edits** that change the meaning in one span (the contradicted twins): a term of the
  contrast lexicon swapped for its opposite (`contrast_edits`), a negation added or
  removed (`negation_edit`), a number of a quantity changed (`number_edit`), a rate changed
  (`frequency_edit`), a gene or the subject swapped for another of its kind
  (`entity_edit`); `one_edit` picks the one edit a claim gets.

The contrast edits draw on the lexicon the aligned rule reads
(`nodes/data/contrast_lexicon.tsv`), so the rule's catch rate on them is by construction.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from veriloop.knowledge.stated_names import own_name
from veriloop.nodes.judges.contrast import lexicon, rates
from veriloop.nodes.judges.mismatch import quantities

MIN_WORDS, MAX_WORDS = 6, 40
"""Sentences of this many words are claims; shorter are labels, longer are lists."""


# ----------------------------------------------------------------------- forms

_PARENTHESIS = re.compile(r"\s*\([^()]*\)")
_TRAILING = re.compile(
    r",\s+(?:which|including|such as|especially|particularly|as well as|and other)\b.*$",
    re.IGNORECASE,
)


def trimmed(sentence: str) -> str | None:
    """Return the sentence without a parenthesis or a trailing "which ..." part (None: none)."""
    cut = _PARENTHESIS.sub("", sentence)
    if cut == sentence:
        cut = _TRAILING.sub(".", sentence)
    cut = " ".join(cut.split()).replace(" .", ".").replace(" ,", ",")
    if cut == sentence or len(cut.split()) < MIN_WORDS:
        return None
    return cut


def with_synonym(sentence: str, focus: str, synonym: str) -> str | None:
    """Return the sentence with its subject's name replaced by the page's own synonym."""
    name = own_name(focus)
    pattern = re.compile(re.escape(name), re.IGNORECASE)
    if not name or not pattern.search(sentence):
        return None
    return pattern.sub(synonym, sentence, count=1)


# ----------------------------------------------------------------------- edits

_NEGATABLE = re.compile(
    r"\b(is|are|was|were|can|may|will|does|do|did|has|have|should|could|might|must)\b(?! not)"
)
_NEGATED = re.compile(r"\b(is|are|was|were|can|may|will|does|do|did|has|have|should|could)"
                      r" not\b|\bcannot\b")  # fmt: skip
_OTHER_RATES = ("once a week", "twice a day", "three times a day", "once a month", "daily")


def _same_case(source: str, word: str) -> str:
    return word[0].upper() + word[1:] if source[:1].isupper() else word


def _surface_terms() -> list[tuple[str, str, str]]:
    out = []
    for a, b in lexicon():
        if a.prefix:
            continue
        out += [(a.text, b.text, a.category), (b.text, a.text, a.category)]
    return out


def contrast_edits(claim: str) -> Iterator[tuple[str, str, str]]:
    """Yield (edited claim, old span, new span) for each lexicon term in the claim."""
    for old, new, _ in _surface_terms():
        match = re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", claim, re.IGNORECASE)
        if match:
            replaced = _same_case(match.group(0), new)
            yield claim[: match.start()] + replaced + claim[match.end() :], match.group(0), replaced
    for word in re.findall(r"\b(hyper|hypo)(\w{4,})\b", claim, re.IGNORECASE):
        old = "".join(word)
        swap = {"hyper": "hypo", "hypo": "hyper"}[word[0].lower()]
        new = _same_case(old, swap + word[1])
        yield claim.replace(old, new, 1), old, new


def negation_edit(claim: str) -> tuple[str, str, str] | None:
    """Return the claim with its first auxiliary negated, or its negation removed."""
    negated = _NEGATED.search(claim)
    if negated:
        old = negated.group(0)
        new = "can" if old.lower() == "cannot" else negated.group(1)
        return claim[: negated.start()] + new + claim[negated.end() :], old, new
    auxiliary = _NEGATABLE.search(claim)
    if auxiliary is None:
        return None
    old = auxiliary.group(0)
    return claim[: auxiliary.end()] + " not" + claim[auxiliary.end() :], old, f"{old} not"


def number_edit(claim: str, rng: random.Random) -> tuple[str, str, str] | None:
    """Return the claim with one number of a quantity changed (x10, /10 or +-50%)."""
    found = quantities(claim)
    if not found:
        return None
    span, _, low, _ = found[0]
    number = re.search(r"\d+(?:[.,]\d+)*", span)
    if number is None:
        return None
    value = float(number.group(0).replace(",", ""))
    changed = rng.choice([value * 10, value / 10 if value >= 10 else value + 3, value * 1.5 + 1])
    text = f"{changed:g}" if changed != int(changed) else str(int(changed))
    new_span = span[: number.start()] + text + span[number.end() :]
    return claim.replace(span, new_span, 1), span, new_span


def frequency_edit(claim: str, rng: random.Random) -> tuple[str, str, str] | None:
    """Return the claim with its rate ("twice a day") replaced by another rate."""
    found = rates(claim)
    if len(found) != 1:
        return None
    span, rate = found[0]
    others = [r for r in _OTHER_RATES if abs(rates(r)[0][1] - rate) > 1e-9]
    new = rng.choice(others)
    return claim.replace(span, new, 1), span, new


GENE = re.compile(r"\b([A-Z][A-Z0-9]{1,9}\d[A-Z0-9]*)\s+gene\b")
"""A gene symbol named as a gene ("the CFTR gene"): group 1 is the symbol."""


def entity_edit(
    claim: str, focus: str, related: list[str], genes: list[str], rng: random.Random
) -> tuple[str, str, str] | None:
    """Return the claim with its gene or its subject swapped for another of the same kind."""
    gene = GENE.search(claim)
    if gene and genes:
        other = rng.choice([g for g in genes if g != gene.group(1)] or genes)
        if other != gene.group(1):
            return claim.replace(gene.group(1), other, 1), gene.group(1), other
    name = re.sub(r"\s*\([^)]*\)", "", focus).strip()
    match = re.search(re.escape(name), claim, re.IGNORECASE) if name else None
    options = [r for r in related if r.lower() != name.lower()]
    if match is None or not options:
        return None
    other = re.sub(r"\s*\([^)]*\)", "", rng.choice(options)).strip()
    return claim[: match.start()] + other + claim[match.end() :], match.group(0), other


def one_edit(
    claim: str, focus: str, related: list[str], genes: list[str], rng: random.Random
) -> tuple[str, str, str, str] | None:
    """Return (edit kind, edited claim, old span, new span) of the claim's one edit, or None.

    The rarer edits come first (a rate, a number, an entity, where the claim has one), then
    a lexicon contrast and a negation in an order drawn from `rng`; the first edit that
    changes the claim is the one.

    Args:
        claim: The entailed claim to edit.
        focus: The subject of the claim's page (the entity an `entity` edit swaps).
        related: Other foci of the same kind (what the subject may become).
        genes: Gene names seen in MedQuAD (what a gene may become).
        rng: Draws the order, the contrast term, the number, the rate and the entity.
    """
    common = ["contrast", "negation"]
    rng.shuffle(common)
    for kind in ("frequency", "number", "entity", *common):  # the rarer edits first
        if kind == "contrast":
            options = list(contrast_edits(claim))
            made = rng.choice(options) if options else None
        elif kind == "negation":
            made = negation_edit(claim)
        elif kind == "number":
            made = number_edit(claim, rng)
        elif kind == "frequency":
            made = frequency_edit(claim, rng)
        else:
            made = entity_edit(claim, focus, related, genes, rng)
        if made is not None and made[0] != claim:
            return kind, *made
    return None
