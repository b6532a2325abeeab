"""The subject rule: pages read against the question's subject (nodes/subject.py)."""

from __future__ import annotations

import pytest

from veriloop.knowledge.medquad import page_name
from veriloop.nodes.subject import (
    SubjectPhrase,
    defined_as_kind,
    defines_in_words,
    defines_phrase,
    focus_terms,
    joined_as_named,
    kind_of,
    lay_named,
    lists_as_its_type,
    match_subject,
    named_by_first_word,
    names_a_conjunct,
    names_by_eponym,
    numbers_another,
    on_subject,
    organ_family,
    question_names,
    spells_out,
    subject_phrases,
    subject_tokens,
    writes_name,
)

FISSURE = (
    "I have been battling anal fissure for close to two years and it has refused to heal. "
    "What should I do?"
)
# Real MedQuAD foci and passage text that BM25 returns for the question above.
FISSURE_TITLES = ["Anal Disorders", "Crohn's Disease", "Fecal Incontinence", "Hemorrhoids"]
FISSURE_TEXTS = [
    "Problems with the anus are common. They include hemorrhoids, abscesses, fissures "
    "(cracks), and cancer.",
    "Complications can include: - anal fissures — small tears in the anus that may cause "
    "itching, pain, or bleeding.",
    "Fecal incontinence can be caused by anal sphincter damage.",
    "Hemorrhoids are swollen blood vessels in the anal canal.",
]


def test_runs_break_at_stop_generic_and_punctuation() -> None:
    tokens = subject_tokens("What are the treatments of Sickle Cell Anemia? Thanks")
    assert tokens[-5:] == ["sickl", "cell", "anemia", None, None]
    assert all(t is None for t in tokens[:5])  # what are the treatments of


def test_down_syndrome_is_named_though_down_is_a_stop_word() -> None:
    # "How common is Down syndrome?" was refused with both Down syndrome pages set aside:
    # "down" is a stop word and "syndrome" generic, so the question named nothing
    assert focus_terms("Down syndrome") == {"down"}
    assert subject_tokens("how common is down syndrome")[-2:] == ["down", None]
    assert "down" in subject_tokens("how common is Down's syndrome")
    assert "down" not in subject_tokens("It went down. Syndrome X")  # no name
    assert subject_tokens("calm down")[-1] is None


def test_focus_terms_drop_generic_words() -> None:
    assert focus_terms("Anal Disorders") == {"anal"}
    assert focus_terms("Crohn's Disease") == {"crohn"}


def test_a_parenthesis_in_a_focus_is_no_word_the_question_must_hold() -> None:
    # "Tuberculosis (TB)", CDC's page with its treatment answer, had needed "tb" in a
    # question about tuberculosis; "Klippel-Trenaunay Syndrome (KTS)" NINDS's, "kts"
    assert focus_terms("Tuberculosis (TB)") == {"tuberculosi"}
    assert focus_terms("Liver (Hepatocellular) Cancer") == {"liver", "cancer"}
    question = "My granddaughter was born with Klippel-Trenaunay Syndrome. What treatments?"
    asked = frozenset(t for t in subject_tokens(question) if t)
    assert on_subject(asked, "Klippel-Trenaunay Syndrome (KTS)", [])
    assert on_subject(asked, "Klippel-Trenaunay syndrome", [])
    assert focus_terms("(TB)") == {"tb"}  # a name that is only a parenthesis stays one


def test_the_subject_phrase_is_the_run_the_passages_also_write() -> None:
    vocabulary = {t for title in FISSURE_TITLES for t in focus_terms(title)}
    phrases = subject_phrases(FISSURE, [*FISSURE_TITLES, *FISSURE_TEXTS], vocabulary)
    # "battling anal" is never written; "anal fissure(s)" is, and "anal" names foci.
    assert [p.text for p in phrases] == ["anal fissure"]


def test_a_run_without_a_focus_word_is_no_subject() -> None:
    phrases = subject_phrases("two years of bad sleep", ["for two years", "bad sleep"], {"anal"})
    assert phrases == []


def test_a_wider_family_page_is_not_on_a_narrower_subject() -> None:
    vocabulary = {t for title in FISSURE_TITLES for t in focus_terms(title)}
    phrases = subject_phrases(FISSURE, [*FISSURE_TITLES, *FISSURE_TEXTS], vocabulary)
    asked = frozenset(t for t in subject_tokens(FISSURE) if t)
    assert not on_subject(asked, "Anal Disorders", phrases, vocabulary)  # not "fissure"
    assert not on_subject(asked, "Crohn's Disease", phrases, vocabulary)  # not named at all


def test_a_page_naming_the_whole_subject_is_on_it() -> None:
    question = "What causes Sickle Cell Anemia?"
    texts = ["Sickle cell anemia is inherited.", "Sickle cell disease is a group of disorders."]
    titles = ["Sickle Cell Anemia", "Sickle Cell Disease", "Anemia"]
    got = match_subject(question, titles, [*texts, "Anemia is a low red cell count."])
    # "Sickle Cell Disease" stops short of "anemia"; "Anemia" is wider ("sickle" and
    # "cell" name subjects in the candidates' foci).
    assert got.kept == [0]
    assert got.uncovered is None and got.dropped == 2


def test_words_before_the_focus_do_not_narrow_it_words_after_do() -> None:
    question = "How to Stop Snoring. How to Stop Snoring"
    texts = ["Ways to stop snoring include sleeping on your side."]
    assert match_subject(question, ["Snoring", "Sleep Apnea"], [*texts, "Apnea."]).kept == [0]


