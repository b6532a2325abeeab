"""Quotable units (issue 38): scrape damage repaired, non-answers left out, each said once."""

from __future__ import annotations

import pytest

from veriloop.quotable import (
    clean_unit,
    content_overlap,
    contrasting,
    merge_items,
    near_duplicate,
    restates_list,
    unquotable_reason,
    without_duplicates,
)


@pytest.mark.parametrize(
    ("unit", "cleaned"),
    [
        (
            "A Brain Disorder Parkinson's disease is a brain disorder that leads to shaking.",
            "Parkinson's disease is a brain disorder that leads to shaking.",
        ),
        (
            "Other Common Signs and Symptoms Pay attention to these other possible symptoms.",
            "Pay attention to these other possible symptoms.",
        ),
        (
            "Type 2 Diabetes Type 2 diabetes, which used to be called adult-onset diabetes.",
            "Type 2 diabetes, which used to be called adult-onset diabetes.",
        ),
        (
            "Key Points: tests that examine the breasts are used to detect breast cancer.",
            "Tests that examine the breasts are used to detect breast cancer.",
        ),
        (
            "Research shows wider seats reduce perineal pressure.1 Occasional riding is fine.",
            "Research shows wider seats reduce perineal pressure. Occasional riding is fine.",
        ),
        ("Take it twice a day.3", "Take it twice a day."),
        (  # several footnotes at once (NIDDK's Inguinal Hernia)
            "Men may delay surgery until their symptoms increase.3,6 Men who delay should watch.",
            "Men may delay surgery until their symptoms increase. Men who delay should watch.",
        ),
        (
            "Diagnostic Tests and Procedures Your doctor may recommend one of these tests.",
            "Your doctor may recommend one of these tests.",
        ),
        (
            "Prenatal Screening Doctors can also diagnose SCD before a baby is born.",
            "Doctors can also diagnose SCD before a baby is born.",
        ),
        (
            "Smoking Most cases of COPD develop over time, from breathing in fumes.",
            "Most cases of COPD develop over time, from breathing in fumes.",
        ),
        ("Medicines Your doctor may prescribe steroids.", "Your doctor may prescribe steroids."),
        (
            "Pulse Oximetry For this test, a small sensor is attached to a finger or toe.",
            "For this test, a small sensor is attached to a finger or toe.",
        ),
        (  # two headings, eight words (NHLBI's Heart Palpitations)
            "Causes Not Related to Heart Problems Strong Emotions You may feel your heart "
            "pounding or racing during anxiety.",
            "You may feel your heart pounding or racing during anxiety.",
        ),
        (
            "Getting a Diagnosis Your doctor will diagnose COPD based on your signs.",
            "Your doctor will diagnose COPD based on your signs.",
        ),
        (  # a heading naming several things, with commas (5 MedQuAD units)
            "Excessive, Irrational Fear Each anxiety disorder has different symptoms.",
            "Each anxiety disorder has different symptoms.",
        ),
        (
            "Eating, Diet, and Nutrition People can help prevent kidney stones by drinking.",
            "People can help prevent kidney stones by drinking.",
        ),
        (
            "Set Realistic Goals Setting realistic weight-loss goals is a first step.",
            "Setting realistic weight-loss goals is a first step.",
        ),
        (  # most of the heading said again, in other words
            "Medications Used to Treat Scabies Products used to treat scabies are called "
            "scabicides because they kill scabies mites.",
            "Products used to treat scabies are called scabicides because they kill scabies mites.",
        ),
        (  # a heading in Title Case, whatever it says
            "If You Have Symptoms, Call 9-1-1 Diagnosis and treatment of a heart attack can "
            "begin when emergency personnel arrive.",
            "Diagnosis and treatment of a heart attack can begin when emergency personnel arrive.",
        ),
        (  # after a heading word, a plural that no programme's name ends in
            "Risk Factors Studies have identified the following risk factors for leukemia.",
            "Studies have identified the following risk factors for leukemia.",
        ),
        (  # a pointer glued after the last item: cut off, the list kept
            "Therapy may involve: Surgery (Heller myotomy) to decrease the pressure You can "
            "learn more about these options by clicking on the following links: eMedicine",
            "Therapy may involve: Surgery (Heller myotomy) to decrease the pressure",
        ),
        (
            "Good control will: reduce your need for quick-relief medicines (see below).",
            "Good control will: reduce your need for quick-relief medicines.",
        ),
        (
            "Bisphosphonates may lessen bone pain. (See the PDQ summary on Cancer Pain for "
            "more information about bisphosphonates.)",
            "Bisphosphonates may lessen bone pain.",
        ),
        (
            "Staging tests were done (see the General Information section) before surgery.",
            "Staging tests were done before surgery.",
        ),
        (  # the pointer closing the sentence before, and the heading after it
            "(See Eye Examinations.) Heart Disease People with SCD can have problems with "
            "blood vessels in the heart.",
            "People with SCD can have problems with blood vessels in the heart.",
        ),
        (
            "Tests may include: physical exam and history : An exam of the body.",
            "Tests may include: physical exam and history: An exam of the body.",
        ),
        (
            "How Bone Loss Occurs Bone is living tissue that changes.",
            "Bone is living tissue that changes.",
        ),
        (
            "Eye Problems Sickle cell disease can injure blood vessels in the eye.",
            "Sickle cell disease can injure blood vessels in the eye.",
        ),
        (  # one word, said again in the sentence
            "Diverticulosis Health care providers often find diverticulosis during an x ray.",
            "Health care providers often find diverticulosis during an x ray.",
        ),
        (
            "Chemotherapy Chemotherapy is the use of drugs to kill cancer cells.",
            "Chemotherapy is the use of drugs to kill cancer cells.",
        ),
        (
            "Diverticular Disease Based on symptoms and severity of illness, a person may be "
            "evaluated by a surgeon.",
            "Based on symptoms and severity of illness, a person may be evaluated by a surgeon.",
        ),
        (  # "To" + verb opens a sentence, never goes on with a heading (25 MedQuAD units)
            "Physical Exam To check your carotid arteries, your doctor will listen to them.",
            "To check your carotid arteries, your doctor will listen to them.",
        ),
        (  # so does a date
            "A Vaccine for Adults 60 and Older In May 2006, the U.S. Food and Drug "
            "Administration approved a vaccine (Zostavax) to prevent shingles.",
            "In May 2006, the U.S. Food and Drug Administration approved a vaccine (Zostavax) "
            "to prevent shingles.",
        ),
        (  # the heading ends with the words the sentence opens with
            "Measuring Blood Pressure Blood pressure is the force of blood on the arteries.",
            "Blood pressure is the force of blood on the arteries.",
        ),
        (  # or with its last word ("How is glaucoma diagnosed?" quoted the heading)
            "Tests for Glaucoma Glaucoma is detected through a comprehensive eye exam.",
            "Glaucoma is detected through a comprehensive eye exam.",
        ),
        (
            "Lipoproteins and Cholesterol Cholesterol circulates in your blood stream.",
            "Cholesterol circulates in your blood stream.",
        ),
        (  # the link to the page in Spanish
            "Espaol High blood pressure is a common disease.",
            "High blood pressure is a common disease.",
        ),
        (  # names, and longer headings, are no one-word heading
            "Hepatitis A is an infection caused by the hepatitis A virus.",
            "Hepatitis A is an infection caused by the hepatitis A virus.",
        ),
        (
            "Down Syndrome is a condition; down syndrome occurs in 1 in 700 babies.",
            "Down Syndrome is a condition; down syndrome occurs in 1 in 700 babies.",
        ),
        (
            "Lupus Foundation of America helps people with lupus find doctors.",
            "Lupus Foundation of America helps people with lupus find doctors.",
        ),
        (
            "Autoimmune Addison disease affects the function of the adrenal glands, which "
            "an autoimmune attack damages.",
            "Autoimmune Addison disease affects the function of the adrenal glands, which "
            "an autoimmune attack damages.",
        ),
        (  # the heading goes on: no cut inside it
            "Problems Caused by Medications Balance problems can also result from medicines.",
            "Problems Caused by Medications Balance problems can also result from medicines.",
        ),
        (  # the page's question glued on as a heading
            "What are the signs and symptoms of Pyridoxine-dependent epilepsy? Those affected "
            "typically experience prolonged seizures.",
            "Those affected typically experience prolonged seizures.",
        ),
        (
            "Is Ewing sarcoma an inherited condition? This condition is generally not inherited.",
            "This condition is generally not inherited.",
        ),
        (  # a pointer down the page in an aside: the sentence reads well without it
            "22q11.2 deletion syndrome (which is also known by several other names, listed "
            "below) is a disorder caused by the deletion of a small piece of chromosome 22.",
            "22q11.2 deletion syndrome is a disorder caused by the deletion of a small piece "
            "of chromosome 22.",
        ),
        (
            "The major risk factors for carotid artery disease, listed below, also are the "
            "major risk factors for coronary heart disease.",
            "The major risk factors for carotid artery disease also are the major risk "
            "factors for coronary heart disease.",
        ),
        (  # a footnote asterisk glued to a word
            "Hepatitis* C is a virus, or infection, that causes liver disease.",
            "Hepatitis C is a virus, or infection, that causes liver disease.",
        ),
        (
            "Metabolic syndrome is defined* as the presence of any three of the following.",
            "Metabolic syndrome is defined as the presence of any three of the following.",
        ),
        (  # a list in brackets keeps its items
            "The problems with movement (dystonia and parkinsonism, described below) usually "
            "start in infancy.",
            "The problems with movement (dystonia and parkinsonism) usually start in infancy.",
        ),
        (
            "Symptoms (which include fever, cough and rash, described below) last a week.",
            "Symptoms (which include fever, cough and rash) last a week.",
        ),
        (  # a Title Case heading with a colon ("How is osteoarthritis treated?")
            "Treatment Goals: Manage Pain, Improve Function Osteoarthritis treatment plans "
            "often include ways to manage pain and improve function.",
            "Osteoarthritis treatment plans often include ways to manage pain and improve "
            "function.",
        ),
        (  # quoted for "Is psoriasis hereditary?"
            "Genes Play a Role No one knows what causes T cells to go wrong.",
            "No one knows what causes T cells to go wrong.",
        ),
        (  # a title going on past a small word is not cut inside (review)
            "Measles: Make Sure Your Child Is Protected with MMR Vaccine Measles starts "
            "with a fever.",
            "Measles: Make Sure Your Child Is Protected with MMR Vaccine Measles starts "
            "with a fever.",
        ),
        (
            "Quick Action Can Save Your Life: Call 911 The signs and symptoms of a heart "
            "attack can develop suddenly.",
            "The signs and symptoms of a heart attack can develop suddenly.",
        ),
        (  # a title run stopping on "of" is cut after the heading's last word
            "Complications of Pneumonia Often, people who have pneumonia can be successfully "
            "treated and not have complications.",
            "Often, people who have pneumonia can be successfully treated and not have "
            "complications.",
        ),
        (
            "Faulty Use of Iron or Lack of Iron Research suggests that the main cause of "
            "restless legs syndrome is a faulty use of iron.",
            "Research suggests that the main cause of restless legs syndrome is a faulty use "
            "of iron.",
        ),
        # a Title Case heading of no names (`_title_heading_cut`): the rheumatoid arthritis
        # symptoms answer and the hearing-loss treatment answer opened on these
        (
            "Swelling and Pain in the Joints Different types of arthritis have different symptoms.",
            "Different types of arthritis have different symptoms.",
        ),
        (
            "New and Improved Treatments Under Study Researchers are studying the causes of "
            "hearing loss as well as new treatments.",
            "Researchers are studying the causes of hearing loss as well as new treatments.",
        ),
    ],
)
def test_scrape_damage_is_repaired(unit: str, cleaned: str) -> None:
    assert clean_unit(unit) == cleaned


