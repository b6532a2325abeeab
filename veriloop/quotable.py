"""What an extractive answer may quote: units cleaned of scrape damage, or left out.

`standalone.standalone_units` cuts a page into units that stand alone; a page scraped
without its line breaks still leaves damage in them that reads as garbage in an answer
(issue 38, measured on 500 MedQuAD units in docs/benchmarks/quotable_units.md):

- **glued footnote digits**: "... a day.3 The next" -> "... a day. The next";
- **heading runs**: a section heading glued before the sentence it heads ("Other Common
  Signs and Symptoms Pay attention to ...", "Type 2 Diabetes Type 2 diabetes, which ...");
  stripped when the run ends in a heading word ("Symptoms", "Key Points", ...) or when the
  sentence after it repeats it;
- **not answers at all** (`unquotable_reason`): resource lists ("These resources address
  the diagnosis or management of X: genetic Testing Registry ..."), symptom tables
  ("Signs and Symptoms Approximate number of patients (when available) ... 90% ..."),
  pointer lines ("More on: ...", "More information is provided in ..."), runs of several
  list items glued without punctuation, and heading-only units;
- **the same sentence twice** (`near_duplicate`): two pages (or a heading and its text)
  saying one thing ("... harder to breathe" / "... hard to breathe"): an answer keeps the
  first;
- **a list restating a sentence** (`restates_list`): "Some, but not all, forms of treatment
  for leukemia include: chemotherapy; biological therapy; radiation therapy" after
  "Standard treatments for leukemia include chemotherapy, biological therapy, radiation
  therapy, and immunotherapy": the list goes;
- **one list quoted item by item** (`merge_items`): units sharing a lead-in ("Symptoms may
  include: trouble swallowing", "...: trouble breathing") are quoted as one
  ("Symptoms may include: trouble swallowing; trouble breathing").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from veriloop.numbering import LETTERED_NAMES, numbered
from veriloop.standalone import (
    FINITE_VERBS,
    FOLLOW_LINKS,
    is_a_name,
    lost_stops,
    run_after_colon,
    standalone_units,
)

FOOTNOTE = re.compile(r"(?<=[a-z)%\]])([.;,])\d{1,2}(?:[,\u2013-]\d{1,2})*(?=\s|$)")
"""A footnote number glued after a sentence's last word and stop ("a day.3"), or several
("until their symptoms increase.3,6 Men who delay ...": NIDDK's Inguinal Hernia, quoted for
"How is a hernia treated?"; MedQuAD writes two such runs)."""

FOOTNOTE_MARK = re.compile(r"(?<=[A-Za-z)])\*+(?=[\s,.;:)]|$)")
"""A footnote asterisk glued after a word ("Hepatitis* C is a virus", "is defined* as"):
44 in MedQuAD's answers, most in tables left out anyway."""

HEADING_WORDS = (
    "signs and symptoms|symptoms|signs|causes|cause|treatments?|treatment options|options|"
    "diagnosis|key points|"
    "overview|prevention|outlook|prognosis|risk factors|complications|tests?|"
    "what is [\\w' -]{1,40}|how is [\\w' -]{1,40}|who is at risk|research|summary|"
    "introduction|definition|background|problems"
)
HEADING_RUN = re.compile(
    rf"^(?P<head>(?:(?:[A-Z][\w'’-]*|and|of|for|the|to|in|with|or|a|an|\d+)\s+){{0,6}}?"
    rf"(?i:{HEADING_WORDS}))(?::\s+|\s+)"
    r"(?!(?:Caused|Related|Associated|Linked)\b)"
    r"(?P<rest>[A-Z][a-z'’]*[,;]?\s+[a-z(].*)$"
)
"""A heading ending in a heading word, then the sentence (a capital, then lower case; not
a word going on with the heading: "Problems Caused by Medications ...")."""

TITLE_RUN = re.compile(
    r"^(?P<head>(?:(?:[A-Z][\w'’-]*|and|of|for|the|to|in|with|or|a|an|\d+)\s+){1,7})"
    r"(?P<rest>[A-Z][\w'’-]*\s.*)$"
)
"""Up to seven capitalised words (and small words) before a capitalised word."""

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"

OPENER_RUN = re.compile(
    r"^(?P<head>[A-Z][\w'’-]*,?(?:\s+(?:[A-Z][\w'’-]*,?|and|of|for|the|to|in|with|or|a|an|\d+))*?"
    r"\s+[A-Z][\w'’-]*)\s+"
    r"(?P<rest>(?:(?:Your|You|Some|Most|Many|A|An|The|This|These|It|If|When|Doctors?|People|"
    r"There|Other|Several|Each|Children|Adults|Women|Men|Based(?= on)|No(?= one\b)|To|"
    r"For)\s+[a-z(]|"
    rf"In\s+(?:(?:{MONTHS})\s+)?(?:19|20)\d\d\b).*)$"
)
"""Two to nine capitalised words, then a word only a sentence opens with ("Health
Conditions Some hormone problems ...", "Prenatal Screening Doctors can ...", "Diverticular
Disease Based on symptoms ...", "A One-time Dose To reduce the risk ...") or a date ("A
Vaccine for Adults 60 and Older In May 2006, the ..."); a word may end on a comma
("Excessive, Irrational Fear Each anxiety disorder ...": 5 more MedQuAD units, all
headings). "No one" opens a sentence too ("Genes Play a Role No one knows what causes T
cells to go wrong ...", quoted for "Is psoriasis hereditary?"; 1 MedQuAD unit). Nine,
not seven (`strip_heading`): "Causes Not Related to Heart Problems Strong Emotions You may
feel your heart pounding ..." (two headings, eight words) was quoted for "What causes
heart palpitations?"; 28 distinct MedQuAD units lost such a run, all read: headings.
"For" opens a sentence too ("Pulse Oximetry For this test, a small sensor ...", "Heart
Transplant For this surgery, ..."): 18 more units, all read: headings."""

WORD_HEADING = re.compile(
    r"^(?!(?:For|In|With|And|Of|To|The|If|When|As|At|By|On|Or|But|So)\s)"
    r"(?P<head>[A-Z][a-z'’-]{2,})\s+"
    r"(?P<rest>(?:Your|You|Some|Most|Many|Doctors?|People|There|Several|Each|Children|Adults|"
    r"Women|Men)\s+[a-z(].*)$"
)
"""One capitalised word, then a word only a sentence opens with ("Smoking Most cases of
COPD ...", "Medicines Your doctor may ..."; 74 MedQuAD units, 40 read, all headings). The
openers that also follow a name ("Hepatitis A is ...") are not among them."""

