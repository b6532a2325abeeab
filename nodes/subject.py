"""The question's subject, matched against the page each candidate passage comes from.

A passage can be close in words to a question and still be about something else: "anal
fissure" retrieves pages about Anal Cancer, Anal Disorders, Crohn's Disease and Fecal
Incontinence, and each of them mentions fissures. Only the page's focus (MedQuAD's title:
the condition or drug the page is about) says what the passage is about, so the grounded
default reads the question's subject against it:

- **Subject phrases**: runs of adjacent content words of the question that the candidate
  passages also write adjacent ("anal fissure", "sickle cell anemia"; not "battling anal")
  and that hold a word some candidate's focus uses ("anal"). Stop words, question-type words
  ("treatments", "causes") and generic words ("disease", "disorders") break a run.
- **A page on the subject**: its text gives a subject phrase as another name for what it is
  about ("... is called otitis media": the Ear Infections page), or its focus's specific
  words all appear in the question, and
  when a subject phrase shares a word with the focus, the phrase does not reach past the
  focus's words ("Anal Disorders" names "anal", but the question's phrase is "anal
  fissure": that page is about a wider family, not the subject; "Snoring" is on "stop
  snoring": the head noun comes last, and "stop" names no subject).
- **The rule**: when some candidate is on the subject, only those pages are kept; when
  none of them clears the subject's relevance gate, they are held to the general one
  (`relevant_at`) and still no other page answers for them (it used to rank every
  candidate then, reading the match as a word, not the subject: the other pages' answers
  were rated bad in 14 of 16 and partial in 2, issue 38); when the question has
  a subject phrase and no candidate is on it, the source has no page about what was
  asked, and the grounded default refuses, naming the phrase.

Pages without a focus (a knowledge base, a corpus index, a user's folder) are never ruled
on: only a source whose titles name subjects (MedQuAD) is matched. The rule, its refusal
cost and what it changed are measured in docs/results/mediqa_grounded_subject_n120.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from bm25s.stopwords import STOPWORDS_EN_PLUS

from veriloop.knowledge.corpus_index import snowball
from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.stated_names import (
    first_word_name_of,
    lay_names_of,
    own_name,
    stated_names,
)
from veriloop.numbering import LETTERED, NUMBERED, NUMBERING_WORDS, numbered
from veriloop.standalone import is_a_name

_WORD = re.compile(r"(?u)\b\w\w+\b")
POSSESSIVE = re.compile(r"['\u2019]s? *")
"""What stands between a possessive and the next word ("Bell's palsy", "Graves' disease"):
no break in the run when the possessor is a name (`named_possessor`)."""


def named_possessor(word: str, between: str) -> bool:
    """Tell whether `word` plus its possessive (`between`, "'s ") is a name's ("Bell's").

    A name MedQuAD writes capitalised mid-sentence, with its possessive or bare
    (`standalone.is_a_name`: "Bell's", "Crohn's", "Graves'", "Kaposi"), however the
    question spells it; "my child's asthma" is no name
    (its run still breaks there: "child asthma" is no phrase to match pages by).
    """
    return is_a_name(word) or is_a_name(word + between.strip().replace("\u2019", "'"))


GENERIC_SUBJECT_WORDS = frozenset(
    """disease diseases disorder disorders syndrome syndromes condition conditions problem
    problems information overview health type types need know about use uses used using
    treatment treatments
    treat treated cause causes caused symptom symptoms sign signs diagnose diagnosed
    diagnosis prevent prevention test tests testing help please question questions thank
    thanks doctor doctors gene genes mutation mutations""".split()
)
"""Words that break a subject run: they say what is asked about a subject, not which one."""


NAMING_STOP_WORD = re.compile(r"\bdown(?=(?:['’]s)?[\s-]+syndromes?\b)", re.IGNORECASE)
"""A stop word that is a name's word: "Down syndrome" (after John Langdon Down), the only
MedQuAD focus naming a condition by one of `STOPWORDS_EN_PLUS`'s words (its other foci
holding one use it as a word: "After Surgery", "Am I at Risk ...")."""


def _scan(text: str) -> list[tuple[str, str | None]]:
    """Return (word as written, stem or None) per word, with ("", None) at punctuation."""
    scanned: list[tuple[str, str | None]] = []
    end = 0
    word = ""
    naming = {match.start() for match in NAMING_STOP_WORD.finditer(text)}
    for match in _WORD.finditer(text):
        between = text[end : match.start()]
        joined = bool(word) and POSSESSIVE.fullmatch(between) and named_possessor(word, between)
        if between.strip(" ") and not joined:
            # punctuation between words breaks the run; a name's possessive does not: "Bell's
            # palsy" is one name, no palsy of which Spastic diplegia cerebral palsy is a kind
            scanned.append(("", None))
        end = match.end()
        word = match.group()
        lowered = word.lower()
        stop = (lowered in STOPWORDS_EN_PLUS and match.start() not in naming) or (
            lowered in GENERIC_SUBJECT_WORDS or word.isdigit()
        )
        scanned.append((word, None if stop else str(snowball().stemWord(lowered))))
    return scanned


def subject_tokens(text: str) -> list[str | None]:
    """Return the text's words in order, stemmed; None where a run must break.

    A stop word, a generic or question-type word (`GENERIC_SUBJECT_WORDS`), a number or
    punctuation is None, so two words are adjacent only when nothing of that kind stands
    between them.
    """
    return [stem for _, stem in _scan(text)]


def subject_words(text: str) -> frozenset[str]:
    """Return the text's stemmed subject words (`subject_tokens` without the breaks)."""
    return frozenset(t for t in subject_tokens(text) if t is not None)


@lru_cache(maxsize=16384)
def _tokens(text: str) -> tuple[str | None, ...]:
    """Return `subject_tokens(text)` as a tuple, cached: rules read each candidate often."""
    return tuple(subject_tokens(text))


def adjacent_pairs(tokens: Sequence[str | None]) -> set[tuple[str, str]]:
    """Return the pairs of words that stand next to each other in `tokens`."""
    return {
        (a, b) for a, b in zip(tokens, tokens[1:], strict=False) if a is not None and b is not None
    }


@lru_cache(maxsize=16384)
def focus_terms(focus: str) -> frozenset[str]:
    """Return a focus's specific words, stemmed ("Anal Disorders" -> {"anal"}).

    The focus is read as its page's name (`page_name`: "Body Lice" of "Parasites - Lice -
    Body Lice"), without what it puts in parentheses: an abbreviation or another name
    ("Tuberculosis (TB)", "Klippel-Trenaunay Syndrome (KTS)", "Liver (Hepatocellular)
    Cancer"), which a question on the subject need not write.
    """
    name = own_name(page_name(focus)) or page_name(focus)  # "(TB)" alone stays a name
    return subject_words(name)


@lru_cache(maxsize=16384)
def name_terms(focus: str) -> frozenset[str]:
    """Return every specific word of a focus's page name, its parenthesis's too, stemmed.

    "Intraocular (Uveal) Melanoma" -> {"intraocular", "uveal", "melanoma"}: what a kind's
    test reads ("uveal melanoma" is a kind of melanoma the page is about), where
    `focus_terms` reads only the words a question must write.
    """
    return subject_words(page_name(focus))