def test_a_word_before_that_names_a_subject_narrows_too() -> None:
    question = "Topic not covered. What exactly is sleep paralysis?"
    titles = ["Paralysis", "Narcolepsy", "Sleep Apnea"]
    texts = ["Paralysis is the loss of muscle function.", "Sleep paralysis can occur.", "."]
    got = match_subject(question, titles, texts)
    assert got.kept == [] and got.uncovered is not None
    assert got.uncovered.text == "sleep paralysis"


def test_one_fitting_phrase_is_enough_when_several_share_a_word() -> None:
    question = "Can a 40 year old get throat cancer? I often get strep throat."
    titles = ["Throat Cancer", "Strep Throat", "Voice Disorders"]
    texts = ["Throat cancer is cancer of the throat.", "Strep throat is an infection.", "Voice."]
    assert match_subject(question, titles, texts).kept == [0, 1]


def test_no_page_on_a_named_subject_keeps_nothing_and_names_it() -> None:
    got = match_subject(FISSURE, FISSURE_TITLES, FISSURE_TEXTS)
    assert got.kept == [] and got.uncovered is not None
    assert got.uncovered.text == "anal fissure"
    assert got.nearest == ["Anal Disorders", "Crohn's Disease", "Fecal Incontinence"]
    assert got.dropped == 0  # refused, not filtered


def test_only_pages_on_the_subject_are_kept_when_there_are_any() -> None:
    question = "What are the treatments of Flu?"
    titles = ["COPD", "Flu", "Bronchitis", "Flu"]
    texts = ["COPD makes breathing hard.", "Flu is treated with rest.", "Rest.", "Antivirals."]
    got = match_subject(question, titles, texts)
    assert got.kept == [1, 3] and got.dropped == 2


def test_a_question_without_a_subject_phrase_keeps_everything() -> None:
    question = "Can it be cured?"
    got = match_subject(question, ["Flu", "COPD"], ["Flu can be cured.", "COPD cannot."])
    assert got.kept == [0, 1] and got.uncovered is None


def test_passages_without_titles_are_never_ruled_on() -> None:
    got = match_subject(FISSURE, ["", ""], FISSURE_TEXTS[:2])
    assert got.kept == [0, 1] and got.uncovered is None and got.phrases == []


def test_a_page_that_names_the_subject_as_its_other_name_is_on_it() -> None:
    question = "Ear Ache. My son was treated for otitis media. Is the pain normal?"
    titles = ["Ear Infections", "Hearing Loss", "Otitis"]
    texts = [
        "The infection usually affects the middle ear and is called otitis media.",
        "Otitis media can cause hearing loss in children.",  # mentions it, names nothing
        "Otitis is inflammation of the ear.",
    ]
    got = match_subject(question, titles, texts)
    assert [p.text for p in got.phrases] == ["otitis media"]
    assert got.kept == [0]  # "Otitis" is a wider family; Hearing Loss only mentions it


def test_a_page_is_on_a_lay_name_other_pages_gloss_with_its_name() -> None:
    # "irregular heartbeat (arrhythmia)" on six subjects' pages (knowledge/data/medquad/
    # lay_names.txt); no Arrhythmia answer writes it: the question was refused
    question = "What causes an irregular heartbeat?"
    titles = ["Heart Attack", "Arrhythmia", "Sudden Cardiac Arrest"]
    texts = [
        "Often this leads to an irregular heartbeat - called an arrhythmia - that causes a "
        "severe decrease in the pumping function of the heart.",
        "An arrhythmia is a problem with the rate or rhythm of the heartbeat.",
        "Sudden cardiac arrest is a condition in which the heart suddenly stops beating.",
    ]
    assert match_subject(question, titles, texts).kept == [1]
    assert lay_named(frozenset({"ring", "ear"}), "Tinnitus")  # "ringing in the ears"
    assert not lay_named(frozenset({"ear"}), "Tinnitus")  # every word of the lay name
    assert not lay_named(frozenset({"irregular", "heartbeat"}), "Tinnitus")  # not its name


def test_a_word_of_a_candidates_lay_name_makes_no_subject_phrase() -> None:
    # Myopathy's lay name "muscle weakness" once lent "muscl" to the vocabulary: "muscle
    # cramps" became a phrase no candidate was on, and the question was refused
    question = "Why do I get muscle cramps at night?"
    titles = ["Myopathy", "Dehydration"]
    texts = [
        "Myopathies cause muscle weakness, and some cause muscle cramps.",
        "Dehydration can cause muscle cramps.",
    ]
    got = match_subject(question, titles, texts)
    assert got.uncovered is None and got.kept == [0, 1]


def test_use_is_no_part_of_a_subject() -> None:
    question = "What is Alcohol Use Disorder?"
    titles = ["Alcohol", "Alcohol Use and Older Adults", "Dual Diagnosis"]
    texts = ["Alcohol use can harm the liver.", "Alcohol use in older adults.", "Both."]
    assert match_subject(question, titles, texts).kept == [0]


def test_a_gene_page_is_on_a_question_naming_the_gene_alone() -> None:
    # GARD files the MTHFR variants under "MTHFR gene mutation"; people write the variant
    question = "Homozygous MTHFR A1298C health issues and long term prognosis?"
    titles = ["MTHFR gene mutation", "Isaacs' Syndrome", "Iron-Deficiency Anemia"]
    texts = [
        "MTHFR gene mutations may affect how the body processes homocysteine.",
        "Isaacs' syndrome is a rare neuromuscular disorder.",
        "Iron-deficiency anemia is a common type of anemia.",
    ]
    assert focus_terms("MTHFR gene mutation") == {"mthfr"}
    match = match_subject(question, titles, texts)
    assert match.matched and match.kept == [0]


