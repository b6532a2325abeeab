"""Sentences that stand alone: what an extractive answer may quote from a source page.

A sentence cut out of a page can mislead in three ways, each seen on MedQuAD pages quoted
by the grounded default (issue 31):

- **a list item without its lead-in**: "- Keeping the anal area dry." says nothing without
  "Steps that help include:". `standalone_units` prefixes each item with its lead-in
  ("Steps that help include: keeping the anal area dry.");
- **a dangling reference**: "These forms of dengue are life-threatening." needs the
  sentence before it. A sentence that opens with a demonstrative or a pronoun (`ANAPHORS`)
  is kept joined to the sentence before it, as one unit, and left out when nothing before
  it in the text is quotable (a passage that opens with "It is located in ..." has its
  antecedent in the passage before);
- **boilerplate**: acknowledgements, copyright and navigation lines of NIH pages ("The NIDDK
  would like to thank ...", "Check the list of NCI-supported cancer clinical trials ...")
  and first-person checklist lines ("I have had gestational diabetes.") are not answers
  to anyone's question (`is_boilerplate`).
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from pathlib import Path

from veriloop.text import split_sentences

PROPER_WORDS = Path(__file__).parent / "data" / "proper_words.txt"
"""Words MedQuAD writes capitalised mid-sentence (built by `benchmarks/proper_words.py`)."""

ANAPHORS = re.compile(
    r"^(these|this|those|that|it|its|they|their|them|such|he|she|both|either|neither|"
    r"(?:some|most|others|several)(?=,(?!\s*(?:if not|but not)\b))|others(?=\s+(?-i:[a-z])))\b",
    re.IGNORECASE,
)
"""Openings whose meaning hangs on an earlier sentence ("Some, such as Alzheimer's disease,
lead to ..." after "There are many disorders that can cause dementia."; "Others may need a
brace" after "Some people need no treatment": 174 distinct MedQuAD units open so)."""

DANGLING = re.compile(
    r"^(?:(?:Or|And|But|Also|However|Of these|Of those|These|This|Those|Such|It|They|"
    r"(?:Some|Many|Most|One|Each|All|Both) of (?:its|their|these|those|them)|"
    r"In addition|Otherwise|Instead|Still|Other|If (?:this|that|these|those|they|it|he|she)|"
    r"(?:At|In|During|By|From|Until|After) (?:this|that) (?:stage|point|phase))\b"
    r"|If (?:so|not),)"
)
"""An opening that leans on the sentence before it ("Or, ...", "This information ...",
"If they do, causes may include ...", "If not, ask ...", "Some of its causes are ...":
whose causes the sentence before says; "At this stage, quality of life is impaired ...":
which stage the sentence before names, 19 MedQuAD sentences, quoted alone for "What is
the outlook for someone with COPD?")."""

POINTS_BACK = re.compile(
    r"\b(?:these|those)\s+(?!(?:who|whose|whom|which|that|with|without)\b)[a-z]{3,}|"
    r"\bthis information\b|"
    r"^(?:[\w-]+\s+){0,3}(?<!loved )(?<!little )(?<!young )ones\b"
)
"""A pointer inside a sentence to text before it ("... mild benefits from some of these
therapies ...", "When each parent has this information, ..."), or "ones" early in it:
"Some common ones are - Joint pain ..." after "Lupus has many symptoms." (11 MedQuAD
sentences); not "loved ones", "little ones", "young ones", nor "those who have had
prolonged contact", "those with diabetes" (people the sentence itself says)."""


THE_SUBJECT = re.compile(r"^This (?:condition|disorder|disease|syndrome)\b")
"""An opening that points to the page's subject ("This condition is inherited in an
autosomal recessive pattern ...": 659 MedQuAD answers, GHR's inheritance and frequency
pages, open so); at a page's opening the citation names what it points to."""


CONNECTIVES = re.compile(
    r"^(?:For (?:example|instance|this reason)|As a result|As such|Because of this|Therefore|"
    r"Thus|Furthermore|Moreover|Similarly|Likewise|In turn|In (?:this|such) cases?)\b"
)
"""A connective that goes on from the sentence before it: "For example, atrial
fibrillation ... is a common cause of embolic stroke" was quoted first, alone, for "What
causes a stroke?" (2,849 distinct MedQuAD answers hold a sentence opening "For example",
510 "As a result"). Unlike `DANGLING`, a unit opening so is not read as saying what the
cue sentence before it says (`nodes.answer_units.CONTINUES`): "As a result, two TB-related
conditions exist ..." is no more about how TB is caught than what it follows."""


def leans_back(sentence: str) -> bool:
    """Tell whether a sentence needs the one before it to be understood.

    It opens on a demonstrative or a pronoun (`ANAPHORS`: "They include: chest pain"), on
    a word that goes on from the sentence before (`DANGLING`: "However, ...", "Some of its
    causes are ..."; `CONNECTIVES`: "For example, ..."), or points back inside
    (`POINTS_BACK`: "Some examples of these
    medicines include: ..."). The quote picker (`nodes.answer_units`) brings the sentence
    before along for any of them (a sentence opening on an anaphor is already joined to
    the one before by `standalone_units`; a list's lead-in is not).
    """
    return bool(
        ANAPHORS.match(sentence)
        or DANGLING.match(sentence)
        or CONNECTIVES.match(sentence)
        or POINTS_BACK.search(sentence)
    )


BOILERPLATE = re.compile(
    r"would like to thank|is not copyrighted|encourages? (people|users|you) to share|"
    r"check (the|our) list of|clinical trials? (that are|search)|listing of clinical trials|"
    r"(for|to) (more|additional) information,? (see|visit|contact|call|go to|refer to)|"
    r"^for (more )?information (about|on|regarding) [^.]{0,150}?,? "
    r"(see|visit|contact|call|go to|read)\b|\bsee the [\w\s'-]{0,40}web ?site\b|"
    r"^(see|visit|call|contact|read|click|learn more)\b|"
    r"\bcontent is (provided|reviewed)|carefully reviewed by|PDQ summar|"
    r"^(last (updated|reviewed)|updated|reviewed|page last)\b|"
    r"^(january|february|march|april|may|june|july|august|september|october|november|"
    r"december) \d{4}\.?$|"
    r"\bhttps?://|\bwww\.|\b1-8\d\d-",
    re.IGNORECASE,
)
"""Lines of NIH pages that are about the page, not the condition (checked on MedQuAD)."""

VIDEO_NOTICE = re.compile(
    r"\((?:Watch|View) (?:the |this )?(?:[^.()]|\([^()]*\))*?\bvideos?\b"
    r"(?:[^.()]|\([^()]*\))*\.\)?\s*|"
    r"\bTo enlarge the videos?\b[^.]*\.\)?\s*|"
    r"\bTo reduce the videos?, press the Escape \(Esc\) button on your keyboard\.\)?\s*",
    re.IGNORECASE,
)
"""NIHSeniorHealth's notice about a page's video, in brackets: "(Watch the video to learn
more about ... To enlarge the video, click the brackets ... To reduce the video, press
the Escape (Esc) button on your keyboard.)": its last sentence ran into the heading and
sentence after it ("... keyboard.) Symptoms of Kidney Failure Kidney failure means ...",
quoted for "What are the symptoms of kidney failure?"). Removed before the text is cut;
a passage that opens inside the notice loses its tail."""

FIRST_PERSON = re.compile(
    r"^(-\s*)?(i|i'm|i've|my|we)\b|\bI (have|had|am|was|do|did|'m|'ve)\b", re.IGNORECASE
)
"""Checklist lines written as the reader ("I have had gestational diabetes")."""

LIST_ITEM = re.compile(r"^\s*[-•*]\s+")
ANNOUNCING = re.compile(
    r"\bHere (?:is|are)\b|"
    r"\bThese (?:[a-z]+ ){1,2}(?:are|include)\b[^,;]*$|"
    r"(?i:\b(?:the following|as follows)\b|\bthese (?:steps|tips|things|ways)\b)"
)
"""A sentence announcing the list after it, which ends with a stop, not a colon ("Here is
what the standard cancer treatments are designed to do. - Surgery takes out ...", "Risk
Factors These risk factors are associated with gout. - Genetics. ...": a sentence opening
on "These", after its heading, with no comma; "The goals for using these medicines are ..."
and "These cases are more serious, but they are rarely fatal." are none): read only when
a list follows."""
POINTS_AHEAD = re.compile(
    r"(?i)\b(?:the following|as follows)\b(?![^:]*:)"
    r"(?!\s+(?:day|night|morning|evening|week|month|year|season|decade)s?\b)"
)
"""A sentence pointing at what comes after it with no colon ("Blood tests and other
diagnostic tests, such as the following, then confirm the diagnosis.", "Your doctor may
recommend one or more of the following tests."): 78 quotable MedQuAD units, whose list the
scrape flattened into the sentences after them; quoted alone it points at nothing. "The
following morning" is no pointer."""
LEAD_IN = re.compile(r"\s+-\s+")
ASIDE = re.compile(
    r"^(?:(?:such as|including|like|especially|particularly|for example|for instance|which|"
    r"that|called|often|sometimes|either)\b|e\.g\.|i\.e\.)"
)
"""A lower-case opener after a dash: the dash opens an aside in the sentence, not a list
item (items start with a capital or a noun). 46 MedQuAD answers have one ("saliva -
sometimes called spit - and empty it", "a stretch of time - like when we miss a meal");
the dash after the aside closes it."""

CONJUNCTION = re.compile(r"^(?:and|or)\s+")
"""A dash's "and" or "or": a list's last item ("- x-rays - or a bone scan.") where nothing
follows, an aside where a dash does ("can - and do - work")."""

CLAUSE_OPENERS = frozenset(
    "that which where when whether if because while since although unless until who".split()
)
"""Words a clause follows ("researchers believe that PTS is ..."): an acronym after one
opens no glued sentence."""

GLUE_ANY = re.compile(r"(?<=[a-z0-9)%])\s+(?=[A-Z])")
"""A capitalised word or acronym right after a lower-case one (`lost_stops` decides)."""

JOINS = frozenset(
    "a an the of and or to in for with by from on at as into than called named including "
    "include such like versus vs von van de der du la".split()
)
"""Words a capitalised name may follow inside one phrase ("Centers for Disease Control",
"people with Down syndrome"): no bullet was lost there."""

FINITE_VERBS = tuple(
    """is are was were has have had can cannot may might will would should could does do
    did must causes occurs happens helps means becomes depends varies""".split()
)
"""The finite verbs that make a piece a sentence (`FINITE`); `quotable` widens them for
short units (`SHORT_SENTENCE_VERB`)."""

FINITE = re.compile(rf"\b(?:{'|'.join(FINITE_VERBS)})\b")
"""A finite verb: a piece holding one (and four words or more) is a sentence, not an item."""

GLUED_RUN_POINTS = 3
"""Lost bullets after a lead-in's colon before its run of items is read as a list: 749
MedQuAD units have three or more (NHLBI's lists lost their bullets), e.g. "Signs and
symptoms of a stroke may include: Sudden weakness Paralysis ... Confusion Trouble ..."."""


FOLLOW_LINKS = re.compile(
    r"\bclick(?:ing)? (?:here|on the|the)\b|\b(?:at )?the following links?\b", re.IGNORECASE
)
"""Links to follow ("... by clicking on the following links: eMedicine ...", "at the
following link to GeneReviews"): page furniture an answer cannot carry."""


def is_boilerplate(sentence: str) -> bool:
    """Tell whether a sentence is page furniture or a first-person checklist line."""
    text = sentence.strip()
    return bool(BOILERPLATE.search(text) or FOLLOW_LINKS.search(text) or FIRST_PERSON.match(text))


NAMED_ITEM = re.compile(r"[A-Z][\w'’()-]*(?:\s+(?!-)[\w'’()-]+){0,3}")
"""A list item that only names (a capitalised word and three more at most, no stop): the
lower-case part after its dash says what it is ("- Goiter - enlargement of the thyroid
gland - Hyperthyroidism - when your thyroid gland makes ...", MedlinePlus's lists)."""


DESCRIBES = re.compile(r"(?:an?|the|when|how|what|inability|a measure)\b")
"""The opening of a description after an acronym's item ("- RBC - the numbers, size, and
types of RBC"): after "- HDL", "- triglycerides" is the next test, not what HDL is."""


def _items(sentence: str) -> tuple[str, list[str]]:
    """Split "Lead-in - item one. - item two" into ("Lead-in", ["item one.", ...]).

    A lone lower-case word before the first item is no lead-in but the end of an item the
    passage before cut ("activity - Reduced factor XIII activity - ..."): no lead-in. A
    dash before "such as", "including", ... opens an aside, not an item ("two or more
    brain functions - such as memory and language skills -- are impaired": `ASIDE`), and
    the dash after it closes the aside ("hearing loss - either conductive or mixed - and
    stapes fixation") unless a capital opens the next item ("- called edema - Tiredness");
    a lower-case part of two words at least after an item that only names says what it is
    (`NAMED_ITEM`: "- Goiter - enlargement of the thyroid gland - Hyperthyroidism - ...")
    when the item after it, if any, is capitalised again ("Graves disease - thyroid nodules
    - thyroiditis" are three causes), and after an acronym only when it opens as a
    description does (`DESCRIBES`: "- HDL - triglycerides" are two tests); a list's last
    item (after two at least) opening on "and" or "or" is read without it.
    """
    parts: list[str] = []
    pieces = LEAD_IN.split(" " + sentence.strip())
    aside_open = False
    for index, part in enumerate(pieces):
        last_item = index == len(pieces) - 1 and len(parts) >= 3  # a lead-in and two items
        opens = bool(ASIDE.match(part)) or (bool(CONJUNCTION.match(part)) and not last_item)
        closes = aside_open and part[:1].islower()  # "- called edema - Tiredness": an item
        says_what = bool(  # "- Goiter - enlargement of the thyroid gland": what it is
            len(parts) >= 2
            and part[:1].islower()
            and len(part.split()) >= 2  # "- Graves disease - thyroiditis": two items
            and NAMED_ITEM.fullmatch(parts[-1].strip())
            and not (parts[-1].strip().isupper() and not DESCRIBES.match(part))
            and not (index + 1 < len(pieces) and pieces[index + 1][:1].islower())
        )  # the next item capitalised again: "- Graves disease - thyroid nodules - ..." is none
        if parts and (closes or opens or says_what):  # "functions - such as memory - are"
            parts[-1] += " - " + part
            aside_open = not closes and opens
        else:
            parts.append(CONJUNCTION.sub("", part) if last_item else part)
            aside_open = False
    head = parts[0].strip()
    if re.fullmatch(r"[a-z][\w-]*", head):  # a word cut from an item of the passage before
        head = ""
    return head, [p.strip() for p in parts[1:] if p.strip()]


DEFINED_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9]{1,7})\)|,? or ([A-Z][A-Z0-9]{1,7})\b")
"""An acronym a text defines for its subject: "seasonal affective disorder, or SAD",
"chronic obstructive pulmonary disease (COPD)"."""