ASPECT_TYPES = {
    "medicines": "treatment",
    "medications": "treatment",
    "screening": "exams and tests",
    "prevention": "prevention",
}
"""The last words of MedQuAD's pages on one aspect of a condition, and the question type each
answers: "HIV/AIDS Medicines", "Diabetes Medicines", "Prostate Cancer Screening", "Heart
Diseases--Prevention"."""

ASPECT_PAGE = re.compile(
    rf"^(?P<subject>.*\w)(?<!\band)(?:\s+|\s*-+\s*)(?P<aspect>{'|'.join(ASPECT_TYPES)})$",
    re.IGNORECASE,
)


def aspect_page(focus: str) -> tuple[str, str] | None:
    """Return the condition and the question type of a page on one aspect of a condition.

    "HIV/AIDS Medicines" -> ("HIV/AIDS", "treatment"): a page of the subject's own, which
    answers how it is treated ("What are the treatments of HIV/AIDS?" had set it aside as
    a neighbouring condition and quoted how HIV spreads). None for other pages, and for
    "Pregnancy and Medicines" (medicines in pregnancy, no aspect of a condition).
    """
    found = ASPECT_PAGE.match(page_name(focus))
    if found is None:
        return None
    return found.group("subject"), ASPECT_TYPES[found.group("aspect").lower()]


def subject_name(focus: str) -> str:
    """Return the condition a page is about: an aspect page's condition, else its focus."""
    aspect = aspect_page(focus)
    return aspect[0] if aspect else focus


@dataclass(frozen=True)
class SubjectPhrase:
    """A run of the question's words that names its subject."""

    words: tuple[str, ...]
    """The question's own words, in order ("anal", "fissure")."""
    stems: tuple[str, ...]
    """The same words stemmed, as focus terms are, in order."""

    @property
    def terms(self) -> frozenset[str]:
        """Return the phrase's stems as a set."""
        return frozenset(self.stems)

    @property
    def text(self) -> str:
        """Return the phrase as the question wrote it."""
        return " ".join(self.words)


def subject_phrases(
    question: str, texts: Iterable[str], focus_vocabulary: Iterable[str]
) -> list[SubjectPhrase]:
    """Return the question's subject phrases: adjacent word runs the texts also write.

    A run qualifies when each neighbouring pair of its words stands adjacent somewhere in
    `texts` (the candidate passages and titles) and one of its words is in
    `focus_vocabulary` (stemmed focus words of the candidates). A run's last words that
    the question says of its subject (`SAID_OF_IT`: "How long does whooping cough last?")
    are not part of it: a page writing "cough lasts" made the phrase "whooping cough last",
    and no page was about that.
    """
    written: set[tuple[str, str]] = set()
    for text in texts:
        written |= adjacent_pairs(subject_tokens(text))
    vocabulary = set(focus_vocabulary)
    scanned = _scan(question)
    words = [word for word, _ in scanned]
    tokens = [stem for _, stem in scanned]
    phrases: list[SubjectPhrase] = []
    run: list[int] = []
    for i in range(len(tokens) + 1):
        token = tokens[i] if i < len(tokens) else None
        if run and token is not None and (tokens[run[-1]], token) in written:
            run.append(i)
            continue
        while run and tokens[run[-1]] in _said_of_it():  # "does whooping cough last"
            run.pop()  # what the question says of its subject is no word of its name
        if len(run) > 1:
            stems = tuple(t for t in (tokens[j] for j in run) if t is not None)
            if set(stems) & vocabulary:
                phrase = SubjectPhrase(tuple(words[j] for j in run), stems)
                if phrase not in phrases:
                    phrases.append(phrase)
        run = [i] if token is not None else []
    return phrases


def fits(phrase: SubjectPhrase, terms: frozenset[str], vocabulary: frozenset[str]) -> bool:
    """Tell whether a focus with `terms` is about `phrase`, not about a wider family of it.

    English puts a noun phrase's head last. A phrase fits a focus when it lies within the
    focus, or when its words outside the focus all come before the focus's words and name
    no subject themselves (not in `vocabulary`, the candidates' focus words): "stop
    snoring" fits "Snoring". Words after the focus's narrow the subject past it ("anal
    fissure" does not fit "Anal Disorders"), and so do words before it that name subjects
    ("sleep paralysis" does not fit "Paralysis", "sickle cell anemia" not "Anemia").
    """
    inside = [i for i, stem in enumerate(phrase.stems) if stem in terms]
    if not inside:
        return False
    after = phrase.stems[inside[0] :]
    before = phrase.stems[: inside[0]]
    return all(stem in terms for stem in after) and not set(before) & vocabulary


def on_subject(
    question_terms: frozenset[str],
    focus: str,
    phrases: Sequence[SubjectPhrase],
    vocabulary: frozenset[str] = frozenset(),
) -> bool:
    """Tell whether a page whose focus is `focus` is about the question's subject.

    Its focus's specific words must all be in the question, and when subject phrases share
    a word with the focus, one of them must fit it (`fits`, with `vocabulary` the
    candidates' focus words): "Anal Disorders" is not on "anal fissure"; "Throat Cancer" is
    on a question naming "throat cancer" and "strep throat".
    """
    terms = focus_terms(subject_name(focus))  # "HIV/AIDS Medicines": HIV/AIDS's page
    if not terms or not terms <= question_terms:
        return False
    touching = [p for p in phrases if p.terms & terms]
    return not touching or any(fits(p, terms, vocabulary) for p in touching)


CHILDHOOD = frozenset(
    "child children childhood juvenile pediatric paediatric infant infants infantile "
    "neonatal newborn newborns baby babies kid kids toddler teen teens adolescent "
    "adolescents son daughter".split()
)
"""Words that say a page (or a question) is about children."""


def about_children(text: str) -> bool:
    """Tell whether a text names children (a page's focus, or who a question is about)."""
    return bool(CHILDHOOD & set(re.findall(r"[a-z]+", text.lower())))


ADULTHOOD = frozenset(
    "adult adults father mother dad mom husband wife grandfather grandmother grandpa grandma "
    "elderly senior seniors".split()
)
"""Words that say a question is about an adult."""

AGE = re.compile(
    r"\b(\d{1,3})\s*-?\s*(?:years?|yrs?)[\s-]*(?:old|of age)\b"
    r"|\b(\d{1,3})\s*(?:yo|y/o)\b|\baged?\s+(\d{1,3})\b",
    re.IGNORECASE,
)
"""A person's age ("33years of age", "a 4-year-old son", "aged 70"); not a duration ("for
20 years")."""


def about_adults(question: str) -> bool:
    """Tell whether a question is about an adult: an age of 18+, or an adult's relation.

    "My son is 33years of age" is about an adult (a son, but grown); "my 4 year old son"
    and "my son has had it for 20 years" are not (an age under 18; a duration is no age).
    A relation word ("father", "mom") counts only when the question names no child: "I am
    a mom and my son has leukemia" is about the son.
    """
    ages = [int(n) for groups in AGE.findall(question) for n in groups if n]
    if ages:
        return max(ages) >= 18
    named = set(re.findall(r"[a-z]+", question.lower()))
    return bool(ADULTHOOD & named) and not about_children(question)


