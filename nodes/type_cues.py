"""Type cues: the words saying that a question or a unit is about a question type.

On a unit's side, `asked_cues` is the test of a unit of a page of the asked type (the
type's cue stems, `QuestionTypeClassifier.mentions`, and for some types what the stems
miss: signs people have, how an infection is caught, how long an illness lasts, whether
genes play a part); retrieval prefers the passages holding such a unit
(`nodes.grounding.type_words_first`) and the answer quotes them (`nodes.answer_units`).
On a question's side, `asks_how_caught` and `searched_type` read a question asking how an
infection is caught, whatever type the classifier gives it. Both sides live here because
they share what a cancer's spread is not (`NOT_CAUGHT`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from veriloop.nodes.question_type import question_types

SHOWS_SIGNS = re.compile(
    r"(?:(?:most|many|some|affected) )?(?:people|persons|individuals|children|adults|"
    r"patients|women|men|infants|babies) (?:with|who have) [^.,;]{2,60}? "
    r"(?:may|can|often|usually|typically|commonly|also|sometimes)(?: not)? "
    r"(?:have|lose|become|feel|experience|develop|notice|show|suffer|see|be able)\b",
    re.IGNORECASE,
)
"""A sentence saying what people with the condition have or lose: signs, whatever the
page's type ("People with dementia may not be able to think well enough ...", "People
with ring chromosome 20 often have recurrent seizures"). Of the 1,156 MedQuAD units
opening so with any verb, two thirds sit on GARD's overviews, which describe features."""

SPREAD_BY = re.compile(
    r"\b(?:(?<!\bthe\s)(?<!\bits\s)(?<!\bof\s)(?:spreads?|is spread|are spread)"
    r"(?!\s+(?:from|to)\s+(?:the|your|his|her|their)\b)|"
    r"is transmitted|are transmitted|is passed|are passed|catch(?:es)?|"
    r"get(?!\s+(?:better|worse|well|enough|more|less|rid|help|care|relief|plenty|information|"
    r"advice|support|as)\b)"
    r"(?!\s+(?:sick|ill)\s+(?!from\b)))"
    r"\s+(?:[a-z]+\s+){0,5}?(?:through|by|from|via|when|during)\b[^.]{0,80}?"
    r"\b(?:infected|contact|person|people|someone|sex|sexual|contaminated|mosquito(?:es)?|"
    r"bites?|ticks?|droplets|cough\w*|sneez\w*|needles?|animals?|feces|stools?|partners?|"
    r"swallow\w*\s+(?:their\s+|the\s+|its\s+)?eggs|hands?)\b"
    r"|\b(?:give|pass|spread)\s+(?:it|the (?:virus|infection|disease))\s+to\b"
    r"|\b(?:pass(?:es)?|travel(?:s)?)\s+through\s+the\s+air\b(?!\s+sacs?\b)",
    re.IGNORECASE,
)
"""A sentence saying how an infection is caught: what causes it, to the person asking
("HIV most often spreads through unprotected sex with an infected person", "You can catch
mumps by being with another person who has it", "Women can give it to their babies").
It finds 193 MedQuAD units (cancer's spread through tissue left out: `NOT_CAUGHT`); of 40
read, 39 say how a disease is caught or that it is not, one where imported cases come
from. Not: a spread over the body ("spreads from the face to the trunk") or getting
better or enough of something ("get better by ... avoiding contact with others"), sick
but not from what is named ("get sick more often from flu"; "get sick from contaminated
food" is caught). Up to five words may stand between the verb and its route, and
swallowing or hands are routes: MedlinePlus's Pinworms page says "You get them when you
swallow their eggs" and "They can spread the eggs to others directly through their
hands", and "How do you get pinworms?" was refused softly; swallowing counts only of
eggs ("get heartburn when they swallow" is a symptom); "the spread of germs" ("its", "of
spread") is no verb (stopping it is prevention), nor getting information or advice. On the 109,499
distinct units MedQuAD's answers are quoted as, matches went 181 -> 184: 4 gained (the
two pinworm units; syphilis sores making it "easier to get or give someone HIV during
sex"; a CJD variant "from eating beef from an infected animal"), 1 lost (stopping "the
spread of germs by covering your mouth ... when you sneeze"). Passing or travelling
"through the air" is a route (MedlinePlus's Flu page: "The viruses pass through the air and
enter your body ...", and "Is the flu contagious?" was answered from the H1N1 page), but
not into the air sacs ("Oxygen passes through the air sacs ..."): on the 109,530 units of
2026-12-02, 184 -> 185 matches, the Flu unit gained (without the air-sacs guard 4 more, all
about breathing)."""