TITLE_CASE_RUN = re.compile(
    r"^(?!The\s)(?P<head>(?:[A-Z][\w'’-]*[,:]?\s+|\d[\d-]*\s+){4,8}?)"
    r"(?![A-Z][a-z'’]*\s+(?:with|to|for|of|and|in|on|at|by|from)\s+[A-Z])"
    r"(?P<rest>[A-Z][a-z'’]*\s+[a-z(].*)$"
)
"""Four to eight words each capitalised (a heading's Title Case: "If You Have Symptoms,
Call 9-1-1", "How Bone Loss Occurs"), then a sentence's opening. Of 201 MedQuAD units it
found after the other rules, 40 read: all headings but three names opening with "The",
which it leaves ("The National Kidney Disease Education Program recommends ..."). A run
that a name's head noun carries on is left too (`NAME_GOES_ON`). A word may end on a
colon ("Treatment Goals: Manage Pain, Improve Function Osteoarthritis treatment plans
...", quoted for "How is osteoarthritis treated?"): of MedQuAD's quotable units that
changed, the 8 distinct ones read were all headings cut off right. A title that goes on
past a small word ("Measles: Make Sure Your Child Is Protected with MMR Vaccine Measles
starts ...") is not cut inside ("Protected with ..." is no sentence's opening)."""

NAME_HEADS = (
    "Programs?|Network|Institutes?|Cent(?:er|re)s?|Association|Foundation|Study|Trials?|"
    "Project|Initiative|Survey|System|Services?|Agency|Department|Society|Registry|Clinic|"
    "Hospital|Campaign|Group|Committee|Council|Consortium|Coalition|Alliance|Office|"
    "Administration|Act|Fund"
)
"""Head nouns of the names of programmes, trials and bodies ("Diabetes Prevention Program")."""

PROGRAM_GOES_ON = re.compile(rf"^(?:{NAME_HEADS})\b|^\S+\s+\([A-Z]")
"""A rest that carries a heading-word run on as a programme's name, not a sentence after a
heading: "In the Diabetes Prevention | Program (DPP), ...", "The Prostate Cancer Prevention
| Trial (PCPT) studied ...", "Type 2 Diabetes Prevention | Program participants ..."."""

NAME_GOES_ON = re.compile(
    rf"{PROGRAM_GOES_ON.pattern}|^(?:Diseases?|Disorders?|Syndromes?|Studies|Cancers?|"
    r"Tumou?rs?|Lymphomas?|Leukemias?|Sarcomas?|Carcinomas?)\b"
)
"""A rest that carries a capitalised run on as a name, not a sentence after a heading: its
first word is a name's head noun ("... Kidney | Disease (ADPKD) is ...", "National Kidney
Disease Education | Program recommends ...") or is followed by an abbreviation in brackets.
Of the 431 distinct MedQuAD cuts `TITLE_CASE_RUN` made, the 17 it stops were read: 16 cut
a name or a heading in two ("Newly Diagnosed Childhood Acute Lymphoblastic | Leukemia (High
Risk) The treatment ..."), one a heading ("How Colorectal Cancer Develops | Cancer of the
colon ..."), which is now left as written. After a heading word (`HEADING_RUN`) only
`PROGRAM_GOES_ON` applies: "Risk Factors | Studies have found ..." and "Vaccine Research |
Leukemia vaccines ..." are headings."""

TITLE_SENTENCE = re.compile(
    r"^(?P<first>[A-Z][a-z'’]+),?\s+(?P<second>[a-z][a-z'’-]*)\s+(?P<third>\S+)"
)
"""A sentence's opening after a title: a capitalised word, a lower-case one, and a third."""

LINK_WORDS = frozenset(
    "and of for the to in with or a an at on by from about after into as".split()
)
"""Small words that join a name's capitalised words ("Centers for Disease Control and ...")."""

DETERMINERS = frozenset(
    "all some most many each every no both only more few several any other these those this "
    "that".split()
)
"""Words a sentence opens with before its noun ("Newborn Screening All | States screen ...":
the title ended before "All")."""


def _title_heading_cut(unit: str) -> str | None:
    """Return the sentence after a Title Case heading of no names, or None where unsure.

    "Swelling and Pain in the Joints Different types of arthritis have different symptoms"
    (quoted for "What are the symptoms of rheumatoid arthritis?"), "New and Improved
    Treatments Under Study Researchers are studying ...": two capitalised words or more
    after the first, none a name's (`is_a_name`), then a sentence's opening whose first
    word is no name's either. Left as written: a run of seven words (it may go on), one
    opening with "The", ending on a small word or a determiner, or followed by a name going
    on ("According to the Centers for Disease | Control and Prevention ...", "An
    Institutional Review | Board (IRB) ...", "Use the Daily Physical Activity | Tracker to
    keep track ..."). Of the 188 distinct MedQuAD units it cuts after the other rules, all
    were read: 185 headings cut right, 2 scraps that were garbled before and after ("Surgery
    Is the Most Common First | Step in ..."), one name cut before its last word, whose rest
    is still a sentence ("Chronic Kidney Disease | Mineral and bone disorder in CKD is ...").
    """
    match = TITLE_RUN.match(unit)
    if not match:
        return None
    head, rest = match.group("head"), match.group("rest")
    words = head.split()
    if (
        len(words) >= 7
        or words[0] == "The"
        or words[-1] in SMALL_WORDS
        or words[-1].lower() in DETERMINERS
        or sum(word[:1].isupper() for word in words[1:]) < 2
        or any(is_a_name(word) for word in words if word not in SMALL_WORDS)
    ):
        return None
    opening = TITLE_SENTENCE.match(rest)
    if (
        not opening
        or is_a_name(opening["first"])
        or opening["second"] == "to"
        or (opening["second"] in LINK_WORDS and opening["third"][:1].isupper())
        or NAME_GOES_ON.match(rest)
        or len(rest.split()) < 4
    ):
        return None
    return rest