def _negated_words(text: str) -> set[str]:
    words = text.lower().replace("-", " ").split()
    return {after for word, after in zip(words, words[1:], strict=False) if word == "non"}


OBJECT_OF = frozenset({"of"})
"""A word before a focus's last word that makes it the object of a phrase, not a head noun
its modifiers narrow: "Complications of AIDS". ("Overweight and Obesity" names obesity.)"""


SAID_OF_IT = frozenset(
    """last lasts contagious spread spreads catching kill kills fatal deadly dangerous
    serious curable cured treatable preventable hereditary inherited genetic hurt hurts
    painful permanent go goes away""".split()
)
"""Words a question says of its subject right after naming it ("How long does mononucleosis
last?", "Is leukemia hereditary?", "Can lymphoma kill you?"): right after the head word
they end the name's run, as a stop word does. MedQuAD's foci write them before the head
("Hereditary spherocytosis"), where they still narrow it; right after it only in
"Tremor hereditary essential, 2"."""


@lru_cache(maxsize=1)
def _said_of_it() -> frozenset[str]:
    """Return the stems of `SAID_OF_IT`."""
    return frozenset(str(snowball().stemWord(word)) for word in SAID_OF_IT)


def kind_of(question: str, focus: str) -> bool:
    """Tell whether a page's focus is a kind of what the question names (a subtype, a variant).

    "Chronic Myeloid Leukemia" is a kind of the leukemia a question asks about, "Hodgkin
    Lymphoma" of lymphoma, "Leber Congenital Amaurosis" of "leber amaurosis": the focus ends
    in the question's head word, and the words the question puts right before that word
    (its own narrowing: "breast" in "breast cancer") are all in the focus; the question's
    word must end its run ("Otitis" is a family of "otitis media", not a kind; a word the
    question says of it, `SAID_OF_IT`, ends the run: "does mononucleosis last", where the
    focus adds a word: "cystic fibrosis" is no kind for "Is cystic fibrosis inherited?";
    where the head ends the question's run, a focus adding none still counts, as before
    this rule, and `match_subject` reads as kin only pages not on the subject). A focus that
    ends in a generic word ("Parsonage Turner Syndrome") is a name, not a head noun with
    modifiers, and is never a kind of anything here; "Non-Hodgkin" is not a kind of
    Hodgkin; nor is a focus whose last word is the object of a phrase ("Neurological
    Complications of AIDS"). Where the question names the head word both bare and narrowed
    ("infection. can a streptococcus infection cause ..."), the narrowed one decides.
    """
    head = _head(focus)
    if head is None:
        return False
    words = [word for word, _ in _scan(focus) if word]
    if len(words) > 1 and words[-2].lower() in OBJECT_OF:
        return False  # "Neurological Complications of AIDS" is about AIDS, no kind of it
    if _negated_words(focus) - _negated_words(question) & set(
        re.findall(r"[a-z]+", question.lower())
    ):
        return False  # "Non-Hodgkin Lymphoma" is no kind of the Hodgkin lymphoma asked about
    terms = name_terms(focus)  # "Intraocular (Uveal) Melanoma" for "uveal melanoma"
    said = _said_of_it()
    tokens = subject_tokens(question)
    narrowings = []  # the words before each place the question ends a run on the head
    for at, token in enumerate(tokens):
        after = tokens[at + 1] if at + 1 < len(tokens) else None
        if token != head or (after is not None and after not in said):
            continue  # not the question's head word: "otitis" in "otitis media"
        before = at - 1
        modifiers = []
        while before >= 0 and tokens[before] is not None:
            modifiers.append(tokens[before])
            before -= 1
        if after is not None and not terms - {head, *modifiers}:
            continue  # ended by a word said of it, a focus adding nothing is the subject
        narrowings.append(modifiers)
    if any(narrowings):  # "infection. can a streptococcus infection ...": the bare title
        narrowings = [m for m in narrowings if m]  # word is the narrowed one's
    return any(all(m in terms for m in modifiers) for modifiers in narrowings)


RARE_DISORDER_SITES = frozenset({"GARD", "GHR"})
"""MedQuAD's sites each of whose pages is one rare, mostly genetic, disorder (Genetic and
Rare Diseases, Genetics Home Reference): 10,819 of its 16,407 answers."""


def stands_in(kind_site: str, own_sites: Iterable[str]) -> bool:
    """Tell whether a kind's page may answer a type its subject's own pages do not.

    A rare disorder's page (`RARE_DISORDER_SITES`) does not stand in for a condition whose
    own pages are all from the general sites: "What are the symptoms of epilepsy?" was
    answered from Pyridoxine-dependent epilepsy's seizures in newborns (rated bad), where
    Epilepsy's own overview says what people with it have. Where the subject is itself a
    rare disorder (one of its pages is from those sites), its kinds are its variants and do.
    """
    sites = set(own_sites)
    return kind_site not in RARE_DISORDER_SITES or bool(sites & RARE_DISORDER_SITES)


def only_rare_kinds(subject: SubjectMatch, candidates: Sequence[Mapping[str, Any]]) -> bool:
    """Tell whether the subject's pages are all kinds of it, each a rare disorder's page.

    No page is the subject's own and every kind's page is from `RARE_DISORDER_SITES`;
    `candidates` are the passages `subject` indexes. Whether the subject is a common
    condition those kinds do not describe is `written_elsewhere`'s to say.
    """
    if not subject.matched or not subject.kin or not subject.phrases:
        return False
    if set(subject.kept) - set(subject.kin):
        return False  # a page of its own
    return all(candidates[i].get("site") in RARE_DISORDER_SITES for i in subject.kin)


def written_elsewhere(
    phrase: SubjectPhrase, kinds: Iterable[str], general_texts: Iterable[str]
) -> bool:
    """Tell whether a page of the general sites writes the subject's name, not a kind's.

    "aortic stenosis" is written on Heart Valve Disease's pages: a common condition, which
    Supravalvular aortic stenosis, a rare birth defect and its only kind's page, does not
    describe (answered from it, rated bad). The kinds' names (`kinds`, their pages'
    foci) are read out of each text first: "often have supravalvular aortic stenosis"
    names the rare kind, not the common condition. `general_texts`: the texts of the pages
    of the general sites the search found (not of `RARE_DISORDER_SITES`).
    """
    written = re.compile(rf"\b{words_in_order(phrase.words)}\b", re.IGNORECASE)
    names = sorted({own_name(kind) for kind in kinds if own_name(kind)}, key=len, reverse=True)
    kind_names = re.compile(
        "|".join(rf"\b{words_in_order(name.split())}\b" for name in names), re.IGNORECASE
    )
    return any(
        written.search(kind_names.sub(" ", text) if names else text) for text in general_texts
    )


def _head(focus: str) -> str | None:
    """Return the stem of a focus's last word, its head noun ("leukemia" of "Chronic ...").

    None when it has none or the last word is generic ("Syndrome"): a name, no head noun.
    """
    stems = [stem for word, stem in _scan(focus) if word]
    return stems[-1] if stems else None


def written_in(phrase: SubjectPhrase, text: str) -> bool:
    """Tell whether a text writes the phrase's words in a row (stemmed)."""
    tokens = subject_tokens(text)
    width = len(phrase.stems)
    return any(tuple(tokens[i : i + width]) == phrase.stems for i in range(len(tokens) - width + 1))