NOT_CAUGHT = re.compile(r"\b(?:cancers?|tumou?rs?|lymph|metasta\w*)\b", re.IGNORECASE)
"""A cancer's spread through tissue and blood, which is its stage, not its cause."""


def says_how_caught(unit: str) -> bool:
    """Tell whether a unit says how an infection is caught (`SPREAD_BY`)."""
    return bool(SPREAD_BY.search(unit)) and not NOT_CAUGHT.search(unit)


_COUNT = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a\s+few|several|"
    r"a\s+couple\s+of|an?)"
)
_UNIT = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)"
_SPAN = rf"{_COUNT}(?:\s*(?:-|–|to|or|and)\s*{_COUNT})?\s*{_UNIT}\b"  # "7-10 days", "a week"
_NOT_A_DATE = "".join(  # "the last 6 months", "your last 2 periods", "at last 2 weeks later"
    rf"(?<!\b{word}\s)" for word in ("the", "your", "my", "her", "his", "their", "its", "our", "at")
)
_ABOUT = (  # "lasts only 1 or 2 days", "last anywhere from a few seconds ..."
    r"(?:(?:about|around|approximately|roughly|only|just|at\s+least|up\s+to|anywhere\s+from|"
    r"from|between|(?:less|more)\s+than)\s+){0,2}"
)
HOW_LONG = re.compile(
    r"\b(?:(?:get|gets|getting|feel|feels)\s+better|recover\w*|go(?:es)?\s+away|"
    rf"clears?\s+up|heals?|resolves?|improves?|subsides?|{_NOT_A_DATE}last(?:s|ing)?|"
    rf"disappears?)\s+(?:\w+\s+){{0,3}}?(?:with)?in\s+{_ABOUT}{_SPAN}|"
    rf"{_NOT_A_DATE}\blast(?:s|ing)?\s+(?:for\s+)?{_ABOUT}{_SPAN}|"
    rf"{_NOT_A_DATE}\b(?:last(?:s|ing)?|continu(?:e|es|ing)|go(?:es)?\s+on|persist(?:s|ing)?)"
    r"\s+for\s+(?:many\s+|several\s+)?(?:days|weeks|months|years)\b",
    re.IGNORECASE,
)
"""How long an illness or its episodes last, or how soon people get better ("Most people
get better in two to four weeks", "The illness usually lasts one week", "The pain of
shingles may last for weeks, months, or even years"; not "in the last 6 months", "your
last 2 periods"): what "How long does mononucleosis last?" asks of its
outlook. A count is a number, a word ("nine", "a few", "a", "an") or a range ("7-10 days",
"3 to 4 weeks", "between a few hours and a day"), always with its unit, after "about",
"only", "at least", "anywhere from", ... Of MedQuAD's 114,303 distinct quotable units 290
match; the first form (no unit needed after "lasts", no "a", "lasting", seconds, minutes,
"more than" or "only") matched 182: the change lost one ("women in their last 3 months
of pregnancy", no duration) and gained 109 (of 77 read, all say how long an illness, an
episode or a symptom lasts or how soon it passes; a few, such as "A normal pregnancy
lasts nine months", of something that is no illness). Without the "the last" guard the
first form matched 202: "in the last 6 months" and the like. On 2026-12-02 (109,530
units) 288 -> 350: "subsides within 3 to 5 weeks" (the NINDS Shingles outlook's), and
lasting, continuing, going on or persisting "for (many, several) days / weeks / months /
years" with no count (MedlinePlus's "The pain of shingles may last for weeks, months, or
even years ..."); of the 62 gained, read whole, all but four say how long an illness, an
episode or a symptom lasts (those: climate change, a contraceptive's protective effect,
treatment time, the definition of late effects)."""


