"""Refusal texts and the extractive answer's units (issue 38), on fakes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from veriloop.knowledge.sources import SourcePassage
from veriloop.nodes.answer_units import Quoted, quotable_units
from veriloop.nodes.grounding import PartPassages
from veriloop.nodes.refusals import hard_refusal_detail, not_covered_detail
from veriloop.nodes.type_cues import asked_cues


def passage(pid: str, text: str, title: str = "Leukemia") -> SourcePassage:
    return SourcePassage(id=pid, text=text, title=title, url="u", relevance=0.5)


def each(
    test: Callable[[str], bool] | None,
) -> Callable[[list[tuple[str, str]]], list[bool]]:
    """Return a unit test as the batch test `extract_sentences(about=...)` takes."""
    assert test is not None
    return lambda units: [test(unit) for unit, _ in units]


def test_a_refusal_never_says_no_passage_when_passages_were_set_aside() -> None:
    found = "30 candidates from MedQuAD (30 about a neighbouring condition, dropped); kept none"
    detail = hard_refusal_detail(None, [], None, "relevant_at = 0.5", found)
    assert "no passage" not in detail
    assert detail.startswith("every passage retrieved was set aside")
    assert found in detail
    nothing = hard_refusal_detail(None, [], None, "relevant_at = 0.5", "0 candidates from X")
    assert nothing.startswith("the source returned no passage")


def test_the_gate_is_named_with_its_value() -> None:
    detail = hard_refusal_detail(None, [], 0.21, "subject_relevant_at = 0.3")
    assert "0.21 is below subject_relevant_at = 0.3" in detail


def test_not_covered_names_the_source_the_subject_and_what_its_pages_answer() -> None:
    detail = not_covered_detail("MedQuAD", "Turner Syndrome", "exams and tests", ["information"])
    assert detail == (
        "MedQuAD describes Turner Syndrome but says nothing about how it is diagnosed "
        "(its pages answer: information)"
    )
    # a type its pages answer, only not close enough to the question, is said as such
    both = not_covered_detail(
        "MedQuAD", "Hypoglycemia", ["causes", "prevention"], far=["prevention"]
    )
    assert both == (
        "MedQuAD describes Hypoglycemia but says nothing about what causes it; MedQuAD's "
        "pages on Hypoglycemia say how to prevent it only in answers not close enough to "
        "this question to quote"
    )
    assert not_covered_detail("MedQuAD", "Flu", ["outlook", "symptoms"]).endswith(
        "says nothing about its outlook or its symptoms"
    )


def test_units_that_are_no_answer_are_not_quoted_and_damage_is_repaired() -> None:
    passages = [
        passage(
            "P-1",
            "These resources address the diagnosis or management of leukemia: Gene Review. "
            "Types of Treatments Some, but not all, forms of treatment include chemotherapy. "
            "More on: Resources for Health Professionals.",
        )
    ]
    units = [text for text, _ in quotable_units(passages)]
    assert units == ["Some, but not all, forms of treatment include chemotherapy."]


def test_only_units_about_the_asked_type_pass_its_test() -> None:
    about = asked_cues("exams and tests")
    assert about is not None
    assert about("Doctors diagnose Turner syndrome based on symptoms and a genetic test.")
    assert not about("Turner syndrome affects about 1 in 2,500 newborn girls.")
    assert asked_cues("information") is None and asked_cues(None) is None


def test_a_chosen_list_item_brings_its_whole_list_in_the_pages_order() -> None:
    from veriloop.nodes.answer_units import LIST_ITEMS_QUOTED, _quoted

    lead = "Signs of ectopic pregnancy include"
    items = [f"{lead}: item {n}." for n in range(1, 5)]
    found = [("Ectopic pregnancy is an emergency.", "P-1"), *((t, "P-1") for t in items)]
    found.append(("Doctors use drugs or surgery.", "P-2"))
    # the best units by score: item 3, then the other page's sentence
    quoted = _quoted(found, [3, 5, 1, 0], count=2)
    assert quoted == [
        (f"{lead}: item 1; item 2; item 3; item 4.", "P-1"),
        ("Doctors use drugs or surgery.", "P-2"),
    ]
    long_list = [(f"{lead}: item {n}.", "P-1") for n in range(1, 30)]
    (text, _), *_ = _quoted(long_list, [7], count=1)
    assert text.count(";") == LIST_ITEMS_QUOTED - 1 and text.endswith(f"item {LIST_ITEMS_QUOTED}.")


def test_a_named_word_of_the_type_makes_a_sentence_about_it() -> None:
    test = asked_cues("symptoms")
    assert test is not None
    assert test("Signs of ectopic pregnancy include abdominal pain.")


@pytest.mark.parametrize(
    ("unit", "said"),
    [
        # whether genes play a part says whether it is genetic ("Is autism genetic?" was
        # refused though Autism's page says "both genetics and environment play a role")
        (
            "Scientists aren't certain what causes autism, but it's likely that both "
            "genetics and environment play a role.",
            True,
        ),
        ("Research suggests that both genes and environment play important roles.", True),
        ("Most of the time, color blindness is genetic.", True),
        ("Some people appear to have a genetic predisposition to hypersomnia.", True),
        ("Genetics may play a role in causing the condition.", True),
        ("This condition is inherited in an autosomal dominant pattern.", True),  # a cue
        # named genes' molecular work, a test, factors that are not genetic, or "a genetic
        # condition" (true of every GHR page) say nothing of it
        (
            "The proteins produced from the EYA1, SIX1, and SIX5 genes play important roles "
            "in development.",
            False,
        ),
        ("These four genes play a role in cell signaling.", False),
        ("Several genes play a role in the condition.", True),
        ("Genetic testing is not available because it is caused by non-genetic factors.", False),
        ("The diagnosis is confirmed by genetic testing.", False),
        ("Fragile X syndrome is a genetic condition.", False),
    ],
)
def test_whether_genes_play_a_part_says_whether_it_is_inherited(unit: str, said: bool) -> None:
    inherited = asked_cues("inheritance")
    assert inherited is not None
    assert inherited(unit) is said


@pytest.mark.parametrize(
    ("unit", "caught"),
    [
        ("HIV most often spreads through unprotected sex with an infected person.", True),
        ("Women can give it to their babies during pregnancy or childbirth.", True),
        ("You can catch mumps by being with another person who has it.", True),
        ("You cannot catch it from people.", True),  # that it is not caught answers too
        ("Cancer can spread through tissue, the lymph system, and the blood.", False),
        ("You can get enough calcium from food or supplements.", False),
        ("HIV stands for human immunodeficiency virus.", False),
        ("Most people get better by resting and avoiding contact with others.", False),
        ("Older people get sick more often from flu than young people.", False),
        ("The rash spreads from the face to the trunk, and people feel ill.", False),
        ("HIV is spread through sex with an infected person and destroys CD4 cells.", True),
        ("Each year, 48 million people get sick from contaminated food.", True),
        ("Pink eye can easily spread from one person to another.", True),
        # MedlinePlus's Pinworms page ("How do you get pinworms?" was refused softly)
        ("You get them when you swallow their eggs.", True),
        (
            "They can spread the eggs to others directly through their hands, or through "
            "contaminated clothing, bedding, food, or other articles.",
            True,
        ),
        # getting information is no catching; the spread of germs stopped is prevention
        (
            "The person should get as much information as possible by talking with people "
            "who have had one of the surgeries.",
            False,
        ),
        (
            "You can help stop the spread of germs by covering your mouth and nose when you "
            "sneeze or cough.",
            False,
        ),
        ("To stop its spread by coughing, cover your mouth.", False),
        ("Some people get heartburn when they swallow.", False),  # a symptom, not a route
        # MedlinePlus's Flu page ("Is the flu contagious?" was answered from H1N1's)
        ("The viruses pass through the air and enter your body through your nose.", True),
        # oxygen's way into the blood is no route of infection
        ("Oxygen passes through the air sacs into the blood.", False),
        ("Oxygen travels through the air sac walls into the bloodstream.", False),
    ],
)
def test_how_an_infection_is_caught_says_what_causes_it(unit: str, caught: bool) -> None:
    causes = asked_cues("causes")
    assert causes is not None
    assert causes(unit) is caught


@pytest.mark.parametrize(
    ("asked", "unit", "holds"),
    [
        # how long it lasts is its outlook ("How long does mononucleosis last?": MedQuAD's
        # page says "Most people get better in two to four weeks", no cue stem)
        ("outlook", "Most people get better in two to four weeks.", True),
        ("outlook", "The illness usually lasts one week.", True),
        ("outlook", "Acute back pain usually lasts from a few days to a few weeks.", True),
        ("outlook", "Preeclampsia is mild and goes away within a few weeks after birth.", True),
        ("outlook", "Most people get better by resting and drinking fluids.", False),
        ("outlook", "Risk is higher with more than one sex partner in the last 6 months.", False),
        ("outlook", "Mono occurs most often in teens and young adults.", False),
        ("outlook", "Symptoms usually go away within a week.", True),
        ("outlook", "The fever usually goes away in 7-10 days.", True),
        ("outlook", "The rash typically lasts nine days.", True),
        ("outlook", "A cough lasting 3 to 4 weeks is common after the illness.", True),
        ("outlook", "Tell your doctor the dates of your last 2 periods.", False),
        ("outlook", "The pain lasts a while and then eases.", False),
        # outlook's "die" only of a person ("What is the outlook for people with cirrhosis?"
        # quoted a band ligation "that causes the tissue to die and fall off")
        ("outlook", "Most babies with this condition die soon after birth.", True),
        ("outlook", "A band is placed around the varices that causes the tissue to die.", False),
        ("outlook", "Within minutes, brain cells begin to die.", False),
        ("outlook", "Most affected individuals dying within the first year.", True),
        ("outlook", "Most children who have it die by age 2.", True),
        ("outlook", "A lack of blood flow damages tissue and causes it to die.", False),
        ("outlook", "Acute diarrhea usually lasts only 1 or 2 days.", True),
        ("outlook", "An attack lasts between three and four hours.", True),
        ("outlook", "In its last 3 months of pregnancy the mother gains weight.", False),
        ("outlook", "The main symptom is severe fatigue that lasts for 6 months.", True),
        # how long with no count, and "subsides" ("How long does shingles pain last?")
        ("outlook", "The pain of shingles may last for weeks, months, or even years.", True),
        ("outlook", "The pain often continues for months -- and can go on for years.", True),
        ("outlook", "For most, the pain subsides within 3 to 5 weeks.", True),
        ("outlook", "In some cases, CFS can persist for years.", True),
        ("outlook", "In the last years of life, care is at home.", False),
        ("outlook", "Scientists have studied the virus for years.", False),
        # frequency's "affects" only with a count (`question_type.CUES_IN_CONTEXT`)
        ("frequency", "Rheumatoid arthritis affects about 1.3 million adults in the US.", True),
        ("frequency", "Medullary sponge kidney affects about one person per 5,000 people.", True),
        ("frequency", "The prevalence of this condition is unknown.", True),  # its own stem
        (
            "frequency",
            "It is a descriptive term for symptoms that can be caused by a number of "
            "disorders that affect the brain.",  # quoted for "How many people get dementia?"
            False,
        ),
        ("frequency", "Alcohol affects the brain and the liver.", False),
        ("frequency", "Type 2 diabetes affects how the body uses sugar.", False),  # no count
        ("frequency", "About 2 percent of people are affected.", True),
        # inheritance's "pass" only for something passed down a family
        ("inheritance", "However, they can pass the faulty CFTR gene to their children.", True),
        ("inheritance", "It is passed from parent to child.", True),
        ("inheritance", "In a normal eye, light passes through the lens to the retina.", False),
        ("inheritance", "A small stone may pass on its own.", False),
        ("inheritance", "This condition is inherited in an autosomal recessive pattern.", True),
        # inheritance's "carry" only for genes carried
        ("inheritance", "Women who carry a BRCA1 mutation have a higher risk.", True),
        ("inheritance", "Some people carry the gene without symptoms.", True),
        ("inheritance", "Fat cells do not use insulin to carry glucose into the cells.", False),
        # inheritance's "parent" only for a parent who has or passes the condition
        ("inheritance", "In most cases, an affected person has one parent with it.", True),
        ("inheritance", "Risk is higher with a parent, brother, or sister with diabetes.", True),
        ("inheritance", "The parent may be mildly affected or may be unaffected.", True),
        ("inheritance", "Parent training may also help.", False),  # "Is ADHD genetic?"
        ("inheritance", "Good parenting includes: setting and enforcing limits.", False),
        ("inheritance", "Parents can help their child cope with ADHD.", False),
        ("inheritance", "A parent should talk to the child's doctor about side effects.", False),
        ("inheritance", "Parents with questions should ask the doctor.", False),
        ("inheritance", "Both of his parents had the disease.", True),
        ("inheritance", "People with it have two sickle cell genes, one from each parent.", True),
        # exams' "detect" only of finding a condition, not a sense ("How is macular
        # degeneration diagnosed?" quoted the retina "that detects light and color")
        ("exams and tests", "AMD is detected during a comprehensive eye exam.", True),
        ("exams and tests", "An EKG can detect an irregular heartbeat.", True),
        ("exams and tests", "Doctors usually can't detect the condition at routine visits.", True),
        (
            "exams and tests",
            "It results from the loss of cells in the tissue at the back of the eye that "
            "detects light and color (the retina).",
            False,
        ),
        ("exams and tests", "Other people can't detect odor at all.", False),
        ("exams and tests", "True tastes are detected by taste buds on the tongue.", False),
        ("exams and tests", "Sensory cells that detect sensations such as touch.", False),
        ("exams and tests", "The inability to detect any odors is called anosmia.", False),
        ("exams and tests", "Antibodies block the muscle's ability to detect the signal.", False),
        ("exams and tests", "Urine tests can detect light chains.", True),  # no sense (review)
        ("exams and tests", "An eye doctor can detect color blindness.", True),
        # heredity said in a list of causes says whether it runs in families
        ("inheritance", "Hearing loss is caused by noise, aging, disease, and heredity.", True),
    ],
)
def test_a_word_of_any_sentence_is_a_types_word_only_in_its_sense(
    asked: str, unit: str, holds: bool
) -> None:
    words = asked_cues(asked)
    assert words is not None
    assert words(unit) is holds


def test_medquad_page_keys_are_unique_where_sites_share_a_qid() -> None:
    from veriloop.knowledge.medquad import page_keys

    rows = [
        {"qid": "0000058-3", "source": "GARD"},
        {"qid": "0000058-3", "source": "NIHSeniorHealth"},
        {"qid": "0000013_2-1", "source": "CancerGov"},
        {"qid": "0000013_2-1", "source": "CancerGov"},
        {"qid": "0004450-3", "source": "GARD"},
    ]
    assert page_keys(rows) == [
        "GARD-0000058-3",
        "NIHSeniorHealth-0000058-3",
        "CancerGov-0000013_2-1~1",
        "CancerGov-0000013_2-1~2",
        "0004450-3",
    ]


def test_a_unit_a_longer_quote_repeats_is_left_out() -> None:
    from veriloop.nodes.answer_units import _quoted

    lead = "You should not get the vaccine if you"
    found = [
        (f"{lead}: have an active case of shingles.", "P-1"),
        (f"{lead}: are allergic to gelatin.", "P-1"),
        ("have an active case of shingles are allergic to gelatin.", "P-2"),
    ]
    assert _quoted(found, [0, 2], count=2) == [
        (f"{lead}: have an active case of shingles; are allergic to gelatin.", "P-1")
    ]


def test_a_what_is_question_quotes_the_pages_definition_first() -> None:
    from veriloop.nodes.answer_units import _definition_first, definition_rows

    passages = [
        passage("P-1", "x", title="Parasites - Lice - Body Lice"),
        passage("P-2", "x", title="Prostate Cancer (PDQ)"),
    ]
    found = [
        ("Lice are spread by contact.", "P-1"),
        ("Body lice are parasitic insects that live on clothing.", "P-1"),
        ("The prostate cancer is a disease in which cells grow.", "P-2"),
        ("Prostate cancer isolated cases are rare.", "P-2"),  # "isolated", not "is"
        ("Prostate cancer, the second most common cancer, is treatable.", "P-1"),  # P-1: lice
    ]
    assert definition_rows(found, passages) == [1, 2]
    assert _definition_first([0, 3, 2, 1], [1, 2]) == [2, 0, 3, 1]
    assert _definition_first([0, 3], []) == [0, 3]
    # another page's definition of the same subject: one definition is said once
    pages = [("Heart Attack", "NHLBI"), ("Heart Attack", "MPlus"), ("Heart Attack", "NHLBI")]
    assert _definition_first([2, 1, 0], [0, 1, 2], pages) == [2, 0]
    cased = [("Krabbe Disease", "NINDS"), ("Krabbe disease", "GHR")]
    assert _definition_first([0, 1], [0, 1], cased) == [0]
    assert _definition_first([2, 1, 0], [0, 1], [("A", "1"), ("B", "2"), ("A", "1")]) == [1, 2, 0]
    heart = [passage("P-3", "x", title="Heart Attack")]
    said = [("A heart attack happens when blood flow to the heart is blocked.", "P-3")]
    assert definition_rows(said, heart) == [0]
    # a ranking is no definition; what the condition is called is one
    ear = [passage("P-4", "x", title="Ear Infections")]
    said = [
        ("Ear infections are the most common reason parents bring their child to a doctor.", "P-4"),
        ("Ear infections are one of the most common childhood illnesses.", "P-4"),
        ("The infection usually affects the middle ear and is called otitis media.", "P-4"),
        ("A doctor who treats ears is called an otolaryngologist.", "P-4"),
    ]
    assert definition_rows(said, ear) == [1, 2]  # an illness, one of the most common
    said = [
        ("Ear infections are the most common form of infection in children.", "P-4"),
        ("The infection inflames the air sacs, which are called alveoli.", "P-4"),
        ("The infection is called otitis media because it is in the middle ear.", "P-4"),
    ]
    assert definition_rows(said, ear) == [0]  # a most common form defines


def test_a_passage_holding_only_its_question_has_nothing_to_quote() -> None:
    from veriloop.quotable import has_quotable

    assert not has_quotable("What are the signs and symptoms of Inclusion body myopathy?")
    assert has_quotable("What is dementia? Memory loss is a common symptom of dementia.")


def test_the_subjects_own_page_is_quoted_before_its_kinds_pages() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    own = passage("P-1", "Flu is an infection caused by viruses.", title="Flu")
    kin = passage("P-2", "Swine flu is an infection caused by a virus.", title="Swine Flu")
    kin["kin"] = True
    about = each(asked_cues("causes"))
    models = fake_models([])
    quoted, _ = extract_sentences(models, "What causes flu?", [kin, own], 3, about=about)
    assert quoted == [("Flu is an infection caused by viruses.", "P-1")]
    # no own unit of the type: the kinds' pages answer
    bare = passage("P-1", "Flu is common in winter.", title="Flu")
    quoted, _ = extract_sentences(models, "What causes flu?", [kin, bare], 3, about=about)
    assert quoted == [("Swine flu is an infection caused by a virus.", "P-2")]


def test_with_no_type_to_read_for_the_subjects_own_page_is_quoted_before_its_kinds() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    # "my mom was diagnosed with macular degeneration, will she go blind?" (no confident
    # type) quoted Stargardt macular degeneration's childhood onset first
    kin = passage(
        "P-2", "Signs of Stargardt macular degeneration appear in childhood.", title="Stargardt"
    )
    kin["kin"] = True
    own = passage("P-1", "Treatment can slow vision loss.", title="Macular Degeneration")
    models = fake_models([])
    quoted, _ = extract_sentences(models, "Will she go blind?", [kin, own], 3)
    assert quoted == [("Treatment can slow vision loss.", "P-1")]
    quoted, _ = extract_sentences(models, "Will she go blind?", [kin], 3)  # only kinds'
    assert quoted == [("Signs of Stargardt macular degeneration appear in childhood.", "P-2")]


def test_on_a_page_of_the_asked_type_the_sentences_that_say_it_come_first() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    page = passage(
        "P-1",
        "Talk with a genetics counselor about your risks. Doctors diagnose it with a blood test.",
        title="Sickle Cell Disease",
    )
    prefer = asked_cues("exams and tests")
    quoted, _ = extract_sentences(fake_models([]), "How is it diagnosed?", [page], 3, prefer=prefer)
    assert quoted == [("Doctors diagnose it with a blood test.", "P-1")]
    none_say_it = passage("P-2", "Talk with a genetics counselor about your risks.")
    quoted, _ = extract_sentences(fake_models([]), "How?", [none_say_it], 3, prefer=prefer)
    assert quoted == [("Talk with a genetics counselor about your risks.", "P-2")]


def test_a_sentence_leaning_on_the_one_before_brings_it_along() -> None:
    from veriloop.nodes.answer_units import _quoted

    found = [
        ("Most people with anemia feel tired.", "P-1"),
        ("This information helps doctors choose a test.", "P-1"),
        ("Anemia is diagnosed with a blood test.", "P-2"),
    ]
    previous = {found[1]: found[0]}
    assert _quoted(found, [1, 2], count=2, previous=previous) == found
    # chosen alone it would open on "This information": without its predecessor known,
    # it stays as it is
    assert _quoted(found, [1], count=1) == [found[1]]


@pytest.mark.parametrize(
    "leaning",
    [
        "If they do, causes may include the following: brief intolerance to fasting.",
        "If so, a doctor may order a blood test.",
        "If not, ask if the dosage can be safely reduced.",
        "Some of its causes are aging, loud noise and heredity.",  # whose causes: the one before
        "If this happens, your doctor may recommend a procedure.",
        # a connective going on from the one before: "What causes a stroke?" opened on it
        "For example, atrial fibrillation is a common cause of embolic stroke.",
        "As a result, the brain gets less oxygen.",
        "Therefore, a doctor may order a blood test.",
        "For this reason, it is rarely found early.",
    ],
)
def test_a_conditional_on_the_sentence_before_brings_it_along(leaning: str) -> None:
    from veriloop.nodes.answer_units import _quoted

    found = [("Children rarely develop hypoglycemia.", "P-1"), (leaning, "P-1")]
    assert _quoted(found, [1], count=1, previous={found[1]: found[0]}) == found


def test_a_sentence_announcing_a_list_that_leans_on_it_brings_the_list() -> None:
    from veriloop.nodes.answer_units import _quoted

    found = [
        ("Lupus has many symptoms.", "P-1"),
        ("Some common ones are: joint pain or swelling", "P-1"),
        ("Some common ones are: fatigue", "P-1"),
        ("Lupus is an autoimmune disease.", "P-2"),
    ]
    previous = {found[1]: found[0], found[2]: found[1]}
    assert _quoted(found, [0, 3], count=2, previous=previous) == [
        ("Lupus has many symptoms.", "P-1"),
        ("Some common ones are: joint pain or swelling; fatigue.", "P-1"),
        ("Lupus is an autoimmune disease.", "P-2"),
    ]
    # a list whose lead-in stands alone is its own: the sentence before does not bring it
    alone = [("Lupus has many symptoms.", "P-1"), ("Symptoms include: fatigue", "P-1")]
    assert _quoted(alone, [0], count=1, previous={alone[1]: alone[0]}) == [alone[0]]


def test_a_sentence_pointing_ahead_brings_what_follows_it_or_is_left_out() -> None:
    from veriloop.nodes.answer_units import _quoted

    # NIDDK's Graves' disease page: its list of tests flattened into the sentences after
    found = [
        ("Blood tests, such as the following, then confirm the diagnosis.", "P-1"),
        ("The ultrasensitive TSH test is usually the first test performed.", "P-1"),
        ("Graves disease is an autoimmune disorder.", "P-2"),
    ]
    previous = {found[1]: found[0]}
    assert _quoted(found, [0, 2], count=2, previous=previous) == found
    # what it points at was filtered out (not among the quotable units): no pointer alone
    assert _quoted(found[::2], [0, 1], count=2, previous={}) == [found[2]]
    # a colon opens its list in the sentence itself; "the following morning" points nowhere
    from veriloop.standalone import POINTS_AHEAD

    assert POINTS_AHEAD.search(found[0][0])
    assert not POINTS_AHEAD.search("Two tests, the following among them: TSH and T4.")
    assert not POINTS_AHEAD.search("Attacks often start upon waking the following morning.")
    assert not POINTS_AHEAD.search("It may come back in the following years.")


def test_a_conditional_of_its_own_stands_alone() -> None:
    from veriloop.nodes.answer_units import _quoted

    found = [
        ("Children rarely develop hypoglycemia.", "P-1"),
        ("If blood sugar stays low, seizures can follow.", "P-1"),
    ]
    assert _quoted(found, [1], count=1, previous={found[1]: found[0]}) == [found[1]]


class _LaterFirst:
    """A relevance judge that ranks a passage's later units above its earlier ones."""

    def scores(self, question: str, texts: list[str]) -> list[float]:
        return [float(i) for i in range(len(texts))]