def _page_writes(
    title: str,
    phrases: Sequence[SubjectPhrase],
    asked: frozenset[str],
    titles: Sequence[str],
    texts: Sequence[str],
) -> bool:
    """Tell whether a page whose focus the question names writes the question's phrase.

    "shingles outbreak" reaches past "Shingles", but a Shingles passage that writes
    "shingles outbreak" is about it: the phrase is something the page discusses, not a
    narrower condition it lacks. A page that does not write the phrase ("Anal Disorders",
    for "anal fissure") is still a wider family, and so is one that writes it where a
    candidate page is named by the whole phrase: the Cough pages write "whooping cough"
    among a cough's causes, and Whooping Cough is the subject's own page.
    """
    terms = focus_terms(title)
    if not terms or not terms <= asked:
        return False
    own = [text for other, text in zip(titles, texts, strict=True) if other == title]
    named = [focus_terms(other) for other in set(titles) if other and other != title]
    return any(
        p.terms & terms
        and not any(p.terms <= other for other in named)  # a page under the phrase's name
        and any(written_in(p, t) for t in own)
        for p in phrases
    )


ASKING_WORDS = GENERIC_SUBJECT_WORDS - frozenset(
    """disease diseases disorder disorders syndrome syndromes condition conditions problem
    problems health type types use uses used using""".split()
)
"""Words that say what is asked, trimmed from the ends of a question's name run."""


def question_names(question: str) -> list[tuple[str, ...]]:
    """Return the question's runs of two or more words that may name its subject.

    A run is broken by stop words and punctuation, not by generic words ("alcohol use
    disorder" stays whole), and loses the asking words at its ends ("symptoms").
    """
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    for word, _ in [*_scan(question), ("", None)]:
        lowered = word.lower()
        if word and lowered not in STOPWORDS_EN_PLUS and not word.isdigit():
            run.append(lowered)
            continue
        while run and run[0] in ASKING_WORDS:
            run.pop(0)
        while run and run[-1] in ASKING_WORDS:
            run.pop()
        if len(run) > 1 and tuple(run) not in runs:
            runs.append(tuple(run))
        run = []
    return runs


def writes_name(question: str, focus: str, texts: Iterable[str]) -> bool:
    """Tell whether a page writes the question's name for its subject, under its own focus.

    The page's focus shares a word with one of the question's name runs
    (`question_names`), the run says more than the focus, and the page's text writes the
    run as a common noun ("... have an alcohol use disorder" on the page "Alcoholism and
    Alcohol Abuse"), not inside a proper name ("Parsonage Turner syndrome" does not write
    "turner syndrome"). Such a page discusses what the question names under another name.
    """
    terms = focus_terms(focus)
    if not terms:
        return False
    texts = list(texts)
    for run in question_names(question):
        stems = {str(snowball().stemWord(word)) for word in run}  # "use disorder" counts
        if not stems & terms or stems <= terms:
            continue
        written = re.compile(rf"\b{words_in_order(run)}\b", re.I)
        for text in texts:
            for match in written.finditer(text):
                if not _inside_name(text, match.start(), match.group()):
                    return True
    return False


def defines_in_words(asked: frozenset[str], focus: str, texts: Iterable[str]) -> bool:
    """Tell whether a page defines its subject in the question's own words.

    A sentence "<focus> is a/an/the <head> ..." whose first clause opens on a word of the
    question (`asked`, stemmed) and holds another: "Scabies is an infestation of the skin
    by the human itch mite" for "mite infestation". The question names the page's subject
    by what it is, not by its name. A first clause that opens on a generic word ("... is a
    disease in which ...") or holds one question word only says nothing of the kind.
    """
    name = own_name(page_name(focus))
    if len(name) < 3:
        return False
    for clause in _definition_clauses(name, texts):
        tokens = subject_tokens(clause)  # a generic head ("disease") reads None
        if tokens and tokens[0] in asked and len(set(tokens) & asked) >= 2:
            return True
    return False


def defined_as_kind(question: str, focus: str, texts: Iterable[str]) -> bool:
    """Tell whether a page defines its subject as the thing the question names otherwise.

    "What causes a stomach ulcer?": "A peptic ulcer is a sore in the lining of your
    stomach or your duodenum". One of the question's name runs (`question_names`) ends on
    the last word of the page's name (the head both name: "ulcer"), its other words are
    none of the name's, and a sentence saying what the page's subject is ("<name> is/are
    ...") writes them all: the question names a kind of what the page is about by where
    or what it is. A run sharing a modifier with the name ("peptic ulcer") is the name's
    own. The words must say where it is or of what, after "in", "of", "on" ... in the
    definition's first clause (`WHERE_IN`, `DEFINITION_CLAUSE_END`): "Breast cancer is
    second only to lung cancer as a cause of cancer death" is no lung cancer, "Peptic
    ulcers are common and cause stomach pain" no stomach ulcer.
    """
    name = own_name(page_name(focus))
    name_stems = [t for t in subject_tokens(name) if t is not None]
    if len(name) < 3 or not name_stems:
        return False
    clauses = list(_definition_clauses(name, texts))
    for run in question_names(question):
        stems = [str(snowball().stemWord(word)) for word in run]
        modifiers = set(stems[:-1])
        if stems[-1] != name_stems[-1] or modifiers & set(name_stems):
            continue
        for clause in clauses:
            where = WHERE_IN.split(clause, maxsplit=1)  # ... and where, or of what
            if len(where) > 1 and modifiers <= {t for t in subject_tokens(where[1]) if t}:
                return True
    return False


TYPES_OF = "(?:types|kinds|forms)"
"""The words a page lists its subject's kinds with ("Types of tinea include ...")."""


@lru_cache(maxsize=4096)
def _types_listed(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"\b{TYPES_OF} of {re.escape(name)}s?,? (?:include|includes|are)\b:?([^.]*)",
        re.IGNORECASE,
    )


LISTS_KINDS = re.compile(
    r"\s*(?![\w'-]+(?:ed|ly)\b)(?!(?:less|more|very|rare|common|uncommon|harmless)\b)"
    r".*(?:,|\band\b|\s-\s)",
    re.IGNORECASE,
)
"""What follows "types of X include/are" when it lists kinds: several (a comma, "and", a
dash item), not a verb or a description ("types of Bartter syndrome are distinguished
by ...", "forms of dengue are life-threatening", "types of E. coli are harmless")."""


LIST_ITEM_BREAK = re.compile(r"\s*(?:[,;:]|\s-\s|\band\b|\bor\b)\s*", re.IGNORECASE)
"""Where one listed kind ends and the next begins."""