@pytest.mark.parametrize(
    "unit",
    [
        "Chronic Obstructive Pulmonary Disease (COPD) is a lung disease.",
        "Alzheimer's Disease Education and Referral Center offers free publications.",
        "National Institute on Aging Research Shows People Live Longer.",
        "Vitamin B12 is found in 2.4 micrograms of liver.",
        "About 1 in 4,000 newborns have it; 25% of them are boys.",
        "The National Cancer Institute funds research on cancer.",
        "Most People Recover is the name of a support group in Ohio.",
        "The RGS9 and RGS9BP proteins play an essential role in returning photoreceptors.",
        "Hepatitis A is a liver infection caused by the hepatitis A virus.",
        "For Women who are pregnant, the test is done at 24 weeks.",
        "Bronchoscopy (bron-KOS-ko-pee) is a procedure used to look inside the airways.",
        # a name's head noun goes on past the capitalised run
        "The NIDDK Nutrition for Chronic Kidney Disease Series includes three fact sheets.",
        "The National Kidney Disease Education Program recommends the following tests.",
        # a capitalised name of five words and more, not opening with "The"
        "Autosomal Dominant Polycystic Kidney Disease (ADPKD) is the most common form.",
        "National Kidney Disease Education Program recommends the following tests.",
        "Type 2 Diabetes Prevention Program participants lost weight and kept it off.",
        "New Vaccine Surveillance Network Program evaluates impact of new vaccines.",
        # a heading word ("prevention", "research") inside a programme's name
        "The Prostate Cancer Prevention Trial (PCPT) studied whether finasteride works.",
        "In the Diabetes Prevention Program (DPP), people lost weight with diet.",
        "NIH Clinical Research Trials and You helps people learn about clinical trials.",
        # Title Case runs a name goes on past: not headings (`_title_heading_cut`)
        "According to the Centers for Disease Control and Prevention, more than 20 million "
        "Americans have it.",
        "An Institutional Review Board (IRB) reviews, monitors, and approves many clinical trials.",
        "Use the Daily Physical Activity Tracker to keep track of your physical activity.",
        # "For ..." and "Get ..." that say something, not where to read it
        "For some of these treatments, little information is available to show how well they work.",
        "Get as much information as possible about a service before you sign an agreement.",
        "For bile duct cancer, the information gathered from tests is used to plan treatment.",
    ],
)
def test_ordinary_sentences_are_left_as_written(unit: str) -> None:
    assert clean_unit(unit) == unit
    assert unquotable_reason(unit) is None


