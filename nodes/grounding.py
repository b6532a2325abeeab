"""Grounded answering: retrieve cited passages, re-rank, answer from them, check each sentence.

The pieces of the grounded default (`graphs/grounded.py`), each usable on its own:

- `open_source` / `search_candidates`: the passages a question can be answered from — the
  bundled MedQuAD answers (default), a knowledge base (`kb_dir`) or a corpus index
  (`corpus_dir`) — as `SourcePassage`s with id, text, title and URL.
- `rank_passages`: MiniLM cosine between the question and each candidate (title + text);
  the best cosine is the relevance the hard-refusal gate reads.
- `extract_sentences`: an extractive answer, the passage sentences closest to the question.
- `check_sentences`: each answer sentence against the passages with a claim-support judge
  (read after the question): the grounded default's is the trained judge gated on how
  much of the sentence's content the passage holds (`nodes.judges.CoverageGatedJudge`).
  The judge alone is lenient on on-topic inventions (docs/benchmarks/support_judges.md:
  it separates backed from made-up or off-topic text, not plausible detail on the right
  topic), so a kept sentence must pass both.
- `relevance_judge`: backed is not relevant. The answer-relevance judge
  (`nodes.judges.relevance`) scores whether each sentence addresses the question;
  `extract_sentences` quotes the sentences it scores highest, and `check_sentences` keeps
  a sentence only when it is backed *and* its relevance reaches `relevant_at`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NotRequired, Protocol

import numpy.typing as npt
from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.ranking import rank_rows
from veriloop.knowledge.sources import PassageSource, SourcePassage, open_source, own_text
from veriloop.knowledge.stated_names import own_name
from veriloop.models import Models
from veriloop.nodes.citations import with_marker
from veriloop.nodes.judges import (
    ClaimVerdict,
    CoverageGatedJudge,
    SupportJudge,
    support_judge,
    supported_at_of,
)
from veriloop.nodes.judges.claim_check import ClaimCheck, check_claims
from veriloop.nodes.named_kinds import named_kind_pages
from veriloop.nodes.page_types import (
    missing_typed,
    pages_about,
    prefer_type,
    stand_in_pages,
    with_opening,
    with_whole_pages,
)
from veriloop.nodes.question_type import AskedPart
from veriloop.nodes.subject import (
    RARE_DISORDER_SITES,
    SubjectMatch,
    about_children,
    aspect_page,
    defined_as_kind,
    defines_phrase,
    kind_of,
    match_subject,
    named_by_first_word,
    names_a_conjunct,
    only_rare_kinds,
    stands_in,
    subject_name,
    subject_words,
    words_in_order,
    writes_name,
    writes_unnumbered,
    written_elsewhere,
)
from veriloop.nodes.treating_pages import treating_pages
from veriloop.nodes.type_cues import asked_cues
from veriloop.quotable import has_quotable, quotable_texts
from veriloop.standalone import leans_back
from veriloop.text import split_sentences
from veriloop.trace import ModelCall


class CheckedSentence(TypedDict):
    """One answer sentence with the passage it rests on and the scores behind the verdict."""

    text: str
    origin: Literal["generated", "extracted"]
    passage_id: str | None
    """The passage the judge found most supportive (None when it could not judge)."""
    evidence_span: str | None
    """The part of that passage the judge read when it gave its probability."""
    probability: float | None
    """The claim-support judge's P(supported) against that passage, question included."""
    coverage: float | None
    """Share of the sentence's content words (stemmed, stop words out) in that passage."""
    supported: bool
    reason: str
    """Why the sentence was kept or not, in words."""
    verdict: NotRequired[ClaimVerdict]
    """supported / contradicted / unsupported; contradicted when a passage denies it (the
    three-way judge or the mismatch checks) and none backs it."""
    relevance: NotRequired[float | None]
    """The answer-relevance judge's P(the sentence addresses the question); absent or None
    when no relevance judge ran. `supported` (kept) needs it at or above the threshold."""
    p_supported: NotRequired[float | None]
    """`nodes.judges.claim_check.ClaimCheck`'s fields, named as every check names them
    (`probability` is the same number, kept for readers of older outputs)."""
    p_contradicted: NotRequired[float | None]
    mismatches: NotRequired[list[dict[str, Any]]]
    source_index: NotRequired[int | None]
    """The index in the checked passages of `passage_id`."""
    evidence_sentence: NotRequired[str]


class RelevanceScorer(Protocol):
    """Scores whether sentences address a question (`nodes.judges.relevance.RelevanceJudge`)."""

    name: str

    def scores(self, question: str, sentences: Sequence[str]) -> list[float]:
        """Return P(addresses the question) per sentence, in order."""
        ...


