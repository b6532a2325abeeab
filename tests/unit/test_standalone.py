"""Sentences that stand alone, on real MedQuAD pages: lead-ins, antecedents, boilerplate."""

from __future__ import annotations

import gzip
import json
from functools import cache
from typing import Any

import pytest

from veriloop.knowledge.medquad import (
    MEDQUAD_FILE,
    MedQuADIndex,
    Passage,
    with_antecedents,
    with_leads,
    with_list_leads,
)
from veriloop.knowledge.run_together import RunTogetherRepair
from veriloop.nodes.grounding import off_focus
from veriloop.standalone import is_boilerplate, leans_back, standalone_units


@cache
def pages() -> list[dict[str, Any]]:
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@cache
def repair() -> RunTogetherRepair:
    return RunTogetherRepair(p["answer"] for p in pages())


def page_with(text: str) -> str:
    return next(p["answer"] for p in pages() if text in p["answer"])


def test_a_dangling_reference_stays_with_its_antecedent() -> None:
    units = standalone_units(page_with("These forms of dengue are life-threatening"))
    [unit] = [u for u in units if "These forms of dengue" in u]
    assert unit.startswith("In some cases, dengue turns into dengue hemorrhagic fever")
    assert not any(u.startswith(("These ", "It ")) for u in units)


def test_a_text_opening_with_a_dangling_reference_leaves_it_out() -> None:
    # seen in the grounded benchmark: MedQuAD passages cut after the antecedent
    text = (
        "It is located in the lower right part of the abdomen. These areas are usually "
        "shiny. The appendix is a small, tube-like organ. It has no known function."
    )
    assert standalone_units(text) == [
        "The appendix is a small, tube-like organ. It has no known function."
    ]
    assert (
        standalone_units("These have been retrieved from NCI's listing of clinical trials.") == []
    )


def test_list_items_carry_their_lead_in() -> None:
    units = standalone_units(page_with("High blood glucose can happen if you"))
    assert "High blood glucose can happen if you: eat too much" in units
    assert not any(u.startswith("- ") for u in units)


def test_a_dash_before_such_as_opens_an_aside_not_a_list() -> None:
    text = (
        "Doctors diagnose dementia only if two or more brain functions - such as memory and "
        "language skills -- are significantly impaired."
    )
    assert standalone_units(text) == [text]
    listed = standalone_units("Look for these signs - Tugging at ears - Crying more than usual")
    assert listed == [
        "Look for these signs: tugging at ears",
        "Look for these signs: crying more than usual",
    ]
    example = "Some drugs - e.g. aspirin - can cause bleeding in the stomach."
    assert standalone_units(example) == [example]
    closed = "Hearing loss - either conductive or mixed - and stapes fixation are its signs."
    assert standalone_units(closed) == [closed]
    both = "Most people with disabilities can - and do - work, play and learn."
    assert standalone_units(both) == [both]


def test_and_before_a_lists_last_item_is_an_item_not_an_aside() -> None:
    units = standalone_units("Risk factors include - older age - smoking - and a family history")
    assert units == [
        "Risk factors include: older age",
        "Risk factors include: smoking",
        "Risk factors include: a family history",
    ]


def test_boilerplate_and_first_person_lines_are_left_out() -> None:
    acknowledged = standalone_units(page_with("The NIDDK would like to thank"))
    assert acknowledged and not any("would like to thank" in u for u in acknowledged)
    assert not any("not copyrighted" in u for u in acknowledged)
    checklist = standalone_units(page_with("I have had gestational diabetes"))
    assert not any("gestational diabetes" in u and " I " in f" {u} " for u in checklist)
    assert is_boilerplate("Check the list of NCI-supported cancer clinical trials now.")
    assert not is_boilerplate("Dengue is rare in the United States.")
    # pointers to other pages (the hand check of issue 31 found one quoted as an answer)
    assert is_boilerplate("For information about AIDS and its treatment, see the AIDSinfo website.")
    assert is_boilerplate(
        "For more information about BMI, go to the Health Topics Overweight and Obesity article."
    )
    assert not is_boilerplate("For information to reach the brain, nerves must be intact.")


@pytest.mark.parametrize(
    ("token", "split"),
    [
        ("fissuressmall", "fissures — small"),
        ("fistulasabnormal", "fistulas — abnormal"),
        ("diarrheaa", "diarrhea — a"),  # "bloody diarrheaa sign of ...": the article
        ("gastroenterologista", "gastroenterologist — a"),
        ("chronica", "chronica"),  # a Latin name's word, 13 times: only specialists split so
        ("tractor", "tractor"),  # an English word: kept
        ("uppermost", "uppermost"),
        ("survivorship", "survivorship"),  # "hip" is on the suffix list
        ("nonharmful", "nonharmful"),  # "non" is a prefix
        ("thannormal", "than normal"),  # a lost space after a function word, no dash
        ("thiscan", "this can"),
    ],
)
def test_run_together_words_are_split_where_a_dash_or_space_was_lost(
    token: str, split: str
) -> None:
    assert repair().repair(f"anal {token} tears") == f"anal {split} tears"