@pytest.mark.parametrize(
    ("unit", "reason"),
    [
        (
            "These resources address the diagnosis or management of trisomy 13: diagnostic Tests",
            "resource list",
        ),
        (
            "Signs and Symptoms Approximate number of patients (when available) Abnormality "
            "of the macula 90% Chorioretinal abnormality 90% Constipation 90%",
            "symptom table",
        ),
        # the four sentences on reading a frequency that close 2,243 GARD pages (Lyme
        # disease's symptoms were answered with them)
        (
            "For example, a frequency of 25/25 means that in a study of 25 people all "
            "patients were found to have that symptom.",
            "symptom table",
        ),
        (
            "Because these frequencies are based on a specific study, the fractions may be "
            "different if another group of patients are examined.",
            "symptom table",
        ),
        ("Sometimes, no information on frequency is available.", "symptom table"),
        ("In these cases, the sign or symptom may be rare or common.", "symptom table"),
        ("More on: Resources for Health Professionals: Treatment", "pointer line"),
        ("More information is provided in the NIDDK health topic, Anemia.", "pointer line"),
        ("Get more information on current lung cancer research.", "pointer line"),
        ("Get more details about tests for diabetes.", "pointer line"),
        (
            "For further information on these and other treatments, we recommend that you "
            "speak with your healthcare provider.",
            "pointer line",
        ),
        ("For more information, talk with your child's doctor.", "pointer line"),
        (
            "For a free booklet with information on fat grams and calories, call the National "
            "Diabetes Education Program.",
            "pointer line",
        ),
        (
            "NIAMS is the primary NIH organization for research and information on lupus.",
            "pointer line",
        ),
        (
            "You can learn more about these treatment options by clicking on the following "
            "links: eMedicine Esophageal Motility Disorders",
            "pointer line",
        ),
        (  # the only symptoms line of GARD's Lupus page: where to read, not what
            "You can read about the signs and symptoms of lupus from MedlinePlus and the "
            "National Institute of Arthritis and Musculoskeletal and Skin Diseases (NIAMS).",
            "pointer line",
        ),
        (
            "You can find more information about the genetics of AS from Genetics Home Reference.",
            "pointer line",
        ),
        (  # the only sentence of GARD's Lyme disease page holding "prevention"
            "Please visit the Center for Disease Control and Prevention's Web site for a more "
            "comprehensive list of symptoms.",
            "pointer line",
        ),
        (
            "More detailed information about the treatment of ankylosing spondylitis is "
            "available on Medscape's Web site.",
            "pointer line",
        ),
        (
            "GeneReview's Web site offers more specific information about the diagnosis of "
            "VLCAD deficiency.",
            "pointer line",
        ),
        (
            "Content on this page was developed during the 2009-2010 H1N1 pandemic and has "
            "not been updated.",
            "site notice",
        ),
        ("You may have to register to view the article, but registration is free.", "site notice"),
        (
            "Symptoms can be precipitated by: Sleep deprivation Psychological stress Alcohol "
            "and drug use Noncompliance of medication",
            "glued list items",
        ),
        (  # two longer items run together
            "The goals of treating sleep apnea are to: Restore regular breathing during sleep "
            "Relieve symptoms such as loud snoring and daytime sleepiness Treatment may "
            "improve other medical problems.",
            "glued list items",
        ),
        (  # words with an apostrophe or a hyphen ("How is asthma diagnosed in children?")
            "You may need to see an asthma specialist if: You need special tests to help "
            "diagnose asthma You've had a life-threatening asthma attack You need more than "
            "one kind of medicine",
            "glued list items",
        ),
        (  # items that read as sentences, their bullets lost ("How is asthma diagnosed in
            # children?")
            "A young child is more likely to have asthma if: One or both parents have asthma "
            "The child has signs of allergies, including eczema The child has allergic "
            "reactions to pollens The child wheezes even without a cold.",
            "glued list items",
        ),
        (
            "the degree of the hearing loss the pattern of hearing loss across different "
            "frequencies (pitches) whether one or both ears is affected",
            "fragment",  # list items run together without their lead-in
        ),
        ("gambiense infection is found in West Africa.", "fragment"),  # after "T. b."
        ("is the rarest and most dangerous form of psoriasis.", "fragment"),
        ("(High levels of uric acid in the blood can lead to gout.): diet.", "fragment"),
        ("Treatment Options", "heading only"),
        ("Stage IV: Overview", "heading only"),  # a capitalised "item" is a heading's
        # a figure's caption in Title Case, quoted for "Is cystic fibrosis inherited?"
        ("Example of an Inheritance Pattern for Cystic Fibrosis", "heading only"),
        ("National Institute of Neurological Disorders and Stroke", "heading only"),
        ("Sleep paralysis (pah-RAL-ih-sis).", "heading only"),  # a name and how to say it
        ("Asbestosis (as-bes-TOE-sis)", "heading only"),
        # a list item of a few words without its lead-in, with a stop ("What are the risk
        # factors for gout?" was answered "Gender and age [1].")
        ("Gender and age.", "heading only"),
        ("Surgery.", "heading only"),
        ("Upper GI series.", "heading only"),
        ("Viruses and infections.", "heading only"),
        ("Other causes.", "heading only"),  # a noun as often as a verb (NOUNS_TOO)
        # that there are causes, and nothing of them ("What causes vertigo?" was answered
        # "There are many other causes." while its page names medicines and the ear)
        ("There are many other causes.", "says nothing"),
        ("There are many causes.", "says nothing"),
        ("There are many different kinds.", "says nothing"),
        # a resource list's lead-in after the last resource's name (350 MedQuAD units)
        (
            "Merck Manual Consumer Version: Lipomas These resources from MedlinePlus offer "
            "information about the diagnosis and management of various health conditions: "
            "drug Therapy",
            "resource list",
        ),
    ],
)
def test_non_answers_are_named(unit: str, reason: str) -> None:
    assert unquotable_reason(unit) == reason