def test_a_page_of_the_asked_type_is_quoted_from_its_opening_in_its_order() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    opening = passage(
        "P-1",
        "Doctors diagnose stroke with a short exam. A brain scan shows the stroke's kind. "
        "Blood tests may be done. Counselling helps families.",
        title="Stroke",
    )
    opening["part"] = 1
    models, judge = fake_models([]), _LaterFirst()
    args = (models, "How to diagnose stroke?", [opening], 2, judge)
    quoted, _ = extract_sentences(*args, lead=True)  # type: ignore[arg-type]
    assert [text for text, _ in quoted] == [
        "Doctors diagnose stroke with a short exam.",
        "A brain scan shows the stroke's kind.",
    ]
    # without the lead the judge's order decides: the page's last units
    quoted, _ = extract_sentences(*args)  # type: ignore[arg-type]
    assert [text for text, _ in quoted] == [
        "Blood tests may be done.",
        "Counselling helps families.",
    ]
    # a later part of a page has no opening to lead with
    opening["part"] = 2
    assert extract_sentences(*args, lead=True)[0] == quoted  # type: ignore[arg-type]


def test_the_opening_of_the_best_passages_page_is_put_first() -> None:
    from veriloop.nodes.page_types import with_opening

    later = passage("P-7-3", "Other tests include an MRI.", title="Stroke")
    later.update(part=3, page="P-7", relevance=0.8, kin=True)
    other = passage("P-9-1", "A stroke is an emergency.", title="Stroke")
    other.update(part=1, page="P-9", relevance=0.7)
    first = passage("P-7-1", "Doctors diagnose stroke with a short exam.", title="stroke page")
    first.update(part=1, page="P-7", relevance=0.0)

    class Pages:
        name = "pages"

        def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[object]]:
            return [], []

        def opening(self, passage: SourcePassage) -> SourcePassage | None:
            return first if passage.get("page") == "P-7" else None

    ranked = with_opening(Pages(), [later, other])  # type: ignore[arg-type]
    assert [p["id"] for p in ranked] == ["P-7-1", "P-7-3", "P-9-1"]
    assert ranked[0]["relevance"] == 0.8 and ranked[0]["kin"] and ranked[0]["title"] == "Stroke"
    assert first["relevance"] == 0.0  # the source's passage is not changed
    assert with_opening(Pages(), [other, later]) == [other, later]  # the best opens its page
    orphan = passage("P-5-2", "More tests.", title="Stroke")
    orphan.update(part=2, page="P-5")
    assert with_opening(Pages(), [orphan]) == [orphan]  # the source has no opening for it