def lists_as_its_type(
    question: str, focus: str, texts: Iterable[str], vocabulary: frozenset[str]
) -> bool:
    """Tell whether a page names what the question asks about among its subject's types.

    "Tinea is the name of a group of diseases caused by a fungus. Types of tinea include
    ringworm, athlete's foot and jock itch": Tinea Infections is on "How do you catch
    ringworm?" (refused, with the page set aside); the name may drop its last word
    ("tinea" of "Tinea Infections"). A whole item of the list, of four words at most,
    must be written in the question ("plantar warts" is no "plantar fasciitis"), and be
    no candidate's page name (`vocabulary`), so that the page is the only one about it.
    """
    name = own_name(page_name(focus))
    if len(name) < 3:
        return False
    words = name.split()
    names = [name, " ".join(words[:-1])] if len(words) > 1 else [name]  # "Tinea Infections"
    asked = f" {_gapped(_tokens(question))} "
    for text in texts:
        for written in names:
            for found in _types_listed(written).finditer(text):
                if not LISTS_KINDS.match(found.group(1).lstrip()):
                    continue
                for item in LIST_ITEM_BREAK.split(found.group(1)):
                    tokens = _tokens(item)
                    stems = {t for t in tokens if t is not None}
                    if (
                        stems
                        and len(item.split()) <= 4
                        and not stems <= vocabulary
                        and f" {_gapped(tokens).strip('| ')} " in asked
                    ):
                        return True
    return False


def _gapped(tokens: Sequence[str | None]) -> str:
    """Return tokens as one string, "|" where a run breaks (a stop word, punctuation)."""
    return " ".join(t or "|" for t in tokens)


CONJOINED = re.compile(r"([A-Z][\w'-]*)(?: and |/)([A-Z][\w'-]*)")
"""A page name of two conditions, one capitalised word each ("Sprains and Strains", "Nausea
and Vomiting", "HIV/AIDS"); two words on a side name one thing ("Head and Neck Cancer",
"Cleft Lip and Palate"), and GARD's syndromes write their second word in lower case
("Onychotrichodysplasia and neutropenia" is one syndrome, not neutropenia)."""

CONTEXT_WORDS = frozenset({"pregnancy", "children", "youth", "hygiene", "nutrition", "medicines"})
"""Words that join a condition to a context, not to another condition ("Diabetes and
Pregnancy", "Smoking and Youth", "Germs and Hygiene")."""


def names_a_conjunct(question: str, focus: str) -> bool:
    """Tell whether the question names one of the two conditions a page's name joins.

    "How do you treat a sprained ankle?": "Sprains and Strains" is about sprains, and
    "sprained" stems as "sprain"; "How is HIV transmitted?": "HIV/AIDS", and its aspect
    page "HIV/AIDS Medicines" (`subject_name`). A name in capitals must be written so
    ("hearing aids" names no AIDS), and a page joining a condition to a context
    (`CONTEXT_WORDS`) names no second condition. The rule `match_subject` asks only when
    no page is on the question's subject: "Cataract" is a page of its own. A word the
    question uses otherwise still counts ("corn syrup" names "Corns and Calluses"): the
    rule reads stems, not the question's grammar. A page the rule puts on the subject
    stays on it when it is also a kind of it ("What are HIV/AIDS medicines?": the aspect
    page "HIV/AIDS Medicines").
    """
    name = CONJOINED.fullmatch(own_name(page_name(subject_name(focus))))
    if not name or {part.lower() for part in name.groups()} & CONTEXT_WORDS:
        return False
    asked = {t for t in subject_tokens(question) if t is not None}
    return any(
        focus_terms(part) <= asked
        and (not part.isupper() or re.search(rf"\b{re.escape(part)}\b", question))
        for part in name.groups()
        if focus_terms(part)
    )


WHERE_IN = re.compile(r"\b(?:in|of|on|inside|within|around|affecting)\b", re.IGNORECASE)
"""The first word of a definition saying where its subject is, or of what ("a sore in the
lining of your stomach")."""


def _definition_clauses(name: str, texts: Iterable[str]) -> Iterator[str]:
    """Yield the first clause of each sentence of `texts` saying what `name` is."""
    defining = _defining_sentence(name)
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            found = defining.match(sentence)
            if found:
                yield DEFINITION_CLAUSE_END.split(found.group(1))[0]


@lru_cache(maxsize=4096)
def _defining_sentence(name: str) -> re.Pattern[str]:
    """Return the pattern of a sentence saying what `name` is; its group 1 is what it says."""
    return re.compile(
        rf"^(?:(?:an?|the)\s+)?{re.escape(name)}s?(?:\s*\([^)]*\))?,?\s+(?:is|are)\s+"
        r"(?:an?\s+|the\s+)?(.*)$",
        re.IGNORECASE,
    )


DEFINITION_CLAUSE_END = re.compile(r"[,;:(]|\b(?:that|which|who|in which|where|when)\b")
"""Where a definition's first clause ends: what follows qualifies it."""


def _inside_name(text: str, start: int, written: str) -> bool:
    """Tell whether a capitalised match continues a proper name ("Parsonage(-)Turner ...")."""
    before = text[:start]
    if before.endswith("-"):
        return True
    before = before.rstrip()
    return (
        written[:1].isupper()
        and bool(before)
        and before[-1].isalpha()
        and before.split()[-1][:1].isupper()
    )


def spells_out(question: str, focus: str, texts: Iterable[str]) -> bool:
    """Tell whether a page spells out a short name the question uses for its subject.

    The question writes a word of three to six letters ("SSPE", "nph"; not a stop word
    unless in capitals), starting with the focus's first letter, that the page's text
    gives in brackets right after its focus ("Subacute sclerosing panencephalitis (SSPE)
    is ..."; not "Sickle cell anemia (SCA)" for the focus "Anemia"): the question names
    the page's subject by its abbreviation.
    """
    if not focus:
        return False
    short = {
        w.upper()
        for w in re.findall(r"\b[A-Za-z]{3,6}\b", question)
        if w.isupper() or w.lower() not in STOPWORDS_EN_PLUS
    }
    short = {w for w in short if w[:1].lower() == focus[:1].lower()}  # SSPE: Subacute ...
    if not short:
        return False
    written = re.compile(
        r"(?<![\w-])" + re.escape(focus) + r"\s*\(\s*(" + "|".join(sorted(short)) + r")\s*\)",
        re.IGNORECASE,
    )
    return any(written.search(text) for text in texts)


def words_in_order(words: Iterable[str]) -> str:
    """Return the pattern of `words` written in order, any spacing between them."""
    return r"\s+".join(re.escape(word) for word in words)


def naming_pattern(phrases: Sequence[SubjectPhrase]) -> re.Pattern[str] | None:
    """Return the pattern of a text giving a subject phrase as another name for its subject.

    A page that says "... is called otitis media" or "also known as otitis media" is about
    otitis media whatever its focus ("Ear Infections"): the source's own synonyms. The verb
    must name its own subject ("is called", "also known as"); "an eye disease called
    retinitis pigmentosa" on a syndrome's page introduces a feature, not another name.
    None when there are no phrases.
    """
    if not phrases:
        return None
    names = "|".join(words_in_order(p.words) for p in phrases)
    return re.compile(
        r"(?:\b(?:is|are|also)\s+(?:also\s+|often\s+|sometimes\s+)?"
        r"|,\s*(?:also|often|sometimes|commonly)\s+)"  # "High blood pressure, sometimes called"
        rf"(?:called|known as|named)\s+(?:an?\s+|the\s+)?(?:{names})s?\b",
        re.IGNORECASE,
    )


THE_CONDITION_IS_CALLED = re.compile(
    r"\bthe (?:condition|disease|disorder) is (?:also |often |sometimes )?"
    r"(?:called|known as) ([A-Za-z][\w'-]+)(?=[,.;)]|\s+(?:is|are)\b)",
    re.IGNORECASE,
)
"""A page naming its own condition in a sentence of its own: "When a person has diverticula
that do not cause diverticulitis ..., the condition is called diverticulosis"."""