@pytest.mark.parametrize(
    "unit",
    [
        "There are several types: group A and group B.",  # says which
        "There are many causes, including stress.",
        "There are many causes of hearing loss.",
    ],
)
def test_a_sentence_saying_what_the_causes_are_says_something(unit: str) -> None:
    assert unquotable_reason(unit) is None


@pytest.mark.parametrize(
    "unit",
    [
        "Treatment is symptomatic.",  # GARD's whole answer on many treatment pages
        "Medicines can help.",
        "Stroke is preventable.",
        "Everyone has gas.",
        "The prognosis varies.",
        "Avoid alcohol.",  # an instruction
        "Heparin acts quickly.",  # a verb between two words
        # review: verbs without "-s", after a plural or at the end, "-ed", instructions
        "Most people recover.",
        "Pinworms spread easily.",
        "Chronic pain persists.",
        "Symptoms improved.",
        "Quit smoking.",
        "Sometimes it cannot.",
        # standalone.FINITE's verbs count too (one list: SHORT_SENTENCE_VERBS)
        "It depends.",
        "Thrombocythemia isn't common.",  # a contraction
    ],
)
def test_a_short_sentence_with_its_verb_is_quotable(unit: str) -> None:
    assert unquotable_reason(unit) is None


@pytest.mark.parametrize(
    "unit",
    [
        "mTOR inhibitors are being studied to treat low-grade astrocytoma.",  # a capital
        "pH levels in the blood fall when the kidneys fail.",
        "von Hippel-Lindau disease (VHL) is a rare, genetic multi-system disorder.",
        "(C): calcinosis: the formation of calcium deposits in the connective tissues.",
        "Hearing loss is a common problem caused by noise, aging, disease, and heredity.",
        # a one-word item with its lead-in is no heading ("Signs include - Hunger -
        # Shakiness ..." on Hypoglycemia's page kept only its two longer items)
        "Signs include: hunger",
    ],
)
def test_a_sentence_whose_first_word_has_a_capital_or_is_a_names_particle_is_no_fragment(
    unit: str,
) -> None:
    assert unquotable_reason(unit) is None