def relevance_judge(kind: str) -> RelevanceScorer | None:
    """Return the answer-relevance judge called `kind` ('trained'), or None for 'off'.

    Raises:
        InvalidInputError: An unknown kind, or the trained judge's weights are missing.
    """
    if kind == "off":
        return None
    if kind == "trained":
        from veriloop.nodes.judges.relevance import RelevanceJudge

        return RelevanceJudge()
    raise InvalidInputError(f"unknown relevance judge {kind!r}; choose trained or off")


def rank_passages(
    models: Models,
    question: str,
    passages: Sequence[SourcePassage],
    keep: int,
    question_vector: npt.NDArray[Any] | None = None,
) -> tuple[list[SourcePassage], ModelCall | None]:
    """Re-rank passages by MiniLM cosine to the question; return the best `keep`.

    A passage is ranked on its own text, not on the sentence put before it (`own_text`).

    Each kept passage carries its cosine as `relevance`. No passages: no call. With
    `question_vector` (the question already embedded by this run's embedder), only the
    passages are embedded.
    """
    if not passages:
        return [], None
    texts = [f"{p['title']}. {own_text(p)}" if p["title"] else own_text(p) for p in passages]
    if question_vector is None:
        vectors, call = models.embed([question, *texts], purpose="rerank")
        asked, rows = vectors[0], vectors[1:]
    else:
        rows, call = models.embed(texts, purpose="rerank")
        asked = question_vector
    ranked: list[SourcePassage] = []
    for row, cosine in rank_rows(list(range(len(texts))), rows, asked, keep):
        passage = passages[row].copy()
        passage["relevance"] = round(cosine, 6)
        ranked.append(passage)
    return ranked, call


GENERIC_FOCUS_WORDS = frozenset(
    lexical_tokens(
        [
            "disease diseases disorder disorders syndrome syndromes condition conditions "
            "problem problems information overview health type types what you need to know "
            "about the and of in for with gene genes mutation mutations"
        ]
    )[0]
)
"""Focus words that name no particular condition ("Anal Disorders" is about the anus;
"MTHFR gene mutation" about MTHFR, which people name by its variant)."""


def focus_words(text: str) -> set[str]:
    """Return the specific words of a focus or question: stemmed, no numbers, no generics."""
    return {
        w
        for w in lexical_tokens([text])[0]
        if len(w) > 1 and not w.isdigit() and w not in GENERIC_FOCUS_WORDS
    }


def off_focus(question: str, focus: str) -> bool:
    """Tell whether a page's focus is a neighbouring condition, not the question's subject.

    A focus sharing some of its specific words with the question but not all is about
    something else of the same family: "Anal Cancer" for a question about an anal fissure
    ("anal" shared, "cancer" not asked), unless the page is a kind of what was asked
    (`nodes.subject.kind_of`: "Chronic Myeloid Leukemia" for leukemia). A focus sharing
    none (a synonym: "High Blood Pressure" for hypertension) or all of them, or all of one
    of the two conditions it names (`nodes.subject.names_a_conjunct`: "Sprains and
    Strains" for a sprained ankle), is not ruled out here: retrieval and the re-ranker
    decide. What the focus puts in parentheses (an abbreviation, another name) is no word
    the question must share.
    """
    name = page_name(subject_name(focus))  # "HIV/AIDS Medicines": HIV/AIDS's page
    asked = focus_words(question)
    readings = [focus_words(name), focus_words(own_name(name))]  # "Tuberculosis (TB)": the
    off = all(bool(named & asked) and bool(named - asked) for named in readings if named)
    return (  # question need not write "TB"; "Sprains and Strains" is on a sprained ankle
        off and not kind_of(question, focus) and not names_a_conjunct(question, focus)
    )


def _subject_of(
    question: str, passages: Sequence[SourcePassage], found: Sequence[SourcePassage]
) -> SubjectMatch:
    """Match the subject on `passages`; the other titles `found` holds name subjects too."""
    ids = {p["id"] for p in passages}
    others = list(dict.fromkeys(p["title"] for p in found if p["title"] and p["id"] not in ids))
    return match_subject(
        question, [p["title"] for p in passages], [p["text"] for p in passages], others
    )