def says_how_long(unit: str) -> bool:
    """Tell whether a unit says how long an illness lasts or how soon it passes (`HOW_LONG`)."""
    return bool(HOW_LONG.search(unit))


ASKS_HOW_LONG = re.compile(
    r"\bhow\s+long\s+(?:does|do|did|will|would|can|could|is|are|should|may|might)\b", re.I
)
"""A question asking how long something lasts ("How long does shingles pain last?")."""

NOT_HOW_LONG_ASKED = re.compile(
    r"\b(?:live|lives|living|survive\w*|contagious|infectious|take|taking|use|using|wait\w*|"
    r"stay|keep|life\s+expectancy)\b",
    re.IGNORECASE,
)
"""How long someone lives or may wait, stays contagious or takes a medicine: no illness's
course (`says_how_long` units do not answer those)."""


def asks_how_long(question: str) -> bool:
    """Tell whether a question asks how long an illness or its symptoms last.

    Not how long one lives with it, is contagious, or should take or wait for something
    (`NOT_HOW_LONG_ASKED`).
    """
    return bool(ASKS_HOW_LONG.search(question)) and not NOT_HOW_LONG_ASKED.search(question)


GENES_PLAY_A_PART = re.compile(
    r"\bgenetics?\s+(?:and\s+(?:the\s+)?environment\w*\s+(?:factors\s+)?)?"
    r"(?:may\s+|might\s+|also\s+|likely\s+)*(?:plays?|contributes?)\b"
    r"|\b(?:both\s+)?(?:genes|genetics)\s+and\s+(?:the\s+)?environment"
    r"|(?<!non-)(?<!non)\bgenetic\s+(?:factors?|component|link|basis|predisposition|"
    r"susceptibility|tendency)\b"
    r"|\b(?:is|are)\s+(?:not\s+)?(?:usually\s+|often\s+|sometimes\s+|mostly\s+)?genetic\b"
    r"(?!\s+(?:changes?|mutations?|disorders?|conditions?|tests?|testing|counseling|material))"
    r"|(?<!\bthe\s)(?<!\bthese\s)(?<!\bwhich\s)(?<!\bfour\s)(?<!\bthree\s)(?<!\btwo\s)"
    r"(?-i:(?<![A-Z0-9]\s))\bgenes\s+(?:may\s+|might\s+|also\s+)*play\b",
    re.IGNORECASE,
)
"""A unit saying whether genes play a part: "both genetics and environment play a role",
"Most of the time, color blindness is genetic", "a genetic predisposition to
hypersomnia". What "Is autism genetic?" asks, where the subject has no inheritance page
(Autism's overview says it; the question was refused). Not named genes' molecular work
("the EYA1, SIX1, and SIX5 genes play important roles in development", "These four genes
play a role in cell signaling"), a genetic test, "non-genetic factors", or "a genetic
condition" (true of every GHR page, and no word on whether it runs in families). On the
20,000-unit sample of `benchmarks/cue_words.py` (seed 0) it adds 26 units to the
inheritance cues' 2,264 (1 of the type: the sample's labels are the answer's type, and
these sit on overview and causes pages); recall 0.921 -> 0.922, precision 0.324 ->
0.321; all 26 say whether genes play a part."""


def says_genes_matter(unit: str) -> bool:
    """Tell whether a unit says that genes play a part in a condition (`GENES_PLAY_A_PART`)."""
    return bool(GENES_PLAY_A_PART.search(unit))