def test_the_same_sentence_from_two_pages_is_said_once() -> None:
    first = "Asthma makes the airways narrow, so it is harder to breathe."
    second = "Asthma makes the airways narrow, so it is hard to breathe."
    assert near_duplicate(first, second)
    assert not near_duplicate(first, "Inhaled steroids reduce swelling of the airways.")
    kept = without_duplicates([(first, "a"), (second, "b"), ("Other words here.", "b")])
    assert kept == [(first, "a"), ("Other words here.", "b")]
    # another kind's letter or number says something else ("How do you catch hepatitis?"
    # left hepatitis B's out as a duplicate of hepatitis A's)
    assert not near_duplicate(
        "You could get hepatitis A through contact with an infected persons stool.",
        "You could get hepatitis B through contact with an infected persons blood.",
    )
    assert not near_duplicate("Type 1 diabetes starts early.", "Type 2 diabetes starts early.")
    assert not near_duplicate("Type I diabetes starts early.", "Type II diabetes starts early.")
    assert not near_duplicate("Is hepatitis b contagious?", "Is hepatitis c contagious?")
    # numbers that name no kind leave a restatement one (the review's cases)
    assert near_duplicate(
        "Call 911 right away if you have chest pain.",
        "Call 9-1-1 right away if you have chest pain.",
    )