def test_a_page_defining_its_subject_in_the_questions_words_is_on_it() -> None:
    question = "Mite Infestation. What is the recommended treatment for mite infestation in humans?"
    titles = ["Parasites - Scabies", "Parasites - Lice - Head Lice", "Osteoarthritis"]
    texts = [
        "Scabies is an infestation of the skin by the human itch mite (Sarcoptes scabiei).",
        "Head lice are parasitic insects that can be found on the head.",
        "Osteoarthritis is a disease in which the cartilage in joints wears away.",
    ]
    assert match_subject(question, titles, texts).kept == [0]
    asked = frozenset(t for t in subject_tokens(question) if t)
    assert defines_in_words(asked, titles[0], texts[:1])
    # one question word, or a generic head ("a disease in which ..."), says nothing of it
    assert not defines_in_words(asked, "Itch", ["Itch is a sensation that mites can cause."])
    joints = frozenset({"joint", "cartilag"})
    assert not defines_in_words(joints, "Osteoarthritis", texts[2:])
    # a generic head before the question's words says what kind of thing, not which
    skin = frozenset(t for t in subject_tokens("mite infestation of the skin") if t)
    generic = ["Scabies is a disease of the skin caused by mites."]
    assert not defines_in_words(skin, "Scabies", generic)
    assert defines_in_words(skin, "Scabies", ["Scabies is an infestation of the skin by mites."])


ULCER_TITLES = [
    "Stomach Disorders",
    "Helicobacter Pylori Infections",
    "Peptic Ulcer",
    "Ulcerative Colitis",
]
ULCER_TEXTS = [
    "Your stomach is an organ between your esophagus and small intestine.",
    "H. pylori is a type of bacteria that can cause stomach ulcers.",
    "A peptic ulcer is a sore in the lining of your stomach or your duodenum, the first "
    "part of your small intestine. A burning stomach pain is the most common symptom.",
    "Ulcerative colitis (UC) is a disease that causes inflammation and sores, called "
    "ulcers, in the lining of the rectum and colon.",
]


def test_a_page_defining_itself_as_the_questions_thing_is_on_it() -> None:
    # "What causes a stomach ulcer?" was refused: "Peptic Ulcer" was set aside as a
    # neighbouring condition, though its page says it is a sore in the stomach's lining
    question = "What causes a stomach ulcer?"
    assert defined_as_kind(question, "Peptic Ulcer", ULCER_TEXTS[2:3])
    assert match_subject(question, ULCER_TITLES, ULCER_TEXTS).kept == [2]
    # the page's name must end on the question's head word, and its definition must hold
    # the question's other words
    assert not defined_as_kind(question, "Ulcerative Colitis", ULCER_TEXTS[3:])
    assert not defined_as_kind("What causes a mouth ulcer?", "Peptic Ulcer", ULCER_TEXTS[2:3])
    mention = ["Peptic ulcers are common. Stomach pain is the most common symptom."]
    assert not defined_as_kind(question, "Peptic Ulcer", mention)  # no definition
    # the words must say where it is, in the definition's first clause (review)
    saying = ["Peptic ulcers are common and cause stomach pain."]
    assert not defined_as_kind(question, "Peptic Ulcer", saying)
    second = ["Breast cancer is second only to lung cancer as a cause of cancer death."]
    assert not defined_as_kind("What is lung cancer?", "Breast Cancer", second)
    # a question naming the page's own words is the page's own rule's, not this one's
    assert not defined_as_kind("What causes a peptic ulcer?", "Peptic Ulcer", ULCER_TEXTS[2:3])


SPRAIN_TITLES = ["Ankle Injuries and Disorders", "Sprains and Strains", "Cataract"]
SPRAIN_TEXTS = [
    "The most common ankle problems are sprains and fractures. A sprain is an injury to the "
    "ligaments.",
    "A sprain is a stretched or torn ligament. At first, treatment of both sprains and "
    "strains usually involves resting the injured area.",
    "A cataract is a clouding of the lens in your eye.",
]


def test_a_page_naming_two_conditions_is_on_each_when_no_page_is_on_the_subject() -> None:
    # "How do you treat a sprained ankle?" was refused: "Sprains and Strains" names two
    # conditions, and the question only one of them (its participle, "sprained")
    question = "How do you treat a sprained ankle?"
    assert match_subject(question, SPRAIN_TITLES, SPRAIN_TEXTS).kept == [1]
    assert names_a_conjunct("What causes strains?", "Sprains and Strains")
    assert names_a_conjunct("How is HIV transmitted?", "HIV/AIDS")  # was refused
    assert not names_a_conjunct("How is HIV transmitted?", "HIV/AIDS in Women")
    assert names_a_conjunct("Is there a cure for HIV?", "HIV/AIDS Medicines")  # its aspect
    # review: a name in capitals must be written so, a context is no condition, and a
    # GARD syndrome's second word is in lower case
    assert not names_a_conjunct("Do hearing aids cause ear wax?", "HIV/AIDS")
    assert not names_a_conjunct("What causes diabetes?", "Diabetes and Pregnancy")
    assert not names_a_conjunct("What is neutropenia?", "Onychotrichodysplasia and neutropenia")
    # two words on either side name one thing ("Head and Neck Cancer", "Cleft Lip and
    # Palate"), and a page under the question's own name comes first
    assert not names_a_conjunct("Is neck cancer curable?", "Head and Neck Cancer")
    assert not names_a_conjunct("What is a cleft lip?", "Cleft Lip and Palate")
    # (a lower-case second word already leaves GARD's "Cataract and cardiomyopathy" out, so
    # the order is shown on two Title Case conditions)
    titles = ["Meningitis", "Meningitis and Encephalitis"]
    texts = ["Meningitis is an infection.", "Meningitis and encephalitis are inflammations."]
    assert match_subject("What causes meningitis?", titles, texts).kept == [0]