RESOURCE_LIST = re.compile(
    r"\b(these|the following) resources (address|from|provide|offer)|"
    r"^(genetic testing registry|gene review|medlineplus encyclopedia)\b",
    re.IGNORECASE,
)
"""A resource list: its lead-in anywhere in the unit ("Merck Manual Consumer Version:
Lipomas These resources from MedlinePlus offer ...": the last resource's name glued before
it; 350 distinct MedQuAD units were quotable while the lead-in had to open the unit), or a
listed resource opening it."""
SYMPTOM_TABLE = re.compile(
    r"approximate number of patients|(\b\d{1,3}%\s+\S+[^.]*){3,}|human phenotype ontology|"
    r"\btable below\b|medlineplus medical dictionary|comes from orphanet|"
    r"how often a (sign|symptom)|listed as a rough estimate|frequency of a sign|"
    r"listed as a fraction|number of the fraction|frequency may also be listed|"
    r"\bfrequency of \d+/\d+|\bthese frequencies\b|no information on frequency|"
    r"sign or symptom may be rare or common",
    re.IGNORECASE,
)
"""GARD's symptom tables and the lines about them (HPO, Orphanet, the dictionary, and the
four sentences on reading a frequency that close 2,243 of its pages: "For example, a
frequency of 25/25 means ...", quoted as Lyme disease's symptoms)."""
POINTER = re.compile(
    r"^(more (on|about|information)\b|learn (more|about)\b|read (more|about)\b|"
    r"find (out )?more\b|related (topics|information|resources)\b|"
    r"(additional|further) information (is|can be) (found|available|provided)\b|"
    r"for ((more|additional|further|detailed|general|specific|personalized|free|a|an)\s+)*"
    r"(information|details|description|booklet)\b|get (more |free )?(information|details)\b)",
    re.IGNORECASE,
)
"""A line sending the reader elsewhere: "More on: ...", "Learn more about ...", "For more
information, please visit GARD's ... Web page", "For further information on these and other
treatments, we recommend that you speak with your healthcare provider", "Get more
information on current lung cancer research" (quoted as the last sentence of an answer on
the latest lung cancer treatment). The "For ... information" and "Get ... information"
openings made 40 distinct MedQuAD units more unquotable, all read, all pointers
(docs/benchmarks/quotable_units.md); "For some of these treatments, little information is
available ..." and "Get as much information as possible about a service before you sign"
say something and stay."""
YOU_CAN_POINTER = re.compile(
    r"^(?i:you (?:can|may) (?:also )?(?:read|learn|find))\b[^.]*?"
    r"\b(?:from|at|through|on|in) (?:the following|our\b|the [A-Z]|[A-Z])"
)
"""A sentence sending the reader to a source: "You can read about the signs and symptoms
of lupus from MedlinePlus and ...", "You can find more information ... from Genetics Home
Reference", "... through the Get Involved in Research section of our Web site" (6
MedQuAD units); not "You can learn about your family health history by talking with
relatives"."""
WEB_SITE_POINTER = re.compile(
    r"\binformation\b[^.]{0,150}?\b(?:is|are|can\s+be|may\s+be)\s+(?:also\s+)?"
    r"(?:available|found|viewed|accessed|obtained|read)\b[^.]{0,100}?"
    r"\b(?:web\s?sites?|web\s+pages?)\b"
    r"|\b(?:web\s?site|website)\s+(?:also\s+)?(?:offers|provides|has)\s+"
    r"(?:more\s+|additional\s+|further\s+)?(?:specific\s+|detailed\s+)?information\b"
    r"|(?:^|,\s*)(?:please\s+)?visit\b[^.]{0,150}?\b(?:web\s?sites?|websites?)\b"
    r"|\bcan\s+be\s+(?:viewed|accessed)\s+(?:on|through|at)\b[^.]{0,100}?"
    r"\b(?:web\s?sites?|websites?)\b",
    re.IGNORECASE,
)
"""A sentence sending the reader to a web site for what it does not say: "More detailed
information about the treatment of ankylosing spondylitis is available on Medscape's Web
site", "GeneReview's Web site offers more specific information about ...", "Please visit
the Center for Disease Control and Prevention's Web site for a more comprehensive list of
symptoms" (quoted for "How do you prevent Lyme disease?"). 56 distinct MedQuAD units, all
read: two are lost with more than a pointer (Prader-Willi's "There are clinical diagnostic
criteria ..." before "These criteria can be viewed on the ... NICHD Web site", and what
HealthCare.gov's website "also provides information about")."""
PAGE_FURNITURE = re.compile(
    r"\b(?:chart|table|figure|image|picture|illustration|diagram|links?|videos?)s? "
    rf"(?:below|above)\b|\b(?:watch|enlarge) the videos?\b|{FOLLOW_LINKS.pattern}",
    re.IGNORECASE,
)
"""A line pointing at what the page shows and an answer cannot: a chart or link "below",
a video to watch, links to follow (`standalone.FOLLOW_LINKS`, which the list reader
shares): "You can use the chart below ... to figure out your BMI", "(Watch the video to
learn more about shingles.", "... by clicking on the following links: eMedicine ..."."""
AGENCY_LINE = re.compile(
    r"^(?:The\s+)?[A-Z][A-Za-z]{1,7}\s+is the (?:primary|lead|leading|main)\s+"
    r"(?:(?:NIH|federal|U\.S\.|government)\s+)?(?:organization|agency|institute)\b"
)
"""An agency saying what it is ("NIAMS is the primary NIH organization for research and
information on lupus"): the page's pointer to its publisher, no answer. GARD's lupus
treatment page holds only that and a pointer to a handout."""
SAYS_NOTHING = re.compile(
    r"^There\s+(?:are|is)\s+(?:(?:many|several|various|numerous|other|different|possible)"
    r"\s+)+(?:causes|reasons|kinds|types|forms|treatments)\.$",
    re.IGNORECASE,
)
"""A sentence saying only that there are causes (kinds, ...) and nothing of them: "There
are many other causes.", quoted alone for "What causes vertigo?" while its page names
medicines and the ear (3 MedQuAD sentences; "There are many causes of hearing loss" says
of what and stays)."""
SITE_NOTICE = re.compile(
    r"\bcontent on this (page|website|site)\b|\barchived for historic|"
    r"\bfrontline questions and expert opinion|\bregistration is free\b",
    re.IGNORECASE,
)
"""A website's notice about itself ("Content on this page was developed during the
2009-2010 H1N1 pandemic and has not been updated"): 5 MedQuAD units, all the 2009 H1N1
Flu pages', whose only other lines are the news they linked to; or about a linked site
("You may have to register to view the article, but registration is free": 12 distinct
MedQuAD units, one of them quoted for "How is lupus diagnosed?")."""
BELOW = r"(?:listed|described|outlined|shown|explained)\s+below"
POINTS_BELOW = re.compile(rf"\b{BELOW}\b", re.IGNORECASE)
"""A sentence pointing at text further down its page ("In addition to the environmental
factors listed below, falls can also be caused by ...", "These types are described
below."): quoted alone, the text it points at is missing, so it is quoted only as the
lead-in of the list it announces ("... the medicines listed below: Corticosteroids").
24 MedQuAD sentences say it (2026-11-27); "These glands are found below the jawbone"
points nowhere."""
BELOW_ASIDE = re.compile(
    rf"\s*\((?:(?:which|each|that|as)\b(?:(?!\b(?:and|or)\b)[^()])*\s)?{BELOW}\)|"
    rf",\s*{BELOW}(?=\))|"
    rf",\s*{BELOW}(?:,|(?=\s+(?:is|are|also)\b))",
    re.IGNORECASE,
)
"""A pointer down the page in an aside, which the sentence reads well without: "The major
risk factors for carotid artery disease, listed below, also are ...", "22q11.2 deletion
syndrome (which is also known by several other names, listed below) is a disorder ...";
a list in brackets keeps its items: "(dystonia and parkinsonism, described below)",
"(which include fever, cough and rash, described below)"."""
GLUED_ITEMS = re.compile(
    r":\s+(?:(?:[A-Z][a-z'’]+(?:\s+[a-z][a-z'’-]*){0,4})\s+){3,}[A-Z]|"
    r":\s+(?:[A-Z][a-z'’]+(?:\s+[a-z][a-z'’-]*){1,12}\s+){2,}[A-Z][a-z]"
)
"""Capitalised list items run together after a colon, no punctuation: three or more short
ones, or two or more of up to thirteen words ("The goals of treating sleep apnea are to:
Restore regular breathing during sleep Relieve symptoms such as loud snoring ...": 31
more distinct MedQuAD units, all read: 30 glued items, and one sentence after
MedlinePlus's "Summary :" heading, "Acupuncture has been practiced in China and other
Asian countries ...", 2026-11-27). A sentence after a colon naming two names ("Note:
People who live in Texas or Florida are ...") reads as glued too; excluding capitals
after "or", "in", "such as" brought back that one sentence and 6 glued or resource-list
units ("such as Down syndrome Infants whose ..."), so it is not done. Words may hold an
apostrophe or a hyphen ("You may need to see an asthma specialist if: You need special
tests to help diagnose asthma You've had a life-threatening asthma attack ...", quoted for
"How is asthma diagnosed in children?"): 12 more distinct units, all read: glued items,
2026-11-29)."""