def defined_acronyms(text: str) -> frozenset[str]:
    """Return the acronyms `text` defines (`DEFINED_ACRONYM`)."""
    return frozenset(a or b for a, b in DEFINED_ACRONYM.findall(text))


def lost_stops(text: str, acronyms: frozenset[str] | None = None) -> list[int]:
    """Return where a bullet or a stop was lost in `text`: the start of each glued word.

    A glued word is capitalised, not an acronym ("factor VIII", "autosomal dominant PKD
    is ..."), and follows a lower-case word that is not one a name follows (`JOINS`);
    capitalised runs are names ("The Human Phenotype Ontology"), not lost bullets. An
    acronym the text defines (`acronyms`; None: those `text` itself defines) is a glued
    word too when a verb follows it ("... thoughts of death or suicide SAD may be
    effectively treated ...", where the page wrote "seasonal affective disorder, or SAD"):
    any acronym would cut "Upper GI endoscopy" and "If you lacked GH" wrongly. The copy
    rule (`nodes.judges.mismatch`) reads a whole passage, so its default finds the
    passage's acronyms and a copy may end where the units are cut.
    """
    named = defined_acronyms(text) if acronyms is None else acronyms
    points = []
    for match in GLUE_ANY.finditer(text):
        before = text[: match.start()].rsplit(None, 1)[-1].lstrip("(\"'")
        after = text[match.end() :]
        acronym = re.match(r"([A-Z][A-Z0-9]+)\s+(\w+)", after)
        glued = bool(re.match(r"[A-Z][a-z]|A\s", after)) or bool(
            acronym
            and acronym[1] in named
            and FINITE.fullmatch(acronym[2])
            and before.lower() not in CLAUSE_OPENERS
        )
        if glued and before[:1].islower() and before.lower() not in JOINS:
            points.append(match.end())
    return points