def test_a_text_saying_what_the_phrase_is_defines_it_a_mention_does_not() -> None:
    phrase = SubjectPhrase(("sleep", "paralysis"), ("sleep", "paralysi"))
    defining = defines_phrase(phrase)
    assert defining.search("Many also have sleep paralysis, which is an inability to move.")
    assert defining.search("Sleep paralysis (pah-RAL-ih-sis). This condition prevents you ...")
    assert defining.search("Sleep paralysis is a brief loss of movement.")
    assert not defining.search("Hallucinations and sleep paralysis during sleep.")
    assert not defining.search("Medicines also help prevent sleep paralysis.")
    # one of several things named, or the page's subject said again ("It is ...")
    assert not defining.search("Narcolepsy causes sleep paralysis. It is a chronic disorder.")
    assert not defining.search("Hallucinations and sleep paralysis, which are common, pass.")
    assert not defining.search("Cataplexy and sleep paralysis are the most disabling symptoms.")
    assert not defining.search("Cataplexy or sleep paralysis is the first sign.")
    assert defining.search("In narcolepsy, sleep paralysis is a brief loss of movement.")


@pytest.mark.parametrize(
    ("question", "focus", "kin"),
    [
        ("what is the treatment for leukemia", "Chronic Myeloid Leukemia", True),
        ("what is lymphoma", "Adult Hodgkin Lymphoma", True),
        ("lymphoma treatment", "Adult Non-Hodgkin Lymphoma", True),
        ("leber amaurosis", "Leber congenital amaurosis", True),
        ("hodgkin lymphoma", "Adult Non-Hodgkin Lymphoma", False),
        ("breast cancer treatment", "Lung Cancer", False),
        ("anal fissure", "Anal Cancer", False),
        ("how is turner syndrome diagnosed", "Parsonage Turner syndrome", False),
        ("What are the treatments of HIV/AIDS?", "Neurological Complications of AIDS", False),
        ("What causes Obesity?", "Overweight and Obesity", True),
        # a bare title word narrowed later in the message: the narrowed one decides
        (
            "infection. can a streptococcus infection cause wegeners?",
            "Meningococcal Infections",
            False,
        ),
        ("infection. what treats an infection?", "Meningococcal Infections", True),
        # what the question says of its subject follows it: no word of a longer name
        ("How long does mononucleosis last?", "Infectious Mononucleosis", True),
        ("Is mononucleosis contagious?", "Infectious Mononucleosis", True),
        ("Is leukemia hereditary?", "Chronic Myeloid Leukemia", True),
        ("Can lymphoma kill you?", "Adult Hodgkin Lymphoma", True),
        ("Does otitis media hurt?", "Otitis", False),
        ("Is hereditary angioedema treatable?", "Acquired angioedema", False),
        # the subject itself, written alike, is no kind of it (GHR's inheritance page then
        # went from the subject's page of the type to a kind's page beside the others')
        ("Is cystic fibrosis inherited?", "cystic fibrosis", False),
        # a possessive is part of the name: no other palsy is a kind of Bell's palsy
        ("What causes Bell's palsy?", "Spastic diplegia cerebral palsy", False),
        ("What causes Bell\u2019s palsy?", "Congenital laryngeal palsy", False),
        ("Is Kaposi's sarcoma curable?", "Kaposi Sarcoma", False),
        ("what causes palsy", "Spastic diplegia cerebral palsy", True),
        # a person's possessive still breaks the run: any asthma is the child's asthma
        ("Is my child's asthma dangerous?", "Occupational Asthma", True),
    ],
)
def test_a_page_about_a_kind_of_the_subject_is_kin(question: str, focus: str, kin: bool) -> None:
    assert kind_of(question, focus) is kin


def test_kin_pages_are_kept_and_an_adults_question_prefers_adult_pages() -> None:
    titles = [
        "Childhood Acute Lymphoblastic Leukemia",
        "Chronic Myeloid Leukemia",
        "Anemia",
    ]
    texts = ["ALL in children.", "CML is a leukemia.", "Anemia is low blood."]
    adult = match_subject("what is the treatment for leukemia", titles, texts)
    assert adult.kept == [1] and adult.kin == [1]
    child = match_subject("my son has leukemia, how is it treated", titles, texts)
    assert child.kept == [0, 1]


def test_a_kind_of_a_word_beside_the_subject_is_no_kin_of_it() -> None:
    question = (
        "can diverticulosis or diverticulitis be seen on a cat scan if there is no infection?"
    )
    titles = [
        "Diverticulosis and Diverticulitis",
        "Parasites - Toxoplasmosis (Toxoplasma infection)",
    ]
    texts = ["Diverticulitis is an infection of pouches.", "Cats spread toxoplasmosis."]
    assert kind_of(question, titles[1])  # "infection" is a word of the question ...
    match = match_subject(question, titles, texts)
    assert match.kept == [0] and match.kin == []  # ... but the subject is diverticulitis