@dataclass
class Retrieved:
    """What one retrieval gave: the source's name, how many candidates, the best few."""

    source: str
    found: int
    ranked: list[SourcePassage]
    calls: list[ModelCall]
    off_focus: int = 0
    """Candidates dropped because their page is about a neighbouring condition."""
    subject: SubjectMatch | None = None
    """The subject rule's reading (`nodes.subject`): pages off the subject left out, or the
    subject phrase no page is about (then `ranked` is empty and the answer is refused,
    unless other pages say what it is: those passages are marked `defines`)."""
    on_subject: bool = False
    """`ranked` holds only pages on the question's subject (or kinds of it), or only
    passages saying what a subject no page is about is (`defines`): the subject's gate
    applies."""
    set_aside: list[str] = field(default_factory=list)
    """The foci of the pages left out as neighbouring conditions, off the subject, or (for
    a subject no page is about) not saying what it is."""
    asked: str | None = None
    """The question type the passages were chosen for (None: no type preference)."""
    typed: bool | None = None
    """With `asked`: whether `ranked` holds passages of that type (False: the pages on the
    subject answer other questions only)."""
    typed_far: bool = False
    """With `typed` False: the subject's own pages do answer the asked type, but not close
    enough to the question (below `relevant_at`): not "says nothing about"."""
    no_subject: bool = False
    """No page was on the question's subject and none of its words named one: `ranked` is
    empty (`off_subject` False) and the caller refuses."""
    stand_ins: list[SourcePassage] = field(default_factory=list)
    """With `typed` False: the asked type's pages of the kinds the subject's own pages name
    (`nodes.named_kinds`), ranked and held to the gate; quoted only when no sentence of the
    subject's own pages answers the type."""

    closest: float | None = None
    """With `typed` False: the best relevance among the subject's passages before those
    holding the asked type's words were preferred (`type_words_first`), which the gate
    reads: which passages are kept for their words does not make the pages further away."""

    @property
    def best_relevance(self) -> float | None:
        """Return the best kept passage's cosine to the question (None: nothing found).

        Where passages were kept for the asked type's words, the best of the subject's
        passages before that choice (`closest`).
        """
        if self.closest is not None:
            return self.closest
        return max((p["relevance"] for p in self.ranked), default=None)