RELATIVE = re.compile(r",\s+(?:that|which|who)\b[^,]*(?:,|$)")
"""A relative clause after a comma, up to the next comma: its verb is not the piece's ("A
yellowish color of the skin, known as jaundice, ..., that occurs when ...": an item;
"Your doctor, who knows your child, can tell ...": a sentence, by "can")."""


LONE_WORD = re.compile(
    r"(?i:what|how|why|when|where|which|who|is|are|was|were|do|does|can|the|a|an|and|or)"
)
"""A word no list has as a one-word item: a heading's ("What Is Diabetes?") or a name's
("The Human Phenotype Ontology provides ...")."""


BARE_RELATIVE = re.compile(r"\b(?:that|which|who)\s+\w+")
"""A relative clause's opening without a comma: its verb is not the piece's either
("Prevent asthma attacks that could result in ..." is an item; "People who have it are
at risk" keeps "are")."""


def _is_sentence(piece: str, bare: bool = False) -> bool:
    """Tell whether a piece cut from a glued run reads as a sentence, not a list item.

    It does when it has four words and a finite verb outside its relative clauses
    (`RELATIVE`): MedQuAD answers' lists read as lists once a ", which is ..." or ", that
    occurs ..." no longer counts (early symptoms of sickle cell disease, heart murmurs,
    bronchiolitis). A piece opening on its verb ("Has died suddenly", after "whether
    anyone in your family:") is an item finishing the lead-in; one that asks is a
    sentence. With `bare` (a piece before a run's last), a relative clause without its
    comma does not count either (`BARE_RELATIVE`); the sentence glued after a list's last
    item is found without it ("... levels People in the DPP who were active ... reduced
    their risk": "were" keeps it a sentence).
    """
    if "?" in piece:
        return True  # "Did you know that ...?"
    if FINITE.fullmatch(piece.split(maxsplit=1)[0].lower() if piece.strip() else ""):
        return False  # "... whether anyone in your family: Has died suddenly"
    main = RELATIVE.sub(",", piece)
    if bare:  # an item inside a run: its relative clause's verb is not its own
        main = BARE_RELATIVE.sub(" ", main)
    return len(piece.split()) >= 4 and bool(FINITE.search(main))