def test_a_list_one_item_of_which_holds_a_cue_is_quoted_whole() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    page = passage(
        "P-1",
        "Alcoholism is a disease that causes - Craving - a strong need to drink - Physical "
        "dependence - withdrawal symptoms. It runs in families.",
        title="Alcoholism and Alcohol Abuse",
    )
    about = each(asked_cues("symptoms"))
    quoted, _ = extract_sentences(fake_models([]), "What are its symptoms?", [page], 3, about=about)
    assert len(quoted) == 1
    text = quoted[0][0]
    assert "craving" in text.lower() and "withdrawal symptoms" in text


def test_the_openings_sentences_that_say_the_asked_type_come_before_its_preamble() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    opening = passage(
        "P-1",
        "Symptoms of a stroke develop quickly. However, they can develop over hours. "
        "Nobody knows why. Signs of a stroke include sudden weakness.",
        title="Stroke",
    )
    opening["part"] = 1
    prefer = asked_cues("symptoms")
    quoted, _ = extract_sentences(
        fake_models([]),
        "What are the symptoms of stroke?",
        [opening],
        2,
        _LaterFirst(),  # type: ignore[arg-type]
        prefer=prefer,
        lead=True,
    )
    assert [text for text, _ in quoted] == [
        "Symptoms of a stroke develop quickly.",
        "Signs of a stroke include sudden weakness.",
    ]