def retrieve_ranked(
    models: Models,
    question: str,
    *,
    kb_dir: str,
    corpus_dir: str,
    candidates: int,
    keep: int,
    match_focus: bool = True,
    relevant_at: float | None = None,
    question_match: int = 0,
    asked: str | None = None,
    question_vector: npt.NDArray[Any] | None = None,
    off_subject: bool = True,
) -> Retrieved:
    """Search the source (`open_source`) for `candidates` passages; keep the `keep` best.

    With `match_focus`, pages about a neighbouring condition (`off_focus`) are dropped
    (unless one writes the question's name for its subject and no page has that name:
    `nodes.subject.writes_name`), then the subject rule (`match_subject`) keeps only pages
    on the question's subject, or nothing when it names a subject no page is about. Below
    `relevant_at` the subject's pages are still the only ones kept (the caller's gate then
    refuses: "Drinking Water" for quinine in seltzer water never hands the question to
    the Thrombocytopenia page), and `on_subject` says the subject matched, so that gate is
    the subject's. The question is read as the source spells its page names
    (`PassageSource.normalized`), and re-embedded when that changed it. Pages sharing a
    UMLS concept with a page on the subject are on it too, but for
    kinds of it, which the subject rule has placed (CancerGov's Childhood Hodgkin Lymphoma
    lists Lymphoma's concept: joined as Lymphoma's own page, it displaced the adults'
    kinds). With `asked`
    (`nodes.question_type`), passages of that type are kept when there are any
    (`nodes.page_types`: looked up by focus when the search missed them, their page's
    opening first); kinds of the subject are kept only when its own pages have nothing
    of that type, and when theirs fall below `relevant_at`, the subject's pages are read
    for the type instead (`typed` False). When no page is on the subject and the question
    names none the rule can read (`SubjectMatch` unmatched, nothing uncovered), the
    candidates answer only with `off_subject`; else nothing is kept (`no_subject`). When
    no page is about the subject phrase (`uncovered`) and the question asks what it is,
    passages of other pages that say what it is in a unit an answer may quote are kept,
    marked `defines` (Narcolepsy's "sleep paralysis, which is an inability to move ..."),
    and the rest named as set aside; otherwise none. Once
    the subject matched, only its pages are embedded for ranking; the others are named as
    set aside (ranked ones first, then in the search's order). When the subject's pages
    answer other questions only and the asked type has a unit test
    (`nodes.type_cues.asked_cues`), their passages holding a unit it passes are
    preferred among the `keep` kept, in their order (`type_words_first`).
    """
    source = open_source(
        models, kb_dir=kb_dir, corpus_dir=corpus_dir, question_match=question_match
    )
    corrected = source.normalized(question)  # "Familial Mediterean Fever": the page's name
    if corrected != question:
        question, question_vector = corrected, None
    found, calls = source.search(question, candidates)
    found = [_with_aspect_type(p, asked) for p in found]
    if not match_focus:
        ranked, call = rank_passages(models, question, found, keep, question_vector)
        return Retrieved(source.name, len(found), ranked, [*calls, *([call] if call else [])])
    titles = [p["title"] for p in found]
    asked_words = subject_words(question)
    first_word_named = {  # "canker": Canker Sores is no neighbour
        title for title in set(titles) if title and named_by_first_word(asked_words, title)
    }
    on_focus = [
        p
        for p in found
        if (not (p["title"] and off_focus(question, p["title"])) or p["title"] in first_word_named)
        and _aspect_asked(question, p["title"], asked)  # "HIV/AIDS Medicines": treatment
    ]
    subject = _subject_of(question, on_focus, found)
    focus_ids = {p["id"] for p in on_focus}
    named = [p for p in found if p["id"] not in focus_ids]
    named = [
        p
        for p in named
        if writes_name(question, p["title"], [p["text"]])
        or defined_as_kind(question, p["title"], [p["text"]])
    ]
    if named and not subject.matched:  # no page under the question's own name: one that
        on_focus += named  # writes it ("alcohol use disorder") or defines itself as it
        # ("A peptic ulcer is a sore in the lining of your stomach") is no neighbour
        focus_ids |= {p["id"] for p in named}
        subject = _subject_of(question, on_focus, found)
    rare_kinds_only = only_rare_kinds(subject, on_focus) and written_elsewhere(
        subject.phrases[0],
        [on_focus[i]["title"] for i in subject.kin],
        _general_page_texts(source, found),
    )
    if rare_kinds_only:
        subject = replace(  # "aortic stenosis": Supravalvular aortic stenosis is no answer
            subject,
            kept=[],
            kin=[],
            matched=False,
            uncovered=subject.phrases[0],
            nearest=list(dict.fromkeys(on_focus[i]["title"] for i in subject.kept))[:3],
        )
    aside = list(dict.fromkeys(p["title"] for p in found if p["id"] not in focus_ids))
    if subject.uncovered and asked in (None, "information") and not rare_kinds_only:
        # "what is sleep paralysis": other pages may say what it is
        defining = defines_phrase(subject.uncovered)
        passing = [
            p
            for p in on_focus
            if p["title"] and any(defining.search(unit) for unit in quotable_texts(p["text"]))
        ]
        if passing:
            ranked, call = rank_passages(models, question, passing, keep, question_vector)
            kept = {p["title"] for p in ranked}
            not_defining = [p["title"] for p in on_focus if p["title"] and p["title"] not in kept]
            return Retrieved(
                source.name,
                len(found),
                [{**p, "defines": subject.uncovered.text} for p in ranked],
                [*calls, *([call] if call else [])],
                len(found) - len(on_focus),
                subject,
                on_subject=True,  # the phrase's gate: these passages say what it is
                set_aside=list(dict.fromkeys([*aside, *not_defining])),
                asked=asked,
            )
    if subject.uncovered:
        return Retrieved(
            source.name,
            len(found),
            [],
            calls,
            len(found) - len(on_focus),
            subject,
            set_aside=aside,
        )
    if not off_subject and not subject.matched and any(p["title"] for p in on_focus):
        return Retrieved(  # answers from such pages: 0 good of 21 rated (issue 38)
            source.name,
            len(found),
            [],
            calls,
            len(found) - len(on_focus),
            subject,
            set_aside=list(dict.fromkeys(p["title"] for p in found if p["title"])),
            no_subject=True,
        )
    kin_ids = {on_focus[i]["id"] for i in subject.kin}
    kept_ids = {on_focus[i]["id"] for i in subject.kept}
    if subject.matched:  # pages about the same UMLS concept under another name
        own_cuis = {
            c
            for i in subject.kept
            if i not in subject.kin
            for c in on_focus[i].get("cuis", [])
            if c  # CDC's pages have none: [None] in the index is no shared concept
        }
        kept_ids |= {  # a named adult's: no children's page joins
            p["id"]
            for p in on_focus
            if own_cuis & set(p.get("cuis", []))
            and not (subject.adult and about_children(p["title"]))
            and not writes_unnumbered(p["title"], subject.lettered)
            and not kind_of(question, p["title"])  # a kind is placed by the subject rule
        }
    # only what can be kept is embedded: past a matched subject, the other pages are named
    # as set aside and nothing more (two thirds of a question's time was re-ranking them)
    unranked = [p for p in on_focus if subject.matched and p["id"] not in kept_ids]
    to_rank = [p for p in on_focus if not (subject.matched and p["id"] not in kept_ids)]
    ranked, call = rank_passages(models, question, to_rank, len(to_rank), question_vector)
    ranked = [p for p in ranked if has_quotable(p["text"])]  # not all resource lists
    on_subject = [p for p in ranked if p["id"] in kept_ids]
    own = [p for p in on_subject if p["id"] not in kin_ids]
    if own and (not kin_ids or (asked and any(p.get("qtype") == asked for p in own))):
        on_subject = own  # the subject's own pages answer it: its kinds are not needed
    elif own:  # a rare disorder's page does not answer for a common condition's own
        own_sites = [p.get("site", "") for p in own]
        standing = [
            p
            for p in on_subject
            if p["id"] not in kin_ids or stands_in(p.get("site", ""), own_sites)
        ]
        if len(standing) < len(on_subject):  # the subject's overview is read instead
            overview, call_overview = rank_passages(
                models, question, missing_typed(source, own, "information"), keep, question_vector
            )
            calls = [*calls, *([call_overview] if call_overview else [])]
            own = sorted([*own, *overview], key=lambda p: -p["relevance"])
            standing = sorted([*standing, *overview], key=lambda p: -p["relevance"])
        on_subject = standing
    is_on = (
        subject.matched
        and bool(on_subject)
        and (relevant_at is None or on_subject[0]["relevance"] >= relevant_at)
    )
    typed_far = False
    stand_ins: list[SourcePassage] = []
    if is_on and asked and not any(p.get("qtype") == asked for p in own):
        missing = missing_typed(source, own, asked)
        looked_up, call_typed = rank_passages(
            models, question, missing, len(missing), question_vector
        )
        calls = [*calls, *([call_typed] if call_typed else [])]
        looked_up = [  # held to the gate the subject's pages passed
            p for p in looked_up if relevant_at is None or p["relevance"] >= relevant_at
        ]
        if looked_up:  # the subject's own pages answer it after all, outside the candidates
            on_subject = sorted([*own, *looked_up], key=lambda p: -p["relevance"])
        typed_far = bool(missing) and not looked_up
        if not missing and not any(p.get("qtype") == asked for p in on_subject):
            # none of its own pages is of the type: the kinds they name may stand in where
            # no sentence of theirs answers it (Dementia's pages name Alzheimer's disease,
            # whose page says how it is inherited)
            named, call_named = rank_named_kinds(
                models, question, named_kind_pages(source, own, asked), own
            )
            calls = [*calls, *call_named]
            stand_ins = [p for p in named if relevant_at is None or p["relevance"] >= relevant_at]
            if asked == "treatment" and not stand_ins:  # Hormone Replacement Therapy's
                # "... to relieve these symptoms" for Menopause, whose page names none
                subjects = [p["title"] for p in own if p["title"]]
                treating, call_treating = rank_passages(
                    models, question, treating_pages(found, subjects), keep, question_vector
                )
                calls = [*calls, *([call_treating] if call_treating else [])]
                stand_ins = [
                    p for p in treating if relevant_at is None or p["relevance"] >= relevant_at
                ]
    if is_on and asked and not typed_far and not any(p.get("qtype") == asked for p in on_subject):
        # what causes a cancer: its risk factors, on its who-is-at-risk page, which the
        # search for "causes" does not return (read like its other pages: `TypeTest`);
        # held to the gate the subject's pages passed
        risk, call_risk = rank_passages(
            models, question, stand_in_pages(source, own, asked), keep, question_vector
        )
        calls = [*calls, *([call_risk] if call_risk else [])]
        risk = [p for p in risk if relevant_at is None or p["relevance"] >= relevant_at]
        on_subject = sorted([*on_subject, *risk], key=lambda p: -p["relevance"])
    if subject.matched:  # close enough or not: other pages answering for the subject's
        # gave 16 rated answers, 14 bad (issue 38)
        kept = {p["id"] for p in on_subject}
        aside += [
            p["title"]
            for p in [*ranked, *unranked]
            if p["id"] not in kept and p["title"] not in aside
        ]
        ranked = on_subject
    if is_on and kin_ids:
        ranked = [{**p, "kin": True} if p["id"] in kin_ids else p for p in ranked]
    read_whole = ranked
    closest: float | None = None
    ranked, typed = prefer_type(ranked, asked)
    if typed and is_on and relevant_at is not None and ranked[0]["relevance"] < relevant_at:
        # the asked type only on pages below the gate the subject's pages passed (a kind's:
        # 2009 H1N1 Flu's treatment for "what are the treatments of flu"): the subject's
        # pages are read for that type instead of refusing
        typed_far = typed_far or any(not p.get("kin") for p in ranked)  # its own, too far
        ranked, typed = read_whole, False
    if typed is False and is_on:
        keep *= 3  # the subject's pages answer other questions: search more of them
        ranked = with_whole_pages(source, ranked)
        says = asked_cues(asked)
        if says is not None:
            closest = max((p["relevance"] for p in ranked), default=None)
            ranked = type_words_first(ranked, says, keep, about_children(question))
    if typed:
        ranked = with_opening(source, ranked)
    return Retrieved(
        source.name,
        len(found),
        ranked[:keep],
        [*calls, *([call] if call else [])],
        off_focus=len(found) - len(on_focus),
        subject=subject,
        on_subject=subject.matched,
        set_aside=list(dict.fromkeys(aside)),
        asked=asked,
        typed=typed,
        typed_far=typed_far and typed is False,
        stand_ins=stand_ins if typed is False else [],
        closest=closest,
    )