def test_a_passage_opening_inside_a_list_gets_its_lead_in() -> None:
    chunks = [
        "Anal Discomfort. The following steps can help: - Washing the area. Soap dries skin.",
        "Towelettes are better. - Keeping the anal area dry. It helps.",
        "A new topic. Nothing listed here.",
    ]
    led = with_list_leads(chunks)
    assert led[0] == chunks[0] and led[2] == chunks[2]
    assert led[1].startswith("The following steps can help:\nTowelettes are better.")
    units = standalone_units(led[1])
    # the item carries its lead-in, and "It helps." stays with the item it refers to
    assert "The following steps can help: keeping the anal area dry. It helps." in units


def test_a_passage_opening_on_a_leaning_sentence_gets_the_one_before() -> None:
    chunks = [
        "Chronic pain is common. Taking pain medicines daily may help to decrease the pain.",
        "Some examples of these medicines include: NSAID drugs. Counseling may help.",
        "They include: chest pain. Shortness of breath.",
        "However, most people recover. - A list item ends here.",
        "It is rare. It leans on the sentence before.",
        "This one leans on a sentence that leans back itself.",
        "Heart failure is most common after age 65.",
    ]
    leads = with_antecedents(chunks)
    assert leads == [
        "",
        "Taking pain medicines daily may help to decrease the pain.",
        "Counseling may help.",
        "Shortness of breath.",
        "",  # what "it" is, a list item, is not carried over
        "",  # "It leans on the sentence before." leans back itself
        "",  # opens on no leaning sentence
    ]
    units = standalone_units(f"{leads[2]} {chunks[2]}")
    assert units and units[0].startswith("Counseling may help. They include")


def test_a_passage_opening_on_ones_gets_what_they_are_ones_of() -> None:
    chunks = [
        "The cause of lupus is not known. Lupus has many symptoms.",
        "Some common ones are - Joint pain or swelling - Muscle pain - Fatigue",
    ]
    assert with_antecedents(chunks) == ["", "Lupus has many symptoms."]
    assert leans_back("Malignant ones are.")
    assert not leans_back("Bones are made of calcium.")  # a word ending in "ones"


def test_those_the_sentence_itself_says_point_nowhere_back() -> None:
    # "What is the treatment for scabies?" quoted "It is important to remember ..." with
    # the guideline after it, read as pointing back
    assert not leans_back(
        "Treatment should be given to household members, particularly those who have had "
        "prolonged skin-to-skin contact with the infested person."
    )
    assert not leans_back("The risk is higher for those with diabetes.")
    assert leans_back("Some of these medicines cause drowsiness.")
    assert leans_back("Those symptoms usually pass.")


def test_a_stage_named_the_sentence_before_leans_back() -> None:
    # COPD's outlook was answered "At this stage, quality of life is impaired ..." alone
    assert leans_back("At this stage, quality of life is impaired.")
    assert leans_back("In this stage, a person does not have any symptoms.")
    assert leans_back("At that point, emergency treatment should begin.")
    assert not leans_back("At this time there is no cure for the disease.")  # now
    assert not leans_back("In stage 4, the cancer has spread.")


def test_a_passage_given_a_lists_lead_in_gets_no_other_lead() -> None:
    chunks = [
        "Radiation can help. These types of radiation include - IMRT - VMAT. Beams are aimed.",
        "They are common. - Proton therapy. - Carbon ions.",
        "These are used less often.",
    ]
    cut = with_leads(chunks)
    # the second passage opens on the lead-in put before it, not on the sentence before
    assert cut[1] == (
        "",
        "These types of radiation include:\nThey are common. - Proton therapy. - Carbon ions.",
    )
    assert cut[2] == ("", chunks[2])  # what "these" are is a list item: no lead
    assert cut[0] == ("", chunks[0])


def test_the_search_does_not_index_a_passages_lead_again() -> None:
    passages = [
        Passage("MQ-1-1", "Pain medicines help. Take them daily.", "u", "S", "Pain", "q"),
        Passage(
            "MQ-1-2",
            "Take them daily. They include: ibuprofen.",
            "u",
            "S",
            "Pain",
            "q",
            lead="Take them daily.",
        ),
    ]
    assert passages[1].own_text == "They include: ibuprofen."
    assert passages[0].own_text == passages[0].text
    index = MedQuADIndex.build(passages)
    found = index.search("take daily", k=2)
    assert [p.id for p, _ in found] == ["MQ-1-1"]  # the lead is MQ-1-1's sentence


def test_a_lead_does_not_count_an_abbreviation_twice() -> None:
    said = "Vagus nerve stimulation (VNS) may help."
    passages = [
        Passage("MQ-1-1", f"Seizures can be treated. {said}", "u", "S", "Epilepsy", "q"),
        Passage("MQ-1-2", f"{said} It is used rarely.", "u", "S", "Epilepsy", "q", lead=said),
    ]
    # said once on the page (the lead is the passage before's sentence): not twice
    assert "VNS" not in MedQuADIndex.build(passages).abbreviations
    twice = [*passages, Passage("MQ-2-1", said, "u", "S", "Seizures", "q")]
    assert MedQuADIndex.build(twice).abbreviations["VNS"] == "vagus nerve stimulation"


