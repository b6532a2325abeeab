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

from veriloop.text import split_sentences

ANAPHORS = re.compile(
    r"^(these|this|those|that|it|its|they|their|them|such|he|she|both|either|neither)\b",
    re.IGNORECASE,
)
"""Openings whose meaning hangs on an earlier sentence."""

BOILERPLATE = re.compile(
    r"would like to thank|is not copyrighted|encourages? (people|users|you) to share|"
    r"check (the|our) list of|clinical trials? (that are|search)|listing of clinical trials|"
    r"(for|to) (more|additional) information,? (see|visit|contact|call)|"
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

FIRST_PERSON = re.compile(
    r"^(-\s*)?(i|i'm|i've|my|we)\b|\bI (have|had|am|was|do|did|'m|'ve)\b", re.IGNORECASE
)
"""Checklist lines written as the reader ("I have had gestational diabetes")."""

LIST_ITEM = re.compile(r"^\s*[-•*]\s+")
LEAD_IN = re.compile(r"\s+-\s+")


def is_boilerplate(sentence: str) -> bool:
    """Tell whether a sentence is page furniture or a first-person checklist line."""
    text = sentence.strip()
    return bool(BOILERPLATE.search(text) or FIRST_PERSON.match(text))


def _items(sentence: str) -> tuple[str, list[str]]:
    """Split "Lead-in - item one. - item two" into ("Lead-in", ["item one.", ...])."""
    parts = LEAD_IN.split(" " + sentence.strip())
    head = parts[0].strip()
    return head, [p.strip() for p in parts[1:] if p.strip()]


def _with_lead(lead: str, item: str) -> str:
    """Return a list item prefixed with its lead-in, as one sentence."""
    lead = lead.rstrip(" :.")
    if not lead:
        return item
    first = item[:1].lower() + item[1:] if item[:2].isalpha() and not item[:2].isupper() else item
    return f"{lead}: {first}"


def standalone_units(text: str) -> list[str]:
    """Return the text's sentences as units that can be quoted alone, boilerplate left out.

    List items carry their lead-in; a sentence opening with an anaphor is joined to the one
    before it; boilerplate and first-person lines are dropped (and an anaphor after a
    dropped line is dropped with it: its antecedent is gone).
    """
    units: list[str] = []
    lead = ""
    previous_dropped = False
    for sentence in split_sentences(text):
        head, items = _items(sentence)
        if LIST_ITEM.match(sentence):  # "- item" continuing the current list
            head, items = "", [LIST_ITEM.sub("", sentence)]
        if items:
            if head:
                lead = head
            for item in items:
                if is_boilerplate(item) or (lead and is_boilerplate(lead)):
                    continue
                units.append(_with_lead(lead, item))
            previous_dropped = False
            continue
        if head.endswith(":"):
            lead = head  # the lead-in of the items that follow
        if is_boilerplate(sentence):
            previous_dropped = True
            continue
        if ANAPHORS.match(sentence):
            if not units or previous_dropped:  # its antecedent is not in this text
                previous_dropped = True
                continue
            units[-1] = f"{units[-1]} {sentence}"
        elif head.endswith(":"):
            continue  # a bare lead-in is quoted with its items, not alone
        else:
            units.append(sentence)
        previous_dropped = False
    return units