def test_a_page_giving_its_subject_a_former_name_the_question_uses_is_on_it() -> None:
    question = "can a streptococcus infection cause a disease like wegeners?"
    titles = ["Granulomatosis with Polyangiitis", "Meningococcal Infections"]
    texts = [
        "Granulomatosis with polyangiitis (GPA), previously known as Wegener's "
        "granulomatosis, is a rare disease.",
        "Meningococci are bacteria that cause serious infections.",
    ]
    assert match_subject(question, titles, texts).kept == [0]
    # a word a candidate's focus holds names that page, not this one
    asked = frozenset({"hodgkin", "lymphoma"})
    text = "Its former name, also known as Hodgkin disease, is still used."
    assert names_by_eponym(asked, frozenset(), text)
    assert not names_by_eponym(asked, frozenset({"hodgkin"}), text)
    assert not names_by_eponym(asked, frozenset(), "It is also called a rare cancer.")


def test_a_named_adults_question_is_not_answered_from_a_childrens_page() -> None:
    from veriloop.nodes.subject import about_adults

    titles = ["Childhood Acute Lymphoblastic Leukemia", "Chronic Myeloid Leukemia", "Anemia"]
    texts = ["ALL in children.", "CML is a leukemia.", "Anemia is low blood."]
    son = match_subject("my son has leukemia, how is it treated", titles, texts)
    assert son.kept == [0, 1]
    grown = match_subject("my son is 33 years old and has leukemia", titles, texts)
    assert grown.kept == [1]  # a son, but grown
    only = match_subject("my father has leukemia", titles[:1], texts[:1])
    assert only.kept == [0]  # no other page is on it: the children's page is what there is
    assert about_adults("My son is 33years of age and did not have the vaccination")
    assert about_adults("I have had it for 30 years and I am 25 years old")
    assert not about_adults("my son is 4 years old and has had a fever for 2 years")
    assert not about_adults("I am a mom and my 4 year old son has leukemia")
    assert not about_adults("my son has had leukemia for 20 years")  # a duration, a son
    assert about_adults("My father is suffering from IBS")
    assert not about_adults("how is irritable bowel syndrome treated")


def test_a_page_that_writes_the_questions_phrase_is_on_it() -> None:
    question = "How can I prevent a shingles outbreak?"
    titles = ["Shingles", "Chickenpox"]
    texts = [
        "A shingles outbreak usually starts with pain on one side of the body.",
        "Chickenpox is caused by the varicella zoster virus, as shingles is.",
    ]
    got = match_subject(question, titles, texts)
    assert got.kept == [0] and got.uncovered is None
    elsewhere = "A shingles outbreak can follow chickenpox."
    silent = match_subject(question, titles, ["Shingles is a painful rash.", elsewhere])
    assert silent.uncovered is not None  # "outbreak" narrows past a page that never says it


def test_what_the_question_says_of_its_subject_ends_no_phrase() -> None:
    titles = ["Whooping Cough", "Cough"]
    texts = ["Whooping cough is an infectious bacterial disease.", "A chronic cough lasts weeks."]
    vocabulary = {t for title in titles for t in focus_terms(title)}
    question = "How long does whooping cough last?"
    phrases = subject_phrases(question, [*titles, *texts], vocabulary)
    assert [p.text for p in phrases] == ["whooping cough"]  # "cough last(s)" is written
    got = match_subject(question, titles, texts)
    assert got.uncovered is None and got.kept == [0]


def test_a_wider_page_writing_the_phrase_is_not_on_it_beside_the_phrases_own_page() -> None:
    question = "How long does whooping cough last?"
    titles = ["Whooping Cough", "Cough"]
    texts = [
        "Whooping cough is an infectious bacterial disease.",
        "Causes of a cough include whooping cough and asthma.",
    ]
    assert match_subject(question, titles, texts).kept == [0]
    alone = match_subject(question, ["Cough"], [texts[1]])
    assert alone.kept == [0]  # with no Whooping Cough page, the page writing it is on it


def test_a_questions_name_runs_keep_generic_words_and_lose_asking_words() -> None:
    assert question_names("What are the symptoms of Alcohol Use Disorder?") == [
        ("alcohol", "use", "disorder")
    ]
    assert question_names("How to diagnose Seasonal Affective Disorder ?") == [
        ("seasonal", "affective", "disorder")
    ]
    assert question_names("What causes flu?") == []  # one word is no run


def test_a_page_writing_the_questions_name_under_its_own_focus_is_on_it() -> None:
    # real MedQuAD foci and text: AUD has no page of its own
    question = "What are the treatments of Alcohol Use Disorder?"
    titles = ["Alcoholism and Alcohol Abuse", "Fetal Alcohol Spectrum Disorders"]
    texts = [
        "However, about 18 million adult Americans have an alcohol use disorder.",
        "Drinking alcohol during pregnancy can cause FASDs.",
    ]
    assert writes_name(question, titles[0], [texts[0]])
    assert not writes_name(question, titles[1], [texts[1]])
    got = match_subject(question, titles, texts)
    assert got.kept == [0] and got.matched
    # the name inside a proper name is not written: Parsonage Turner syndrome
    turner = "How is Turner syndrome diagnosed?"
    assert not writes_name(
        turner, "Parsonage Turner Syndrome", ["Parsonage Turner syndrome is rare."]
    )
    assert not writes_name(turner, "Turner-like Disorder", ["It mimics Parsonage-Turner syndrome."])
    assert writes_name(turner, "Turner-like Disorder", ["It looks like turner syndrome."])
    # a page already on the subject by its own name leaves no room for the fallback
    own = match_subject(
        "What causes sickle cell anemia?",
        ["Sickle Cell Anemia", "Sickle Cell Trait"],
        [
            "Sickle cell anemia is inherited.",
            "People with the trait do not have sickle cell anemia.",
        ],
    )
    assert own.kept == [0]