MID_SENTENCE = re.compile(
    r"(?!(?:von|van|de|del|della|da|di|du|le|la|al|el|den|der|ter)\s+[A-Z])[a-z]+\b(?![.'’-]\w)"
)
"""A unit whose first word is all small letters: no sentence's start but a piece of one
(list items glued without their lead-in, "the degree of the hearing loss the pattern of
hearing loss ..."; a clause split off at an abbreviation, "gambiense infection."; "is the
rarest and most dangerous form of psoriasis ..."): 664 of 111,209 distinct MedQuAD units
(2026-11-27; 60 read, all pieces). A word with a capital ("mTOR inhibitors ...") starts
sentences, and so does a name's particle before its capital ("von Hippel-Lindau disease
(VHL) is a rare, genetic ...": 1 distinct MedQuAD unit)."""

ASIDE_LEAD = re.compile(r"\([^()]*[.!?]\)\s*:\s")
"""List items read under a parenthesised sentence, their own heading lost ("(High levels
of uric acid in the blood can lead to gout.): alcohol consumption", quoted for "what
foods should I avoid with gout"): 25 distinct MedQuAD units, all so; a letter in
parentheses ("(C): calcinosis ...", CREST syndrome's) is a label and stays."""

WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset("a an the of and or to in for with is are be by on at as that this it".split())


def _restated(head: Sequence[str], rest: Sequence[str]) -> bool:
    """Tell whether a sentence's first twelve content words restate a heading's words.

    Each heading word is among them; the first may also be restated by a longer form
    opening the sentence ("Set Realistic Goals" / "Setting realistic goals ...").
    """
    near = set(rest[:12])
    if set(head) <= near:
        return True
    first = head[0]
    return (
        bool(rest)
        and len(first) >= 3
        and first.isalpha()  # a word, not a gene or protein name ("RGS9" / "RGS9BP")
        and rest[0].startswith(first)
        and set(head[1:]) <= near
    )


SENTENCE_START = re.compile(r"^[A-Z][\w'’-]*[,;]?\s+[a-z(]")
"""A capitalised word, then a lower-case one: how a sentence opens, not a name going on."""


def _reopens_with_end(head: str, rest: str) -> bool:
    """Tell whether a sentence opens with the last word of a title run, or its last two.

    "Measuring Blood Pressure Blood pressure is the force ..." (two words, after a run of
    three or more), "Tests for Glaucoma Glaucoma is detected ...", "Age Age is the most
    important risk factor ..." (the word doubled, a comma after the second allowed: 26
    distinct MedQuAD units changed, all a heading before its sentence): the heading ends with the
    words the sentence begins with.
    """
    words, opening = head.lower().split(), rest.lower().split()
    if len(words) >= 3 and words[-2:] == opening[:2]:
        return True
    return bool(words and opening) and words[-1] == opening[0].rstrip(",")


def _mostly_restated(head: str, rest: str) -> bool:
    """Tell whether a title run's sentence restates three or more, and 3 in 4, of its words.

    "Medications Used to Treat Scabies Products used to treat scabies are called ...":
    the sentence says what the heading said in other words. The sentence must open as one
    (`SENTENCE_START`), and a run opening with "The" is a name ("The NIDDK Nutrition for
    Chronic Kidney Disease Series includes ..."): both are left as written. Read on 80
    MedQuAD units this rule alone strips, one was a name ("New Vaccine Surveillance
    Network Program evaluates ...").
    """
    if head.startswith("The ") or not SENTENCE_START.match(rest):
        return False
    words = set(_content(head))
    near = set(_content(rest)[:12])
    shared = words & near
    return len(shared) >= 3 and len(shared) >= 0.75 * len(words)


def _content(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP]


def strip_footnotes(unit: str) -> str:
    """Remove footnote numbers glued after a sentence's stop ("a day.3" -> "a day.").

    Footnote asterisks glued after a word go too (`FOOTNOTE_MARK`).
    """
    return FOOTNOTE_MARK.sub("", FOOTNOTE.sub(r"\1", unit))


SMALL_WORDS = frozenset("and of for the to in with or a an".split())
"""The small words a title run holds between its capitalised words."""

HEADING_END = re.compile(r"^[A-Z][\w'’-]*\s+(?P<rest>[A-Z][a-z'’]*,?\s+[a-z(].*)$")
"""The heading's last word, then a sentence's opening ("Pneumonia | Often, people ...")."""


def _heading_end_cut(rest: str) -> str:
    """Return the sentence after a heading's last word, when a title run stopped short of it.

    A heading does not end on a small word: "Complications of Pneumonia Often, people who
    have pneumonia ..." made the run "Complications of" (its next word, "Often,", ends on
    a comma) and left "Pneumonia Often, people ..." as the sentence. Where no sentence opens
    after one more word, the rest is left as it was.
    """
    match = HEADING_END.match(rest)
    return match.group("rest") if match else rest