def test_two_pages_restating_one_fact_in_their_own_words_are_one() -> None:
    # README's first command quoted GHR's sentence and GARD's restatement of it
    ghr = (
        "This condition is inherited in an autosomal dominant pattern, which means one copy "
        "of the altered gene in each cell is sufficient to cause the disorder."
    )
    gard = (
        "Noonan syndrome is inherited in an autosomal dominant manner. This means that "
        "having one changed (mutated) copy of the responsible gene in each cell is enough "
        "to cause the condition."
    )
    assert near_duplicate(ghr, gard)
    assert content_overlap(ghr, gard, fold=False) < 0.8  # the folds decide
    # the opposite inheritance is another fact, however many words are shared
    recessive = gard.replace("dominant", "recessive")
    assert near_duplicate(gard, gard.replace("manner", "pattern"))
    assert not near_duplicate(gard, recessive)
    assert contrasting(gard, recessive)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Before age 55, men are more likely than women to develop high blood pressure.",
            "After age 55, women are more likely than men to develop high blood pressure.",
        ),
        (
            "A hole in the septum between the heart's two upper chambers is called an atrial "
            "septal defect.",
            "A hole in the septum between the heart's two lower chambers is called a "
            "ventricular septal defect.",
        ),
        (
            "When low-grade astrocytoma recurs after treatment, it usually comes back where "
            "the tumor first formed.",
            "When high-grade astrocytoma recurs after treatment, it usually comes back where "
            "the tumor first formed.",
        ),
    ],
)
def test_two_units_writing_a_contrasts_two_sides_are_not_one(first: str, second: str) -> None:
    assert content_overlap(first, second) >= 0.8  # the words alone would make them one
    assert not near_duplicate(first, second)
    assert not contrasting(first, first)