def test_a_page_spelling_out_the_questions_abbreviation_is_on_it() -> None:
    question = (
        "SSPE. My son is 33 years of age and did not have the measles vaccination. Could "
        "SSPE occur at this age or in the future?"
    )
    titles = ["Subacute Sclerosing Panencephalitis", "Measles"]
    texts = [
        "Subacute sclerosing panencephalitis (SSPE) is a progressive neurological disorder.",
        "Measles is an infectious disease caused by a virus.",
    ]
    assert spells_out(question, titles[0], [texts[0]])
    got = match_subject(question, titles, texts)
    assert 0 in got.kept and got.uncovered is None  # not "no page about measles vaccination"
    # the abbreviation must follow the page's own focus
    assert not spells_out(question, "Measles", ["Measles can lead to SSPE years later."])


def test_an_abbreviation_must_follow_the_whole_focus_and_share_its_first_letter() -> None:
    question = "Is SCA serious? My son has SCA."
    assert not spells_out(question, "Anemia", ["Sickle cell anemia (SCA) is inherited."])
    assert spells_out(question, "Sickle Cell Anemia", ["Sickle cell anemia (SCA) is inherited."])
    # a stop word in lower case is no abbreviation; in capitals it may be one
    focus, text = "Hereditary Early Retinopathy", ["Hereditary early retinopathy (HER) is rare."]
    assert not spells_out("Could her son get it?", focus, text)
    assert spells_out("Is HER inherited?", focus, text)


def test_a_page_numbering_the_asked_name_otherwise_is_not_on_the_subject() -> None:
    question = "patau syndrome/ trisomy 13. does the condition of trisomy get worse?"
    titles = ["trisomy 13", "trisomy 18", "Mosaic trisomy 8", "Trisomy"]
    texts = ["Trisomy 13 is rare.", "Trisomy 18 is rare.", "Mosaic trisomy 8 is rare.", "T."]
    assert [titles[i] for i in match_subject(question, titles, texts).kept] == [
        "trisomy 13",
        "Trisomy",
    ]
    assert numbers_another("type 2 diabetes in adults", "Diabetes Type 1")
    assert not numbers_another("type 2 diabetes in adults", "Type 2 Diabetes")
    assert not numbers_another("Type II diabetes", "Diabetes Type 2")  # a Roman numeral
    # a numbering word's number belongs to the name it numbers
    assert not numbers_another(
        "I have type 2 diabetes. Is Waardenburg syndrome inherited?", "Waardenburg syndrome type 1"
    )
    # a question numbering nothing keeps its numbered kinds
    assert not numbers_another("what causes noonan syndrome", "Noonan syndrome 6")
    # a name lettered otherwise is another subject ("How is hepatitis A spread?" quoted
    # "You could get hepatitis B through contact with an infected persons blood")
    assert numbers_another("How is hepatitis A spread?", "What I need to know about Hepatitis B")
    assert not numbers_another("How is hepatitis A spread?", "Hepatitis A")
    assert not numbers_another("What causes hepatitis?", "Hepatitis B")
    assert numbers_another("Can vitamin D prevent colds?", "Vitamin A")
    # a list of letters names each: "hepatitis A, B and C" holds hepatitis C's page
    assert not numbers_another(
        "What is the difference between hepatitis A, B and C?", "Hepatitis C"
    )
    assert not numbers_another("Are hepatitis B or C curable?", "Hepatitis C")
    assert not numbers_another("is hepatitis b or c curable", "Hepatitis C")  # lower case
    assert numbers_another("Are hepatitis B or C curable?", "Hepatitis A")
    assert not numbers_another("Do I need vitamins A and D?", "Vitamin D")
    assert numbers_another("Can vitamin D and a diet help?", "Vitamin A")  # "a" is no letter
    assert not numbers_another("is hepatitis a virus or bacteria?", "Hepatitis B")
    assert numbers_another("is hepatitis c contagious", "What I need to know about Hepatitis B")
    assert not numbers_another("is hepatitis c contagious", "Hepatitis C")


def test_a_page_filed_under_a_category_is_read_by_its_own_name() -> None:
    assert page_name("Parasites - Lice - Body Lice") == "Body Lice"
    assert page_name("Parasites - Scabies") == "Scabies"
    # a syndrome named by all its parts stays whole
    whole = "Ataxia - hypogonadism - choroidal dystrophy"
    assert page_name(whole) == whole
    question = "Body Lice. How do I get rid of these little devils?"
    titles = ["Parasites - Lice - Body Lice", "Lice", "Parasites - Lice - Head Lice"]
    texts = ["Body lice are parasitic insects.", "Lice are insects.", "Head lice are insects."]
    kept = match_subject(question, titles, texts).kept
    assert [titles[i] for i in kept] == ["Parasites - Lice - Body Lice"]