SENTENCE_OPENERS = frozenset("After Although Because During If In Unless When While".split())
"""Words that open a sentence whatever follows ("After Merkel cell carcinoma has been
diagnosed, ...")."""

TAKES_A_LETTER = frozenset(
    "hepatitis vitamin type protein factor group part stage class grade phase category "
    "influenza plan schedule appendix table figure".split()
)
"""Words a letter names a kind of ("Hepatitis A", "Vitamin A deficiency ..."): "A" after
one is no sentence's article."""


def _name_ends(item: str) -> list[int]:
    """Return where a sentence may open after an item written as a name, first to last.

    The item's words up to there are all capitalised (or words a name goes on with,
    `JOINS`, though not the last: "Treatment for Kaposi sarcoma may ..." is one sentence),
    none closing on a colon, so `lost_stops` sees no stop there ("- Impulsivity No one
    knows exactly ...", "- Stage IV After Merkel cell carcinoma has been diagnosed ...");
    the word there opens a sentence: one of `SENTENCE_OPENERS`, or a capitalised word a
    lower-case word follows that no name goes on with ("Heart Lung and Blood Institute"
    opens nothing) and, after "A", no verb and no word a letter names a kind of
    (`TAKES_A_LETTER`: "Hepatitis A may cause ...", "Vitamin A deficiency can ..."); no
    other lone letter ("Part C is called ...") and no word with a comma ("United States,
    endometrial cancer is ...").
    """
    words = list(re.finditer(r"\S+", item))
    ends: list[int] = []
    if not words or not words[0].group()[:1].isupper():
        return ends
    for k in range(1, len(words)):
        before = words[k - 1].group()
        if before.endswith(":") or not (before[:1].isupper() or before in JOINS):
            break  # a lower-case word, or a colon: the item is no name past here
        word = words[k].group()
        after = words[k + 1].group() if k + 1 < len(words) else ""
        opens = word in SENTENCE_OPENERS or (
            bool(re.fullmatch(r"[A-Z][a-z'’]+|A", word))
            and after[:1].islower()
            and after not in JOINS
            and not (
                word == "A"
                and (FINITE.fullmatch(after) or before.lower().strip(",") in TAKES_A_LETTER)
            )
        )
        if opens and before not in JOINS:
            ends.append(words[k].start())
    return ends