@lru_cache(maxsize=4096)
def names_given(text: str, focus: str) -> tuple[str, ...]:
    """Return the other names a passage gives its page's subject right after its own.

    `knowledge.stated_names.stated_names` with `adjacent`, read once per passage: the
    subject rule asks it of every candidate twice (the lone-word vocabulary, then
    `gives_lone_name`), and retrieval may match the subject twice per question.
    """
    return tuple(stated_names(text, focus, adjacent=True))


def gives_lone_name(focus: str, text: str, lone: set[str]) -> bool:
    """Tell whether a page gives its subject one of the question's lone words as a name.

    The other name must come right after the page's own (`knowledge.stated_names`,
    adjacent), or the page must say "the condition is called X"
    (`THE_CONDITION_IS_CALLED`).

    "High blood pressure, sometimes called hypertension" puts High Blood Pressure on
    "What is hypertension?"; "Renal cell cancer, also called kidney cancer" does not put
    its page on a lone "kidney", nor does "a temperature above normal is called a fever"
    put Vital Signs on a fever.
    """
    if not lone:
        return False
    named = {name.lower() for name in names_given(text, focus)}
    named |= {m.group(1).lower() for m in THE_CONDITION_IS_CALLED.finditer(text)}
    return bool(named & lone)


def lone_subject_words(
    question: str, phrases: Sequence[SubjectPhrase], vocabulary: frozenset[str]
) -> list[SubjectPhrase]:
    """Return the question's single words that may name its subject, outside its phrases.

    A word some candidate's focus uses ("hypertension", of "Pulmonary Hypertension") or
    some candidate gives as its subject's one-word other name (the caller adds those to
    `vocabulary`), and no subject phrase holds: a page giving it as another name for its
    own subject ("High blood pressure, sometimes called hypertension") is on the subject
    (`gives_lone_name`).
    A word inside a phrase is not ("anemia" of "sickle cell anemia").
    """
    inside = {stem for phrase in phrases for stem in phrase.stems}
    lone: list[SubjectPhrase] = []
    for word, stem in _scan(question):
        if stem is not None and stem in vocabulary and stem not in inside:
            single = SubjectPhrase((word,), (stem,))
            if single not in lone:
                lone.append(single)
    return lone


FORMER_NAME = re.compile(
    r"\b(?:previously|formerly|also|commonly|once|often)\s+(?:commonly\s+)?"
    r"(?:known as|called|named)\s+(?:the\s+)?([A-Z][a-z]{3,})(?:['’]s|s)?\b"
)
"""Another name a page gives its subject, opening on a proper name: "Granulomatosis with
polyangiitis (GPA), previously known as Wegener's granulomatosis, ..."."""


def names_by_eponym(asked: frozenset[str], vocabulary: frozenset[str], text: str) -> bool:
    """Tell whether a text gives its subject another name the question uses, by its eponym.

    The question writes the name's first word ("wegeners" for "previously known as
    Wegener's granulomatosis"): a word no candidate's focus holds (`vocabulary`), so the
    name is the question's only handle on the page.
    """
    for found in FORMER_NAME.finditer(text):
        stems = [t for t in subject_tokens(found.group(1)) if t is not None]
        if stems and stems[0] in asked and stems[0] not in vocabulary:
            return True
    return False


def named_by_first_word(asked: frozenset[str], focus: str) -> bool:
    """Tell whether the question names a two-word page by its first word alone.

    "canker" for "Canker Sores": MedQuAD writes the word only ever before the name's last
    (`knowledge.stated_names.first_word_name_of`, built by
    `benchmarks/first_word_names.py`), and the question writes the first word and not
    the last. The mouth ulcer question writing "mouth ulcer/canker" was refused with
    Canker Sores set aside; "cold" beside "Cold Sores" is no such word (MedQuAD writes it
    alone, and in other names: the common cold).
    """
    word = first_word_name_of(focus)
    if word is None:
        return False
    last = focus_terms(focus) - subject_words(word)
    return subject_words(word) <= asked and not last & asked


def defines_phrase(phrase: SubjectPhrase) -> re.Pattern[str]:
    """Return the pattern of a text saying what a subject phrase is, in passing.

    "... also experience sleep paralysis, which is an inability to move ...", "Sleep
    paralysis (pah-RAL-ih-sis). This condition prevents you from moving ...", "sleep
    paralysis is ...": a page about something else (Narcolepsy) that defines the phrase
    answers what it is. A mention does not: the phrase after "and" or "or", one of several
    things ("hallucinations and sleep paralysis are ..."), or followed by a sentence on
    "it", which is the page's own subject as often as the phrase.
    """
    name = words_in_order(phrase.words)
    return re.compile(
        rf"(?<!\band\s)(?<!\bor\s)\b{name}s?\b(?:\s*\([^)]*\))?"
        r"(?:,\s*(?:which|that)\s+(?:is|means)\b|\s+(?:is|are|means|refers to)\s+(?:an?|the)\b"
        r"|\.\s+This\s+(?:condition|disorder|symptom|problem)?\s*(?:is|prevents|causes|"
        r"makes|happens|occurs)\b)",
        re.IGNORECASE,
    )


def _numbered(text: str) -> dict[str, set[str]]:
    """Return `veriloop.numbering.numbered`, generic words naming nothing."""
    return numbered(text, GENERIC_SUBJECT_WORDS)


def numbers_another(question: str, focus: str) -> bool:
    """Tell whether a focus numbers a name the question numbers otherwise.

    Numbers are no subject words (`subject_tokens`), so "trisomy 18" shares all its words
    with a question about "trisomy 13" and was on its subject; a focus writing a name's
    number the question writes with other numbers only is not ("Trisomy 18" for
    "trisomy 13", "Diabetes Type 1" for "type 2 diabetes", "type II" read as "type 2";
    "Hepatitis B" for "hepatitis A").
    A numbering word counts with the name it numbers: "type 2 diabetes" does not rule out
    "Waardenburg syndrome type 1". A question that numbers nothing keeps its numbered
    kinds ("Noonan syndrome 6" for Noonan syndrome).
    """
    asked = _numbered(question)
    return any(
        word in asked and not numbers & asked[word] for word, numbers in _numbered(focus).items()
    )


def numbered_only(question: str) -> frozenset[str]:
    """Return the one-word names the question writes only with their number or letter.

    "How long does hepatitis A last?" -> {"hepatitis"}; "Is hepatitis A a kind of
    hepatitis?" -> none (the bare name is asked too); "type 2 diabetes" -> none (its
    numbering word numbers a name beside it, which may stand alone: "Diabetes" pages).
    """
    lowered = question.lower()
    spans = [m.span() for m in NUMBERED.finditer(lowered) if m.group(1) not in NUMBERING_WORDS]
    spans += [m.span() for m in LETTERED.finditer(question)]
    rest = lowered
    for start, end in sorted(spans, reverse=True):
        rest = f"{rest[:start]} {rest[end:]}"
    names = {word for word in _numbered(question) if " " not in word}
    return frozenset(word for word in names if not _writes_word(rest, word))