KEPT = [
    pytest.param(  # a body part's family yields to the named condition
        "I have retinitis pigmentosa. Is there any way to treat my eyes, such as stem cells?",
        [
            ("retinitis pigmentosa", "Retinitis pigmentosa is a group of eye disorders."),
            ("Eye Diseases", "Eye diseases are common."),
        ],
        [0],
        id="organ-family-yields",
    ),
    pytest.param(  # two conditions named by one word each: both stay
        "I want more information on hypertension and fibromyalgia.",
        [
            ("Hypertension", "Hypertension is high blood pressure."),
            ("Fibromyalgia", "Fibromyalgia causes pain."),
        ],
        [0, 1],
        id="two-lone-words",
    ),
    pytest.param(  # a lone word no candidate's title holds, only a page's other name
        "I want more information on hypertension and fibromyalgia.",
        [
            ("Fibromyalgia", "Fibromyalgia causes pain."),
            ("High Blood Pressure", "High blood pressure, sometimes called hypertension, is."),
            ("Diabetes", "Diabetes is high blood sugar."),
        ],
        [0, 1],
        id="lone-word-only-a-stated-name",
    ),
    pytest.param(  # words that are no body part: every page on them stays
        "My son has leigh disease, as in our family history. What treatment is there?",
        [
            ("Leigh's disease", "Leigh's disease is a rare disorder."),
            ("Family History", "Your family history holds clues."),
        ],
        [0, 1],
        id="no-body-part",
    ),
    pytest.param(  # a one-word subject the page gives as its other name
        "What is hypertension?",
        [
            (
                "Pulmonary Hypertension",
                "Pulmonary hypertension is high blood pressure in the arteries of the lungs.",
            ),
            (
                "High Blood Pressure",
                "High blood pressure, sometimes called hypertension, happens when it is high.",
            ),
        ],
        [1],
        id="stated-other-name",
    ),
    pytest.param(  # a phrase the page gives as its other name ("X, also called Y or Z")
        "What are the symptoms of low blood sugar?",
        [
            ("Blood Sugar", "Blood sugar, or glucose, is the main sugar in your blood."),
            ("High Blood Pressure", "High blood pressure is common."),
            (
                "Hypoglycemia",
                "Hypoglycemia, also called low blood glucose or low blood sugar, occurs when.",
            ),
        ],
        [0, 2],
        id="stated-other-phrase",
    ),
    pytest.param(  # a word inside the question's named phrase is no subject of its own
        "What causes Sickle Cell Anemia?",
        [
            ("Sickle Cell Anemia", "Sickle cell anemia is inherited."),
            ("Anemia", "A low red blood cell count is called anemia."),
        ],
        [0],
        id="word-inside-a-phrase",
    ),
    pytest.param(  # a name said of something else is no other name
        "What should I do about a fever?",
        [
            ("Vital Signs", "A temperature above normal is called a fever."),
            ("Fever", "A fever is a high temperature."),
        ],
        [1],
        id="named-of-something-else",
    ),
    pytest.param(  # "the condition is called X": the page's own condition
        "Can diverticulosis be seen on a scan?",
        [
            (
                "Diverticular Disease",
                "When pouches do not cause problems, the condition is called diverticulosis.",
            ),
            ("Diverticulosis and Diverticulitis", "Diverticulosis and diverticulitis affect it."),
            ("Colon Polyps", "Polyps grow in the colon."),
        ],
        [0],
        id="the-condition-is-called",
    ),
    pytest.param(  # a name a longer name starts is no other name
        "Does my kidney hurt?",
        [
            ("Renal Cell Cancer", "Renal cell cancer, also called kidney cancer, forms there."),
            ("Kidney Diseases", "Kidneys."),
        ],
        [1],
        id="longer-name",
    ),
]


@pytest.mark.parametrize(("question", "pages", "kept"), KEPT)
def test_the_pages_on_a_named_or_lone_word_subject_are_kept(
    question: str, pages: list[tuple[str, str]], kept: list[int]
) -> None:
    titles, texts = [title for title, _ in pages], [text for _, text in pages]
    got = match_subject(question, titles, texts)
    assert got.kept == kept and got.kin == []


def test_a_body_parts_family_page_is_one_part_and_a_plural_family_word() -> None:
    assert organ_family("Eye Diseases") and organ_family("Foot Health")
    assert not organ_family("Muscle eye brain disease") and not organ_family("Heart Attack")
    assert not organ_family("Kidney Disease") and not organ_family("HAIR-AN syndrome")


@pytest.mark.parametrize(
    ("focus", "aspect"),
    [
        ("HIV/AIDS Medicines", ("HIV/AIDS", "treatment")),
        ("Prostate Cancer Screening", ("Prostate Cancer", "exams and tests")),
        ("Heart Diseases--Prevention", ("Heart Diseases", "prevention")),
        ("Pregnancy and Medicines", None),  # medicines in pregnancy: no condition's aspect
        ("Medicines", None),
        ("Diabetes", None),
    ],
)
def test_a_page_on_one_aspect_of_a_condition_is_read_as_such(
    focus: str, aspect: tuple[str, str] | None
) -> None:
    from veriloop.nodes.subject import aspect_page

    assert aspect_page(focus) == aspect


def test_a_name_asked_only_by_its_letter_keeps_the_pages_lettered_so() -> None:
    # "How long does hepatitis A last?" quoted Autoimmune Hepatitis's "... progresses to
    # cirrhosis": the wider and other kinds' pages stood beside Hepatitis A's
    titles = [
        "Hepatitis",
        "Autoimmune Hepatitis",
        "What I need to know about Hepatitis A",
        "Liver Transplant",
    ]
    texts = [
        "Hepatitis is an inflammation of the liver.",
        "Autoimmune hepatitis is a disease in which the immune system attacks the liver.",
        "Hepatitis A is a virus that causes inflammation of the liver.",
        "Hepatitis can lead to a liver transplant.",
    ]

    def kept(question: str) -> list[str]:
        return [titles[i] for i in match_subject(question, titles, texts).kept]

    assert kept("How long does hepatitis A last?") == ["What I need to know about Hepatitis A"]
    # a question writing the name without its letter too keeps the wider pages
    assert kept("Is hepatitis A a kind of hepatitis?") == [
        "Hepatitis",
        "Autoimmune Hepatitis",
        "What I need to know about Hepatitis A",
    ]
    # no page lettered as asked: the wider pages stay
    assert kept("How long does hepatitis E last?") == ["Hepatitis", "Autoimmune Hepatitis"]