def item_sentence_starts(text: str) -> list[int]:
    """Return where a sentence may open after a list item written as a name, in a text.

    `_name_ends` on each " - " item of `text`, as offsets into it: the copy rule
    (`nodes.judges.mismatch`) reads whole passages and must know where `standalone_units`
    may cut, as it does with `lost_stops`.
    """
    points: list[int] = []
    for bullet in re.finditer(r"(?:^|\s)-\s+", text):
        start = bullet.end()
        stop = text.find(" - ", start)
        item = text[start : stop if stop != -1 else len(text)]
        points += [start + point for point in _name_ends(item)]
    return points


def _stem(word: str) -> str:
    """Return a word in lower case, less a plural's "s" (how a heading is restated)."""
    return word.lower().removesuffix("s")


def _restated_words(text: str) -> set[str]:
    """Return a text's first twelve words, stemmed (`_stem`)."""
    return {_stem(w) for w in re.findall(r"[A-Za-z]+", text)[:12]}


def _without_heading(item: str, sentence: str) -> str:
    """Return a list's last item less the heading of the sentence glued after it.

    A capitalised item whose words the sentence's first twelve all restate is the heading
    itself ("Medical Devices Medical devices can help ...") and gives ""; otherwise a heading is
    the item's last one to three capitalised words restated there, not cut where it
    would leave the item ending on a word a name goes on with: "- Tofu Sodium You
    should try to limit the amount of sodium ..." -> "Tofu".
    """
    near = _restated_words(sentence)
    if item[:1].isupper() and {_stem(w) for w in re.findall(r"[A-Za-z]+", item)} <= near:
        return ""
    words = item.split()
    for size in range(min(3, len(words) - 1), 0, -1):
        tail, kept = words[-size:], words[:-size]
        if kept[-1].lower() not in JOINS and all(
            w[:1].isupper() and _stem(w) in near for w in tail
        ):
            return " ".join(kept)
    return item


def _heads_too(item: str, sentence: str) -> bool:
    """Tell whether a one-word item before a heading restated whole is the heading's start.

    A glued run splits one-word items off (`_one_word_items`), so the heading
    "Pneumococcal Pneumonia Vaccine" of "A vaccine is available to prevent pneumococcal
    pneumonia" left "Pneumococcal" as the list's last item (and "Coronary Heart Disease"
    left "Coronary", "Heart"): capitalised words the sentence restates, right before a
    heading it restates whole, are part of it.
    """
    return bool(re.fullmatch(r"[A-Z][a-z]+", item)) and _stem(item) in _restated_words(sentence)


INCLUDES = re.compile(
    r"^(?:(?!(?:who|that|which)\b)[\w'’-]+\s+){1,8}(?:can |may |often |usually )?includes?\s+\w"
)
"""A sentence saying what something includes, its own list after the verb ("Signs of
dehydration in babies and young children include a dry mouth ..."); not a relative clause
("Specialists who may include a dietitian" is no sentence)."""


def _lists_after(rest: str) -> bool:
    """Tell whether the words glued after a list's last item are a sentence listing more.

    "- Dizziness and fainting Signs of dehydration in babies ... include a dry mouth and
    tongue, ...": "include" is no verb `_is_sentence` reads (a list's lead-in holds it), but
    after a list's last item, followed by what it includes, it opens a sentence of its own.
    """
    return len(rest.split()) >= 6 and bool(INCLUDES.match(rest))