def test_a_lists_items_are_quoted_together() -> None:
    units = [
        ("Symptoms of throat cancer may include: trouble swallowing", "p1"),
        ("It is treated with surgery.", "p1"),
        ("Symptoms of throat cancer may include: trouble breathing or speaking.", "p1"),
        ("Symptoms of throat cancer may include: a sore throat", "p2"),
    ]
    assert merge_items(units) == [
        (
            "Symptoms of throat cancer may include: trouble swallowing; trouble breathing or "
            "speaking.",
            "p1",
        ),
        ("It is treated with surgery.", "p1"),
        ("Symptoms of throat cancer may include: a sore throat", "p2"),
    ]
    from veriloop.quotable import item_rows

    # each unit's place in the merged list: the list's items share their first's
    assert item_rows(units) == [0, 1, 0, 2]


def test_an_items_trailing_comma_is_dropped_when_items_are_joined() -> None:
    units = [
        ("Topical treatments include: salicylic acid,", "p1"),
        ("Topical treatments include: anthralin;", "p1"),
        ("Topical treatments include: coal-tar ointments", "p1"),
    ]
    assert merge_items(units) == [
        ("Topical treatments include: salicylic acid; anthralin; coal-tar ointments.", "p1")
    ]


def test_an_item_announcing_sub_items_runs_on_into_the_next() -> None:
    # a nested list flattened ("What causes psoriasis?" quoted "certain medications such
    # as; lithium, a psychiatric drug; ...")
    units = [
        ("Triggers include: cold weather", "p1"),
        ("Triggers include: certain medications such as", "p1"),
        ("Triggers include: lithium, a psychiatric drug", "p1"),
        ("Triggers include: quinidine, a heart medication", "p1"),
    ]
    assert merge_items(units) == [
        (
            "Triggers include: cold weather; certain medications such as lithium, a "
            "psychiatric drug; quinidine, a heart medication.",
            "p1",
        )
    ]


def test_a_sentence_announcing_a_list_is_quoted_with_the_list() -> None:
    # read where the units are cut (`standalone.ANNOUNCING`), merged as the answer quotes
    from veriloop.quotable import merge_items, quotable_texts

    def quoted(text: str) -> list[str]:
        return [unit for unit, _ in merge_items([(u, "p") for u in quotable_texts(text)])]

    assert quoted(
        "Learn the following warning signs of breast cancer. - a lump in the breast - a "
        "change in the size of the breast. Ask a doctor."
    ) == [
        "Learn the following warning signs of breast cancer: a lump in the breast; a change "
        "in the size of the breast.",
        "Ask a doctor.",
    ]
    # a sentence that announces nothing, or a next unit that is a sentence, stays apart;
    # an item it does not lead in is a fragment, not quoted alone
    assert quoted("Signs differ from person to person. - a lump in the breast") == [
        "Signs differ from person to person.",
    ]
    # a pointer down the page is quoted only as the lead-in of the list it announces
    assert quoted("Signs are listed below. - a lump in the breast") == []
    assert quoted("The signs listed below are common: a lump. Ask a doctor.") == [
        "The signs listed below are common: a lump.",
        "Ask a doctor.",
    ]
    assert quoted("Note the following advice. Rest is best.") == [
        "Note the following advice.",
        "Rest is best.",
    ]


@pytest.mark.parametrize(
    "unit",
    [
        "You can use the chart below or the online BMI calculator to figure out your BMI.",
        "(Watch the video to learn more about shingles.",
        "For more information on genetic testing for SCA, please click here.",
        "To read more about the different types, click on the links below.",
        # a sentence pointing further down its page, quoted without what it points at
        "In addition to the environmental factors listed below, falls can also be caused "
        "by impaired vision or balance.",
        "These types are described below.",
    ],
)
def test_a_line_pointing_at_what_the_page_shows_is_no_answer(unit: str) -> None:
    assert unquotable_reason(unit) == "pointer line"