def numbered_as_asked(question: str, foci: Sequence[str]) -> frozenset[str]:
    """Return the names asked only by number (`numbered_only`) that some focus numbers so.

    Empty when no focus writes such a name with a number or letter the question gives:
    then no page is on the numbered subject, and the wider ones stay.
    """
    only = numbered_only(question)
    if not only:
        return frozenset()
    asked = _numbered(question)
    return frozenset(
        word
        for focus in foci
        for word, numbers in _numbered(focus).items()
        if word in only and numbers & asked[word]
    )


def writes_unnumbered(focus: str, names: frozenset[str]) -> bool:
    """Tell whether a focus writes one of `names` without a number or letter ("Hepatitis").

    With a question asking "hepatitis A" only and a page about it found
    (`numbered_as_asked`), "Hepatitis" is wider than what was asked and "Autoimmune
    Hepatitis" another kind.
    """
    numbers = _numbered(focus)
    return any(word not in numbers and _writes_word(focus.lower(), word) for word in names)


def _writes_word(text: str, word: str) -> bool:
    """Tell whether a lower-case text writes `word`, or its plural, as a whole word."""
    return re.search(rf"\b{re.escape(word)}s?\b", text) is not None


@dataclass
class SubjectMatch:
    """What the subject rule kept, and what it found missing."""

    kept: list[int]
    """Indexes of the candidates kept (all of them when the rule did not apply)."""
    kin: list[int] = field(default_factory=list)
    """Those of `kept` whose page is a kind of the subject (`kind_of`), not the subject."""
    phrases: list[SubjectPhrase] = field(default_factory=list)
    uncovered: SubjectPhrase | None = None
    """The subject phrase no candidate's page is about (the source has no page on it)."""
    nearest: list[str] = field(default_factory=list)
    """When the subject is uncovered: up to three candidates' foci, those sharing a word
    with the subject phrase first, then in retrieval order."""
    total: int = 0
    """How many candidates the rule read."""
    matched: bool = False
    """Some candidate's page is on the subject (or a kind of it): the rule chose pages."""
    adult: bool = False
    """With `matched`: the question names an adult (`about_adults`), so no children's
    page joins the subject's while another is on it."""
    lettered: frozenset[str] = frozenset()
    """With `matched`: the names the question asks only by letter or number and some kept
    page numbers so (`numbered_as_asked`): no page writing them bare joins the subject's
    (`writes_unnumbered`: MedlinePlus's "Hepatitis" shares hepatitis A's UMLS concept)."""

    @property
    def dropped(self) -> int:
        """Return how many candidates the rule left out as off the subject."""
        return 0 if self.uncovered else self.total - len(self.kept)


BODY_PARTS = frozenset(
    t
    for word in """eye eyes ear ears heart lung lungs kidney kidneys liver skin foot feet leg
    legs arm arms hand hands back mouth tooth teeth bone bones joint joints muscle muscles
    brain nerve nerves blood stomach bladder colon colonic throat nose neck head hip hips
    knee knees ankle ankles wrist shoulder spine breast breasts uterus ovary ovaries prostate
    thyroid hair nail nails gum gums tongue vagina penis testicle rectum anus chest elbow
    finger toe heel lip jaw pelvis abdomen bowel intestine esophagus pancreas spleen
    gallbladder vein artery""".split()
    for t in subject_tokens(word)
    if t is not None
)
"""Stems of the body's parts, whose pages ("Eye Diseases", "Foot Health") are families."""


FAMILY_WORDS = re.compile(r"\b(?:Diseases|Disorders|Conditions|Problems|Health)\b", re.I)
"""The plural (or "Health") that makes a body part's page a family: "Kidney Diseases",
not "Kidney Disease" or "Gum Disease" (one condition)."""


def organ_family(focus: str) -> bool:
    """Tell whether a page is about one body part's conditions ("Eye Diseases").

    Its name is one body part and a family word (`FAMILY_WORDS`): the question writing
    "my eyes" puts it on the subject, but when the question names a condition some page is on
    ("retinitis pigmentosa"), the part's family page is wider than what was asked (it
    answered a stem cell question with "Early detection and treatment could prevent
    vision loss").
    """
    terms = focus_terms(focus)
    family = FAMILY_WORDS.search(page_name(focus))
    return bool(family) and len(terms) == 1 and terms <= BODY_PARTS


NAME_WORD = re.compile(r"[A-Za-z]{3,}")
"""A word that may be half of a one-word page name (`joined_as_named`)."""


def joined_as_named(question: str, titles: Sequence[str]) -> str:
    """Return the question with two words joined where a one-word page name writes them so.

    "Is pink eye contagious?" names Pinkeye, "heart burn" Heartburn, "bed sores" Bedsores:
    a page whose name is one word (six letters or more) is named by two words of the
    question, each of three letters or more, one space apart, that spell it (either with
    or without a plural "s"). Words of longer page names are not read so ("develop
    mental" is no "Developmental Disabilities"), and a word joins once.
    """
    named = set()
    for title in titles:
        words = re.findall(r"[a-z]+", page_name(title).lower())
        if len(words) == 1 and len(words[0]) >= 6:
            named |= {words[0], words[0].removesuffix("s")}
    if not named:
        return question
    question = _lay_prefixed(question, named)
    words = list(NAME_WORD.finditer(question))
    joined, taken = question, -1
    for i in range(len(words) - 2, -1, -1):
        first, second = words[i], words[i + 1]
        pair = f"{first.group()}{second.group()}".lower()
        if i + 1 == taken or question[first.end() : second.start()] != " ":
            continue
        if pair in named or pair.removesuffix("s") in named:
            spelled = f"{first.group()}{second.group()}"
            joined = f"{joined[: first.start()]}{spelled}{joined[second.end() :]}"
            taken = i
    return joined


LAY_PREFIXED = re.compile(
    r"\b(?P<lay>(?:over|under)(?:-?active)?)\s+(?P<organ>[a-z]{4,})\b", re.IGNORECASE
)
"""A lay name of too much or too little of an organ's work ("overactive thyroid",
"underactive thyroid"), whose page is named with the Greek prefix (`_lay_prefixed`)."""

GREEK_PREFIX = {"over": "hyper", "under": "hypo"}


def _lay_prefixed(question: str, named: set[str]) -> str:
    """Return the question naming a one-word page its lay words name ("overactive thyroid").

    "overactive thyroid" is Hyperthyroidism and "underactive thyroid" Hypothyroidism
    when a candidate page has that one-word name: the prefix ("hyper", "hypo") and the
    organ's word, then "ism" or "ia". MedQuAD's nine Hyperthyroidism answers never write
    "overactive thyroid" (only "overactive nodule"): "What is the treatment for an
    overactive thyroid?" matched none of them and was refused. The words stay when
    no such page is among `named`.
    """

    def named_page(match: re.Match[str]) -> str:
        lay = match.group("lay").lower()
        prefix = GREEK_PREFIX["over" if lay.startswith("over") else "under"]
        organ = match.group("organ").lower()
        for suffix in ("ism", "ia"):
            if f"{prefix}{organ}{suffix}" in named:
                return f"{prefix}{organ}{suffix}"
        return match.group(0)

    return LAY_PREFIXED.sub(named_page, question)