def strip_heading(unit: str) -> str:
    """Remove a section heading glued before the sentence it heads, when one is plain.

    Plain: the run ends in a heading word ("... Signs and Symptoms Pay attention to ..."),
    or the sentence after a run of capitalised words repeats the run's words ("A Brain
    Disorder Parkinson's disease is a brain disorder ...", "Type 2 Diabetes Type 2
    diabetes, which ...", "Set Realistic Goals Setting realistic goals ..."), or most of
    them ("Medications Used to Treat Scabies Products used to treat scabies ...":
    `_mostly_restated`), or the run is followed by a word only a sentence opens with
    ("Diagnostic Tests and Procedures Your doctor may ...", "Getting a Diagnosis Your
    doctor ...": `OPENER_RUN`; "Smoking Most cases ...": `WORD_HEADING`), or four words
    or more are all capitalised ("How Bone Loss Occurs Bone is ...": `TITLE_CASE_RUN`), or
    a Title Case run of no names comes before a sentence's opening ("Swelling and Pain in
    the Joints Different types ...": `_title_heading_cut`). Anything else is left as
    written.
    """
    match = HEADING_RUN.match(unit)
    if (
        match
        and len(match.group("rest").split()) >= 4
        and not PROGRAM_GOES_ON.match(match.group("rest"))
    ):
        return match.group("rest")
    match = TITLE_RUN.match(unit)
    if match:
        head, rest = match.group("head"), match.group("rest")
        if head.split()[-1] in SMALL_WORDS:  # a heading goes on past "of": cut after it
            rest = _heading_end_cut(rest)
        head_list = _content(head)
        head_words = set(head_list)
        rest_words = _content(rest)
        if (
            len(head.split()) >= 2
            and len(rest_words) >= 4
            and head_words
            and _restated(head_list, rest_words)
        ):
            return rest
        if len(rest_words) >= 4 and _mostly_restated(head, rest):
            return rest
        if len(rest_words) >= 4 and _reopens_with_end(head, rest):
            return rest
    match = OPENER_RUN.match(unit)
    if match and len(match.group("head").split()) <= 9 and len(match.group("rest").split()) >= 4:
        return match.group("rest")
    match = WORD_HEADING.match(unit)
    if match and len(match.group("rest").split()) >= 4:
        return match.group("rest")
    if _restated_word_heading(unit):
        return unit.split(None, 1)[1]
    match = TITLE_CASE_RUN.match(unit)
    if (
        match
        and len(match.group("rest").split()) >= 4
        and not NAME_GOES_ON.match(match.group("rest"))
    ):
        return match.group("rest")
    return _title_heading_cut(unit) or unit


ONE_WORD_HEADING = re.compile(
    r"^(?!(?:This|That|These|Those|They|There|Their|What|When|With|From|Most|Many|Some|Each|"
    r"Other|Your|After|Before|During|About|Also|Only|Both|Such)\s)"
    r"(?P<head>[A-Z][a-z'’-]{3,})\s+(?P<rest>[A-Z][a-z]+\s+(?:\S+\s+){2}.*)$"
)
"""One capitalised word, then a sentence opening on a capitalised word: a heading when the
sentence says the word again (`_restated_word_heading`)."""


NAMED_CONDITION = re.compile(
    r"(?:diseases?|disorders?|syndromes?|lymphomas?|leukemias?|sarcomas?|carcinomas?|"
    r"cancers?|tumou?rs?|anemias?|fevers?)\b",
    re.IGNORECASE,
)
"""A condition's head noun: after a capitalised word, it makes that word a name's
("Addison disease", "Hodgkin lymphoma")."""


def _restated_word_heading(unit: str) -> bool:
    """Tell whether a unit opens on a one-word heading its sentence says again.

    "Diverticulosis Health care providers often find diverticulosis ...", "Chemotherapy
    Chemotherapy is a cancer treatment ...", "Pregnancy During pregnancy, women ...": the
    heading's word (its first letters) comes back in the sentence. Not when the word and the
    next are a name the sentence says ("Down Syndrome ... down syndrome"), nor when more
    capitalised words follow at once (a longer heading or a name: "Urinary Tract and Sex
    Organs ...", "Lupus Foundation of America ..."), nor before a name of a condition
    ("Autoimmune Addison disease affects ...": `NAMED_CONDITION`), nor before a lone
    capital ("Hepatitis A is ...", which the pattern does not take).
    """
    match = ONE_WORD_HEADING.match(unit)
    if not match:
        return False
    head, rest = match.group("head"), match.group("rest")
    words = rest.split()
    if any(word[:1].isupper() for word in words[1:4]) and words[0].lower() != head.lower():
        return False
    if NAMED_CONDITION.match(words[1]):  # "Autoimmune | Addison disease ...", "Adult |
        return False  # Hodgkin lymphoma ...": the word is the name's, not a heading
    lowered = rest.lower()
    if f"{head} {words[0]}".lower() in lowered:
        return False
    stem = head.lower()[: max(5, len(head) - 3)]
    return bool(re.search(rf"\b{re.escape(stem)}", lowered))


KEY_POINTS = re.compile(r"^key points:\s+", re.IGNORECASE)
"""CancerGov's summary heading, which `standalone_units` reads as a list's lead-in."""


CREDIT = re.compile(
    r"\s*(?<!\bthe )(?<!\bby )(?<!\bto )(?<!\bfrom )(?<!\bof )(?<!U\.S\. )"
    r"\b(?:NIH: National(?:\s+(?:[A-Z][\w,-]*|and|of|on|for))+|Centers for Disease Control "
    r"and Prevention|Dept\. of Health and Human Services Office on Women's Health|"
    r"(?:Environmental Protection|Federal Emergency Management) Agency|Food and Drug "
    r"Administration|Agency for (?:Toxic Substances (?:and )?Disease Registry|Healthcare "
    r"(?:Research and Quality|Quality and Research))|United States Department of "
    r"Agriculture|Administration on Aging)\s*$"
)
"""MedlinePlus's credit to the agency behind a page (an NIH institute, CDC, the Office on
Women's Health, FDA, EPA, ...), glued to its last line or alone ("... flat on your back
NIH: National Institute on Aging", "... so it doesn't damage your organs. Dept. of Health
and Human Services Office on Women's Health"): the credits that end most MedlinePlus
answers in MedQuAD (rarer ones, OSHA or CMS, stay). Not after "the", "by", "to",
"from", "of" or "U.S.": "approved by the Food and Drug Administration" is a sentence's
end, not a credit."""


def without_glued_pointer(unit: str) -> str:
    """Cut off a pointer sentence glued after a unit's last words.

    "... (done during EGD) You can learn more about these treatment options by clicking on
    the following links: ..." keeps its words before "You".
    The cut is at the last lost stop (`lost_stops`) before the pointer's words where a
    pointer sentence opens (`POINTER_OPENING`); a unit with no such stop, or whose
    remaining words are fewer than four, is left whole (and is then a pointer line).
    """
    found = PAGE_FURNITURE.search(unit)
    if not found:
        return unit
    stops = [
        at for at in lost_stops(unit) if at < found.start() and POINTER_OPENING.match(unit, at)
    ]
    if not stops or len(unit[: stops[-1]].split()) < 4:
        return unit
    return unit[: stops[-1]].rstrip()