def test_an_opening_that_never_says_the_asked_type_does_not_lead() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    def page_part(part: int, text: str) -> SourcePassage:
        found = passage(f"P-{part}", text, title="Sickle Cell Disease")
        found.update(part=part, page="P")
        return found

    opening = page_part(
        1,
        "Babies with sickle cell disease should see a doctor early. The doctor might be a "
        "hematologist. The first visit should be before 8 weeks of age.",
    )
    later = page_part(
        2,
        "Hydroxyurea is a medicine that reduces pain crises. Stem cell transplants are "
        "the only cure. Caretakers should ask questions.",
    )
    quoted, _ = extract_sentences(
        fake_models([]),
        "What are the treatments of sickle cell disease?",
        [opening, later],
        2,
        _LaterFirst(),  # type: ignore[arg-type]
        prefer=asked_cues("treatment"),
        lead=True,
    )
    assert [text for text, _ in quoted] == [
        "Hydroxyurea is a medicine that reduces pain crises.",
        "Stem cell transplants are the only cure.",
    ]


def test_a_question_about_side_effects_prefers_the_treatment_units_naming_them() -> None:
    from veriloop.nodes.answer_units import on_type_pages

    prefer, lead = on_type_pages("treatment", "What are the side effects of hydroxyurea?")
    assert prefer is not None and not lead
    assert prefer("These side effects usually go away quickly.")
    assert not prefer("Hydroxyurea is a medicine that reduces pain crises.")
    cues, lead = on_type_pages("treatment", "How is sickle cell disease treated?")
    assert cues is not None and cues("Hydroxyurea is a medicine that reduces pain crises.")
    assert lead


class _EarlierFirst:
    """A relevance judge that ranks a passage's earlier units above its later ones."""

    def scores(self, question: str, texts: list[str]) -> list[float]:
        return [-float(i) for i in range(len(texts))]