def type_words_first(
    ranked: Sequence[SourcePassage],
    says: Callable[[str], bool],
    keep: int,
    children: bool = False,
) -> list[SourcePassage]:
    """Keep `keep` passages, those holding a unit that `says` passes first, in their order.

    The subject's pages of other types are read for the asked type: a passage none of
    whose quotable units holds the type's words seldom gives a sentence to quote, and the
    closest passages to "How is macular degeneration diagnosed?" (what it is, who gets
    it) crowded out the overview's "Regular comprehensive eye exams can detect macular
    degeneration ..." and the symptoms page's "AMD is detected during a comprehensive eye
    exam ...". Only which passages are kept changes, not their order (put first, a
    page's far part holding the words displaced the closer passages the quote was drawn
    from: "Is depression genetic?"), and a unit leaning on the sentence before it
    (`leans_back`: "If this happens, an older adult with no family history of depression
    ...") does not count. Only the subject's own passages are preferred, and a
    children's page (`nodes.subject.about_children`) only when the question is about
    children (`children`): a kind's (`kin`) and "Childhood ovarian cancer"'s, for what
    causes ovarian cancer, keep their place among the rest.
    """
    holding = [
        not p.get("kin")
        and (children or not about_children(p["title"]))
        and any(says(unit) and not leans_back(unit) for unit in quotable_texts(p["text"]))
        for p in ranked
    ]
    preferred = [p for p, h in zip(ranked, holding, strict=True) if h] + [
        p for p, h in zip(ranked, holding, strict=True) if not h
    ]
    kept = {p["id"] for p in preferred[:keep]}
    return [p for p in ranked if p["id"] in kept]