def test_a_neighbouring_condition_is_off_focus_a_synonym_is_not() -> None:
    question = "I have been battling anal fissure for two years. What should I do?"
    assert off_focus(question, "Anal Cancer")
    assert not off_focus(question, "Anal Disorders")  # "disorders" names nothing in particular
    assert not off_focus("What is hypertension?", "High Blood Pressure")
    assert not off_focus("Is Noonan syndrome inherited?", "Noonan syndrome 6")  # subtype number
    assert off_focus("What are the symptoms of type 2 diabetes?", "Diabetes Insipidus")
    # "gene" and "mutation" say what about a subject, not which: the gene is the subject
    assert not off_focus("Homozygous MTHFR A1298C long term prognosis?", "MTHFR gene mutation")
    # a page naming two conditions is no neighbour of either: it is on the one asked
    assert not off_focus("How do you treat a sprained ankle?", "Sprains and Strains")
    assert off_focus("How do you treat a sprained ankle?", "Ankle Injuries and Disorders")


def test_a_parenthesis_in_a_focus_neither_makes_nor_unmakes_a_neighbour() -> None:
    question = "My granddaughter has Klippel-Trenaunay Syndrome. What treatments are there?"
    assert not off_focus(question, "Klippel-Trenaunay Syndrome (KTS)")  # "KTS" not needed
    assert not off_focus("How is tuberculosis treated?", "Tuberculosis (TB)")
    assert off_focus(question, "Klippel Feil Syndrome")  # still a neighbour
    # the parenthesis's words still name the page ("uveal melanoma" is its kind of melanoma)
    assert not off_focus("What is uveal melanoma?", "Intraocular (Uveal) Melanoma")
    assert not off_focus("What are the symptoms of swine flu?", "H1N1 Flu (Swine Flu)")


def test_a_list_whose_bullets_the_scrape_lost_is_cut_into_its_items() -> None:
    units = standalone_units(
        "Signs of a stroke may include: Sudden weakness Paralysis (an inability to move) "
        "of the face Confusion Trouble speaking Sudden and severe headache A transient "
        "ischemic attack has the same signs as a stroke. It passes."
    )
    assert units == [
        "Signs of a stroke may include: sudden weakness",
        "Signs of a stroke may include: paralysis (an inability to move) of the face",
        "Signs of a stroke may include: confusion",  # a one-word item inside the run
        "Signs of a stroke may include: trouble speaking",
        "Signs of a stroke may include: sudden and severe headache.",
        # the sentence after the list, glued to its last item, stands alone
        "A transient ischemic attack has the same signs as a stroke. It passes.",
    ]


def test_a_relative_clause_does_not_make_a_list_item_a_sentence() -> None:
    units = standalone_units(
        "Early symptoms may include: Painful swelling of the hands, known as dactylitis "
        "Fatigue or fussiness from anemia A yellowish color of the skin, known as jaundice, "
        "that occurs when red cells hemolyze The symptoms will vary from person to person."
    )
    assert units == [
        "Early symptoms may include: painful swelling of the hands, known as dactylitis",
        "Early symptoms may include: fatigue or fussiness from anemia",
        "Early symptoms may include: A yellowish color of the skin, known as jaundice, that "
        "occurs when red cells hemolyze.",
        "The symptoms will vary from person to person.",
    ]
    # without the comma too: "that occurs" is the relative clause's verb, not the piece's
    glued = "Signs include: Pain at rest Swelling of the knee Heat that occurs at night Sleep is often poor."
    assert standalone_units(glued) == [
        "Signs include: pain at rest",
        "Signs include: swelling of the knee",
        "Signs include: heat that occurs at night.",
        "Sleep is often poor.",
    ]
    asthma = standalone_units(
        "Good asthma control will: Prevent chronic symptoms Reduce your need for quick-relief "
        "medicines Help you maintain good lung function Prevent asthma attacks that could "
        "result in a hospital stay To control asthma, work with your doctor."
    )
    assert (
        "Good asthma control will: prevent asthma attacks that could result in a hospital stay"
        in " ".join(asthma)
    )
    # a sentence whose subject carries a relative clause is still a sentence
    units = standalone_units(
        "Things to look for - Tugging at ears - Hearing problems Your doctor, who knows "
        "your child, can tell if it is an infection."
    )
    assert units[-1] == "Your doctor, who knows your child, can tell if it is an infection."


def test_items_opening_on_a_verb_continue_the_lead_in() -> None:
    units = standalone_units(
        "Your doctor may ask whether anyone in your family: Has a history of arrhythmias "
        "Has ever had heart disease or high blood pressure Has died suddenly Has other "
        "illnesses or health problems Your doctor will likely want to know what medicines "
        "you're taking."
    )
    lead = "Your doctor may ask whether anyone in your family"
    assert units == [
        f"{lead}: has a history of arrhythmias",
        f"{lead}: has ever had heart disease or high blood pressure",
        f"{lead}: has died suddenly",
        f"{lead}: has other illnesses or health problems.",
        "Your doctor will likely want to know what medicines you're taking.",
    ]


