"""The extractive answer: which passage units to quote, cleaned, about what was asked, once.

`extract_sentences` turns the kept passages into `standalone_units`, repairs scrape damage
and leaves out what is no answer (`veriloop.quotable`: glued footnote numbers and section
headings removed; resource lists, symptom tables, pointer lines, glued list items and bare
headings left out), keeps only the units about the asked question type when the passages
are of another type (`TypeTest`: the unit classifier, `nodes.unit_type`, must give the
asked type enough probability), prefers on a page of the asked type the units holding the
type's cue stems (`nodes.type_cues.asked_cues`), ranks what is left by MiniLM
cosine to the question (or by the relevance judge), and quotes the best `count` in passage
order, each said once (near-duplicates from two pages dropped) and a list's items quoted
together ("Symptoms may include: a; b").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from veriloop.knowledge.ranking import rank_rows
from veriloop.knowledge.sources import SourcePassage
from veriloop.knowledge.stated_names import own_name
from veriloop.models import Models
from veriloop.nodes.grounding import CheckedSentence, PartPassages, RelevanceScorer
from veriloop.nodes.page_types import STANDS_IN_FOR, stand_in_type
from veriloop.nodes.question_type import (
    SIDE_EFFECTS,
    classifier_vectors,
    names_type,
    question_types,
    side_effects_asked,
)
from veriloop.nodes.subject import words_in_order
from veriloop.nodes.type_cues import (
    SHOWS_SIGNS,
    asked_cues,
    asks_how_caught,
    asks_how_long,
    says_how_caught,
    says_how_long,
)
from veriloop.nodes.unit_type import unit_types
from veriloop.quotable import (
    item_rows,
    lead_of,
    merge_items,
    near_duplicate,
    quotable_texts,
    restates_list,
)
from veriloop.standalone import DANGLING, POINTS_AHEAD, leans_back
from veriloop.trace import Candidate, ModelCall


def quotable_units(passages: Sequence[SourcePassage]) -> list[tuple[str, str]]:
    """Return every quotable unit of the passages as (unit, passage id), in passage order.

    Units are `quotable_texts` (cleaned; no resource lists, tables, pointer lines,
    questions or wordless fragments): the same test retrieval's `has_quotable` applies, so
    a kept passage always has a unit to quote.
    """
    return [
        (text, passage["id"]) for passage in passages for text in quotable_texts(passage["text"])
    ]


def extract_sentences(
    models: Models,
    question: str,
    passages: Sequence[SourcePassage],
    count: int,
    relevance: RelevanceScorer | None = None,
    about: Callable[[list[tuple[str, str]]], list[bool]] | None = None,
    define: bool = False,
    prefer: Callable[[str], bool] | None = None,
    lead: bool = False,
    causes: bool = False,
    symptoms: bool = False,
    naming: bool = False,
) -> tuple[list[tuple[str, str]], ModelCall | None]:
    """Return the `count` passage units that best answer the question, as (unit, id).

    Args:
        models: The models of the run (the embedder ranks the units).
        question: The question.
        passages: The kept passages, best first.
        count: How many units to quote at most.
        relevance: A relevance judge that ranks instead of cosine (None: cosine).
        about: When given, only units it accepts are quoted (the asked type's test,
            `TypeTest`, used when the passages are not of the asked type: it reads all the
            units at once and says, for each, whether it is about that type); those of the
            subject's own pages, when they have any, before those of its kinds' pages
            ("Flu" before "Bird Flu" for "what causes flu").
        define: The question asks what something is: a unit that defines a page's
            subject ("Prostate cancer is a disease in which ...") is quoted first.
        prefer: The asked type's cue test for passages *of* that type: when some of their
            units pass it, only those are quoted (a diagnosis page's sentences about
            counselling do not say how it is diagnosed); when none do, all are.
            With neither `about` nor `prefer` (no type to read for), the subject's own
            pages' units are quoted before its kinds' too: "my mom was diagnosed with
            macular degeneration, will she go blind?" quoted Stargardt macular
            degeneration's childhood onset before the Macular Degeneration page.
        lead: The passages answer the asked type: when the best one opens its page's
            answer (`part` 1), its units come first, in the page's order ("Doctors have
            several techniques ... to help diagnose stroke. The first step in diagnosis
            is ..."): the author's answer, not the sentences nearest the question's
            wording. With `prefer`, the opening's units that pass it come first (a
            preamble, "However, they can develop over hours", waits), what the opening
            lists before the rest of it; the others stay quotable. An opening with no
            unit passing `prefer` while other passages have some does not lead (NHLBI's
            sickle cell treatment page opens on referring babies to a hematologist).
        causes: The question asks what causes its subject: a unit saying what the page's
            subject itself causes ("Flu almost never causes an upset stomach", an effect)
            is not quoted while others are (`says_what_it_causes`).
        symptoms: The question asks its subject's symptoms: a unit saying what causes the
            subject ("other conditions that can cause dementia or dementia-like
            symptoms", a cause however it names symptoms) or opening on other conditions
            ("A variety of conditions may affect your hearing ...") is not quoted while
            others are (`says_what_causes_it`, `OTHER_CONDITIONS`).
        naming: What is asked is named things (a treatment's side effects): the units
            that list them or give examples (`naming_rank`) rank before the rest, in
            their own order. Chemotherapy's page says "During chemotherapy you may have
            no side effects or just a few" nearest the question's words, and "Side
            effects vary, but common ones are nausea, vomiting, tiredness, pain and hair
            loss" is the answer.

    Returns:
        The units in passage order, near-duplicates dropped and a list's items merged, and
        the embedding call (None when the judge ranked or nothing was found).
    """
    every = quotable_units(passages)
    previous = {unit: before for before, unit in pairwise(every) if before[1] == unit[1]}
    titles = {p["id"]: p.get("title") or "" for p in passages}
    if causes:
        effects = {u for u in every if says_what_it_causes(u[0], titles.get(u[1], ""))}
        every = [u for u in every if u not in effects] or every
    if symptoms:
        origins = {
            u
            for u in every
            if says_what_causes_it(u[0], titles.get(u[1], "")) or OTHER_CONDITIONS.match(u[0])
        }
        every = [u for u in every if u not in origins] or every
    found = every
    if about is not None:
        passed = {unit for unit, ok in zip(every, about(every), strict=True) if ok}
        passed |= {  # "... may not cause any symptoms at first." "Later, you may have ..."
            unit for unit in every if previous.get(unit) in passed and CONTINUES.match(unit[0])
        }
        found = _whole_lists(every, [unit for unit in every if unit in passed])
    if about is not None or prefer is None:  # the subject's own pages before its kinds'
        kin = {p["id"] for p in passages if p.get("kin")}
        found = [(text, pid) for text, pid in found if pid not in kin] or found
    opening = passages[0]["id"] if lead and passages and passages[0].get("part") == 1 else None
    passing = {unit for unit in found if prefer(unit[0])} if prefer is not None else set()
    if passing and not any(pid == opening for _, pid in passing):
        opening = None  # an opening that never says the type ("Babies with sickle cell
        # disease should be referred to a doctor ...") is no answer's start: its page's
        # sentences that do say it are ranked with the rest
    if passing:  # the opening stays whole: its preamble may still be quoted
        found = _whole_lists(found, [u for u in found if u in passing or u[1] == opening])
    if not found or count < 1:
        return [], None
    first = definition_rows(found, passages) if define else []
    opened = [row for row, (_, pid) in enumerate(found) if pid == opening]
    if prefer is not None:  # the opening's sentences that say the asked type, when some do
        opened = [row for row in opened if found[row] in passing] or opened
        # what the opening lists (symptoms, treatments) is not crowded out by its preamble
        opened = sorted(opened, key=lambda row: naming_rank(found[row][0]))
    by_id = {p["id"]: (p.get("title") or "", p.get("page") or p["id"]) for p in passages}
    pages = [by_id.get(pid, ("", pid)) for _, pid in found]
    call: ModelCall | None = None
    if relevance is not None:
        scores = relevance.scores(question, [s for s, _ in found])
        order = sorted(range(len(found)), key=lambda i: -scores[i])
    else:
        vectors, call = models.embed([question, *(s for s, _ in found)], purpose="extract")
        rows = list(range(len(found)))
        order = [row for row, _ in rank_rows(rows, vectors[1:], vectors[0], len(found))]
    if naming:  # the units naming things first, each group in its ranked order
        order = sorted(order, key=lambda row: naming_rank(found[row][0]) == 2)
    return _quoted(found, _ranked(order, opened, first, pages), count, previous), call


def quote_parts(
    models: Models,
    parts: Sequence[PartPassages],
    passages: Sequence[SourcePassage],
    count: int,
    relevance: RelevanceScorer | None = None,
    quoted: Sequence[tuple[str, str]] = (),
) -> tuple[list[tuple[str, str]], list[ModelCall], list[str]]:
    """Quote, for each other part of a question, up to `count` units of its own passages.

    Each part is answered as a question of its type is on pages of that type
    (`extract_sentences` with the type's cue test, the page's opening first), or, when
    the subject has no page of that type (`typed` False), from its other pages through the
    type's `TypeTest` (research pages set aside, `not_research`); ranked against the part's
    own words. A unit already `quoted` (or
    quoted for an earlier part) is not quoted again; a part read through the type test
    whose units were all quoted already is unanswered (the test passed a unit of another
    type).

    Returns:
        The units, the model calls, and the types of the parts nothing was quoted for.
    """
    said = {text for text, _ in quoted}
    found: list[tuple[str, str]] = []
    calls: list[ModelCall] = []
    unanswered: list[str] = []
    for part in parts:
        ids = set(part["passage_ids"])
        own = [p for p in passages if p["id"] in ids]
        asked = part["asked"]
        test = None if part["typed"] else type_test(asked, models, own)
        prefer, lead = on_type_pages(asked, part["question"])
        if test is not None:
            own = not_research(own, asked)
        units, call = extract_sentences(
            models,
            part["question"],
            own,
            count,
            relevance,
            about=test,
            prefer=prefer if part["typed"] else None,
            lead=part["typed"] and lead,
            causes=asked == "causes",
            symptoms=asked == "symptoms" and not part["typed"],
        )
        calls.extend([*(test.calls if test else []), *([call] if call else [])])
        new = [unit for unit in units if unit[0] not in said]
        # read through the type test, a unit already quoted answers the part only when it
        # names the type ("many infants with trisomy 13 die within their first days", the
        # outlook answer, is no diagnosis: `names_type`)
        if not (new or (units and not test) or any(names_type(asked, t) for t, _ in units)):
            unanswered.append(asked)
        for unit in new:
            said.add(unit[0])
            found.append(unit)
    return found, calls, unanswered


def not_research(passages: Sequence[SourcePassage], asked: str | None) -> list[SourcePassage]:
    """Return the passages that are no research page's, for reading another type's test.

    A research answer says what scientists study ("Scientists are studying the underlying
    causes of the epilepsies"), not what is known of the asked type, though it writes the
    type's words; when every passage is a research page's, all stay.
    """
    if asked == "research":
        return list(passages)
    return [p for p in passages if p.get("qtype") != "research"] or list(passages)


def _stand_in_ids(passages: Sequence[SourcePassage], asked: str | None) -> frozenset[str]:
    """Return the ids of the passages of the type that stands in for the asked one."""
    stand_in = stand_in_type(asked)
    return frozenset(p["id"] for p in passages if stand_in and p.get("qtype") == stand_in)


def _kin_ids(passages: Sequence[SourcePassage]) -> frozenset[str]:
    """Return the ids of the passages of the subject's kinds' pages (`kin`)."""
    return frozenset(p["id"] for p in passages if p.get("kin"))


@dataclass
class Quoted:
    """The units an answer quotes (`quote_answer`)."""

    units: list[tuple[str, str]]
    """(unit, passage id): the first type's, then each other part's."""
    calls: list[ModelCall]
    first_unanswered: bool
    """A type was asked first and none of its units was quoted."""
    parts_unanswered: list[str] = field(default_factory=list)
    """The types of the other parts none of whose units was quoted."""
    first_count: int = 0
    """How many of `units` are the first type's (the other parts' follow)."""


def quote_answer(
    models: Models,
    question: str,
    passages: Sequence[SourcePassage],
    count: int,
    relevance: RelevanceScorer | None = None,
    *,
    asked: str | None = None,
    typed: bool | None = None,
    parts: Sequence[PartPassages] = (),
) -> Quoted:
    """Quote the units that answer a question: its first type's, then each other part's.

    The first type is answered from the passages not kept only for a part (`for_part`):
    from pages of that type (`typed`) as such, else through its `TypeTest` (the subject's
    kinds' pages apart, `kin`, and where a type stands in for the asked one its pages'
    units saying it, `stand_in`; research pages set aside, `not_research`); "information"
    by a definition first; a question about side effects by the treatment units naming
    them (`on_type_pages`); on pages of the asked type, its units holding the type's cue
    words, and where fewer than `FEW_CUED` do, those the unit classifier passes too
    (`type_preferred`); a question asking how or whether it is caught
    (`asks_how_caught`) by the units saying it (`says_if_caught`), where some do, whatever
    its type (that test replaces the `TypeTest`, its kin, stand-in and research readings
    with it); one asking how long it lasts (`asks_how_long`) likewise by the units saying
    that (`says_if_lasting`). Passages marked
    `defines` (pages about something else that say what the question's subject phrase is)
    give only their units that write the phrase. Then each part (`quote_parts`).
    """
    elsewhere = asked not in (None, "information") and typed is False
    about: Callable[[list[tuple[str, str]]], list[bool]] | None = (
        type_test(str(asked), models, passages) if elsewhere else None
    )
    prefer, lead = on_type_pages(asked, question)
    own = [p for p in passages if not p.get("for_part")] or list(passages)
    if elsewhere:  # the parts keep every passage: a research part reads its own
        own = not_research(own, asked)
    defined = next((p["defines"] for p in passages if p.get("defines")), None)
    if defined:  # pages about something else: only what they say of the phrase
        about = writes_phrase(defined)
    elif asks_how_caught(question) and any(says_if_caught(quotable_units(own))):
        about, prefer = says_if_caught, None  # "Is eczema contagious?", whatever its type
    elif asks_how_long(question) and any(says_if_lasting(quotable_units(own))):
        about, prefer = says_if_lasting, None  # "How long does shingles pain last?"
    elif (
        elsewhere and side_effects_asked(question) and any(names_side_effects(quotable_units(own)))
    ):
        about = names_side_effects  # "Common side effects include skin changes and fatigue."
    typed_test: TypeTest | None = None  # a typed page's units: cue words or the classifier
    if typed and lead and prefer is not None and asked not in (None, "information"):
        typed_test = type_test(str(asked), models, own)  # (not for side effects: no lead)
        prefer = type_preferred(own, typed_test, prefer)
    first, call = extract_sentences(
        models,
        question,
        own,
        count,
        relevance,
        about=about,
        define=asked == "information",
        prefer=prefer if typed else None,
        lead=bool(typed) and lead,
        causes=asked == "causes",
        symptoms=asked == "symptoms",
        naming=about is names_side_effects,
    )
    more, more_calls, parts_unanswered = quote_parts(
        models, parts, passages, count, relevance, first
    )
    return Quoted(
        units=[*first, *more],
        calls=[
            *(about.calls if isinstance(about, TypeTest) else []),
            *(typed_test.calls if typed_test is not None else []),
            *([call] if call else []),
            *more_calls,
        ],
        first_unanswered=asked not in (None, "information") and not first,
        parts_unanswered=parts_unanswered,
        first_count=len(first),
    )


def on_type_pages(asked: str | None, question: str) -> tuple[Callable[[str], bool] | None, bool]:
    """Return how pages of the asked type are quoted: the units preferred, and the lead.

    The type's cue words (`asked_cues`) pick the units, and the page's opening leads; for
    a question about side effects (`side_effects_asked`) on a treatment page, the units
    naming side effects, with no lead (the opening's preamble, "There are a number of ways
    to treat prostate cancer", is not what was asked).
    """
    if asked == "treatment" and side_effects_asked(question):
        return (lambda text: bool(SIDE_EFFECTS.search(text))), False
    return asked_cues(asked), True


FEW_CUED = 3
"""A typed page with fewer units holding its type's cue words is read by the classifier too."""


def type_preferred(
    passages: Sequence[SourcePassage], test: TypeTest, cues: Callable[[str], bool]
) -> Callable[[str], bool]:
    """Return the test of a typed page's units: its type's cue words, or the unit classifier.

    The cue words alone passed one unit of NIHSeniorHealth's shingles symptoms page, "The
    sores are usually gone within another two weeks" ("sore"), and that was the whole
    answer to "What are the symptoms of shingles?"; the classifier (`TypeTest`, as for
    other types' pages) passes "An outbreak of shingles usually begins with a burning,
    itching, or tingling sensation ..." and the rash. A unit either passes is preferred,
    where fewer than `FEW_CUED` units hold the cue words; with more, the cue words alone
    decide (letting the classifier in everywhere changed 16 of the 199 answers, as many
    for the worse as the better: "Babies with sickle cell disease should be referred to a
    doctor ..." for its treatment, atherosclerosis defined for what causes a stroke).
    """
    units = quotable_units(passages)
    if sum(cues(text) for text, _ in units) >= FEW_CUED:
        return cues
    verdicts = test(units)
    passed = {text for (text, _), ok in zip(units, verdicts, strict=True) if ok}
    return lambda text: text in passed or cues(text)


def type_test(asked: str, models: Models, passages: Sequence[SourcePassage]) -> TypeTest:
    """Return the asked type's test of the units of pages of other types (`TypeTest`)."""
    return TypeTest(asked, models, _kin_ids(passages), _stand_in_ids(passages, asked))


CONTAGIOUS = re.compile(r"\bcontagious\b", re.IGNORECASE)
"""A unit saying whether its subject is contagious ("Eczema is not contagious.")."""


def says_if_lasting(units: list[tuple[str, str]]) -> list[bool]:
    """Say, for each (unit, passage id), whether it says how long the illness lasts."""
    return [says_how_long(text) for text, _ in units]


def names_side_effects(units: list[tuple[str, str]]) -> list[bool]:
    """Say, for each (unit, passage id), whether it names side effects (`SIDE_EFFECTS`)."""
    return [bool(SIDE_EFFECTS.search(text)) for text, _ in units]


def says_if_caught(units: list[tuple[str, str]]) -> list[bool]:
    """Say, for each (unit, passage id), whether it says how or whether it is caught."""
    return [says_how_caught(text) or bool(CONTAGIOUS.search(text)) for text, _ in units]


def writes_phrase(phrase: str) -> Callable[[list[tuple[str, str]]], list[bool]]:
    """Return a test of units: does each write `phrase` (its words in order, any case)?"""
    written = re.compile(rf"\b{words_in_order(phrase.split())}s?\b", re.I)

    def test(units: list[tuple[str, str]]) -> list[bool]:
        return [bool(written.search(text)) for text, _ in units]

    return test


def _ranked(
    order: list[int],
    opened: list[int],
    definitions: list[int],
    pages: Sequence[tuple[str, str]] = (),
) -> list[int]:
    """Return the quoting order: the opening's units in page order, then the rest ranked.

    A defining unit goes first either way, another page's of the same subject nowhere
    (`_definition_first`).
    """
    ranked = [*opened, *(row for row in order if row not in opened)]
    return _definition_first(ranked, definitions, pages)


def _whole_lists(
    units: list[tuple[str, str]], kept: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Return `kept` with the other items of each list one of them is in, in `units`' order.

    A filter that passes one item of a list ("Physical dependence - withdrawal symptoms")
    keeps the list: it is quoted whole (`_quoted`), not as the one item that held a cue word.
    """
    lists = {(lead, pid) for text, pid in kept if (lead := lead_of(text))}
    chosen = set(kept)
    return [u for u in units if u in chosen or (lead_of(u[0]), u[1]) in lists]


def definition_rows(
    found: Sequence[tuple[str, str]], passages: Sequence[SourcePassage]
) -> list[int]:
    """Return the units that define their page's subject: "<name> is/are ...".

    The name is the page's title, its last part ("Body Lice" of "Parasites - Lice - Body
    Lice") or the title without a parenthesis; "A", "An" or "The" may lead.
    """
    titles = {p["id"]: p.get("title") or "" for p in passages}
    rows = []
    for row, (text, pid) in enumerate(found):
        names = _names(titles.get(pid, ""))
        if names and _defines(names).match(text):
            rows.append(row)
    return rows


def says_what_it_causes(unit: str, title: str) -> bool:
    """Tell whether a unit says what its page's subject causes, not what causes it.

    "Flu almost never causes an upset stomach", "In men, gonorrhea can cause pain when
    urinating", "If untreated, it can lead to ..." are effects; "Cervical cancer is caused
    by a virus called HPV", "A blockage inside of the appendix causes appendicitis" and
    "the causes of flu" are not.
    """
    if CAUSED.search(unit):
        return False
    names = _names(title)
    return bool(names) and bool(_causing(names).match(unit))


OTHER_CONDITIONS = re.compile(
    r"(?:(?:a variety of|many|several|some|other|different|these|certain)\s+)?"
    r"(?:(?:medical|health|other)\s+)?(?:conditions|disorders|diseases|problems|illnesses)\s+"
    r"(?:(?:that|which)\s+)?(?:may|can|could|might)\s+(?:also\s+)?(?:affect|cause|lead to)\b",
    re.IGNORECASE,
)
"""A unit about other conditions ("A variety of conditions may affect your hearing or
balance: ear infections ...; tinnitus ...", "Other conditions may cause the same signs"):
44 MedQuAD units open so, none a symptom list."""


def says_what_causes_it(unit: str, title: str) -> bool:
    """Tell whether a unit says what causes its page's subject, not what the subject does.

    "Doctors have identified other conditions that can cause dementia or dementia-like
    symptoms", "Many different diseases can cause dementia": causes, though the first
    names symptoms. "Dementia is the name for a group of symptoms caused by disorders"
    (the subject first) and "Flu can cause a fever" are not.
    """
    names = _names(title)
    return bool(names) and bool(_caused_of(names).search(unit))


@lru_cache(maxsize=4096)
def _caused_of(names: tuple[str, ...]) -> re.Pattern[str]:
    """Return the pattern of a sentence naming what causes one of `names`.

    Not where the name modifies what is caused ("causes diabetes symptoms such as thirst",
    "causing dementia patients to wander": `MODIFIED`).
    """
    named = "|".join(re.escape(n) for n in names)
    return re.compile(
        rf"\bcaus(?:e|es|ing)\s+(?:\w+\s+){{0,2}}?(?:{named})\b(?!\s+{MODIFIED})"
        rf"|\bcauses? of\s+(?:{named})\b",
        re.IGNORECASE,
    )


MODIFIED = (
    r"(?:symptoms?|signs?|patients?|sufferers?|caregivers?|care|medications?|medicines?|"
    r"drugs?|treatments?|complications?|research|specialists?)\b"
)
"""Nouns a condition's name modifies ("diabetes symptoms", "dementia patients")."""


CAUSED = re.compile(
    r"\bcaused by\b|\bcauses? of\b|\bdue to\b|\bresults? from\b|\bwhat causes?\b"
    r"|\b(?:has|have)\s+(?:(?:many|several|multiple|different|various|possible|known|"
    r"other|common|no|some)\s+){0,3}causes\b",
    re.I,
)
"""Wording that names what causes something: a unit holding it is about causes ("Epilepsy
has many possible causes, including illness ..." names its causes, the noun)."""


@lru_cache(maxsize=4096)
def _causing(names: tuple[str, ...]) -> re.Pattern[str]:
    """Return the pattern of a sentence whose subject, one of `names`, causes something."""
    named = "|".join(re.escape(n) for n in names)
    return re.compile(
        r"^(?:[^,.]{1,30}, )?(?:(?:an?|the)\s+)?"
        rf"(?:{named}|it|this (?:condition|disease|infection|disorder))\b"
        r"[^.;:,]{0,40}?\b(?:caus(?:e|es|ing)|leads? to)\b",
        re.IGNORECASE,
    )


def _names(title: str) -> tuple[str, ...]:
    """Return the names a page's title gives its subject, longest first."""
    plain = own_name(title)
    names = {title.strip(), plain, plain.split(" - ")[-1].strip()}
    return tuple(sorted((n for n in names if len(n) > 2), key=len, reverse=True))


@lru_cache(maxsize=4096)
def _defines(names: tuple[str, ...]) -> re.Pattern[str]:
    """Return the pattern of a sentence defining one of `names`.

    "<name> is/are ...", not a ranking of reasons ("Ear infections are the most common
    reason parents bring their child to a doctor"; "Alzheimer's disease is the most common
    form of dementia" defines); or the page's subject named by what it is called ("The
    infection usually affects the middle ear and is called otitis media"; not "This
    syndrome is called ... because", "The infection inflames your lungs' air sacs, which
    are called alveoli").
    """
    named = "|".join(re.escape(n) for n in names)
    return re.compile(
        rf"^(?:(?:an?|the)\s+)?(?:{named})(?:\s*\([^)]*\))?,?\s+"
        r"(?:(?:is|are)(?!\s+(?:the|one of the)\s+(?:\w+\s+){0,2}(?:reasons?|causes?)\b)"
        r"|refers to|means|describes|(?:occurs|happens) when)\b"
        r"|^The (?:infection|condition|disease|disorder|illness)\b[^.,;]*"
        r"\b(?:is|are) (?:also )?(?:called|known as)\b(?![^.]*\b(?:because|when)\b)",
        re.IGNORECASE,
    )


def _definition_first(
    order: list[int], definitions: list[int], pages: Sequence[tuple[str, str]] = ()
) -> list[int]:
    """Put the best-ranked defining unit first (the rest keep their order).

    With `pages` (each row's (title, page)), another page's definition of the same
    subject is left out: two sites' definitions of a heart attack say one thing twice.
    """
    chosen = next((row for row in order if row in definitions), None)
    if chosen is None:
        return order
    title, page = pages[chosen] if pages else ("", "")
    again = {
        row
        for row in definitions
        if pages and pages[row][0].casefold() == title.casefold() and pages[row][1] != page
    }
    return [chosen, *(row for row in order if row != chosen and row not in again)]


# A list is quoted whole, its items in the source's order, up to this many: a chosen item
# brings its siblings, so the answer says "these symptoms: a; b; c" as the page does, not
# the three items that scored best (which the page never says on their own).
LIST_ITEMS_QUOTED = 10


CONTINUES = re.compile(
    rf"{DANGLING.pattern}|^(?:Later|Then|Eventually|Over time|Afterwards?|As [a-z]+ (?:grows|"
    r"progresses|gets worse))\b"
)
"""An opening that goes on from the sentence before it: what a cue sentence ("Cervical
cancer may not cause any symptoms at first.") goes on to say ("Later, you may have pelvic
pain ...") is about the same thing, cue word or not."""

LISTS_EXAMPLES = re.compile(
    r"\b(?:include|includes|including|such as|for example)\b|:\s", re.IGNORECASE
)
"""A unit listing or giving examples: a list's lead-in and items, "include", "such as"."""

SERIES = re.compile(
    r"\w+, [\w\s()-]+, (?:[\w\s()-]+, )*(?:\w+(?: \w+){0,2} )?(?:and|or) \w", re.IGNORECASE
)
"""A series "a, b, and c" or "a, b, c and d", which may name things ("fever, cough, and a
sore throat") or kinds of them ("Certain traits, conditions, and habits can raise your
risk"). MedlinePlus writes no comma before "and" ("nausea, vomiting, tiredness, pain and
hair loss"); the item before it is then three words at most, no clause ("In rare cases,
HD is caused by a new (de novo) mutation in the HTT gene, in which case the disease
occurs ... and is not inherited" is no series)."""


def naming_rank(unit: str) -> int:
    """Rank how a unit names things: 0 lists or gives examples, 1 a series only, 2 neither.

    A list item ("Lead: item") lists. An opening's units are quoted in this order (then
    the page's): NHLBI's stroke risk page opens "Certain traits, conditions, and habits can
    raise your risk ... These ... are known as risk factors." (a series of kinds), before
    "You can treat or control some risk factors, such as high blood pressure and smoking."
    and "The major risk factors for stroke include: High blood pressure."; the examples and
    the list are the answer.
    """
    if LISTS_EXAMPLES.search(unit):
        return 0
    return 1 if SERIES.search(unit) else 2


def _quoted(
    found: list[tuple[str, str]],
    order: list[int],
    count: int,
    previous: dict[tuple[str, str], tuple[str, str]] | None = None,
) -> list[tuple[str, str]]:
    """Take the best `count` units (by `order`), each said once, in passage order, merged.

    A list item counts as its whole list (the items of its lead-in from its source, at
    most `LIST_ITEMS_QUOTED`), so `count` counts sentences and lists, not items. A
    sentence that leans on the one before it (`leans_back`: "However, ...", a pointer
    inside it), or a list whose lead-in does ("These include: ...", "Its symptoms
    include: ..."), brings that one along, uncounted (`previous`: each unit's predecessor
    in its passage): a quote never opens on a pointer to text it left out. A sentence
    whose next unit is a list with such a lead-in ("Lupus has many symptoms." then "Some
    common ones are: joint pain ...") brings that list, uncounted: alone it announces what
    it leaves out. A sentence pointing ahead with no colon (`POINTS_AHEAD`: "... such as the
    following, then confirm the diagnosis.") brings the unit after it, uncounted, or is
    not quoted where that unit is not quotable here.
    """
    chosen: list[int] = []
    leaned: dict[int, tuple[str, str]] = {}
    following = {before: unit for unit, before in (previous or {}).items()}
    row_of = {unit: row for row, unit in enumerate(found)}
    taken = 0
    lists: dict[tuple[str, str], list[int]] = {}  # each list's items: (lead-in, source) -> rows
    for item, (text, pid) in enumerate(found):
        if lead := lead_of(text):
            lists.setdefault((lead, pid), []).append(item)
    for row in order:
        if taken >= count:
            break
        if row in chosen or any(near_duplicate(found[row][0], found[o][0]) for o in chosen):
            continue
        lead = lead_of(found[row][0])
        if lead and any(_same_list(lead, found[row][1], found[o]) for o in chosen):
            continue  # the same list from another page ("... warning signs of breast cancer")
        ahead = None
        if not lead and POINTS_AHEAD.search(found[row][0]):
            next_unit = following.get(found[row])
            ahead = row_of.get(next_unit) if next_unit is not None else None
            if ahead is None:
                continue  # what it points at is not quotable here
        taken += 1
        rows = lists[(lead, found[row][1])][:LIST_ITEMS_QUOTED] if lead else [row]
        chosen += _new_rows(found, rows, chosen)
        if ahead is not None:  # "... such as the following, ..." then what follows
            chosen += _new_rows(found, [ahead], chosen)
        after = following.get(found[row]) if not lead else None
        if after is not None and (after_lead := lead_of(after[0])) and leans_back(after_lead):
            # "Lupus has many symptoms." then "Some common ones are: ...": its list
            listed = lists.get((after_lead, after[1]), [])[:LIST_ITEMS_QUOTED]
            chosen += _new_rows(found, listed, chosen)
        first = rows[0] if rows else row  # a list leans on what comes before its lead-in
        before = (previous or {}).get(found[first])
        if before is not None and leans_back(lead or found[row][0]):
            leaned[first] = before
    quoted: list[tuple[str, str]] = []
    chosen_units = {found[row] for row in chosen}
    for row in sorted(chosen):
        before = leaned.get(row)
        if before is not None and before not in quoted and before not in chosen_units:
            if not any(near_duplicate(before[0], text) for text, _ in quoted):
                quoted.append(before)
        quoted.append(found[row])
    return _longest_of_each(merge_items(quoted))


def _new_rows(found: list[tuple[str, str]], rows: list[int], chosen: list[int]) -> list[int]:
    """Return the rows not chosen yet whose units no chosen unit near-duplicates."""
    return [
        item
        for item in rows
        if item not in chosen
        and not any(near_duplicate(found[item][0], found[o][0]) for o in chosen)
    ]


def _same_list(lead: str, source: str, unit: tuple[str, str]) -> bool:
    """Tell whether `unit` is an item of another page's list under the same lead-in."""
    other = lead_of(unit[0])
    return bool(other) and unit[1] != source and near_duplicate(lead, other)


def _longest_of_each(units: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop each unit that a longer unit near-duplicates, and each list another restates.

    A list quoted whole can repeat an item another page states alone, or the same items a
    passage cut off from their lead-in; the longer says more. A list naming only what a
    sentence says already ("Some, but not all, forms of treatment for leukemia include:
    chemotherapy; ..." after "Standard treatments for leukemia include chemotherapy, ...":
    `restates_list`) goes, unless each restates the other.
    """
    return [
        unit
        for unit in units
        if not any(
            other is not unit
            and (
                (len(other[0]) > len(unit[0]) and near_duplicate(unit[0], other[0]))
                or (restates_list(unit[0], other[0]) and not restates_list(other[0], unit[0]))
            )
            for other in units
        )
    ]


@dataclass
class TypeTest:
    """The test a unit of a page of another type must pass to be about the asked type.

    The unit-type classifier (`nodes.unit_type`) gives the asked type enough probability,
    less when the unit holds the type's words (`asked_cues`: a cue stem); each type has
    its thresholds. For symptoms, a unit saying what people with the condition have or
    lose (`SHOWS_SIGNS`) passes too; for causes, a unit saying how an infection is caught
    (`says_how_caught`) counts as the type's words where they decide, and lowers no
    threshold. Where the classifier passes no unit, the words alone decide, as they did
    before it: its recall on held-out foci is below theirs for prevention (0.47 / 0.72)
    and considerations (0.43 / 0.68), and a refusal where the page answers is a failure
    too; alone, a learned stem that is a stop word (prevention's "you") does not count:
    "How do you prevent Lyme disease?" quoted "Lyme disease is a bacterial infection you
    get from the bite of an infected tick" and two sentences on its diagnosis; the subject's
    own pages and its kinds' (`kin`) each fall back apart. A list is read whole, lead-in
    and items as they are quoted (`merge_items`, `item_rows`), and its items share its
    verdict. The classifier
    reads the bundled MiniLM's embedding: the run's embedder when it is that model (its
    calls kept in `calls` for the trace), else the classifier's own encoder. Measured on
    held-out foci against the cue stems alone: nodes/data/unit_type/training.json.
    """

    asked: str
    models: Models
    kin: frozenset[str] = frozenset()
    """The ids of the passages of the subject's kinds' pages (the rest are its own)."""
    stand_in: frozenset[str] = frozenset()
    """The ids of the passages of the type that stands in for the asked one
    (`STANDS_IN_FOR`): their units saying what the table says they must pass ("Risk
    factors for colorectal cancer include: ..." for what causes it)."""
    calls: list[ModelCall] = field(default_factory=list)

    def __call__(self, units: list[tuple[str, str]]) -> list[bool]:
        """Say, for each (unit, passage id), whether it is about the asked type."""
        if not units:
            return []
        merged = merge_items(units)  # a list read whole
        texts = [text for text, _ in merged]
        rows = item_rows(units)
        classifier = unit_types()
        vectors, calls = classifier_vectors(self.models, texts, "unit_type", classifier.encoder)
        self.calls.extend(calls)
        cues = asked_cues(self.asked) or (lambda text: False)
        worded = [cues(text) for text in texts]
        content = asked_cues(self.asked, alone=True) or (lambda text: False)
        alone = [content(text) for text in texts]  # where the words decide alone
        if self.asked == "causes":  # how it is caught lowers no threshold: it counts only
            lowered = [question_types().mentions("causes", text) for text in texts]  # where
        else:  # the words decide
            lowered = worded
        probabilities = classifier.probability(self.asked, vectors)
        signs = self.asked == "symptoms"
        verdicts = [
            classifier.about(self.asked, float(p), has_cue)
            or (signs and bool(SHOWS_SIGNS.match(text)))
            for p, has_cue, text in zip(probabilities, lowered, texts, strict=True)
        ]
        says = STANDS_IN_FOR[self.asked][1] if self.asked in STANDS_IN_FOR else None
        said = [  # a risk factor, where causes are asked
            says is not None and pid in self.stand_in and says(text) for text, pid in merged
        ]
        if any(said):  # the stand-in page says it: elsewhere only the type's words count
            verdicts = [s or (v and w) for s, v, w in zip(said, verdicts, worded, strict=True)]
            worded = [s or w for s, w in zip(said, worded, strict=True)]
            alone = [s or w for s, w in zip(said, alone, strict=True)]
        for kin in (False, True):  # the words decide where the meaning passes nothing: on
            # the subject's own pages apart from its kinds' (a kind's unit passing does not
            # keep the own pages' cue sentences out)
            group = [row for row, (_, pid) in enumerate(merged) if (pid in self.kin) is kin]
            if not any(verdicts[row] for row in group):
                for row in group:
                    verdicts[row] = alone[row]
        return [verdicts[row] for row in rows]


def sentence_records(
    checked: Sequence[CheckedSentence],
    *,
    supported_at: float,
    min_coverage: float,
    relevant_at: float | None = None,
) -> list[Candidate]:
    """Return each checked sentence as a trace candidate with its scores and thresholds.

    `relevant_at`: the relevance judge's threshold when it judged the sentences (None: it
    did not, and no relevance score is recorded).
    """
    judged = relevant_at is not None
    return [
        Candidate(
            stage="sentence",
            round=0,
            iteration=i,
            text=c["text"],
            scores={
                "p_supported": c["probability"],
                "coverage": c["coverage"],
                **({"relevance": c.get("relevance")} if judged else {}),
            },
            thresholds={
                "p_supported": supported_at,
                "coverage": min_coverage,
                **({"relevance": relevant_at} if relevant_at is not None else {}),
            },
            passed=c["supported"],
            error=None if c["probability"] is not None else c["reason"],
        )
        for i, c in enumerate(checked)
    ]