GLUED_VERBS = frozenset(
    """use uses require requires need needs include includes help helps affect affects
    cause lead leads make makes take takes get gets develop develops feel feels recover
    recovers occur occurs seem seems appear appears start starts begin begins tend tends
    spread spreads live lives work works come comes go goes know knows usually often also
    sometimes generally typically diagnose diagnoses treat treats""".split()
)
"""Present-tense verbs (and the adverbs before one) that make the words glued after a
list's last item a sentence when a short subject opens them (`GLUED_CLAUSE`): "-
Slurred speech Doctors use a neurologic exam ...", "- Less hair on head, more on face
Some symptoms require treatment.", "- Visible nits (lice eggs) or crawling lice Lice spread
most commonly by ...", "- Seizures Doctors diagnose brain tumors by ..." (`FINITE_VERBS`
holds none of them). "diagnose" and "treat" (2026-12-02): 14 MedQuAD units cut off "Doctors
diagnose ...", "To diagnose Hodgkin disease, doctors use ...", "Treatment aims to treat
...", all read right; read after a one-word item too (`_name_ends`: "- Seizures Doctors
diagnose ...", "- Dislocations If you get hurt, stop playing."), 5 more, all right."""

GLUED_CLAUSE = re.compile(
    rf"^(?![A-Z][a-z]+ing\b)[A-Z][a-z'’]+(?: (?!(?:who|that|which)\b)[a-z'’]+){{0,2}}? "
    rf"(?:{'|'.join(sorted(GLUED_VERBS))}) \S.*[.!?]$"
)
"""A sentence of a subject (a capitalised word, up to two lower-case words after it; no
gerund: "- stopping illegal drug use Changing medicines you take ..." is two items; no
relative clause: "- A nurse Specialists who include a dietitian") and a verb of
`GLUED_VERBS`, ending on a stop."""


def _glued_clause(rest: str) -> bool:
    """Tell whether words glued after a list's last item open a sentence of their own.

    A subject of up to three words and a present-tense verb (`GLUED_CLAUSE`,
    `GLUED_VERBS`), four words at least, ending on a stop.
    """
    return len(rest.split()) >= 4 and bool(GLUED_CLAUSE.match(rest))


def _unglued_item(item: str, acronyms: frozenset[str] = frozenset()) -> tuple[str, str]:
    """Split a list item from the sentence glued after it ("hearing problems Your ...").

    Returns the item and the sentence ("" when none is glued on): the sentence starts at
    the last lost stop whose remainder is a sentence; `acronyms`: those the passage
    defines (`lost_stops`). An item written as a name, each word capitalised, loses a stop
    `lost_stops` cannot see: there the first place a sentence opens (`_name_ends`: "-
    Impulsivity No one knows exactly ..."), or a glued clause (`_glued_clause`: "-
    Seizures Doctors diagnose brain tumors ...").
    """
    for point in reversed(lost_stops(item, acronyms)):
        rest = item[point:].strip()
        if (_is_sentence(rest) or _lists_after(rest)) and not _is_sentence(item[:point], bare=True):
            return item[:point].strip(), rest
    for point in _name_ends(item):
        rest = item[point:].strip()
        if _is_sentence(rest):
            return item[:point].strip(), rest
    for point in lost_stops(item, acronyms):  # "- Slurred speech Doctors use a ..."
        rest = item[point:].strip()
        if _glued_clause(rest) and not _is_sentence(item[:point], bare=True):
            return item[:point].strip(), rest
    for point in _name_ends(item):  # "- Seizures Doctors diagnose brain tumors by ..."
        rest = item[point:].strip()
        if _glued_clause(rest):
            return item[:point].strip(), rest
    return item, ""


def _one_word_items(run: str, points: list[int]) -> list[int]:
    """Add the lost bullets after one-word items of a glued run ("Confusion Trouble ...").

    Inside a run already read as a list, an item that starts at a lost bullet (or opens
    the run) and whose first word is followed by a capitalised word is that one word,
    unless that word is one no item is (`LONE_WORD`: "The Human Phenotype Ontology
    provides ..." after GARD's lists is no run of items "the", "human", ...).
    """
    found = sorted(points)
    starts = [0, *found]
    while starts:
        start = starts.pop()
        one = re.match(r"([A-Z][a-z]+)\s+(?=[A-Z][a-z])", run[start:])
        if one and not LONE_WORD.fullmatch(one[1]) and start + one.end() not in found:
            found = sorted([*found, start + one.end()])
            starts.append(start + one.end())
    return found


def run_after_colon(text: str) -> tuple[str, str, list[int]] | None:
    """Return a text's lead-in, the run after its first ": " and where the run lost bullets.

    None when there is no colon or the run lost fewer than `GLUED_RUN_POINTS` bullets
    (`lost_stops`): only then is the run read as list items glued together.
    """
    head, colon, run = text.partition(": ")
    if not colon:
        return None
    points = lost_stops(run)
    return (head, run, points) if len(points) >= GLUED_RUN_POINTS else None