def test_a_question_glued_after_a_lists_last_item_is_cut_off() -> None:
    units = standalone_units(
        "Hidden sources of gluten include additives, such as - modified food starch - "
        "preservatives - stabilizers Did you know that medicines may contain gluten? "
        "Medicines may also contain lecithin."
    )
    assert "Hidden sources of gluten include additives, such as: stabilizers." in units


def test_a_pointer_glued_after_a_lost_bullet_list_ends_it() -> None:
    units = standalone_units(
        "Therapy may involve: Injection with botulinum toxin to relax the muscles Medications "
        "to relax the sphincter Surgery to decrease the pressure Pneumatic balloon dilation "
        "of the esophagus You can learn more about these options by clicking on the "
        "following links: eMedicine Esophageal Motility Disorders"
    )
    assert units == [
        "Therapy may involve: injection with botulinum toxin to relax the muscles",
        "Therapy may involve: medications to relax the sphincter",
        "Therapy may involve: surgery to decrease the pressure",
        "Therapy may involve: pneumatic balloon dilation of the esophagus",
    ]


def test_a_heading_glued_after_items_opening_on_verbs_is_no_list() -> None:
    text = (
        "Compared with others, people who have diabetes: Are at higher risk for heart disease "
        "Have additional causes of heart disease May develop heart disease at a younger age "
        "What Is Diabetes? Diabetes is a disease in which blood glucose is too high."
    )
    assert not any(unit.endswith((": is", ": what")) for unit in standalone_units(text))


def test_a_sentence_glued_to_a_lists_last_item_is_cut_off() -> None:
    units = standalone_units(
        "Things to look for - Tugging at ears - Hearing problems Your health care provider "
        "will diagnose an ear infection with an otoscope."
    )
    assert units == [
        "Things to look for: tugging at ears",
        "Things to look for: hearing problems.",
        "Your health care provider will diagnose an ear infection with an otoscope.",
    ]


def test_a_sentence_saying_what_something_includes_is_cut_off_a_lists_last_item() -> None:
    # "What are the symptoms of dehydration?" quoted "...: dizziness and fainting Signs of
    # dehydration in babies and young children include a dry mouth and tongue, ..."
    units = standalone_units(
        "Signs of dehydration in adults include - Being thirsty - Dizziness and fainting "
        "Signs of dehydration in babies and young children include a dry mouth and tongue."
    )
    assert units == [
        "Signs of dehydration in adults include: being thirsty",
        "Signs of dehydration in adults include: dizziness and fainting.",
        "Signs of dehydration in babies and young children include a dry mouth and tongue.",
    ]
    # too short to be a sentence of its own, it stays with the item
    units = standalone_units("Signs include - Being thirsty - Feeling faint Rashes include hives")
    assert units[-1] == "Signs include: feeling faint Rashes include hives"
    # review: a relative clause is no sentence of its own
    units = standalone_units(
        "Your care team may include - A surgeon - A nurse Specialists who include a "
        "dietitian or a therapist."
    )
    assert "Specialists who include a dietitian or a therapist." not in units


def test_a_sentence_glued_to_a_lists_last_one_word_item_is_cut_off() -> None:
    units = standalone_units(
        "The main features of ADHD are - Inattention - Hyperactivity - Impulsivity No one "
        "knows exactly what causes ADHD. It sometimes runs in families."
    )
    assert units == [
        "The main features of ADHD are: inattention",
        "The main features of ADHD are: hyperactivity",
        "The main features of ADHD are: impulsivity.",
        "No one knows exactly what causes ADHD. It sometimes runs in families.",
    ]


@pytest.mark.parametrize(
    ("text", "item", "sentence"),
    [
        (  # MedlinePlus's Concussion page: the item and the diagnosis sentence were one
            "Consult your doctor if you have more serious symptoms such as - Seizures - "
            "Confusion - Slurred speech Doctors use a neurologic exam and imaging tests to "
            "diagnose a concussion.",
            "Consult your doctor if you have more serious symptoms such as: slurred speech.",
            "Doctors use a neurologic exam and imaging tests to diagnose a concussion.",
        ),
        (
            "They include - Hot flashes - Trouble focusing - Less hair on head, more on face "
            "Some symptoms require treatment.",
            "They include: less hair on head, more on face.",
            "Some symptoms require treatment.",
        ),
        (
            "Symptoms of lice may include - Intense itching - Rash - Visible nits (lice eggs) "
            "or crawling lice Lice spread most commonly by close person-to-person contact.",
            "Symptoms of lice may include: visible nits (lice eggs) or crawling lice.",
            "Lice spread most commonly by close person-to-person contact.",
        ),
        (  # MedlinePlus's Brain Tumors ("What are the symptoms of a brain tumor?", batch H)
            "Some of the most common are - Headaches - Feeling weak or sleepy - Seizures "
            "Doctors diagnose brain tumors by doing a neurologic exam and tests.",
            "Some of the most common are: seizures.",
            "Doctors diagnose brain tumors by doing a neurologic exam and tests.",
        ),
    ],
)
def test_a_sentence_of_a_verb_no_finite_list_holds_is_cut_off_a_last_item(
    text: str, item: str, sentence: str
) -> None:
    units = standalone_units(text)
    assert units[-2:] == [item, sentence]


