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

from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.sources import PassageSource, SourcePassage
from veriloop.quotable import has_quotable
from veriloop.text import split_sentences

NAMED_KINDS = 1
"""At most this many named kinds answer for the subject, in the order its pages name them:
lists of causes are written most common first, and the second answered by relevance alone
("Is dementia genetically passed down?" got Huntington disease's autosomal dominant
inheritance, a rare cause's, ahead of Alzheimer disease's)."""

_LISTED = (
    r"(?:diseases|disorders|conditions|illnesses)\s+(?:that|which)\s+(?:can\s+|may\s+)?"
    r"cause\s+(?:symptoms\s+of\s+)?{subject}\s+(?:are|include)\s+(?P<list>[^.;:]+)"
    r"|(?:diseases|disorders|conditions|illnesses)\s+(?:can|may)\s+cause\s+{subject},?\s+"
    r"(?:including|such\s+as)\s+(?P<list2>[^.;:]+)"
    r"|(?:types|kinds|forms)\s+of\s+{subject}\s+(?:are|include)\s+(?P<list3>[^.;:]+)"
)
"""A sentence listing the subject's kinds or causes ("Some of the diseases that can cause
symptoms of dementia are ...", "Many different diseases can cause dementia, including ...",
"The main types of diabetes are ..."); the list runs to the clause's end."""

_ITEM_BREAK = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_LEAD = re.compile(r"^(?:the|a|an|other|some|many|such\s+as)\s+", re.IGNORECASE)
_NAME = re.compile(r"^[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,4}$")
"""A condition's name: up to five words, no digits first, no parentheses."""


def named_kinds(subject: str, text: str) -> list[str]:
    """Return the conditions a text lists as the subject's kinds or causes, in order.

    Args:
        subject: The subject's name as its pages write it ("dementia").
        text: A page of the subject's, or any text.

    Returns:
        Each listed name once, as written ("Alzheimer's disease", "stroke"); nothing
        when no sentence lists the subject's kinds, or the subject is another's.
    """
    words = [re.escape(w) for w in subject.lower().split()]
    if not words:
        return []
    written = r"\s+".join(words) + r"s?"  # "dementia", "the dementias"
    listed = re.compile(_LISTED.format(subject=written), re.IGNORECASE)
    names: list[str] = []
    for sentence in split_sentences(text):
        for match in listed.finditer(sentence):
            items = match.group("list") or match.group("list2") or match.group("list3")
            for item in _ITEM_BREAK.split(items):
                name = _LEAD.sub("", item.strip())
                if _NAME.match(name) and name.lower() not in names:
                    names.append(name)
    seen = {subject.lower(), f"{subject.lower()}s"}
    return [n for n in dict.fromkeys(names) if n.lower() not in seen]


def named_kind_pages(
    source: PassageSource, own: Sequence[SourcePassage], asked: str
) -> list[SourcePassage]:
    """Return the asked type's page openings of the kinds the subject's own pages name.

    The own pages (the first two foci of `own`; `own`'s passages and every page of theirs
    the source has, of every type, whole) are read for lists of
    kinds (`named_kinds`); each name is looked up by the source's page names
    (`PassageSource.foci_named`), and the first `NAMED_KINDS` names whose pages answer the
    asked type give their openings. A kind's page from a rare-disorder site answers here:
    the subject's own page names it, so it is no namesake (`nodes.subject.stands_in` keeps
    those out for kinds known by name only). Unranked, like `missing_typed`'s.

    Returns:
        The openings, each marked `kin`, with `named_in`, the sentence that named it, and
        `named_by`, the focus of the subject's page that holds it.
    """
    titles = list(dict.fromkeys(p["title"] for p in own if p["title"]))[:2]
    have = {p["id"] for p in own}
    found: list[SourcePassage] = []
    kinds = 0
    for title in titles:
        subject = page_name(title)
        read = [p for p in own if p["title"] == title]
        read += [part for opening in source.openings_of(title) for part in _whole(source, opening)]
        pages = list({p["id"]: p for p in read}.values())
        for page in pages:
            for name in named_kinds(subject, page["text"]):
                if kinds >= NAMED_KINDS:
                    return found
                said = _sentence_naming(page["text"], name)
                typed: list[SourcePassage] = []
                for focus in source.foci_named(name):
                    for p in source.typed(focus, asked) if focus not in titles else []:
                        if p["id"] not in have and has_quotable(p["text"]):
                            marked = p.copy()
                            marked["kin"] = True
                            marked["named_in"] = said
                            marked["named_by"] = title
                            typed.append(marked)
                if typed:
                    kinds += 1
                    have |= {p["id"] for p in typed}
                    found += typed
    return found


def _whole(source: PassageSource, opening: SourcePassage) -> list[SourcePassage]:
    return source.parts(opening) or [opening]


def _sentence_naming(text: str, name: str) -> str:
    return next((s for s in split_sentences(text) if name in s), name)
