"""A treatment's page that says it treats the subject (`nodes.treating_pages`)."""

from veriloop.knowledge.sources import SourcePassage
from veriloop.nodes.treating_pages import names_a_treatment, names_subject, treating_pages

HRT = (
    "In the years before and during menopause, the levels of female hormones can go up and "
    "down. This can cause symptoms such as hot flashes and vaginal dryness. Some women take "
    "hormone replacement therapy (HRT), also called menopausal hormone therapy, to relieve "
    "these symptoms. However, HRT also has risks."
)


def passage(title: str, text: str) -> SourcePassage:
    return {"id": title, "title": title, "text": text, "url": "", "relevance": 0.0}


def test_a_page_named_as_a_treatment_that_says_it_relieves_the_subject_stands_in() -> None:
    found = [
        passage("Menopause", "Some symptoms require treatment."),
        passage("Hormone Replacement Therapy", HRT),
    ]
    kept = treating_pages(found, ["Menopause"])
    assert [p["title"] for p in kept] == ["Hormone Replacement Therapy"]
    assert kept[0]["named_by"] == "Menopause"
    assert kept[0]["treats"].startswith("Some women take hormone replacement therapy")  # names
    # "menopausal": the subject's word, and "to relieve": what it is given for


def test_a_treatment_page_not_naming_the_subject_or_not_saying_it_treats_is_left_out() -> None:
    other = passage("Blood Pressure Medicines", "Medicines treat high blood pressure.")
    no_use = passage("Radiation Therapy", "Radiation therapy is common after menopause.")
    cannot = passage("Pulmonary Rehabilitation", "These can't cure or ease menopause.")
    assert treating_pages([other, no_use, cannot], ["Menopause"]) == []


def test_a_subject_is_named_by_its_whole_name_and_its_one_letter_words() -> None:
    assert names_subject("Some women take menopausal hormone therapy.", "Menopause")
    assert not names_subject("Pain relievers ease fever and headaches.", "Q fever")
    assert names_subject("It treats Q fever.", "Q fever")
    assert not names_subject("Some OTC medicines relieve aches and pains.", "Paine syndrome")
    assert not names_subject("It treats fibrosis of the lungs.", "Pulmonary Fibrosis")


def test_quoted_units_naming_a_treatment_answer_themselves() -> None:
    assert names_a_treatment(["Your provider may recommend medicines such as ibuprofen."])
    assert not names_a_treatment(["Some symptoms require treatment.", "See your doctor."])


def test_a_page_not_named_as_a_treatment_is_left_out_however_it_reads() -> None:
    pages = [
        passage("Drugs and Young People", "Some drugs are used to treat menopause symptoms."),
        passage("After Surgery", "Medicines relieve menopause symptoms."),
        passage("Menopause", "Some women take hormones to relieve menopause symptoms."),
    ]
    assert treating_pages(pages, ["Menopause"]) == []  # the last is the subject's own page