POINTER_OPENING = re.compile(
    r"(?:You (?:can|may)|For (?:more|additional|further)|More|Additional|Further|To learn|"
    r"Learn|Visit|See|Click)\b"
)
"""How a glued pointer sentence opens ("You can learn more ...", "For more information ...")."""


SEE_ELSEWHERE = re.compile(r"\s*\((?:see|read) [^()]*\)", re.IGNORECASE)
"""A pointer in brackets to another part of the page or another page ("medicines (see
below)", "(See the PDQ summary on Cancer Pain for more information.)"): 69 of
MedQuAD's quotable units held one."""

SPACED_COLON = re.compile(r"(?<=[\w)])\s+:\s+")
"""A colon spaced on both sides ("physical exam and history : An exam ...")."""


GLUED_QUESTION = re.compile(
    r"^(?:What|How|Is|Are|Can|Could|Who|When|Why|Does|Do|Should|Will|Which)\b[^.?!]{3,200}\?"
    r"\s+(?=[A-Z](?:\S+\s+){3})"
)
"""A page's question glued before its answer's first sentence ("Is Ewing sarcoma an
inherited condition? This condition is generally not inherited ..."): 21 of MedQuAD's
144,301 quotable units opened so; all 21 read: the question, then its answer."""


LANGUAGE_LINK = re.compile(r"^Espa(?:ñ|n)?ol\s+(?=[A-Z])")
"""The link to a page's Spanish version, glued before its first sentence (NHLBI's "Espaol
High blood pressure is ..."; 18 MedQuAD units)."""


def clean_unit(unit: str) -> str:
    """Return a unit with glued footnote numbers, a credit line and a plain heading removed.

    A colon spaced on both sides (CancerGov's "physical exam and history : An exam of
    ...") is written as a colon; a pointer to elsewhere on the page in brackets is dropped
    and a pointer sentence glued on is cut off (`without_glued_pointer`); the page's
    question glued before the answer is cut off (`GLUED_QUESTION`).
    """
    text = CREDIT.sub("", strip_footnotes(" ".join(unit.split())))
    text = without_glued_pointer(SEE_ELSEWHERE.sub("", SPACED_COLON.sub(": ", text)))
    text = GLUED_QUESTION.sub("", text.lstrip(" :"))  # a pointer that opened it: gone
    text = LANGUAGE_LINK.sub("", BELOW_ASIDE.sub("", text))
    if KEY_POINTS.match(text):
        rest = KEY_POINTS.sub("", text)
        return rest[:1].upper() + rest[1:]
    return strip_heading(text)


PRONOUNCED_NAME = re.compile(
    r"^[A-Z][\w'’-]*(?:\s+[\w'’-]+){0,2}\s*\((?=[^)]*[A-Z]{2})[a-z]*(?:-[A-Za-z]+)+\)[.:]?$"
)
"""A name of three words at most and how to say it, alone: "Sleep paralysis
(pah-RAL-ih-sis)." (NHLBI's pages open so; 136 MedQuAD answers hold a pronunciation, 10
distinct units are one alone, all read: names)."""


TITLE_ONLY = re.compile(
    r"^[A-Z][\w'’-]*(?:\s+(?:[A-Z0-9][\w'’-]*|of|for|and|the|an?|to|in|with|or|on|at|by))+$"
)
"""Capitalised words and small words alone, with no stop: a caption, a heading or an
agency's name ("Example of an Inheritance Pattern for Cystic Fibrosis"); 21 distinct
MedQuAD units, all such."""


NOUNS_TOO = frozenset({"causes", "means"})
"""Finite verbs that are nouns as often: a heading of three words ("Other causes.") holds
one."""

SHORT_SENTENCE_VERBS = (
    *(verb for verb in FINITE_VERBS if verb not in NOUNS_TOO),
    *"""be vary recover recovers spread spreads persist persists exist exists help occur
    develop develops improve improves resolve resolves worsen worsens matter matters happen
    include includes isn't aren't doesn't don't can't won't""".split(),
)
"""`standalone.FINITE_VERBS` but those that are nouns too (`NOUNS_TOO`), and the verbs a
unit of three words states alone ("Most people recover.", "Pinworms spread easily.",
"Thrombocythemia isn't common.")."""

SHORT_SENTENCE_VERB = re.compile(
    rf"(?i:\b(?:{'|'.join(SHORT_SENTENCE_VERBS)})\b)|"
    r"(?i:^(?:ask|take|wear|call|talk|avoid|drink|eat|get|keep|stop|use|tell|try|check|"
    r"never|don't|quit|see|seek|limit|protect|manage|reduce|prevent)\s)|"
    r"^[A-Z][\w'-]* (?!and\b|or\b)[a-z]+[^\Ws]s [a-z]+\.$|"
    r"^\S+\s+(?:\S+\s+)?[a-z]{3,}ed\.$",
)
"""A verb that makes three words a sentence ("Treatment is symptomatic.", "Medicines can
help.", "Most people recover.", "Pinworms spread easily.", "Symptoms improved.", an
instruction: "Ask a doctor.", "Quit smoking.", a verb between two words: "Heparin acts
quickly."), where "Gender and age." or "Surgery." is a list item without its lead-in (543
distinct MedQuAD units of under four words have no lead-in; the 56 with such a verb, or
an "-ed"/"-es" ending, were read: the rest are items, headings or citations). "Yes." and
"No." alone (23 MedQuAD answers open so) answer a question the quote does not carry."""