def test_a_credit_line_to_an_nih_institute_is_no_part_of_a_quote() -> None:
    from veriloop.quotable import clean_unit, quotable_texts

    glued = "To reduce snoring: don't sleep flat on your back NIH: National Institute on Aging"
    assert clean_unit(glued) == "To reduce snoring: don't sleep flat on your back"
    import time

    started = time.perf_counter()  # no backtracking blow-up on a long run of capitals
    assert clean_unit("see NIH: National Heart " + "A" * 40 + ".").startswith("see NIH")
    assert time.perf_counter() - started < 1.0
    alone = "Snoring is common. NIH: National Heart, Lung, and Blood Institute"
    assert quotable_texts(alone) == ("Snoring is common.",)


def test_other_agencies_credits_go_but_a_sentence_naming_one_stays() -> None:
    from veriloop.quotable import clean_unit, quotable_texts

    page = (
        "Doctors use drugs or surgery to remove the ectopic tissue. "
        "Dept. of Health and Human Services Office on Women's Health"
    )  # "Dept." ends no sentence, and the credit is no unit
    assert quotable_texts(page) == ("Doctors use drugs or surgery to remove the ectopic tissue.",)
    glued = "To prevent botulism: do not feed honey to babies Centers for Disease Control and Prevention"
    assert clean_unit(glued) == "To prevent botulism: do not feed honey to babies"
    for sentence in [
        "Report side effects to the U.S. Food and Drug Administration",
        "The drug was approved by the Food and Drug Administration",
    ]:
        assert clean_unit(sentence) == sentence


@pytest.mark.parametrize(
    "unit",
    [
        "You can learn about your family health history by talking with relatives.",
        "You may find more relief if you sleep on your side.",
    ],
)
def test_a_sentence_telling_the_reader_what_helps_is_no_pointer(unit: str) -> None:
    assert unquotable_reason(unit) is None


def test_a_list_naming_only_what_a_sentence_says_restates_it() -> None:
    sentence = (
        "Standard treatments for leukemia include chemotherapy, biological therapy, "
        "radiation therapy, and immunotherapy."
    )
    listed = (
        "Some, but not all, forms of treatment for leukemia include: chemotherapy; "
        "biological therapy; radiation therapy."
    )
    assert not near_duplicate(listed, sentence)  # 6 of 9 words: below the overlap
    assert restates_list(listed, sentence)
    assert not restates_list(sentence, listed)  # a sentence is no list
    # the same items on another subject, or one more item, restate nothing
    assert not restates_list("Cold symptoms include: fever; cough.", "Flu symptoms: fever, cough.")
    # a lead-in naming no subject may be another condition's list
    assert not restates_list(
        "Symptoms may include: fever; cough.", "Cold symptoms include fever, cough and aches."
    )
    assert not restates_list(listed.replace("therapy.", "therapy; surgery."), sentence)


@pytest.mark.parametrize(
    ("listed", "other"),
    [
        (  # negated on one side only
            "Treatment of stage IIIA cancer that can be removed with surgery may include: "
            "surgery; radiation therapy.",
            "Treatment of stage IIIA cancer that cannot be removed with surgery may include: "
            "surgery; radiation therapy; chemotherapy.",
        ),
        (
            "Treatment in patients who do have AIDS may include: whole brain radiation "
            "therapy; chemotherapy.",
            "Treatment in patients who do not have AIDS includes whole brain radiation "
            "therapy and chemotherapy.",
        ),
        (  # a number the other lacks
            "Category 3: the tumor is 15.1 to 18 millimeters wide; or 9 millimeters thick.",
            "Category 2: the tumor is 12.1 to 18 millimeters wide; or 3.1 to 9 millimeters thick.",
        ),
        (  # another list's lead-in that happens to hold the list's words
            "Symptoms of tumors in the colon may include: abdominal pain; weight loss.",
            "Symptoms of tumors in the ileum (that connects to the colon) may include: "
            "abdominal pain; weight loss; diarrhea.",
        ),
    ],
)
def test_a_list_beside_a_negated_numbered_or_other_lead_in_unit_is_kept(
    listed: str, other: str
) -> None:
    assert not restates_list(listed, other)