def lay_named(asked: frozenset[str], focus: str) -> bool:
    """Tell whether the question writes a lay name other pages gloss with the page's name.

    "What causes an irregular heartbeat?" names Arrhythmia: "Seizures, an irregular
    heartbeat (arrhythmia), and ..." on the pages of six subjects
    (`knowledge.stated_names.lay_names_of`), though no Arrhythmia answer writes it; the
    question was refused with Arrhythmia set aside. Every specific word of the lay name
    (two or more: "ringing in the ears" -> ring, ear) must be among the question's.
    """
    return any(
        len(terms) >= 2 and terms <= asked for terms in map(subject_words, lay_names_of(focus))
    )


def _page_texts(titles: Sequence[str], texts: Sequence[str]) -> dict[str, list[str]]:
    """Return each focus's passage texts, in order (a page's passages share its focus)."""
    pages: dict[str, list[str]] = {}
    for title, text in zip(titles, texts, strict=True):
        pages.setdefault(title, []).append(text)
    return pages


def match_subject(
    question: str, titles: Sequence[str], texts: Sequence[str], others: Sequence[str] = ()
) -> SubjectMatch:
    """Keep the candidates whose page is on the question's subject (see the module's rule).

    Args:
        question: The user's question.
        titles: Each candidate's page focus, in retrieval order ("" when it has none).
        texts: Each candidate's passage text, in the same order.
        others: Foci the search also found but the caller set aside (neighbouring
            conditions): never kept, but their words name subjects too, so a phrase
            narrowed by one does not fit a wider page ("sleep paralysis" with "Sleep
            Apnea" set aside is not "Paralysis").

    Returns:
        The indexes kept; with `uncovered` set when the question has a subject phrase and
        no candidate is on it. Candidates without a title are never matched: when none has
        one, everything is kept.
    """
    every = list(range(len(titles)))
    if not any(titles):
        return SubjectMatch(kept=every, total=len(titles))
    question = joined_as_named(question, titles)  # "pink eye": Pinkeye
    vocabulary = frozenset(t for title in titles for t in focus_terms(title))
    phrases = subject_phrases(question, [*titles, *texts], vocabulary)
    vocabulary |= {t for title in others for t in focus_terms(title)}
    asked = subject_words(question)
    naming = naming_pattern(phrases)
    named = {titles[i] for i in every if titles[i] and naming and naming.search(texts[i])}
    named |= {titles[i] for i in every if titles[i] and spells_out(question, titles[i], [texts[i]])}
    stated = frozenset(  # the single-word names the candidates give their own subjects
        t
        for i in every
        if titles[i]
        for name in names_given(texts[i], titles[i])
        if len(name.split()) == 1
        for t in focus_terms(name)
    )
    lone = {p.text.lower() for p in lone_subject_words(question, phrases, vocabulary | stated)}
    named |= {  # "hypertension": "High blood pressure, sometimes called hypertension"
        titles[i] for i in every if titles[i] and gives_lone_name(titles[i], texts[i], lone)
    }
    named |= {  # "low blood sugar": "Hypoglycemia, also called low blood glucose or low ..."
        titles[i]
        for i in every
        if titles[i]
        and any(
            focus_terms(name) == phrase.terms
            for name in names_given(texts[i], titles[i])
            if len(name.split()) > 1
            for phrase in phrases
        )
    }
    named |= {  # "wegeners": "previously known as Wegener's granulomatosis"
        titles[i] for i in every if titles[i] and names_by_eponym(asked, vocabulary, texts[i])
    }
    named |= {  # "canker": "Canker Sores", whose first word is written only in its name
        title for title in set(titles) if title and named_by_first_word(asked, title)
    }
    on = [
        i
        for i in every
        if titles[i]
        and (
            titles[i] in named
            or on_subject(asked, titles[i], phrases, vocabulary)
            or _page_writes(titles[i], phrases, asked, titles, texts)
        )
    ]
    if not on:  # "irregular heartbeat": other pages gloss it "(arrhythmia)"
        on = [i for i in every if titles[i] and lay_named(asked, titles[i])]
    if not on:  # no page under the question's own name: one that writes it ("alcohol use
        # disorder" on "Alcoholism and Alcohol Abuse") is on it
        pages = _page_texts(titles, texts)
        on = [i for i in every if titles[i] and writes_name(question, titles[i], pages[titles[i]])]
        if not on:  # "stomach ulcer": "A peptic ulcer is a sore in the lining of your stomach"
            on = [
                i
                for i in every
                if titles[i] and defined_as_kind(question, titles[i], pages[titles[i]])
            ]
        if not on:  # "ringworm": "Types of tinea include ringworm, athlete's foot ..."
            listing = {
                title
                for title in pages
                if title and lists_as_its_type(question, title, pages[title], vocabulary)
            }
            on = [i for i in every if titles[i] in listing]
        if not on:  # "sprained ankle": "Sprains and Strains" is on sprains
            on = [i for i in every if titles[i] and names_a_conjunct(question, titles[i])]
        if not on and not phrases:  # no name the rule can read: a page defining its
            # subject in the question's words ("an infestation ... by the itch mite")
            on = [
                i
                for i in every
                if titles[i] and defines_in_words(asked, titles[i], pages[titles[i]])
            ]
    if any(not organ_family(titles[i]) for i in on):  # "retinitis pigmentosa" named: not
        on = [i for i in on if not organ_family(titles[i])]  # "Eye Diseases" for "my eyes"
    kin = [i for i in every if titles[i] and i not in on and kind_of(question, titles[i])]
    if on:  # kinds of what the pages on the subject name, not of a word beside it
        on_terms = {t for i in on for t in focus_terms(titles[i])}  # ("... no infection?")
        kin = [i for i in kin if _head(titles[i]) in on_terms]
    on = [i for i in on if not numbers_another(question, titles[i])]
    kin = [i for i in kin if not numbers_another(question, titles[i])]
    lettered = numbered_as_asked(question, [titles[i] for i in on + kin])
    if lettered:  # "hepatitis A" only: not "Hepatitis" nor "Autoimmune Hepatitis"
        on = [i for i in on if not writes_unnumbered(titles[i], lettered)]
        kin = [i for i in kin if not writes_unnumbered(titles[i], lettered)]
    adult = about_adults(question)
    if adult:  # a named adult (a father, an age of 18+): children's pages only when no
        adults = {i for i in on + kin if not about_children(titles[i])}  # other is on it
        if adults:
            on, kin = [i for i in on if i in adults], [i for i in kin if i in adults]
    elif kin and not about_children(question):  # an adult's question: adults' pages first
        kin = [i for i in kin if not about_children(titles[i])] or kin
    if on or kin:
        return SubjectMatch(
            kept=sorted(on + kin),
            kin=kin,
            phrases=phrases,
            total=len(titles),
            matched=True,
            adult=adult,
            lettered=lettered,
        )
    if phrases:
        subject = phrases[0].terms
        foci = list(dict.fromkeys(t for t in titles if t))
        nearest = sorted(foci, key=lambda f: not focus_terms(f) & subject)[:3]
        return SubjectMatch(
            kept=[], phrases=phrases, uncovered=phrases[0], nearest=nearest, total=len(titles)
        )
    return SubjectMatch(kept=every, phrases=phrases, total=len(titles))