def test_a_question_about_side_effects_quotes_them_not_the_pages_opening_words() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import quote_answer

    opening = passage(
        "P-1",
        "There are many ways to treat prostate cancer. Doctors weigh the treatments and "
        "their possible side effects. Treatment may involve surgery.",
        title="Prostate Cancer",
    )
    opening.update(part=1, page="P", qtype="treatment")
    later = passage(
        "P-6",
        "Side effects can include impotence and hot flashes. Radiation is given daily.",
        title="Prostate Cancer",
    )
    later.update(part=6, page="P", qtype="treatment")
    quoted = quote_answer(
        fake_models([]),
        "What are the side effects of radiation therapy for prostate cancer?",
        [opening, later],
        2,
        _EarlierFirst(),  # type: ignore[arg-type]
        asked="treatment",
        typed=True,
    )
    assert [text for text, _ in quoted.units] == [
        "Doctors weigh the treatments and their possible side effects.",
        "Side effects can include impotence and hot flashes.",
    ]


def test_side_effects_asked_of_an_information_page_are_the_units_naming_them() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import quote_answer

    summary = passage(  # MedlinePlus's Cancer Chemotherapy summary, shortened
        "C-1",
        "Chemotherapy is drug therapy that can kill cancer cells. During chemotherapy you "
        "may have no side effects or just a few. The kinds of side effects you have depend "
        "on the dose. Side effects vary, but common ones are nausea, vomiting, tiredness, "
        "pain and hair loss. You may get treatment every day.",
        title="Cancer Chemotherapy",
    )
    summary.update(part=1, page="C", qtype="information")
    quoted = quote_answer(
        fake_models([]),
        "What are the side effects of chemotherapy?",
        [summary],
        2,
        _EarlierFirst(),  # type: ignore[arg-type]
        asked="treatment",
        typed=False,
    )
    # the units naming side effects, the one that names them first (no unit classifier)
    assert [text for text, _ in quoted.units] == [
        "During chemotherapy you may have no side effects or just a few.",
        "Side effects vary, but common ones are nausea, vomiting, tiredness, pain and hair loss.",
    ]


def quoted_from_opening(text: str, question: str, count: int, asked: str | None) -> list[str]:
    """Quote `count` units of a page's opening (part 1, "Stroke") with the lead rule."""
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    opening = passage("P-1", text, title="Stroke")
    opening["part"] = 1
    prefer = asked_cues(asked) if asked else None
    quoted, _ = extract_sentences(
        fake_models([]), question, [opening], count, prefer=prefer, lead=True
    )
    return [unit for unit, _ in quoted]


def test_what_the_opening_lists_is_not_crowded_out_by_its_preamble() -> None:
    text = (
        "The symptoms of a stroke develop quickly. The symptoms depend on the stroke's kind. "
        "How long symptoms last varies. Symptoms of a stroke may include: sudden weakness; "
        "confusion; trouble speaking."
    )
    question = "What are the symptoms of stroke?"
    assert quoted_from_opening(text, question, 2, "symptoms") == [
        "The symptoms of a stroke develop quickly.",
        "Symptoms of a stroke may include: sudden weakness; confusion; trouble speaking.",
    ]
    # an information question has no list to look for: the opening's order stands
    assert quoted_from_opening(text, question, 2, None)[1] == (
        "The symptoms depend on the stroke's kind."
    )


def test_an_openings_examples_and_lists_come_before_its_series_of_kinds() -> None:
    from veriloop.nodes.answer_units import naming_rank

    text = (  # NHLBI's stroke risk page, shortened
        "Certain traits, conditions, and habits can raise your risk of having a stroke. "
        "You can treat or control some risk factors, such as high blood pressure and smoking. "
        "Other risk factors, such as age and gender, you can't control. "
        "The major risk factors for stroke include: high blood pressure."
    )
    question = "What are the risk factors for stroke?"
    assert quoted_from_opening(text, question, 3, "susceptibility") == [
        "You can treat or control some risk factors, such as high blood pressure and smoking.",
        "Other risk factors, such as age and gender, you can't control.",
        "The major risk factors for stroke include: high blood pressure.",
    ]
    assert naming_rank("Symptoms include: fever") == 0
    assert naming_rank("It causes fever, cough, and a sore throat.") == 1
    assert naming_rank("Common ones are nausea, vomiting, pain and hair loss.") == 1
    assert naming_rank("He came, saw and left.") == 2  # one comma: no series
    clause = (  # GHR's Huntington disease inheritance page: a clause before "and"
        "In rare cases, HD is caused by a new mutation in the HTT gene, in which case the "
        "disease occurs for the first time in the affected person and is not inherited."
    )
    assert naming_rank(clause) == 2
    assert naming_rank("The symptoms of a stroke develop quickly.") == 2


def test_what_a_cue_sentence_goes_on_to_say_is_about_the_type_too() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences

    page = passage(
        "P-1",
        "Cervical cancer may not cause any symptoms at first. Later, you may have pelvic pain "
        "or bleeding. Smoking raises your risk.",
        title="Cervical Cancer",
    )
    quoted, _ = extract_sentences(
        fake_models([]), "What are its symptoms?", [page], 3, about=each(asked_cues("symptoms"))
    )
    assert [text for text, _ in quoted] == [
        "Cervical cancer may not cause any symptoms at first.",
        "Later, you may have pelvic pain or bleeding.",
    ]


def test_a_pointer_inside_a_sentence_brings_the_sentence_it_points_at() -> None:
    from veriloop.nodes.answer_units import _quoted

    found = [
        ("Other therapies include massage and yoga.", "P-1"),
        ("Studies suggest mild benefits from some of these therapies.", "P-1"),
        ("Levodopa is the main treatment.", "P-2"),
    ]
    previous = {found[1]: found[0]}
    assert _quoted(found, [1, 2], count=2, previous=previous) == found


def test_the_same_list_from_two_pages_is_quoted_once() -> None:
    from veriloop.nodes.answer_units import _quoted

    # items long enough that no item near-duplicates another: only the list test drops P-2
    lead = "Learn these signs"
    found = [
        (f"{lead}: a lump or thickening in or near the breast or underarm", "P-1"),
        (f"{lead}: a change in the size or shape of the breast", "P-1"),
        (f"{lead}: a lump or thickening near the breast or in the underarm area", "P-2"),
        (f"{lead}: fluid other than breast milk from the nipple, often bloody", "P-2"),
        ("There may be no symptoms at first.", "P-3"),
    ]
    assert _quoted(found, [0, 3, 4], count=3) == [
        (
            f"{lead}: a lump or thickening in or near the breast or underarm; "
            "a change in the size or shape of the breast.",
            "P-1",
        ),
        ("There may be no symptoms at first.", "P-3"),
    ]


def test_a_list_restating_a_quoted_sentence_from_another_page_is_left_out() -> None:
    from veriloop.nodes.answer_units import _quoted

    # "what is the treatment for leukemia" quoted both (the list below the overlap)
    sentence = (
        "Standard treatments for leukemia include chemotherapy, biological therapy, "
        "radiation therapy, and immunotherapy."
    )
    lead = "Some, but not all, forms of treatment for leukemia include"
    found = [
        (sentence, "P-1"),
        ("Some patients receive a combination of treatments.", "P-1"),
        (f"{lead}: chemotherapy", "P-2"),
        (f"{lead}: biological therapy", "P-2"),
        (f"{lead}: radiation therapy", "P-2"),
    ]
    assert _quoted(found, [0, 1, 2], count=3) == [found[0], found[1]]
    # a list naming one more thing says more: kept
    found[4] = (f"{lead}: bone marrow transplant", "P-2")
    assert len(_quoted(found, [0, 1, 2], count=3)) == 3