def test_a_gerund_after_a_last_item_is_another_item_not_a_sentence() -> None:
    units = standalone_units(
        "For some men, the following lifestyle changes help - Quitting smoking - Stopping "
        "illegal drug use Changing medicines you take to treat other health problems."
    )
    assert "Changing medicines you take to treat other health problems." not in units


def test_a_heading_left_as_a_lists_last_item_is_no_item() -> None:
    units = standalone_units(
        "Some sources of these fats are - Avocados - Olive oil - Tofu Sodium You should try "
        "to limit the amount of sodium that you eat."
    )
    assert units == [
        "Some sources of these fats are: avocados",
        "Some sources of these fats are: olive oil",
        "Some sources of these fats are: tofu.",
        "You should try to limit the amount of sodium that you eat.",
    ]


def test_a_last_item_as_long_as_a_name_keeps_its_capitalised_words() -> None:
    units = standalone_units(
        "Lung diseases include - Asthma - Bronchitis - Chronic Obstructive Pulmonary Disease "
        "Your doctor can tell which one you have."
    )
    assert "Lung diseases include: chronic Obstructive Pulmonary Disease." in units
    assert units[-1] == "Your doctor can tell which one you have."


@pytest.mark.parametrize(
    ("last", "item"),
    [
        ("Hepatitis A may cause mild symptoms in adults.", None),  # "A" before a verb
        ("Treatment for Kaposi sarcoma may cause side effects.", None),  # after "for"
        ("Part C is called Medicare Advantage.", None),  # a lone letter
        ("United States, endometrial cancer is the most common cancer.", None),  # a comma
        ("Stage IV After vulvar cancer has been diagnosed, tests are done.", "stage IV."),
        ("Stage IV In the United States, it is the fifth leading cause.", "stage IV."),
    ],
)
def test_a_sentence_opens_after_a_name_only_where_a_sentence_can(
    last: str, item: str | None
) -> None:
    units = standalone_units(f"Key points are - Stage I - Stage II - {last}")
    if item is None:  # lowered, unless a name ("United" of "the United States")
        first = last if last.startswith("United") else f"{last[:1].lower()}{last[1:]}"
        assert units[-1] == f"Key points are: {first}"
    else:
        assert units[-2] == f"Key points are: {item}"
        assert units[-1] == last.split(" ", 2)[2]


def test_a_sentence_opening_with_the_pages_own_acronym_is_cut_off_a_list() -> None:
    text = (
        "This condition is called seasonal affective disorder, or SAD. Symptoms include - "
        "Fatigue - Thoughts of death or suicide SAD may be effectively treated with light "
        "therapy."
    )
    assert standalone_units(text)[-2:] == [
        "Symptoms include: thoughts of death or suicide.",
        "SAD may be effectively treated with light therapy.",
    ]
    # an acronym the text does not define stays in the item ("Upper GI endoscopy")
    other = text.replace("SAD may", "GI may")
    assert standalone_units(other)[-1].endswith(
        "suicide GI may be effectively treated with light therapy."
    )
    # nor one after a word a clause follows: "researchers believe that SAD is ..."
    clause = text.replace("suicide SAD may", "suicide Some believe that SAD may")
    assert standalone_units(clause)[-1] == (
        "Some believe that SAD may be effectively treated with light therapy."
    )


@pytest.mark.parametrize(
    "text",
    [
        # capitalised runs are names, not lost bullets
        "Data come from: the Human Phenotype Ontology and the Genetic Testing Registry.",
        # a name after a word a name follows
        "Ask about: vaccines from Centers for Disease Control for people with Down syndrome.",
        # acronyms and numerals: "factor VIII", not a bullet
        "Medicines are used to: raise factor VIII levels Replace von Willebrand factor.",
    ],
)
def test_names_inside_a_sentence_are_no_lost_bullets(text: str) -> None:
    assert standalone_units(text) == [text]


def test_a_pointer_to_another_section_is_boilerplate() -> None:
    assert is_boilerplate(
        '(For more information, go to "How Are Overweight and Obesity Diagnosed?")'
    )