def rank_named_kinds(
    models: Models, question: str, named: Sequence[SourcePassage], own: Sequence[SourcePassage]
) -> tuple[list[SourcePassage], list[ModelCall]]:
    """Rank the pages of the kinds the subject's pages name, each as asked of its kind.

    "Is dementia genetically passed down?" is asked of Alzheimer disease's inheritance page
    as "Is Alzheimer disease genetically passed down?": the page answers for its kind, and
    its closeness to the question is the closeness of that question (the subject's own
    name, as the question writes it, replaced by the kind's). A question that does not
    write the subject's name is read as it is.

    Args:
        models: The run's models (the embedder ranks).
        question: The question as asked.
        named: The kinds' pages (`nodes.named_kinds.named_kind_pages`).
        own: The subject's own passages (their foci are the names replaced).

    Returns:
        The pages, best first, each with its `relevance`, and the embedding calls made.
    """
    subjects = sorted(
        {name for p in own if (name := own_name(page_name(p["title"])))}, key=len, reverse=True
    )
    written = re.compile(
        "|".join(rf"\b{words_in_order(s.split())}s?\b" for s in subjects), re.IGNORECASE
    )
    ranked: list[SourcePassage] = []
    calls: list[ModelCall] = []
    for title in dict.fromkeys(p["title"] for p in named):
        pages = [p for p in named if p["title"] == title]
        kind = page_name(title)
        asked = written.sub(kind.replace("\\", "\\\\"), question) if subjects else question
        got, call = rank_passages(models, asked, pages, len(pages))
        ranked += got
        calls += [call] if call else []
    return sorted(ranked, key=lambda p: -p["relevance"]), calls


def _aspect_asked(question: str, title: str, asked: str | None) -> bool:
    """Tell whether a page may answer: any but an aspect page of another type than asked.

    "HIV/AIDS Medicines" answers how HIV/AIDS is treated, not what causes it; it stays
    when no type was read, and when the question names the page itself ("What is newborn
    screening?", "What are HIV/AIDS medicines?").
    """
    aspect = aspect_page(title) if title else None
    if aspect is None or asked is None or aspect[1] == asked:
        return True
    return focus_words(page_name(title)) <= focus_words(question)


def _with_aspect_type(passage: SourcePassage, asked: str | None) -> SourcePassage:
    """Type an aspect page's overview by its aspect when that type is asked.

    MedlinePlus files "HIV/AIDS Medicines"' one answer as "information"; what it tells a
    treatment question is the treatment (`nodes.subject.aspect_page`).
    """
    aspect = aspect_page(passage["title"]) if passage["title"] else None
    if aspect is None or aspect[1] != asked or passage.get("qtype") != "information":
        return passage
    return {**passage, "qtype": aspect[1]}


def _general_page_texts(source: PassageSource, found: Sequence[SourcePassage]) -> Iterator[str]:
    """Yield the texts of the found general sites' subjects' pages (not GARD's or GHR's).

    Every answer MedQuAD files under each such focus, of every question type, whole:
    Heart Valve Disease writes "aortic stenosis" on one page the search did not return.
    """
    general = [p for p in found if p.get("site") and p.get("site") not in RARE_DISORDER_SITES]
    yield from (p["text"] for p in general)
    for title in dict.fromkeys(p["title"] for p in general if p["title"]):
        yield from (part["text"] for part in pages_about(source, title))


class PartPassages(TypedDict):
    """A part of the question asking a type of its own, and the passages that answer it."""

    question: str
    """The part's own words ("and what steps should a pregnant woman take to avoid this")."""
    asked: str
    """Its question type."""
    passage_ids: list[str]
    """The ids of the subject's passages of that type, or (`typed` False) of its pages of
    other types, when none is of that type."""
    typed: bool
    """The passages are of the part's type (False: read through the type test,
    `TypeTest`, as the first type is when no page of it is there)."""