def _glued_items(sentence: str) -> tuple[str, list[str]]:
    """Split "Lead-in: Item one Item two Item three" whose bullets were lost into items.

    A run needs `GLUED_RUN_POINTS` lost bullets after the colon; otherwise, or when any
    piece reads as a sentence before the last, no items ("" and []). A piece of page
    furniture (`is_boilerplate`: "You can learn more ... by clicking on the following
    links") ends the list, and it and what follows are left out. A last piece that
    reads as a sentence is the sentence after the list, glued on: it stays whole, after
    the items, for `_unglued_item` to cut off.
    """
    glued = run_after_colon(sentence)
    if glued is None or len(glued[0].split()) < 2:
        return "", []
    head, run, points = glued
    points = _one_word_items(run, points)
    pieces = [run[a:b].strip() for a, b in pairwise([0, *points, len(run)])]
    furniture = next((at for at, piece in enumerate(pieces) if is_boilerplate(piece)), None)
    if furniture is not None:  # "... (done during EGD) You can learn more ... by clicking
        pieces = pieces[:furniture]  # on the following links: ...": the list ends there
        if len(pieces) < GLUED_RUN_POINTS:
            return "", []
    if any(_is_sentence(piece, bare=True) for piece in pieces[:-1]):
        return "", []
    if _is_sentence(pieces[-1]):  # "... Sudden and severe headache A transient ... has ..."
        pieces[-2:] = [f"{pieces[-2]} {pieces[-1]}"]
    return f"{head}:", pieces


KINDS = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|different|many|major|"
    r"certain|new)\s+(?:[\w-]+\s+){0,2}(?:types|kinds|groups|phases|stages|grades|classes|"
    r"categories|forms)\b|\bare used\b",
    re.IGNORECASE,
)
"""What a key point counts when its own items follow ("Three kinds of standard treatment are
used", "Chronic myelogenous leukemia has 3 phases", "New types of treatment are being
tested"); not "Most forms of the disease are mild", one of a list's items."""


def _announces(item: str, following: list[str]) -> bool:
    """Tell whether a list item is a sentence naming kinds (`KINDS`) whose items follow, bare.

    CancerGov's key points: "- Three kinds of standard treatment are used. - Surgery -
    Chemotherapy - Targeted therapy - New types of treatment are being tested ...": the
    treatments are the sentence's items, not the list's ("Surgery" alone is no answer).
    A sentence naming no kinds ("The most common sign ... is nephrotic syndrome.") does
    not lead the bare lines after it.
    """
    return (
        item.endswith(".")
        and bool(KINDS.search(item))
        and _is_sentence(item)
        and bool(following)
        and not following[0].endswith((".", ":", ";"))
        and not _is_sentence(following[0])
    )


NEXT_LEAD = re.compile(r"[A-Z][^.:;!?]*\b(?:include|includes|including|are|such as|the following)")
"""The lead-in of the next list, glued after an item whose bullet was lost: "- weight
loss Other general signs and symptoms include - feeling tired ...", "- peginterferon
Medicines taken by mouth include - adefovir ..."."""


def _with_next_lead(item: str, acronyms: frozenset[str] = frozenset()) -> list[str]:
    """Split an item from the next list's lead-in glued after it (`NEXT_LEAD`).

    Returns [item] or [item, "Lead-in:"]: a lead-in ending in a colon opens its own list
    (`standalone_units`), so the items after it are its, not the first list's;
    `acronyms`: those the passage defines, as `_unglued_item` reads them (`lost_stops`).
    """
    for point in reversed(lost_stops(item, acronyms)):  # the shortest lead-in: its own
        rest = item[point:].strip()
        if NEXT_LEAD.fullmatch(rest):
            return [item[:point].strip(), f"{rest}:"]
    return [item]


def _outer(lead: str, announced: tuple[str, str]) -> str:
    """Return the lead-in a list goes back to after `lead`'s items end.

    `announced`: the key point last taken as its own items' lead-in (`_announces`) and the
    lead-in of the list it is an item of; after its items, that list's.
    """
    return announced[1] if lead and lead == announced[0] else lead


@cache
def proper_words() -> frozenset[str]:
    """Return the words written capitalised inside a sentence (`PROPER_WORDS`), lower-cased."""
    lines = PROPER_WORDS.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def is_a_name(word: str) -> bool:
    """Tell whether a capitalised word keeps its capital inside a sentence.

    A word with a capital inside it ("MedlinePlus", "African-Americans", "Non-Hodgkin") or
    one MedQuAD writes capitalised mid-sentence (`proper_words`: "Hodgkin", "Crohn's",
    "National", "American"; not "Fever" or "Testing", which only its titles capitalise).
    """
    word = word.strip(".,;:()[]\"'’")
    return any(c.isupper() for c in word[1:]) or word.lower() in proper_words()


def _with_lead(lead: str, item: str) -> str:
    """Return a list item prefixed with its lead-in, as one sentence.

    The item's first word is lowered ("... include: fever"), unless it is all capitals
    ("HIV") or a name (`is_a_name`: "... such as: Hodgkin lymphoma").
    """
    lead = lead.rstrip(" :.")
    if not lead:
        return item
    lowered = item[:2].isalpha() and not item[:2].isupper() and not is_a_name(item.split()[0])
    return f"{lead}: {item[:1].lower() + item[1:] if lowered else item}"