def test_a_sentence_announcing_the_list_after_it_is_its_lead_in() -> None:
    units = standalone_units(
        "Here is what the treatments are designed to do. - Surgery takes out the cancer. "
        "- Hormone therapy keeps cancer cells from growing. Radiation may follow."
    )
    assert units == [
        "Here is what the treatments are designed to do: surgery takes out the cancer.",
        "Here is what the treatments are designed to do: hormone therapy keeps cancer cells "
        "from growing.",
        "Radiation may follow.",
    ]
    # items after the announcing sentence, in one sentence of their own, each an item
    assert standalone_units("Learn the following signs. - a lump - a change in size. Go.") == [
        "Learn the following signs: a lump",
        "Learn the following signs: a change in size.",
        "Go.",
    ]
    # a sentence that announces nothing stays a sentence of its own
    assert standalone_units("Radiation may follow. - Surgery takes out the cancer.")[0] == (
        "Radiation may follow."
    )
    # "These <noun> are ...", after its heading, announces the list after it: it was
    # quoted alone for "What causes gout?" ("These risk factors are associated with gout.")
    units = standalone_units(
        "Gout can develop. Risk Factors These risk factors are associated with gout. "
        "- Genetics. Many people with gout have a family history of the disease."
    )
    assert units[1] == "Risk Factors These risk factors are associated with gout: genetics."
    assert "Risk Factors These risk factors are associated with gout." not in units
    # opening a passage, it is kept as the lead-in of the list after it, and only so
    units = standalone_units(
        "These risk factors are associated with gout. - Genetics. Many people with gout "
        "have a family history of the disease."
    )
    assert units[0] == "These risk factors are associated with gout: genetics."
    for text in (
        "These risk factors are associated with gout. Gout is painful.",
        "These risk factors are associated with gout.",
    ):
        assert "These risk factors are associated with gout." not in standalone_units(text)
    # "these" inside a sentence points back, not at the list
    units = standalone_units(
        "Crohn's disease is treated with medicines. The goals for using these medicines are "
        "to get you better. - Antibiotics."
    )
    assert "The goals for using these medicines are to get you better." in units
    # review: a sentence going on past a comma announces nothing
    units = standalone_units(
        "These cases are more serious, but they are rarely fatal. - Very rarely, shingles "
        "can lead to pneumonia."
    )
    assert units == ["Very rarely, shingles can lead to pneumonia."]


def test_a_lower_case_part_after_an_item_that_names_says_what_it_is() -> None:
    # "What are the symptoms of a thyroid problem?" was answered "Thyroid problems include:
    # goiter; enlargement of the thyroid gland; hyperthyroidism; when your thyroid ..."
    units = standalone_units(
        "Thyroid problems include - Goiter - enlargement of the thyroid gland - "
        "Hyperthyroidism - when your thyroid gland makes too much hormone - Thyroid cancer "
        "- Thyroiditis - swelling of the thyroid."
    )
    assert units == [
        "Thyroid problems include: goiter - enlargement of the thyroid gland",
        "Thyroid problems include: hyperthyroidism - when your thyroid gland makes too much "
        "hormone",
        "Thyroid problems include: thyroid cancer",
        "Thyroid problems include: thyroiditis - swelling of the thyroid.",
    ]
    # a capitalised name among lower-case items is one of them
    units = standalone_units(
        "Causes include - Graves disease - thyroid nodules - thyroiditis - too much iodine."
    )
    assert units[:2] == ["Causes include: Graves disease", "Causes include: thyroid nodules"]
    # review: a last item of one word, or an acronym's next item, is an item of its own
    assert standalone_units("Causes include - Graves disease - thyroiditis.") == [
        "Causes include: Graves disease",
        "Causes include: thyroiditis.",
    ]
    units = standalone_units("Cholesterol test - LDL - HDL - triglycerides and more")
    assert "Cholesterol test: HDL" in units


def test_an_inner_list_ends_at_a_sentence_among_its_items() -> None:
    # CancerGov's key points flatten a list inside a list: "- Seven types ... are used:
    # - Surgery - Chemotherapy - There are treatments for bone pain ..." (a new key point)
    units = standalone_units(
        "Key Points - Seven types of treatment are used: - Surgery - Chemotherapy - There are "
        "treatments for bone pain caused by hormone therapy. - Cryosurgery"
    )
    assert units == [
        "Seven types of treatment are used: surgery",
        "Seven types of treatment are used: chemotherapy",
        "Key Points: there are treatments for bone pain caused by hormone therapy.",
        "Key Points: cryosurgery",
    ]


def test_a_key_point_naming_kinds_leads_the_bare_items_after_it() -> None:
    # "- Three kinds of standard treatment are used. - Surgery": the treatments are the key
    # point's items ("Surgery" alone is no answer); the next key point is the list's again
    units = standalone_units(
        "Key Points - There are different types of treatment for patients with ovarian "
        "cancer. - Three kinds of standard treatment are used. - Surgery - Chemotherapy - New "
        "types of treatment are being tested in clinical trials. - Radiation therapy - "
        "Patients may want to think about taking part in a clinical trial."
    )
    assert units == [
        "Key Points: there are different types of treatment for patients with ovarian cancer.",
        "Three kinds of standard treatment are used: surgery",
        "Three kinds of standard treatment are used: chemotherapy",
        "New types of treatment are being tested in clinical trials: radiation therapy",
        "Key Points: patients may want to think about taking part in a clinical trial.",
    ]
    # a lead-in among the key point's items is the list's, not the key point's: after its
    # items the list goes on
    units = standalone_units(
        "Key Points - Testicular tumors are divided into 3 groups. - Good Prognosis - Poor "
        "Prognosis - "
        "Five types of standard treatment are used: - Surgery - Chemotherapy - New types of "
        "treatment are being tested in clinical trials."
    )
    assert units[-1] == "Key Points: new types of treatment are being tested in clinical trials."
    assert "Testicular tumors are divided into 3 groups: good Prognosis" in units
    # a sentence naming no kinds leads nothing: the lines after it are the list's
    units = standalone_units(
        "Signs include: - The most common sign is nephrotic syndrome. - Swelling - Fatigue"
    )
    assert units == [
        "Signs include: the most common sign is nephrotic syndrome.",
        "Signs include: swelling",
        "Signs include: fatigue",
    ]
    # nor does one naming kinds it does not count ("Most forms ..."): an item of the list
    units = standalone_units("Signs include: - Most forms of it are mild. - Swelling - Fatigue")
    assert units[1:] == ["Signs include: swelling", "Signs include: fatigue"]