@pytest.mark.parametrize(
    "lead",
    ["These include", "Its symptoms include"],  # a pointer, an anaphor (`leans_back`)
)
def test_a_list_whose_lead_in_points_back_brings_the_sentence_before_it(lead: str) -> None:
    from veriloop.nodes.answer_units import _quoted

    found = [
        ("Some treatments start before the diagnosis is confirmed.", "P-1"),
        (f"{lead}: aspirin", "P-1"),
        (f"{lead}: oxygen therapy", "P-1"),
    ]
    previous = {found[1]: found[0], found[2]: found[1]}
    assert _quoted(found, [2], count=1, previous=previous) == [
        found[0],
        (f"{lead}: aspirin; oxygen therapy.", "P-1"),
    ]


def test_a_causes_answer_leaves_out_what_the_subject_itself_causes() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences, says_what_it_causes

    assert says_what_it_causes("Flu almost never causes an upset stomach.", "Flu")
    assert says_what_it_causes("In men, gonorrhea can cause pain when urinating.", "Gonorrhea")
    assert says_what_it_causes("If untreated, it can lead to infertility.", "Gonorrhea")
    assert not says_what_it_causes(
        "The bacteria that cause gonorrhea infect the throat.", "Gonorrhea"
    )
    assert not says_what_it_causes("Cervical cancer is caused by a virus.", "Cervical Cancer")
    assert not says_what_it_causes(
        "A blockage of the appendix causes appendicitis.", "Appendicitis"
    )
    assert not says_what_it_causes("Smoking causes lung cancer.", "Lung Cancer")
    assert not says_what_it_causes("It is not known what causes psoriasis.", "Psoriasis")
    # "causes" the noun: what the subject has are its causes (35 MedQuAD units, all so)
    assert not says_what_it_causes(
        "Epilepsy has many possible causes, including illness and brain injury.", "Epilepsy"
    )
    assert not says_what_it_causes("Seizures can have many causes.", "Seizures")
    assert not says_what_it_causes("Cirrhosis has various causes.", "Cirrhosis")
    assert says_what_it_causes("Epilepsy has seizures that cause falls.", "Epilepsy")
    page = passage(
        "P-1",
        "Flu is an infection caused by viruses. Flu almost never causes an upset stomach.",
        title="Flu",
    )
    args = (fake_models([]), "What causes flu?", [page], 3)
    about = each(asked_cues("causes"))
    quoted, _ = extract_sentences(*args, about=about, causes=True)
    assert [text for text, _ in quoted] == ["Flu is an infection caused by viruses."]
    quoted, _ = extract_sentences(*args, about=about)
    assert len(quoted) == 2


def test_a_symptoms_answer_leaves_out_what_causes_the_subject() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import extract_sentences, says_what_causes_it

    cause = "Other conditions that can cause dementia or dementia-like symptoms include infections."
    assert says_what_causes_it(cause, "Dementia")
    assert says_what_causes_it("Some diseases can cause symptoms of dementia.", "Dementia")
    assert not says_what_causes_it(
        "Dementia is a group of symptoms caused by disorders.", "Dementia"
    )
    assert not says_what_causes_it("Flu can cause a fever.", "Flu")
    # the subject naming what is caused, not caused itself
    assert not says_what_causes_it(
        "High blood sugar causes diabetes symptoms such as thirst.", "Diabetes"
    )
    assert not says_what_causes_it(
        "Noise at night, causing dementia patients to wander.", "Dementia"
    )
    page = passage("P-1", f"Memory loss is a common symptom of dementia. {cause}", title="Dementia")
    args = (fake_models([]), "What are the symptoms of dementia?", [page], 3)
    about = each(asked_cues("symptoms"))
    quoted, _ = extract_sentences(*args, about=about, symptoms=True)
    assert [text for text, _ in quoted] == ["Memory loss is a common symptom of dementia."]
    assert len(extract_sentences(*args, about=about)[0]) == 2
    # a list of other conditions is no list of symptoms
    others = "A variety of conditions may affect your memory: stroke; depression."
    listing = passage("P-2", f"Memory loss is a symptom of dementia. {others}", title="Dementia")
    asked = (fake_models([]), "What are the symptoms of dementia?", [listing], 3)
    listed, _ = extract_sentences(*asked, symptoms=True)
    assert [text for text, _ in listed] == ["Memory loss is a symptom of dementia."]


def test_a_page_that_does_not_answer_the_type_is_read_whole() -> None:
    from veriloop.nodes.page_types import with_whole_pages

    first = passage("P-7-1", "HIV spreads through sex.", title="HIV/AIDS")
    first.update(part=1, page="P-7", relevance=0.7)
    other = passage("P-9-1", "AIDS affects the nerves.", title="AIDS nerves")
    other.update(part=1, page="P-9", relevance=0.6, kin=True)
    second = passage("P-7-2", "There is no cure, but medicines fight HIV.", title="")
    second.update(part=2, page="P-7", relevance=0.0)
    tail = passage("P-9-2", "Nerve pain is treated.", title="")
    tail.update(part=2, page="P-9", relevance=0.0)

    class Pages:
        name = "pages"

        def parts(self, p: SourcePassage) -> list[SourcePassage]:
            return {"P-7": [first, second], "P-9": [other, tail]}[p["page"]]

    out = with_whole_pages(Pages(), [first, other], pages=1)  # type: ignore[arg-type]
    assert [p["id"] for p in out] == ["P-7-1", "P-7-2", "P-9-1"]
    assert out[1]["title"] == "HIV/AIDS" and out[1]["relevance"] == 0.7
    assert second["title"] == ""  # the source's passage is not changed
    # only pages under the best passage's title: "AIDS nerves" is another page's subject
    out = with_whole_pages(Pages(), [first, other], pages=2)  # type: ignore[arg-type]
    assert [p["id"] for p in out] == ["P-7-1", "P-7-2", "P-9-1"]
    other["title"] = "HIV/AIDS"
    out = with_whole_pages(Pages(), [first, other], pages=2)  # type: ignore[arg-type]
    assert [p["id"] for p in out] == ["P-7-1", "P-7-2", "P-9-1", "P-9-2"] and out[3]["kin"]


def test_what_people_with_the_condition_have_or_lose_is_about_its_symptoms() -> None:
    about = asked_cues("symptoms")
    assert about is not None
    assert about("People with dementia may not be able to think well enough to get dressed.")
    assert about("People with ring chromosome 20 often have recurrent seizures.")
    assert not about("People with atrial fibrillation are prescribed anticoagulants.")