@dataclass
class PartsFound:
    """What `retrieve_parts` found for a question's other parts."""

    parts: list[PartPassages] = field(default_factory=list)
    """The parts the subject's pages answer, with their passages' ids."""
    passages: list[SourcePassage] = field(default_factory=list)
    """Those passages."""
    missing: list[str] = field(default_factory=list)
    """The types of the parts the subject's pages do not answer."""
    far: list[str] = field(default_factory=list)
    """Of `missing`, the types the subject's pages answer, but not close enough to the
    question (`Retrieved.typed_far`)."""
    searches: list[tuple[AskedPart, Retrieved]] = field(default_factory=list)
    """Each part's search, for the trace."""
    calls: list[ModelCall] = field(default_factory=list)


def retrieve_parts(
    models: Models,
    question: str,
    parts: Sequence[AskedPart],
    *,
    relevant_at: float,
    question_vector: npt.NDArray[Any] | None = None,
    **search: Any,
) -> PartsFound:
    """Find, for each other part of a question, the subject's passages of that part's type.

    The whole question is searched again with the part's type (`retrieve_ranked`, with the
    `search` settings of the first search): a part is answered only from pages on the
    question's subject that are of its type, each passage held to `relevant_at`; its kinds'
    pages only when the subject's own have none, as for the first type. A part no such
    page answers is `missing` ("MedQuAD ... says nothing about how to prevent it"), and
    `far` too when pages of its type are there but below the gate. When the subject has
    no page of the part's type at all, the part is read, as the first type is, from the
    subject's pages of other types that pass the gate (`typed` False: only their units
    the type test passes are quoted, and the part is said missing when none does):
    "What is lupus? How is it treated?" is answered from Lupus's overview, which says how.
    """
    found = PartsFound()
    for part in parts:
        got = retrieve_ranked(
            models,
            question,
            relevant_at=relevant_at,
            asked=part.qtype,
            question_vector=question_vector,
            **search,
        )
        found.searches.append((part, got))
        found.calls.extend(got.calls)
        of_type = [p for p in got.ranked if p.get("qtype") == part.qtype]
        passing = [p for p in got.ranked if p["relevance"] >= relevant_at]
        typed = [p for p in of_type if p["relevance"] >= relevant_at]
        untyped = got.typed is False and not got.typed_far and not of_type
        if not (got.on_subject and ((got.typed and typed) or (untyped and passing))):
            found.missing.append(part.qtype)
            if got.typed_far or of_type:  # its pages exist, below the gate
                found.far.append(part.qtype)
            continue
        answering = typed if got.typed else passing
        found.parts.append(
            PartPassages(
                question=part.text,
                asked=part.qtype,
                passage_ids=[p["id"] for p in answering],
                typed=bool(got.typed),
            )
        )
        held = {p["id"] for p in found.passages}  # two parts may read the same pages
        found.passages.extend(p for p in answering if p["id"] not in held)
    return found


def numbered_passages(passages: Sequence[SourcePassage]) -> str:
    """Render passages for a prompt as `[1] text`, one per line."""
    return "\n".join(f"[{i}] {p['text']}" for i, p in enumerate(passages, start=1))


def instructions_of(template: str) -> str:
    """Return a passages prompt's own words (placeholders removed), for the echo guard.

    Copying the passages is the point of these prompts, so only the instructions may be
    stripped from a reply as echoes.
    """
    return template.replace("{passages}", "").replace("{question}", "")


def sentence_judge(
    kind: str,
    models: Models,
    min_coverage: float,
    supported_at: float | None = None,
    contradicted_at: float | None = None,
) -> SupportJudge:
    """Return the grounded default's sentence judge: `kind`, gated on content-word coverage.

    The judge decides at `supported_at` / `contradicted_at` (None: its own thresholds,
    the fitted decision of a three-way judge, 0.5 for the others).
    """
    inner = support_judge(kind, models, supported_at=supported_at, contradicted_at=contradicted_at)
    return CoverageGatedJudge(inner, min_coverage=min_coverage)


def check_sentences(
    judge: SupportJudge,
    sentences: Sequence[tuple[str, Literal["generated", "extracted"]]],
    passages: Sequence[SourcePassage],
    question: str,
    *,
    relevance: RelevanceScorer | None = None,
    relevant_at: float = 0.5,
) -> list[CheckedSentence]:
    """Judge every sentence against the passages (`check_claims`) and decide which are kept.

    A sentence is backed when the judge's own decision says so (`check_claims`: the judge
    owns its thresholds). With a `CoverageGatedJudge` (the grounded default's), the
    passage must also hold the sentence's content words; its coverage and the inner
    judge's probability are read from the check's scores. With a `relevance` judge, a
    backed sentence is kept (`supported`) only when its P(addresses the question) is at
    least `relevant_at`; otherwise its reason says it is off the question.
    """
    if not sentences:
        return []
    relevances: list[float | None] = (
        list(relevance.scores(question, [text for text, _ in sentences]))
        if relevance is not None
        else [None] * len(sentences)
    )
    checks, _ = check_claims(
        judge, [text for text, _ in sentences], [p["text"] for p in passages], question
    )
    gate = judge.min_coverage if isinstance(judge, CoverageGatedJudge) else None
    threshold = supported_at_of(judge)
    return [
        _checked_sentence(check, origin, passages, relevant, relevant_at, gate, threshold)
        for (_, origin), check, relevant in zip(sentences, checks, relevances, strict=True)
    ]