def test_a_word_cut_from_the_passage_before_is_no_lead_in_and_orphan_items_are_left_out() -> None:
    # a passage that opens inside a symptom table: "activity" ends an item cut before it
    units = standalone_units(
        "activity - Reduced factor XIII activity - Short neck - Surgery is often needed now."
    )
    assert units == ["Surgery is often needed now."]


def test_review_cases_a_sentence_is_never_made_up_and_plain_items_stay() -> None:
    # one item alone is left whole: "Metformin is safe for you." is no sentence of the page
    assert standalone_units(
        "Ask your doctor about these questions:\n- Ask your doctor whether Metformin is safe."
    ) == ["Ask your doctor about these questions: ask your doctor whether Metformin is safe."]
    # items after a plain sentence are kept, verb or not
    assert standalone_units("Prevent the flu.\n- Get a flu vaccine every year.\n- Wash hands.") == [
        "Prevent the flu.",
        "Get a flu vaccine every year.",
        "Wash hands.",
    ]
    # an announcing sentence whose items are all dropped stays
    assert standalone_units("Here are the facts.\n- For more information, visit our website.") == [
        "Here are the facts."
    ]


def test_a_quantifier_standing_for_the_sentence_before_joins_it() -> None:
    units = standalone_units(
        "There are many disorders that can cause dementia. Some, such as Alzheimers disease, "
        "lead to a progressive loss of mental functions. Some people need care."
    )
    assert units == [
        "There are many disorders that can cause dementia. Some, such as Alzheimers "
        "disease, lead to a progressive loss of mental functions.",
        "Some people need care.",  # "Some" naming its own noun stands alone
    ]


def test_a_video_notice_is_no_part_of_a_unit() -> None:
    units = standalone_units(
        "Do NOT wait for symptoms! (Watch the video to learn more about the symptoms of "
        "kidney disease. To enlarge the videos on this page, click the brackets in the lower "
        "right-hand corner of the video screen. To reduce the videos, press the Escape (Esc) "
        "button on your keyboard.) Kidney failure means that damaged kidneys filter less."
    )
    assert units == [
        "Do NOT wait for symptoms!",
        "Kidney failure means that damaged kidneys filter less.",
    ]
    # a passage cut inside the notice
    tail = "To reduce the video, press the Escape (Esc) button on your keyboard.) It helps."
    assert standalone_units(f"Exercise is good. {tail}") == ["Exercise is good. It helps."]


def test_the_next_lists_lead_in_glued_after_an_item_opens_its_own_list() -> None:
    units = standalone_units(
        "Signs of dehydration in adults are - feeling dizzy or fainting Signs of dehydration "
        "in babies and young children are - crying without tears - having a high fever"
    )
    assert units == [
        "Signs of dehydration in adults are: feeling dizzy or fainting",
        "Signs of dehydration in babies and young children are: crying without tears",
        "Signs of dehydration in babies and young children are: having a high fever",
    ]


def test_a_sentence_that_depends_or_varies_is_cut_off_a_list() -> None:
    units = standalone_units(
        "Causes of tinnitus include - loud noises - ear infections - certain medicines "
        "Treatment depends on the cause."
    )
    assert units[-2:] == [
        "Causes of tinnitus include: certain medicines.",
        "Treatment depends on the cause.",
    ]


@pytest.mark.parametrize(
    "text",
    [  # the notice closing on ".)", and one with a bracket inside it
        "Tests help. (Watch the video to learn more about tests for kidney disease.) Kidney "
        "tests are simple.",
        "Tests help. (Watch the video to learn more about getting help for alcohol use "
        "disorder (AUD). To enlarge the video, click the brackets.) Kidney tests are simple.",
    ],
)
def test_a_video_notice_leaves_no_bracket_behind(text: str) -> None:
    assert standalone_units(text) == ["Tests help.", "Kidney tests are simple."]


def test_a_letter_naming_a_kind_opens_no_sentence_after_a_name() -> None:
    units = standalone_units(
        "Nutrients include - Iron - Zinc - Vitamin A deficiency can cause night blindness."
    )
    assert units[-1] == "Nutrients include: vitamin A deficiency can cause night blindness."