def two_type_unit_classifier(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the unit classifier a fake reading 2-d vectors: P(causes) = sigmoid(4 (x - y))."""
    import numpy as np

    from veriloop.nodes import answer_units
    from veriloop.nodes.linear_weights import LinearWeights
    from veriloop.nodes.unit_type import UnitTypeClassifier

    weights = LinearWeights(
        classes=("causes", "symptoms"),
        coef=np.array([[4.0, 0.0], [0.0, 4.0]], dtype=np.float32),
        intercept=np.zeros(2, dtype=np.float32),
        encoder="fake-embedder",
        notes={},
    )
    classifier = UnitTypeClassifier(weights, {"causes": (0.4, 0.2), "symptoms": (0.4, 0.2)})
    monkeypatch.setattr(answer_units, "unit_types", lambda: classifier)


def test_a_unit_is_about_the_asked_type_when_the_unit_classifier_gives_it_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:

    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import TypeTest
    from veriloop.nodes.question_type import question_types

    two_type_unit_classifier(monkeypatch)
    lead = "Flu symptoms may include"
    # rows are normalised: P(causes) = sigmoid(4 * (x - y)), P(symptoms) = 1 - P(causes)
    vectors = {
        "Flu comes from viruses.": [1.0, 0.0],  # P(causes) 0.98
        "Flu brings a fever and aches.": [0.0, 1.0],  # 0.02
        "People with flu may feel very tired.": [1.0, 0.0],  # P(symptoms) 0.02, but signs
        "Flu is caused by bad luck.": [0.316, 0.949],  # 0.07: its cue is not enough
        f"{lead}: fever; cough.": [0.0, 1.0],  # the list, read whole: 0.02
        "Flu is caused by a virus.": [0.613, 0.79],  # 0.33, and its cue: enough
        "Flu spreads in winter.": [0.613, 0.79],  # 0.33 without a cue: not enough
    }
    units = [
        (text, "P-1")
        for text in [*list(vectors)[:4], f"{lead}: fever.", f"{lead}: cough.", *list(vectors)[5:]]
    ]
    models = fake_models([], vectors=vectors, dim=2)
    causes = TypeTest("causes", models)
    assert causes(units) == [True, False, True, False, False, False, True, False]
    assert len(causes.calls) == 1 and causes.calls[0]["purpose"] == "unit_type"
    symptoms = TypeTest("symptoms", models)
    assert symptoms(units) == [False, True, True, True, True, True, True, True]
    assert TypeTest("outlook", models)(units) == [False] * len(units)  # a type it lacks
    assert causes([]) == []
    # a list's items apart from each other still share its verdict
    apart = [units[4], units[0], units[5]]
    assert causes(apart) == [False, True, False]
    assert TypeTest("symptoms", models)(apart) == [True, False, True]
    # where the classifier passes no unit, the words alone decide
    worded = [("Flu is caused by bad luck.", "P-1"), ("Flu spreads in winter.", "P-1")]
    assert causes(worded) == [True, False]
    # alone, a learned cue stem that is a stop word does not count: prevention's "you"
    you = [("Flu is an infection you get in winter.", "P-1"), ("Wash hands to prevent flu.", "P-1")]
    assert question_types().mentions("prevention", you[0][0])  # beside the meaning, it does
    assert TypeTest("prevention", models)(you) == [False, True]
    # nor a type's thin stem: complications' "bacteri" is a chance word of a few answers
    germs = "Many types of bacteria can cause flu."
    assert question_types().mentions("complications", germs)
    assert not question_types().mentions("complications", germs, alone=True)
    # the subject's own pages fall back to the words apart from its kinds' pages: a kind's
    # unit the classifier passes keeps no own page's cue sentence out
    mixed = [*worded, ("Flu comes from viruses.", "K-1")]
    assert causes(mixed) == [False, False, True]  # one group: the kind's unit passed
    assert TypeTest("causes", models, frozenset({"K-1"}))(mixed) == [True, False, True]
    # how an infection is caught counts as the words of its cause: it passes where the
    # words decide, not beside a unit the classifier passes (P 0.07 here)
    spread = "Flu spreads when an infected person coughs."
    caught = fake_models([], vectors={spread: [0.316, 0.949], **vectors}, dim=2)
    read = [(spread, "P-1"), ("Flu spreads in winter.", "P-1")]
    assert TypeTest("causes", caught)(read) == [True, False]
    assert TypeTest("causes", caught)([*read, ("Flu comes from viruses.", "P-1")]) == [
        False,
        False,
        True,
    ]
    # where a who-is-at-risk page stands in for causes, its units saying a risk pass, and
    # elsewhere only the type's words count (no unit the classifier alone passes)
    risky = "Smoking raises the risk of flu."
    stand = fake_models([], vectors={risky: [0.0, 1.0], **vectors}, dim=2)
    units = [
        (risky, "R-1"),
        ("Flu comes from viruses.", "P-1"),  # P(causes) 0.98, no cue word
        ("Flu is caused by a virus.", "P-1"),  # 0.33 and its cue
        ("Flu spreads in winter.", "R-1"),  # the risk page's unit saying no risk
    ]
    assert TypeTest("causes", stand)(units) == [False, True, True, False]
    assert TypeTest("causes", stand, stand_in=frozenset({"R-1"}))(units) == [
        True,
        False,
        True,
        False,
    ]
    # a risk denied or in doubt on the stand-in page says no cause
    denied = [
        (risky, "R-1"),
        ("Pregnancy is not a risk factor for flu.", "R-1"),
        ("It is not clear whether the following affect the risk of flu: diet.", "R-1"),
        ("Vaccines do not appear to increase the risk of flu.", "R-1"),
        ("Flu shots have not been found to affect the risk of flu.", "R-1"),
        (
            "The following is a risk factor: cold; it is unclear whether diet affects the risk.",
            "R-1",
        ),
    ]
    unlikely = fake_models([], vectors={t: [0.0, 1.0] for t, _ in denied}, dim=2)  # P 0.02
    assert TypeTest("causes", unlikely, stand_in=frozenset({"R-1"}))(denied) == [
        True,
        False,
        False,
        False,
        False,
        True,  # a risk beside a doubt: read per statement
    ]


def test_the_first_part_is_not_answered_from_a_passage_only_a_later_part_found() -> None:
    causes = passage("P-1", "Too much insulin lowers blood sugar too far.", title="Hypoglycemia")
    # a cue word of causes, on the prevention page only the second part's search found
    avoid = passage(
        "P-2", "Regular meals prevent the lows that skipping them causes.", title="Hypoglycemia"
    )
    avoid["for_part"] = True
    second = PartPassages(
        question="how to avoid it", asked="prevention", passage_ids=["P-2"], typed=True
    )
    quoted = _quote_with_part(
        "What causes hypoglycemia? And how to avoid it?",
        [causes, avoid],
        second,
        asked="causes",
        typed=True,
    )
    assert [source for _, source in quoted.units] == ["P-1", "P-2"]


def _quote_with_part(
    question: str,
    passages: list[SourcePassage],
    part: PartPassages,
    *,
    asked: str,
    typed: bool,
    count: int = 1,
) -> Quoted:
    """Quote the answer to a question of type `asked` with one more part, on fake models."""
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import quote_answer

    return quote_answer(
        fake_models([]), question, passages, count, asked=asked, typed=typed, parts=[part]
    )


def _what_then(
    question: str, passages: list[SourcePassage], asked: str, ids: list[str], part: str
) -> Quoted:
    """Quote a "what is" answer with one more part, read through the type test."""

    read = PartPassages(question=part, asked=asked, passage_ids=ids, typed=False)
    return _quote_with_part(question, passages, read, asked="information", typed=True)


def test_a_part_no_page_of_its_type_answers_is_read_through_the_type_test() -> None:
    what = passage("P-1", "Lupus is an autoimmune disease.", title="Lupus")
    how = passage(
        "P-2",
        "Treatment may include antimalarial drugs, steroids and immunosuppressive drugs.",
        title="Lupus",
    )
    question = "What is lupus? How is lupus treated?"
    part = "How is lupus treated?"
    quoted = _what_then(question, [what, how], "treatment", ["P-1", "P-2"], part)
    assert quoted.units == [(what["text"], "P-1"), (how["text"], "P-2")]
    assert quoted.parts_unanswered == []
    # the overview's definition says nothing of treatment: the part is said unanswered
    quoted = _what_then(question, [what], "treatment", ["P-1"], part)
    assert quoted.units == [(what["text"], "P-1")] and quoted.parts_unanswered == ["treatment"]


def test_a_part_read_through_the_type_test_is_not_answered_by_a_unit_said_already() -> None:
    # a unit the first type quoted that says nothing of diagnosis answers no diagnosis part,
    # though the type test passes it (a cue stem of exams and tests: "presenc")
    said = passage(
        "P-1",
        "Trisomy 13 is caused by the presence of an extra copy of chromosome 13 in cells.",
        title="trisomy 13",
    )
    question = "Does trisomy 13 get worse over time? How is it diagnosed?"
    quoted = _what_then(question, [said], "exams and tests", ["P-1"], "How is it diagnosed?")
    assert quoted.units == [(said["text"], "P-1")]
    assert quoted.parts_unanswered == ["exams and tests"]
    # one the first type quoted that says the part's words answers it: said, not missing
    treated = passage("P-2", "Lupus is treated with antimalarial drugs.", title="Lupus")
    question = "What is lupus? How is it treated?"
    quoted = _what_then(question, [treated], "treatment", ["P-2"], "How is it treated?")
    assert quoted.units == [(treated["text"], "P-2")] and quoted.parts_unanswered == []


def _epilepsy_pages() -> tuple[SourcePassage, SourcePassage]:
    """Return NINDS's epilepsy research answer (what scientists study) and an overview."""
    studied = passage(
        "R-1",
        "Scientists are studying the underlying causes of the epilepsies in children, adults, "
        "and the elderly, as well as seizures that occur following brain trauma.",
        title="Epilepsy",
    )
    studied["qtype"] = "research"
    known = passage(
        "I-1", "Epilepsy can be caused by an abnormality in brain wiring.", title="Epilepsy"
    )
    known["qtype"] = "information"
    return studied, known


def test_a_question_asking_how_long_it_lasts_quotes_the_units_saying_it() -> None:
    # "How long does shingles pain last?" quoted the outlook page's opening and then who is
    # vulnerable to shingles
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import quote_answer

    shingles = passage(
        "S-1",
        "Most people are vulnerable to shingles as they age. The pain subsides within 3 to 5 "
        "weeks. People who receive organ transplants are also vulnerable to shingles.",
        title="Shingles",
    )

    def quoted(question: str) -> list[str]:
        return [
            text
            for text, _ in quote_answer(
                fake_models([]), question, [shingles], 3, _EarlierFirst(), asked="outlook"
            ).units  # type: ignore[arg-type]
        ]

    assert quoted("How long does shingles pain last?") == ["The pain subsides within 3 to 5 weeks."]
    # how long one lives, or takes a medicine, is no illness's course: read as its type asks
    assert len(quoted("How long can you live with shingles?")) == 3
    assert len(quoted("How long should I take medicine for shingles?")) == 3


def test_a_question_asking_how_it_is_caught_quotes_the_units_saying_it() -> None:
    # "How is tuberculosis spread?" quoted what causes TB; "Is eczema contagious?" (read
    # as who gets it) quoted that eczema may get better or worse
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import quote_answer

    eczema = passage(
        "E-1",
        "Eczema may get better or worse over time. Eczema is not contagious. "
        "The cause is not known.",
        title="Eczema",
    )
    tb = passage(
        "T-1",
        "TB is caused by a bacterium. TB spreads through the air when a person with TB "
        "coughs or sneezes.",
        title="Tuberculosis",
    )

    def quoted(question: str, page: SourcePassage, asked: str | None) -> list[str]:
        return [
            text
            for text, _ in quote_answer(
                fake_models([]), question, [page], 2, _EarlierFirst(), asked=asked, typed=False
            ).units  # type: ignore[arg-type]
        ]

    assert quoted("Is eczema contagious?", eczema, "susceptibility") == [
        "Eczema is not contagious."
    ]
    assert quoted("How is TB spread?", tb, "causes") == [
        "TB spreads through the air when a person with TB coughs or sneezes."
    ]
    assert quoted("What causes TB?", tb, "causes") == ["TB is caused by a bacterium."]
    # none says it: the question is answered as its type asks
    cancer = passage("C-1", "Cancer is not contagious. Stage IV cancer has spread to bones.")
    assert "Stage IV cancer has spread to bones." in quoted("Has my cancer spread?", cancer, None)
    # inheritance and a cancer not named "cancer" are no infection's spread (review)
    sickle = passage("S-1", "SCD is not contagious. Each parent passes one gene.")
    for asked_of in (
        "Can I pass on sickle cell disease to my children?",
        "Is sickle cell disease transmitted genetically?",
        "Has my lymphoma spread?",
        "Can my child catch up on missed shots?",
    ):
        assert "Each parent passes one gene." in quoted(asked_of, sickle, None)
    silent = passage("E-2", "Eczema may get worse over time. The cause is not known.")
    assert quoted("Is eczema contagious?", silent, None) == [
        "Eczema may get worse over time.",
        "The cause is not known.",
    ]


def test_how_it_is_caught_read_as_who_is_at_risk_is_searched_on_every_page() -> None:
    from veriloop.nodes.type_cues import searched_type

    # "Is hepatitis B contagious?" read as susceptibility quoted only who is at risk
    # ("Anyone can get hepatitis B, but those more likely to are people who ...")
    assert searched_type("Is hepatitis B contagious?", "susceptibility") is None
    assert searched_type("How is hepatitis A spread?", "susceptibility") is None
    assert searched_type("How is TB spread?", "causes") == "causes"  # its pages say how
    assert searched_type("Who is at risk for hepatitis B?", "susceptibility") == ("susceptibility")
    assert searched_type("Has my cancer spread?", "susceptibility") == "susceptibility"
    for who in ("Who is at risk of catching hepatitis B?", "Who is more likely to catch flu?"):
        assert searched_type(who, "susceptibility") == "susceptibility"  # review


def test_a_research_page_does_not_answer_another_type_through_the_type_test() -> None:
    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import quote_answer

    studied, known = _epilepsy_pages()  # the research answer says no cause
    quoted = quote_answer(
        fake_models([]), "What causes epilepsy?", [studied, known], 2, asked="causes", typed=False
    )
    assert [pid for _, pid in quoted.units] == ["I-1"]
    # asked about research, it answers
    quoted = quote_answer(
        fake_models([]),
        "What research is being done on epilepsy?",
        [studied],
        2,
        asked="research",
        typed=True,
    )
    assert [pid for _, pid in quoted.units] == ["R-1"]


def test_research_pages_set_aside_for_the_first_type_still_answer_a_research_part() -> None:
    studied, known = _epilepsy_pages()
    part = PartPassages(
        question="What research is being done on epilepsy?",
        asked="research",
        passage_ids=["R-1"],
        typed=True,
    )
    quoted = _quote_with_part(
        "What causes epilepsy? What research is being done on epilepsy?",
        [known, studied],
        part,
        asked="causes",
        typed=False,
        count=2,
    )
    assert [pid for _, pid in quoted.units] == ["I-1", "R-1"]
    assert quoted.parts_unanswered == []


def test_research_pages_alone_are_read_for_another_type() -> None:
    from veriloop.nodes.answer_units import not_research

    studied = passage("R-1", "Scientists are studying its causes.", title="Epilepsy")
    studied["qtype"] = "research"
    assert not_research([studied], "causes") == [studied]  # nothing else: it stays


def test_a_typed_pages_units_pass_by_their_cue_words_or_the_unit_classifier(
    monkeypatch: pytest.MonkeyPatch,
) -> None:

    from veriloop.models.fakes import fake_models
    from veriloop.nodes.answer_units import TypeTest, type_preferred

    two_type_unit_classifier(monkeypatch)
    # shingles's symptoms page: its cue words passed only "The sores are ..." (the whole
    # answer to "What are the symptoms of shingles?"); the classifier passes the rash
    vectors = {
        "An outbreak usually begins with a burning or tingling feeling.": [0.0, 1.0],
        "The sores are usually gone within another two weeks.": [1.0, 0.0],
        "Doctors are studying the virus.": [1.0, 0.0],
    }
    page = passage("P-1", " ".join(vectors), title="Shingles")
    models = fake_models([], vectors=vectors, dim=2)
    cues = asked_cues("symptoms")
    assert cues is not None and not cues(next(iter(vectors)))
    test = TypeTest("symptoms", models)
    prefer = type_preferred([page], test, cues)
    assert [prefer(text) for text in vectors] == [True, True, False]
    assert len(test.calls) == 1