def _checked_sentence(
    check: ClaimCheck,
    origin: Literal["generated", "extracted"],
    passages: Sequence[SourcePassage],
    relevant: float | None,
    relevant_at: float,
    gate: float | None,
    supported_at: float,
) -> CheckedSentence:
    text, probability, index = check["claim"], check["p_supported"], check["source_index"]
    if probability is None or index is None:
        return _with_check_fields(
            check,
            CheckedSentence(
                text=text,
                origin=origin,
                passage_id=None,
                evidence_span=None,
                probability=None,
                coverage=None,
                supported=False,
                reason=f"not judged: {check['error'] or 'no evidence'}",
                relevance=relevant,
            ),
        )
    coverage = check["scores"].get("coverage")
    said = check["verdict"]
    denied, backed = said == "contradicted", said == "supported"
    on_question = relevant is None or relevant >= relevant_at
    supported = backed and on_question
    if supported:
        reason = f"P(supported) {probability:.2f}" + (
            "" if coverage is None else f", {coverage:.0%} of its content words"
        )
        reason += "" if relevant is None else f", relevance {relevant:.2f}"
    elif backed:
        reason = (
            f"backed (P(supported) {probability:.2f}) but off the question: relevance "
            f"{relevant:.2f} < {relevant_at}"
        )
    elif denied:
        quoted = check["evidence_sentence"] or check["span"]
        named = "; ".join(m["reason"] for m in check["mismatches"])
        reason = f'contradicted: the passage says "{quoted}"' + (f" ({named})" if named else "")
    elif gate is not None and "inner_p" not in check["scores"]:  # the gate said no
        held = "no content words" if coverage is None else f"{coverage:.0%}"
        reason = f"no passage holds its content words (best: {held}, < {gate:.0%})"
    else:
        reason = f"P(supported) {probability:.2f} < {supported_at:g}"
    return _with_check_fields(
        check,
        CheckedSentence(
            text=text,
            origin=origin,
            passage_id=passages[index]["id"],
            evidence_span=check["span"],
            probability=probability,
            coverage=coverage,
            supported=supported,
            reason=reason,
            verdict="supported" if backed else "contradicted" if denied else "unsupported",
            relevance=relevant,
        ),
    )


def _with_check_fields(check: ClaimCheck, sentence: CheckedSentence) -> CheckedSentence:
    """Return the sentence with the fields every claim check names alike."""
    sentence["p_supported"] = check["p_supported"]
    sentence["p_contradicted"] = check["p_contradicted"]
    sentence["mismatches"] = check["mismatches"]
    sentence["source_index"] = check["source_index"]
    sentence["evidence_sentence"] = check["evidence_sentence"]
    return sentence


def off_question(sentence: CheckedSentence) -> bool:
    """Tell whether a sentence was backed by a passage but dropped as off the question."""
    return not sentence["supported"] and sentence.get("verdict") == "supported"


def cited_answer(
    checked: Sequence[CheckedSentence], *, mark_unsupported: bool = False
) -> tuple[str, list[str]]:
    """Join the supported sentences, each with a numbered citation of its passage.

    Passages are numbered in order of first citation. With `mark_unsupported`, sentences
    that failed the check stay in place, followed by `[unsupported]`, `[contradicted]`
    where a passage denies them, or `[off-question]` where a passage backs them but they
    do not address the question.

    Returns:
        The answer text and the cited passage ids (citation `[n]` is the n-th id).
    """
    order: list[str] = []
    parts: list[str] = []
    for sentence in checked:
        if sentence["supported"] and sentence["passage_id"]:
            if sentence["passage_id"] not in order:
                order.append(sentence["passage_id"])
            parts.append(with_marker(sentence["text"], order.index(sentence["passage_id"]) + 1))
        elif mark_unsupported:
            mark = (
                "off-question"
                if off_question(sentence)
                else "contradicted"
                if sentence.get("verdict") == "contradicted"
                else "unsupported"
            )
            parts.append(f"{sentence['text'].rstrip()} [{mark}]")
    return " ".join(parts), order


def answer_sentences(text: str) -> list[str]:
    """Split a generated answer into sentences worth checking (no bare labels or numbers)."""
    return [s for s in split_sentences(text) if re.search(r"[A-Za-z]{2,}", s)]