def test_loved_ones_point_back_to_nothing() -> None:
    assert not leans_back("Your loved ones may notice changes.")
    assert leans_back("Some common ones are - Joint pain")


def test_a_text_opening_on_this_condition_keeps_it_the_page_is_its_antecedent() -> None:
    # 659 MedQuAD answers (GHR's inheritance and frequency pages) open "This condition is
    # inherited in ..." / "This condition affects ...": the page's subject, which the
    # citation names, is what it points to; dropping it left the parents' sentence alone
    opening = "This condition is inherited in an autosomal recessive pattern, which means"
    text = next(p["answer"] for p in pages() if p["answer"].startswith(opening))
    units = standalone_units(text)
    assert units[0].startswith("This condition is inherited in an autosomal recessive pattern")
    assert standalone_units("It is located in the lower right part of the abdomen.") == []
    assert standalone_units("Some are inherited. This condition is rare.") == [
        "Some are inherited. This condition is rare."
    ]
    assert standalone_units("These conditions are rare.") == []


def test_others_after_some_stays_with_it() -> None:
    # "Others might need to wear a brace or have surgery." was quoted alone for "How is
    # scoliosis treated?": 174 distinct MedQuAD units open "Others" + a verb
    text = "Some people need no treatment. Others might need to wear a brace."
    assert standalone_units(text) == [text]
    assert leans_back("Others may have no symptoms.")
    assert not leans_back("Others Who Care is a support group.")  # a name, capitalised


def test_this_condition_after_a_page_s_opening_passage_leans_on_the_sentence_before() -> None:
    # only a page's first passage opens on its subject: a later one's "This condition ..."
    # is what the passage before ended on (High Blood Pressure's "- Heart Failure." item,
    # Graves' eye bulge, "Anemia results if these cells ..."), never the page's subject
    chunks = [
        "High blood pressure can lead to other diseases. - Heart Failure.",
        "This condition occurs when the heart cant pump enough blood.",
        "Anemia results if these cells are destroyed faster than they are made.",
        "This condition can lead to pale skin and fatigue.",
    ]
    leads = with_antecedents(chunks)
    assert leads[1] == "- Heart Failure."
    assert leads[3] == "Anemia results if these cells are destroyed faster than they are made."
    # the item has no lead-in here: it is dropped, and what leans on it with it
    assert standalone_units(f"{leads[1]} {chunks[1]}") == []
    assert standalone_units(f"{leads[3]} {chunks[3]}") == [f"{leads[3]} {chunks[3]}"]
    assert standalone_units(chunks[1]) == [chunks[1]]  # a page's opening keeps it
    # after a sentence opening on an anaphor no lead is taken: read as the page's subject
    goiters = ["Goiters are common. These goiters occur in adulthood.", "This syndrome is rare."]
    assert with_antecedents(goiters) == ["", ""]


def test_a_list_item_keeps_the_capital_of_a_name() -> None:
    units = standalone_units(
        "Conditions linked to it include - Hodgkin lymphoma - Crohn's disease - "
        "MedlinePlus pages - African-Americans - Fever - Testing of the blood"
    )
    assert units == [
        "Conditions linked to it include: Hodgkin lymphoma",
        "Conditions linked to it include: Crohn's disease",
        "Conditions linked to it include: MedlinePlus pages",
        "Conditions linked to it include: African-Americans",
        "Conditions linked to it include: fever",  # a word only titles capitalise
        "Conditions linked to it include: testing of the blood",
    ]


@pytest.mark.parametrize(
    ("page", "last"),
    [
        (
            "those who do and still get pneumonia tend to have: Milder cases of the "
            "infection Pneumonia that doesn't last as long Fewer serious complications "
            "Pneumococcal Pneumonia Vaccine A vaccine is available to prevent pneumococcal "
            "pneumonia.",
            "fewer serious complications.",
        ),
        (
            "Causes of heart failure include: Coronary heart disease Diabetes High blood "
            "pressure Other heart conditions or diseases Other factors Coronary Heart Disease "
            "Coronary heart disease is a condition in which a waxy substance called plaque "
            "builds up inside the coronary arteries.",
            "other factors.",
        ),
    ],
)
def test_a_heading_split_into_one_word_items_is_no_item(page: str, last: str) -> None:
    # NHLBI pages: a glued run's last items were the next heading's words ("pneumococcal.")
    units = standalone_units(page_with(page))
    at = next(k for k, unit in enumerate(units) if unit.endswith(last))
    assert units[at + 1].startswith(("A vaccine is available", "Coronary heart disease is"))


def test_the_bundled_proper_words_are_a_fresh_build_from_medquad() -> None:
    from benchmarks.proper_words import list_file, proper_words
    from veriloop.standalone import PROPER_WORDS

    built = proper_words([p["answer"] for p in pages()])
    assert PROPER_WORDS.read_text(encoding="utf-8") == list_file(built)
    assert {"hodgkin", "crohn's", "national"} <= set(built) and "testing" not in built