def standalone_units(text: str) -> list[str]:
    """Return the text's sentences as units that can be quoted alone, boilerplate left out.

    List items carry their lead-in (a sentence announcing them, `ANNOUNCING`, is theirs
    even when it ends with a stop); a sentence opening with an anaphor is joined to the one
    before it; boilerplate and first-person lines are dropped (and an anaphor after a
    dropped line is dropped with it: its antecedent is gone; one announcing the list
    right after it, "These risk factors are associated with gout. - Genetics. ...", is
    kept as that list's lead-in), and video notices (`VIDEO_NOTICE`) before the text is
    cut. A text opening on the page's subject
    (`THE_SUBJECT`: "This condition is inherited ...") keeps that sentence: the citation
    names the page (a later passage whose opening leans back has its lead put before it,
    `knowledge.medquad.with_antecedents`; an opening list item dropped for want of its
    lead-in takes what leans on it along).
    """
    units: list[str] = []
    lead = ""
    acronyms = defined_acronyms(text)
    previous_dropped = False
    announcing = False  # the last unit announces the list that may follow it
    last_item = ""  # the last unit's list item, as written (none: the last was no item)
    announced: tuple[str, str] = ("", "")  # a key point leading its items, and the list's
    ahead = False  # the last unit points ahead only, at the list it announces
    for sentence in split_sentences(VIDEO_NOTICE.sub("", text)):
        head, items = _items(sentence)
        restore = ""  # an announcing sentence taken as lead-in, put back if no item is kept
        before = lead
        if ahead and not LIST_ITEM.match(sentence):  # no list: it points back after all
            units.pop()
            previous_dropped = True
        if LIST_ITEM.match(sentence):  # "- item - item" continuing the current list
            first, more = _items(LIST_ITEM.sub("", sentence))
            head, items = "", [first, *more]
            if announcing or (units and units[-1].endswith(":")):
                lead = units.pop()  # "Here is what the treatments do. - Surgery ..."
                restore = "" if ahead else lead
            elif last_item and _announces(last_item, items[:1]):
                restore = units.pop()  # "- Three kinds of standard treatment are used. -
                lead = last_item  # Surgery - Chemotherapy": the key point's own items
                announced = (lead, before)
        announcing = ahead = False
        last_item = ""
        if not items:
            glued_head, glued = _glued_items(sentence)
            if glued:
                head, items = glued_head, glued
        if items:
            if head:
                lead = head
            items = [part for item in items for part in _with_next_lead(item, acronyms)]
            # the sentence after a list is often glued to its last item (a list of two
            # items or more: one item alone, "- Ask whether Metformin is safe.", is left whole)
            items[-1], after = (
                _unglued_item(items[-1], acronyms) if len(items) > 1 else (items[-1], "")
            )
            if after:  # "- Tofu Sodium You should ... sodium": "Sodium" heads the sentence
                items[-1] = _without_heading(items[-1], after)
                if not items[-1]:
                    items.pop()
                    while len(items) > 1 and _heads_too(items[-1], after):
                        items.pop()  # "Pneumococcal" of "Pneumococcal Pneumonia Vaccine A ..."
                if items and items[-1][-1:] not in (".", ";"):
                    items[-1] += "."
            kept = len(units)
            outer = _outer(lead, announced)
            orphaned = False  # an opening item was dropped for want of its lead-in
            for item in items:
                if item.endswith(":"):  # "- Seven types are used: - Surgery - ...": a lead-in
                    outer, lead = _outer(lead, announced), item
                    continue
                if lead != outer and _is_sentence(item):  # a sentence ends the inner list
                    lead = outer
                if is_boilerplate(item) or (lead and is_boilerplate(lead)):
                    continue
                if not lead and not units and not _is_sentence(item):
                    orphaned = True  # the passage opens inside a list whose lead-in it lacks
                    continue
                units.append(_with_lead(lead, item))
                last_item = item
            if restore and len(units) == kept:
                units.append(restore)  # none of its items was kept: the sentence stays
            if after and not is_boilerplate(after):
                units.append(after)
                last_item = ""
            previous_dropped = orphaned and len(units) == kept  # "This condition" leans on it
            continue
        if head.endswith(":"):
            lead = head  # the lead-in of the items that follow
        if is_boilerplate(sentence):
            previous_dropped = True
            continue
        if ANAPHORS.match(sentence) and not (
            not units and not previous_dropped and THE_SUBJECT.match(sentence)
        ):
            if not units or previous_dropped:  # its antecedent is not in this text
                if ANNOUNCING.search(sentence):  # unless it points ahead, at a list: "These
                    units.append(sentence)  # risk factors are associated with gout. -
                    announcing = ahead = True  # Genetics. ..." opening a passage
                    continue
                previous_dropped = True
                continue
            units[-1] = f"{units[-1]} {sentence}"
        elif head.endswith(":"):
            continue  # a bare lead-in is quoted with its items, not alone
        else:
            units.append(sentence)
            announcing = bool(ANNOUNCING.search(sentence))
        previous_dropped = False
    if ahead:  # the text ends on what would have announced a list
        units.pop()
    return units