ASKS_HOW_CAUGHT = re.compile(
    r"\b(?:spread|spreads|spreading|catch(?!\s+up\b)|catching|caught|contagious|"
    r"transmit\w*|transmission)\b",
    re.IGNORECASE,
)
"""A question asking how an infection is caught ("How is tuberculosis spread?", "Is
shingles contagious?", "Can you catch mumps twice?"); not "catch up"."""

NOT_CAUGHT_ASKED = re.compile(
    r"\b(?:inherit\w*|hereditary|genetic\w*|genes?|lymphomas?|melanomas?|sarcomas?|"
    r"carcinomas?|myelomas?|gliomas?|blastomas?|mesotheliomas?|leuka?emias?)\b",
    re.IGNORECASE,
)
"""Words that make a question's "spread" or "transmitted" no infection's: inheritance ("Is
hemophilia transmitted genetically?") or a cancer not named "cancer" ("Has my lymphoma
spread?"); `NOT_CAUGHT` covers the rest."""


def asks_how_caught(question: str) -> bool:
    """Tell whether a question asks how or whether an infection is caught.

    Not a cancer's spread ("Has my cancer spread?": `NOT_CAUGHT`, `NOT_CAUGHT_ASKED`), nor
    a condition passed down a family ("Is hemophilia transmitted genetically?").
    """
    return (
        bool(ASKS_HOW_CAUGHT.search(question))
        and not NOT_CAUGHT.search(question)
        and not NOT_CAUGHT_ASKED.search(question)
    )


def searched_type(question: str, asked: str | None) -> str | None:
    """Return the type of passages to search for: none for how it is caught, read as risk.

    MedQuAD's "susceptibility" pages say who is at risk ("Anyone can get hepatitis B, but
    those more likely to are people who ..."), never how an infection spreads; a question
    asking that (`asks_how_caught`: "Is hepatitis B contagious?") read as susceptibility is
    searched on all the subject's pages, whose units saying it (`says_if_caught`) the
    answer then quotes ("Hepatitis B spreads by contact with an infected person's blood");
    one asking who catches it (`ASKS_WHO`) keeps its type.
    """
    caught = asks_how_caught(question) and not ASKS_WHO.search(question)
    return None if asked == "susceptibility" and caught else asked


ASKS_WHO = re.compile(r"\b(?:who|risks?|likely|likelier)\b", re.IGNORECASE)
"""Words asking who is at risk ("Who is at risk of catching hepatitis B?"): such a
question wants the susceptibility pages, however it names the infection's spread."""


def asked_cues(asked: str | None, *, alone: bool = False) -> Callable[[str], bool] | None:
    """Return the cue test of a unit of a page of the asked type (None: no test).

    A unit holds the type's words when it holds one of its cue stems
    (`QuestionTypeClassifier.mentions`; where the words decide `alone`, not the learned
    stems that are stop words, "you", nor the type's thin stems), or for symptoms when it
    says what people with the condition have or lose (`SHOWS_SIGNS`), for causes when it
    says how an infection is caught (`says_how_caught`), for outlook when it says how long
    the illness lasts (`says_how_long`), for inheritance when it says genes play a part
    (`says_genes_matter`); "information" (what it is) has no test.
    On a page of the asked type the words pick the sentences that say it (`prefer`);
    on the subject's other pages the unit-type classifier decides (`TypeTest`).
    """
    if not asked or asked == "information":
        return None
    classifier = question_types()

    def holds(text: str) -> bool:
        return classifier.mentions(asked, text, alone=alone)

    if asked == "symptoms":  # "People with dementia may lose their ability to ...": signs
        return lambda text: holds(text) or bool(SHOWS_SIGNS.match(text))
    if asked == "causes":  # "HIV most often spreads through unprotected sex": how caught
        return lambda text: holds(text) or says_how_caught(text)
    if asked == "outlook":  # "Most people get better in two to four weeks": how long
        return lambda text: holds(text) or says_how_long(text)
    if asked == "inheritance":  # "both genetics and environment play a role": genes' part
        return lambda text: holds(text) or says_genes_matter(text)
    return holds