def test_a_page_named_in_one_word_is_on_the_question_writing_it_in_two() -> None:
    # "Is pink eye contagious?" was refused with Pinkeye set aside
    titles = ["Pinkeye", "Eye Infections", "Heartburn"]
    texts = ["Pinkeye is an infection.", "Eye infections are common.", "Heartburn is pain."]

    def kept(question: str) -> list[str]:
        match = match_subject(question, titles, texts)
        return [titles[i] for i in match.kept] if match.matched else []

    assert kept("Is pink eye contagious?") == ["Pinkeye"]
    assert kept("Does the pink eye spread?") == ["Pinkeye"]  # after another pair of words
    # only a one-word page name is read so (the review: "develop mental" is no
    # Developmental Disabilities), and a word joins once
    assert (
        joined_as_named(
            "Can children develop mental disorders?", titles + ["Developmental Disabilities"]
        )
        == "Can children develop mental disorders?"
    )
    assert joined_as_named("How do bed sores heal?", ["Bedsores"]) == "How do bedsores heal?"
    assert joined_as_named("a heart burn out", ["Heartburn", "Burnout"]) == "a heart burnout"
    assert kept("What causes heart burn after meals?") == ["Heartburn"]
    assert kept("My eye hurts. Is it an eye infection?") == ["Eye Infections"]  # no joining


def test_a_lay_name_of_too_much_or_too_little_names_the_greek_prefixed_page() -> None:
    # batch G: "overactive thyroid" matched no Hyperthyroidism page (none writes it) and
    # was refused with the page retrieved and set aside
    titles = ["Hyperthyroidism", "Graves' disease", "Hypothyroidism"]
    texts = [
        "Health care providers treat hyperthyroidism with medications.",
        "Graves disease is an autoimmune disorder that causes hyperthyroidism.",
        "Hypothyroidism has many symptoms.",
    ]
    question = "What is the treatment for an overactive thyroid?"
    assert joined_as_named(question, titles) == "What is the treatment for an hyperthyroidism?"
    kept = match_subject(question, titles, texts)
    assert kept.matched and [titles[i] for i in kept.kept] == ["Hyperthyroidism"]
    under = match_subject("Symptoms of an under-active thyroid?", titles, texts)
    assert [titles[i] for i in under.kept] == ["Hypothyroidism"]
    # no such page among the candidates: the words stay
    assert joined_as_named("Is an overactive bladder common?", titles) == (
        "Is an overactive bladder common?"
    )


def test_a_two_word_page_is_named_by_a_first_word_written_only_in_its_name() -> None:
    asked = frozenset({"canker", "mouth"})
    assert named_by_first_word(asked, "Canker Sores")
    assert named_by_first_word(frozenset({"whoop", "cure"}), "Whooping Cough")
    # the question writing the last word too needs no such rule; a page whose first word
    # MedQuAD writes alone or in other names ("cold": the common cold) or a common English
    # word ("todd": Todd's Paralysis) is not named by it
    assert not named_by_first_word(frozenset({"canker", "sore"}), "Canker Sores")
    assert not named_by_first_word(asked, "Mouth Disorders")
    assert not named_by_first_word(frozenset({"cold"}), "Cold Sores")
    assert not named_by_first_word(frozenset({"todd"}), "Todd's Paralysis")


def test_a_page_listing_the_asked_name_among_its_types_is_on_it() -> None:
    tinea = (
        "Tinea is the name of a group of diseases caused by a fungus. Types of tinea include "
        "ringworm, athlete's foot and jock itch. You can get them by touching an infected "
        "person."
    )
    question = "How do you catch ringworm?"
    vocabulary = frozenset({"tinea", "infect", "hpv"})
    assert lists_as_its_type(question, "Tinea Infections", [tinea], vocabulary)
    # no page was on it before: Tinea Infections was set aside and the question refused
    got = match_subject(question, ["Tinea Infections", "HPV"], [tinea, "HPV is a virus."])
    assert got.kept == [0]
    # a word another page is named by, or a description rather than a list of kinds
    assert not lists_as_its_type(question, "Tinea Infections", [tinea], vocabulary | {"ringworm"})
    described = "Types of tinea are less common in ringworm season."
    assert not lists_as_its_type(question, "Tinea Infections", [described], vocabulary)
    described = "Types of tinea are distinguished by site, ringworm, and how they look."
    assert not lists_as_its_type(question, "Tinea Infections", [described], vocabulary)
    # an item with a stop word inside is read as the question writes it
    scalp = "Types of tinea include ringworm of the scalp, athlete's foot and jock itch."
    assert lists_as_its_type("What is ringworm of the scalp?", "Tinea", [scalp], vocabulary)
    # a listed kind sharing one word with the question's name is another condition
    warts = "Types of warts include - Common warts - Plantar warts, on the soles of your feet"
    assert not lists_as_its_type(
        "What are the treatments for plantar fasciitis?", "Warts", [warts], frozenset({"wart"})
    )
    assert lists_as_its_type("Are plantar warts contagious?", "Warts", [warts], frozenset({"wart"}))


def test_a_persons_possessive_does_not_join_the_subjects_name() -> None:
    # "child's" is no name's possessive (unlike "Bell's"): "child asthma" is no phrase
    titles = ["Asthma", "CHILD syndrome"]
    texts = ["Asthma is a chronic disease; your child's asthma can be controlled.", "CHILD."]
    match = match_subject("Is my child's asthma dangerous?", titles, texts)
    assert 0 in match.kept and match.uncovered is None
