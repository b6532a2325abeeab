"""Question-type data: MedQuAD's labelled questions and consumer-worded templates.

MedQuAD labels every question with its type (`qtype`: treatment, symptoms, exams and
tests, ...), but its 16,406 questions are written from 16 templates ("What are the
treatments for X ?"), so a classifier trained on them alone learns the templates: on the
hand-labelled MEDIQA consumer questions it was right 32% of the time (docs/benchmarks/
question_type.md). Three kinds of examples, all labelled by MedQuAD's own types:

- MedQuAD's questions as written;
- the same with the page's focus replaced by "it", so the type is read from the words
  around the subject, not from the subject;
- consumer-worded templates (`CONSUMER_TEMPLATES`, ours: written from how people ask, before
  any MEDIQA question was read against them) filled with MedQuAD foci, a seeded sample.

Held out: every question whose focus is in the held-out tenth
(`relevance_sets.held_out_focus`); the templates are filled only with training foci.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from veriloop.evaluation.judge_data.relevance_sets import held_out_focus
from veriloop.knowledge.medquad import MEDQUAD_FILE

QUESTION_TYPES: tuple[str, ...] = (
    "information",
    "symptoms",
    "treatment",
    "inheritance",
    "frequency",
    "genetic changes",
    "causes",
    "exams and tests",
    "research",
    "outlook",
    "susceptibility",
    "considerations",
    "prevention",
    "stages",
    "complications",
)
"""MedQuAD's question types (its one "support groups" question is left out)."""

CONSUMER_TEMPLATES: dict[str, tuple[str, ...]] = {
    "information": (
        "what is {x}",
        "what is {x}?",
        "tell me about {x}",
        "what does {x} mean",
        "i was told i have {x}, what is it",
        "information about {x}",
        "can you explain {x}",
        "what kind of disease is {x}",
        "is {x} a disease",
        "what exactly is {x} and what does it do to the body",
    ),
    "symptoms": (
        "what are the signs of {x}",
        "how do i know if i have {x}",
        "what does {x} feel like",
        "symptoms of {x}",
        "is pain a symptom of {x}",
        "what are the warning signs of {x}",
        "can {x} cause a rash",
        "how does {x} show up",
        "what happens to people with {x}",
        "does {x} cause fatigue",
    ),
    "treatment": (
        "how is {x} treated",
        "how do you treat {x}",
        "can {x} be cured",
        "is there a cure for {x}",
        "what medication is used for {x}",
        "what drugs treat {x}",
        "what can i take for {x}",
        "best treatment for {x}",
        "how to get rid of {x}",
        "what therapy helps {x}",
        "what should i do about my {x}",
        "is surgery needed for {x}",
        "how to manage {x}",
        "what are my options for {x}",
    ),
    "inheritance": (
        "is {x} hereditary",
        "can i pass {x} to my children",
        "does {x} run in families",
        "is {x} genetic",
        "will my kids get {x}",
        "how is {x} passed down",
    ),
    "frequency": (
        "how common is {x}",
        "how many people have {x}",
        "is {x} rare",
        "how often does {x} occur",
        "what percentage of people get {x}",
    ),
    "genetic changes": (
        "what gene causes {x}",
        "which mutation is responsible for {x}",
        "what genes are involved in {x}",
        "is {x} caused by a gene mutation",
    ),
    "causes": (
        "why do people get {x}",
        "what is the cause of {x}",
        "what causes my {x}",
        "how do you get {x}",
        "can stress cause {x}",
        "where does {x} come from",
        "what leads to {x}",
        "why did i get {x}",
        "what triggers {x}",
    ),
    "exams and tests": (
        "how is {x} diagnosed",
        "what test shows {x}",
        "how do doctors diagnose {x}",
        "how can i find out if i have {x}",
        "what blood test detects {x}",
        "is there a test for {x}",
        "how do i get tested for {x}",
        "can an mri detect {x}",
    ),
    "research": (
        "are there clinical trials for {x}",
        "is there new research on {x}",
        "any new studies about {x}",
        "where can i join a trial for {x}",
        "what is the latest research on {x}",
    ),
    "outlook": (
        "what is the prognosis for {x}",
        "what is the life expectancy with {x}",
        "will {x} go away",
        "can you die from {x}",
        "how long does {x} last",
        "how serious is {x}",
        "does {x} get worse over time",
        "what is the survival rate for {x}",
    ),
    "susceptibility": (
        "who gets {x}",
        "am i at risk for {x}",
        "what are the risk factors for {x}",
        "who is likely to get {x}",
        "can children get {x}",
        "is {x} contagious",
    ),
    "considerations": (
        "how do i live with {x}",
        "what should i avoid with {x}",
        "what diet is good for {x}",
        "can i exercise with {x}",
        "tips for coping with {x}",
        "what precautions should i take with {x}",
    ),
    "prevention": (
        "how can i prevent {x}",
        "how do i avoid getting {x}",
        "is there a vaccine for {x}",
        "what reduces the risk of {x}",
        "can {x} be prevented",
    ),
    "stages": ("what are the stages of {x}", "what stage is my {x}", "how is {x} staged"),
    "complications": (
        "what are the complications of {x}",
        "what problems can {x} lead to",
        "can {x} cause other problems",
        "what are the long term effects of {x}",
    ),
}
"""Consumer wordings of each type; `{x}` is a MedQuAD focus (as written, lower-cased or
"it")."""

FOCI_PER_TEMPLATE = 40


@dataclass(frozen=True)
class TypedQuestion:
    """One labelled question."""

    text: str
    qtype: str
    held_out: bool
    origin: str
    """"medquad", "medquad_masked" or "template"."""


def masked(question: str, focus: str) -> str:
    """Return the question with its page's focus replaced by "it"."""
    return re.sub(re.escape(focus), "it", question, flags=re.IGNORECASE) if focus else question


def medquad_rows(path: Path = MEDQUAD_FILE) -> list[dict[str, str]]:
    """Return the bundled MedQuAD pairs whose type is one of `QUESTION_TYPES`."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return [r for r in rows if r.get("qtype") in QUESTION_TYPES]


def typed_questions(path: Path = MEDQUAD_FILE, seed: int = 0) -> list[TypedQuestion]:
    """Return every labelled example: MedQuAD as written, masked, and the templates."""
    rows = medquad_rows(path)
    examples: list[TypedQuestion] = []
    for row in rows:
        held = held_out_focus(row.get("focus") or "")
        examples.append(TypedQuestion(row["question"], row["qtype"], held, "medquad"))
        examples.append(
            TypedQuestion(
                masked(row["question"], row.get("focus") or ""),
                row["qtype"],
                held,
                "medquad_masked",
            )
        )
    rng = random.Random(seed)
    foci = sorted({r["focus"] for r in rows if r.get("focus") and not held_out_focus(r["focus"])})
    for qtype, templates in CONSUMER_TEMPLATES.items():
        for template in templates:
            for focus in rng.sample(foci, FOCI_PER_TEMPLATE):
                subject = rng.choice([focus, focus.lower(), "it"])
                examples.append(TypedQuestion(template.format(x=subject), qtype, False, "template"))
    return examples