def unquotable_reason(unit: str) -> str | None:
    """Say why a (cleaned) unit is no answer to anyone's question, or None when it may be.

    Returns "resource list", "symptom table", "pointer line", "site notice", "says
    nothing" (`SAYS_NOTHING`), "glued list items", "fragment" (`MID_SENTENCE`,
    `ASIDE_LEAD`) or "heading only" (fewer than four
    words and no stop after removing the heading, or with a stop and no verb,
    `SHORT_SENTENCE_VERB`: "Gender and age.", unless a list item with its lead-in, "Signs
    include: hunger"; a name and its pronunciation alone:
    `PRONOUNCED_NAME`, or Title Case words alone: `TITLE_ONLY`).
    """
    text = unit.strip()
    if RESOURCE_LIST.search(text):
        return "resource list"
    if SYMPTOM_TABLE.search(text):
        return "symptom table"
    if (
        POINTER.search(text)
        or YOU_CAN_POINTER.match(text)
        or WEB_SITE_POINTER.search(text)
        or PAGE_FURNITURE.search(text)
        or AGENCY_LINE.match(text)
    ):
        return "pointer line"
    pointing = BELOW_ASIDE.sub("", text)  # an aside pointing down is cleaned off
    if POINTS_BELOW.search(pointing) and not POINTS_BELOW.search(lead_of(pointing)):
        return "pointer line"  # what it points at is not in it (a list's lead-in: it is)
    if SITE_NOTICE.search(text):
        return "site notice"
    if SAYS_NOTHING.match(text):
        return "says nothing"
    if GLUED_ITEMS.search(text) or _bullets_lost_after_colon(text):
        return "glued list items"
    if MID_SENTENCE.match(text) or ASIDE_LEAD.match(text):
        return "fragment"
    if (
        (
            len(text.split()) < 4
            and not _is_item(text)
            and not (text.endswith(".") and SHORT_SENTENCE_VERB.search(text))
        )
        or PRONOUNCED_NAME.match(text)
        or TITLE_ONLY.match(text)
    ):
        return "heading only"
    return None


def _bullets_lost_after_colon(text: str) -> bool:
    """Tell whether the run after a unit's colon lost three bullets or more (`run_after_colon`).

    Items long enough to read as sentences escape `GLUED_ITEMS` ("... is more likely to
    have asthma if: One or both parents have asthma The child has signs of allergies,
    including ... The child wheezes ...", quoted for "How is asthma diagnosed in
    children?"), and `standalone_units` leaves such a run whole; 67 more distinct MedQuAD
    units, 25 read: all glued items.
    """
    return run_after_colon(text) is not None


def _is_item(text: str) -> bool:
    """Tell whether a unit is a list item with its lead-in ("Signs include: hunger").

    The item is lower-case, as `standalone_units` writes an item after its lead-in; a
    capitalised one is a heading's ("Stage IV: Overview").
    """
    return bool(lead_of(text)) and text.partition(": ")[2][:1].islower()


PARAPHRASES = {
    "manner": "pattern",
    "altered": "changed",
    "mutated": "changed",
    "sufficient": "enough",
    "disorder": "condition",
}
"""Words two MedQuAD pages swap when one restates the other, read as one word by
`near_duplicate`: GARD's "Noonan syndrome is inherited in an autosomal dominant manner.
This means that having one changed (mutated) copy of the responsible gene in each cell is
enough to cause the condition" restates GHR's "This condition is inherited in an
autosomal dominant pattern, which means one copy of the altered gene in each cell is
sufficient to cause the disorder" (9 of its 13 words written alike; all 12 folded).
Across every focus's pages, 62 more cross-page pairs pass the overlap folded (and a
63rd, "Most forms ... autosomal recessive" / "Several rare forms ... autosomal dominant",
that `CONTRASTS` keeps apart); 40 read: 36 restatements, 3 nearly (the shorter adds
"rare", "obstructive"), 1 a short sentence matched inside a long one about another
condition ("Cushing's syndrome is a hormonal disorder" / "... pseudo-Cushing's syndrome,
a condition ..."): benchmarks/cross_page_restatements.py, docs/benchmarks/
restatements.md."""

CONTRASTS = (
    ("dominant", "recessive"),
    ("autosomal", "x"),  # "x-linked" reads as "x", "linked"
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("high", "low"),
    ("higher", "lower"),
    ("upper", "lower"),
    ("more", "less"),
    ("more", "fewer"),
    ("common", "rare"),
    ("child", "adult"),
    ("children", "adults"),
    ("men", "women"),
    ("male", "female"),
    ("males", "females"),
    ("acute", "chronic"),
    ("benign", "malignant"),
    ("before", "after"),
)
"""Word pairs whose one side in one text and other side in the other make two texts say
different things however many words they share: "Before age 55, men are more likely
than women to develop high blood pressure" / "After age 55, women are more likely than
men ...", an atrial / ventricular defect's "upper" / "lower" chambers, low- / high-grade
treatments. Of MedQuAD's 11,596 unit pairs on one focus (one page or two) that
`near_duplicate` would call one without them, 35 hold a contrast, all read: none restates
the other (radiation "before" / "after surgery", low- / high-grade, men / women; some a
short sentence matched inside a long one) (benchmarks/cross_page_restatements.py)."""

_OPPOSITES: dict[str, frozenset[str]] = {
    word: frozenset(b if word == a else a for a, b in CONTRASTS if word in (a, b))
    for pair in CONTRASTS
    for word in pair
}


def near_duplicate(first: str, second: str, overlap: float = 0.8) -> bool:
    """Tell whether two units say the same thing: most content words of the shorter shared.

    Two naming different kinds of one name by letter or number say different things
    ("You could get hepatitis A through contact with an infected persons stool" / "...
    hepatitis B ... blood", "Type 1 diabetes ..." / "Type II diabetes ...":
    `different_kinds`), and so do two writing the two sides of a contrast ("before" /
    "after", "dominant" / "recessive": `contrasting`). Words pages swap when restating
    ("manner" / "pattern": `PARAPHRASES`) count as one. (A negation on one side only was
    read as different too, and let restatements in: "In general, there is no one cause or
    risk factor for depression ..." beside "The risk factors for depression are family
    history, life experiences, and environment".)
    """
    if content_overlap(first, second) < overlap:
        return False
    return not different_kinds(first, second) and not contrasting(first, second)


def _folded(text: str, fold: bool) -> set[str]:
    words = _content(text)
    return {PARAPHRASES.get(word, word) for word in words} if fold else set(words)


def content_overlap(first: str, second: str, *, fold: bool = True) -> float:
    """Return the share of the shorter text's distinct content words the other writes too.

    Words pages swap when restating (`PARAPHRASES`) count as one unless `fold` is False;
    0.0 when either text has no content word.
    """
    a, b = _folded(first, fold), _folded(second, fold)
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def contrasting(first: str, second: str) -> bool:
    """Tell whether one text writes a word the other does not and the other its opposite.

    The opposites are `CONTRASTS`' ("Before age 55, men ..." / "After age 55, women ...").
    """
    a, b = set(_content(first)), set(_content(second))
    only_b = b - a
    return any(_OPPOSITES.get(word, frozenset()) & only_b for word in a - b)


def different_kinds(first: str, second: str) -> bool:
    """Tell whether two texts number or letter one name differently ("hepatitis A" / "B").

    Only a kind's letter ("hepatitis", "vitamin": `numbering.LETTERED`) or a numbering
    word's number ("type 2 diabetes": `numbering.NUMBERING_WORDS`) counts: "Call 911" and
    "Call 9-1-1", "after age 50" and "after age 60" name no kinds.
    """
    kinds_a, kinds_b = numbered(first), numbered(second)
    return any(
        (" " in word or word in LETTERED_NAMES) and word in kinds_b and kinds_b[word] != numbers
        for word, numbers in kinds_a.items()
    )


