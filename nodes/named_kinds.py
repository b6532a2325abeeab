"""Kinds a subject's own pages name: the diseases they list as its types or causes.

A condition's own pages may not answer what is asked of it while the diseases they name
as its kinds do: MedQuAD's Dementia pages answer what it is, its outlook and research,
but not whether it is inherited; MedlinePlus's says "Many different diseases can cause
dementia, including Alzheimer's disease and stroke", and Alzheimer disease's page says
how it is inherited. The kind rule (`nodes.subject.kind_of`) knows kinds by name only
("Frontotemporal Dementia" ends in "dementia"); these are the kinds the subject's own
pages vouch for in words:

- `named_kinds`: the conditions a text lists as the subject's types or causes;
- `named_kind_pages`: the openings of those conditions' pages answering the asked type,
  each marked with the sentence that named it (`named_in`), for the answer to say whose
  pages it quotes and why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.sources import PassageSource, SourcePassage
from veriloop.knowledge.stated_names import own_name
from veriloop.nodes.page_types import pages_about
from veriloop.nodes.subject import GENERIC_SUBJECT_WORDS, words_in_order
from veriloop.quotable import has_quotable
from veriloop.text import split_sentences

NAMED_KINDS = 1
"""At most this many named kinds answer for the subject, in the order its pages name them:
lists of causes are written most common first, and the second answered by relevance alone
("Is dementia genetically passed down?" got Huntington disease's autosomal dominant
inheritance, a rare cause's, ahead of Alzheimer disease's)."""

SUBJECT = "<subject>"
_LISTED = (
    r"(?:diseases|disorders|conditions|illnesses)\s+(?:that|which)\s+(?:can\s+|may\s+)?"
    r"cause\s+(?:symptoms\s+of\s+)?<subject>\s+(?:are|include)\s+(?P<list>[^.;:]+)"
    r"|(?:diseases|disorders|conditions|illnesses)\s+(?:can|may)\s+cause\s+<subject>,?\s+"
    r"(?:including|such\s+as)\s+(?P<list2>[^.;:]+)"
    r"|(?:types|kinds|forms)\s+of\s+<subject>\s+(?:are|include)\s+(?P<list3>[^.;:]+)"
    r"|(?:most\s+common|main)\s+(?:type|kind|form)\s+of\s+<subject>\s+is\s+(?P<list4>[^.;:]+)"
)
"""A sentence listing the subject's kinds or causes ("Some of the diseases that can cause
symptoms of dementia are ...", "Many different diseases can cause dementia, including ...",
"The main types of diabetes are ...", "The most common type of eczema is atopic
dermatitis"); the list runs to the clause's end. `SUBJECT` is
replaced by the subject's words."""

_ITEM_BREAK = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_ASIDE = re.compile(r"\s*\([^()]*\)")
_LEAD = re.compile(
    r"^(?:(?:the|a|an|other|some|many|certain|various|several|different|such\s+as)\s+)+",
    re.IGNORECASE,
)
_NAME = re.compile(r"^[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,4}$")
"""A condition's name: up to five words, no digits first, no parentheses."""
NO_NAME_WORDS = GENERIC_SUBJECT_WORDS | frozenset(
    "infection infections medicine medicines medication medications drug drugs injury "
    "injuries tumor tumors".split()
)
"""Words a list item made only of names no condition ("infections", "certain medicines",
"other conditions"): a page named so ("Medicines") is no kind of anything."""


@dataclass(frozen=True)
class NamedKind:
    """A condition a subject's page lists as its kind or cause, and the sentence listing it."""

    name: str
    """As written ("Alzheimer's disease"), its parenthesis and curly apostrophe undone."""
    sentence: str


def named_kinds(subject: str, text: str) -> list[str]:
    """Return the conditions a text lists as the subject's kinds or causes, in order.

    Args:
        subject: The subject's name as its pages write it ("dementia").
        text: A page of the subject's, or any text.

    Returns:
        Each listed name once, as written ("Alzheimer's disease", "stroke"); nothing
        when no sentence lists the subject's kinds, or the subject is another's.
    """
    return [kind.name for kind in listed_kinds(subject, text)]


def listed_kinds(subject: str, text: str) -> list[NamedKind]:
    """Return what `named_kinds` returns, each with the sentence that lists it.

    Args:
        subject: The subject's name as its pages write it; a parenthesis in it is no word
            the text must write ("Dementia (Major Neurocognitive Disorder)").
        text: A page of the subject's, or any text.
    """
    words = own_name(subject).lower().split()
    if not words:
        return []
    written = words_in_order(words) + "s?"  # "dementia", "the dementias"
    listed = re.compile(_LISTED.replace(SUBJECT, written), re.IGNORECASE)
    seen = {" ".join(words), " ".join(words) + "s"}  # the subject is no kind of itself
    kinds: list[NamedKind] = []
    for sentence in split_sentences(text.replace("\u2019", "'")):
        for match in listed.finditer(sentence):
            items = next(filter(None, match.group("list", "list2", "list3", "list4")))
            for item in _ITEM_BREAK.split(_ASIDE.sub("", items)):
                name = _LEAD.sub("", item.strip())
                key = name.lower()
                if _NAME.match(name) and key not in seen and not set(key.split()) <= NO_NAME_WORDS:
                    seen.add(key)
                    kinds.append(NamedKind(name, sentence))
    return kinds


def named_kind_pages(
    source: PassageSource, own: Sequence[SourcePassage], asked: str
) -> list[SourcePassage]:
    """Return the asked type's page openings of the kinds the subject's own pages name.

    The own pages (the first two foci of `own`; `own`'s passages and every page of theirs
    the source has, of every type, whole) are read for lists of kinds (`listed_kinds`);
    each name is looked up by the source's page names (`PassageSource.foci_named`), and
    the first `NAMED_KINDS` names whose pages answer the asked type give their openings.
    A kind's page from a rare-disorder site answers here: the subject's own page names
    it, so it is no namesake (`nodes.subject.stands_in` keeps those out for kinds known
    by name only). Unranked, like `missing_typed`'s.

    Args:
        source: The source the subject's pages come from.
        own: The subject's own passages, best first.
        asked: The question type none of them answers.

    Returns:
        The openings, each marked `kin`, with `named_in`, the sentence that named it, and
        `named_by`, the focus of the subject's page that holds it.
    """
    titles = list(dict.fromkeys(p["title"] for p in own if p["title"]))[:2]
    have = {p["id"] for p in own}
    found: list[SourcePassage] = []
    kinds = 0
    for title in titles:
        read = [p for p in own if p["title"] == title]
        read += pages_about(source, title)
        for page in {p["id"]: p for p in read}.values():
            for kind in listed_kinds(page_name(title), page["text"]):
                if kinds >= NAMED_KINDS:
                    return found
                typed = [
                    _marked(p, kind.sentence, title)
                    for focus in source.foci_named(kind.name)
                    if focus not in titles
                    for p in source.typed(focus, asked)
                    if p["id"] not in have and has_quotable(p["text"])
                ]
                if typed:
                    kinds += 1
                    have |= {p["id"] for p in typed}
                    found += typed
    return found


def _marked(passage: SourcePassage, sentence: str, title: str) -> SourcePassage:
    """Return a copy of a kind's passage marked as standing in for the subject `title`."""
    marked = passage.copy()
    marked["kin"] = True
    marked["named_in"] = sentence
    marked["named_by"] = title
    return marked
