"""Pages about a treatment that say it treats the subject: where its own pages say none.

A condition's own pages may say that it is treated and not how: MedlinePlus's Menopause
page says "Some symptoms require treatment" and names none, and "what helps with
menopause hot flashes" quoted that and a sentence about telling the doctor your medical
history. Its Hormone Replacement Therapy page says "This can cause symptoms such as hot
flashes and vaginal dryness. Some women take hormone replacement therapy (HRT), also
called menopausal hormone therapy, to relieve these symptoms." MedQuAD files such pages
under the treatment's name (about 45 MedlinePlus pages are named as a therapy, medicines,
surgery, a transplantation ...), so the subject rule sets them aside; these are the ones
that vouch in words for treating the subject:

- `treating_pages`: the candidates named as a treatment with a unit an answer may quote
  that says it treats, relieves or manages something and names the subject, each marked
  with that unit (`treats`) and the subject's page (`named_by`);
- `names_a_treatment`: whether the subject's own quoted units name a treatment, in which
  case they answer and no treatment's page replaces them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veriloop.knowledge.corpus_index import lexical_tokens
from veriloop.knowledge.medquad import page_name
from veriloop.knowledge.sources import SourcePassage
from veriloop.knowledge.stated_names import own_name
from veriloop.quotable import quotable_texts

TREATMENT_NAME = re.compile(
    r"^(?!after\b).*\b(?:therapy|therapies|medicines|medications|drugs|surgery|transplantation|"
    r"replacement|relievers|rehabilitation|dialysis|chemotherapy|vaccines|implants)$",
    re.IGNORECASE,
)
"""A page named as a treatment: its name ends in what is given ("Hormone Replacement
Therapy", "Blood Pressure Medicines", "Kidney Transplantation", "Pain Relievers"); not
"Drugs and Young People" or "Medication Errors", which end otherwise, nor "After Surgery",
which names a time."""

SAYS_IT_TREATS = re.compile(
    r"\b(?:to\s+(?:relieve|treat|ease|manage|control)|treats?|relieves?|eases?|"
    r"(?:is|are)\s+used\s+(?:to\s+treat|for))\b",
    re.IGNORECASE,
)
"""A unit saying what a treatment is given for ("Some women take hormone replacement
therapy ... to relieve these symptoms", "Antibiotics treat bacterial infections")."""

NEGATED = re.compile(r"\b(?:not|cannot|can't|don't|doesn't|won't|never)\b", re.IGNORECASE)
"""A unit saying what a treatment does not do ("These can't cure your lung disease or
completely ease your breathing problems")."""


TREATMENT_GIVEN = re.compile(
    r"\b(?:medicines?|medications?|drugs?|surgery|surgeries|operations?|therap(?:y|ies)|"
    r"antibiotics?|vaccines?|transplant\w*|dialysis|chemotherapy|radiation|hormones?|"
    r"pills?|creams?|injections?|exercises?|counseling|acetaminophen|ibuprofen|aspirin)\b",
    re.IGNORECASE,
)
"""A unit naming a treatment given ("medicines such as acetaminophen", "surgery"); "Some
symptoms require treatment" names none."""


def names_a_treatment(units: Sequence[str]) -> bool:
    """Tell whether any of the units names a treatment given (`TREATMENT_GIVEN`).

    The subject's own quoted units that name one answer a treatment question themselves
    (MedlinePlus's Fever: "... over-the-counter medicines such as acetaminophen or
    ibuprofen ..."), and a treatment's page does not replace them.
    """
    return any(TREATMENT_GIVEN.search(unit) for unit in units)


def names_subject(unit: str, subject: str) -> bool:
    """Tell whether a unit writes a subject's whole name, stemmed ("menopausal": Menopause).

    The name's index words (`lexical_tokens`, the page name without its parenthesis) must
    stand together in the unit's, and a one-character word of it ("Q fever", "Hepatitis
    B") be written as such: "ease fever" names no Q fever, "relieve ... pains" no Paine
    syndrome.
    """
    return _writes_name(unit, lexical_tokens([unit])[0], _name_words(subject))


def _name_words(subject: str) -> tuple[list[str], list[str]]:
    """Return a subject's name as index words, and its one-character words."""
    name = own_name(page_name(subject))
    return lexical_tokens([name])[0], [w for w in re.findall(r"[A-Za-z0-9]+", name) if len(w) == 1]


def _writes_name(unit: str, have: list[str], name: tuple[list[str], list[str]]) -> bool:
    """Tell whether a unit (and its index words `have`) writes a name (`_name_words`)."""
    wanted, short = name
    width = len(wanted)
    if not width or not any(have[i : i + width] == wanted for i in range(len(have) - width + 1)):
        return False
    return all(re.search(rf"\b{re.escape(w)}\b", unit, re.IGNORECASE) for w in short)


def treating_pages(found: Sequence[SourcePassage], subjects: Sequence[str]) -> list[SourcePassage]:
    """Return the candidates of pages named as a treatment that say they treat a subject.

    Args:
        found: The search's candidates, of every page.
        subjects: The foci of the subject's own pages ("Menopause").

    Returns:
        Each passage of a page whose name is a treatment's (`TREATMENT_NAME`) and none of
        `subjects`, holding a quotable unit that says what it is given for
        (`SAYS_IT_TREATS`, not `NEGATED`) and writes a subject's whole name
        (`names_subject`), in the search's order; each marked with that unit (`treats`)
        and the subject it names (`named_by`).
    """
    names = {title: _name_words(title) for title in dict.fromkeys(subjects) if title}
    kept: list[SourcePassage] = []
    for passage in found:
        title = passage.get("title") or ""
        if not title or title in names or not TREATMENT_NAME.search(page_name(title)):
            continue
        for unit in quotable_texts(passage["text"]):
            if not SAYS_IT_TREATS.search(unit) or NEGATED.search(unit):
                continue
            have = lexical_tokens([unit])[0]  # tokenised once, read against each name
            named = next((s for s, name in names.items() if _writes_name(unit, have, name)), None)
            if named:
                kept.append({**passage, "treats": unit, "named_by": named})
                break
    return kept