LIST_HEDGES = frozenset(
    "some all forms types kinds common other most many main several these may also usually"
    " often".split()
)
"""A list lead-in's words that say how much of a list is given, not what it is about
("Some, but not all, forms of treatment for leukemia include: ...")."""

BUT_NOT_ALL = re.compile(r"\bbut not all\b", re.IGNORECASE)
NEGATION = re.compile(r"\b(?:not|no|cannot|never|without)\b|n't\b", re.IGNORECASE)
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _stems(text: str) -> set[str]:
    return {_stem(word) for word in _content(text)}


def _topic(lead: str) -> set[str]:
    """Return a lead-in's stems but for the words saying how much of the list is given."""
    return {_stem(w) for w in _content(BUT_NOT_ALL.sub("", lead)) if w not in LIST_HEDGES}


def restates_list(listed: str, other: str) -> bool:
    """Tell whether a list ("Lead: a; b; c") names only what another unit already says.

    Every item's content words (plurals folded) are among the other's, and so are the
    lead-in's, but for the words saying how much of the list is given (`LIST_HEDGES`):
    "Some, but not all, forms of treatment for leukemia include: chemotherapy; biological
    therapy; radiation therapy" restates "Standard treatments for leukemia include
    chemotherapy, biological therapy, radiation therapy, and immunotherapy", a
    restatement below `near_duplicate`'s overlap (6 of 9 words). A list of two items at
    least: one item is a sentence, which `near_duplicate` reads. The lead-in must name
    what the list is of, past its type's words ("Symptoms may include: fever; cough"
    names nothing: beside "Cold symptoms include fever, cough ..." it may be another
    condition's). Items are read as bags of words, not in order ("pain in the legs;
    swelling of the arms" is restated by "... pain in the arms and swelling of the legs":
    left, rare beside a lead-in naming the subject). Nothing is restated by
    a unit on another subject ("Cold symptoms include: fever; cough" beside flu's), by a
    list under another lead-in (the colon's carcinoid symptoms beside the jejunum's, whose
    lead-in names the colon), by one negated where the list is not or the other way
    ("... that can be removed with surgery" / "... cannot be removed", "patients who do
    have AIDS" / "... do not have AIDS"), or by one lacking a number the list gives
    (staging categories). Over MedQuAD's 4,742 foci, each answer cut and merged as
    quoted, 50 of the 4,124 distinct lists are restated by another unit on their focus; of
    30 read, all are (the same list as a sentence, or a shorter copy of a longer list);
    the rules after the first two left out 9 of 10 found inside one answer, all wrongly
    (a stage that "can" / "cannot be removed with surgery", staging categories).
    """
    lead = lead_of(listed)
    items = [item for item in listed[len(lead) + 2 :].split("; ") if _stems(item)] if lead else []
    if len(items) < 2:
        return False
    other_lead = lead_of(other)
    said = _stems(other)
    topic = _topic(lead)
    return (
        bool(topic - {"include", "symptom", "sign", "cause", "treatment"})
        and all(_stems(item) <= said for item in items)
        and topic <= said
        and (not other_lead or _topic(other_lead) == topic)
        and bool(NEGATION.search(BUT_NOT_ALL.sub("", listed)))
        == bool(NEGATION.search(BUT_NOT_ALL.sub("", other)))
        and set(NUMBER.findall(listed)) <= set(NUMBER.findall(other))
        and not different_kinds(listed, other)
    )


def lead_of(unit: str) -> str:
    """Return a list item's lead-in ("Symptoms may include" of "Symptoms may include: x")."""
    head, sep, _ = unit.partition(": ")
    return head if sep and len(head.split()) >= 2 else ""


RUNS_ON = re.compile(r"\b(?:such as|including|include|includes|like|e\.g|for example)$", re.I)
"""An item's last words announcing the items after it: "certain medications such as"."""


def merge_items(units: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Quote a list's items as one unit: "Lead: a", "Lead: b" -> "Lead: a; b".

    Units are (text, source id); items merge only with items of the same lead-in from the
    same source, into the place of the first (`item_rows`). Trailing stops, commas and
    semicolons are dropped before joining ("salicylic acid,; anthralin" read badly). An
    item announcing the next (`RUNS_ON`: "certain medications such as", a nested list
    flattened) runs on into it without a semicolon.
    """
    merged: list[tuple[str, str]] = []
    for (text, source), row in zip(units, item_rows(units), strict=True):
        if row < len(merged):  # a later item of a list already placed
            item = text[len(lead_of(text)) + 2 :].rstrip(" .,;")
            before = merged[row][0].rstrip(" .,;")
            joint = " " if RUNS_ON.search(before) else "; "
            merged[row] = (f"{before}{joint}{item}.", source)
        else:
            merged.append((text, source))
    return merged


def item_rows(units: Sequence[tuple[str, str]]) -> list[int]:
    """Return each unit's row in `merge_items(units)`: a list's items share their list's."""
    rows: list[int] = []
    where: dict[tuple[str, str], int] = {}
    placed = 0
    for text, source in units:
        key = (lead_of(text), source)
        if key[0] and key in where:
            rows.append(where[key])
            continue
        if key[0]:
            where[key] = placed
        rows.append(placed)
        placed += 1
    return rows


def without_duplicates(units: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Keep the first of each group of near-duplicate units ((text, source id) pairs)."""
    kept: list[tuple[str, str]] = []
    for text, source in units:
        if not any(near_duplicate(text, other) for other, _ in kept):
            kept.append((text, source))
    return kept


@lru_cache(maxsize=4096)
def quotable_texts(text: str) -> tuple[str, ...]:
    """Return a passage's units an answer may quote, cleaned, in order (cached by text).

    A unit is left out when it, or its cleaned form, is no answer (`unquotable_reason`),
    holds no word, or is a question (MedQuAD pages repeat theirs as headings; a passage
    holding only its question and a symptom table has nothing to quote). Retrieval (which
    passages hold anything quotable) and the extract (which units to quote) read the same
    passages, so the work is done once per passage text.
    """
    return tuple(
        cleaned
        for unit in standalone_units(text)
        if unquotable_reason(without_glued_pointer(unit)) is None
        and unquotable_reason(cleaned := clean_unit(unit)) is None
        and re.search(r"[A-Za-z]{2,}", cleaned)  # a word of two letters at least
        and not cleaned.rstrip().endswith("?")  # MedQuAD pages repeat their question
    )


def has_quotable(text: str) -> bool:
    """Tell whether a passage holds any unit an answer may quote (not all resource lists)."""
    return bool(quotable_texts(text))
