"""The shipped MedQuAD source: passages with ids and URLs, a BM25 index cached on disk."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from veriloop.errors import InvalidInputError
from veriloop.knowledge import medquad, sources
from veriloop.knowledge.medquad import MEDQUAD_FILE, load_passages, open_medquad
from veriloop.knowledge.stated_names import stated_names

PAIRS = [
    {
        "qid": "1-1",
        "url": "https://ghr.nlm.nih.gov/condition/noonan-syndrome",
        "source": "GHR",
        "focus": "Noonan syndrome",
        "question": "Is Noonan syndrome inherited ?",
        "answer": "This condition is inherited in an autosomal dominant pattern. " * 20,
    },
    {
        "qid": "2-1",
        "url": "https://www.cdc.gov/flu",
        "source": "CDC",
        "focus": "Influenza",
        "question": "How is flu spread ?",
        "answer": "Flu viruses spread mainly by droplets made when people cough or sneeze.",
    },
]


def write_pairs(path: Path, rows: list[dict[str, str]], extra: str = "") -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
        out.write(extra)
    return path


def fresh_index(tmp_path: Path, rows: list[dict[str, str]]) -> medquad.MedQuADIndex:
    """Build an index of `rows` in `tmp_path`, leaving no index open for other tests."""
    medquad._open.clear()
    index = open_medquad(write_pairs(tmp_path / "m.jsonl.gz", rows), cache_root=tmp_path / "c")
    medquad._open.clear()
    return index


def test_long_answers_split_into_cited_passages(tmp_path: Path) -> None:
    passages = load_passages(write_pairs(tmp_path / "m.jsonl.gz", PAIRS))
    noonan = [p for p in passages if p.focus == "Noonan syndrome"]
    assert len(noonan) >= 2 and all(len(p.text) <= medquad.PASSAGE_CHARS for p in noonan)
    assert [p.id for p in noonan[:2]] == ["MQ-1-1-1", "MQ-1-1-2"]
    assert {p.url for p in noonan} == {PAIRS[0]["url"]}


def test_index_is_built_once_then_loaded_from_the_cache(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "m.jsonl.gz", PAIRS)
    medquad._open.clear()
    built = open_medquad(data, cache_root=tmp_path / "cache")
    [folder] = (tmp_path / "cache").iterdir()
    assert (folder / "complete").is_file()
    medquad._open.clear()
    loaded = open_medquad(data, cache_root=tmp_path / "cache")
    assert loaded is not built and len(loaded.passages) == len(built.passages)
    [(best, score), *_] = loaded.search("How does the flu spread?", 3)
    assert best.source == "CDC" and score > 0
    assert loaded.search("zzzz qqqq", 3) == []  # no known word: nothing, not noise
    medquad._open.clear()


def test_a_half_written_cache_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "m.jsonl.gz", PAIRS)
    medquad._open.clear()
    open_medquad(data, cache_root=tmp_path / "cache")
    [folder] = (tmp_path / "cache").iterdir()
    (folder / "complete").unlink()  # as if the writer was killed before finishing
    medquad._open.clear()
    assert open_medquad(data, cache_root=tmp_path / "cache").search("flu", 1)
    medquad._open.clear()


def test_malformed_or_missing_source_is_a_clear_error(tmp_path: Path) -> None:
    bad = write_pairs(tmp_path / "bad.jsonl.gz", PAIRS, extra='{"qid": "3"}\n')
    with pytest.raises(InvalidInputError, match=r"bad.jsonl.gz:3: not a MedQuAD pair"):
        load_passages(bad)
    with pytest.raises(InvalidInputError, match="reinstall veriloop"):
        open_medquad(tmp_path / "missing.jsonl.gz", cache_root=tmp_path)


def test_the_shipped_file_has_its_licence_and_attribution() -> None:
    assert MEDQUAD_FILE.is_file() and MEDQUAD_FILE.stat().st_size > 4_000_000
    text = (MEDQUAD_FILE.parent / "ATTRIBUTION.md").read_text()
    assert "CC BY 4.0" in text and "Ben Abacha" in text
    assert "Attribution 4.0 International" in (MEDQUAD_FILE.parent / "LICENSE.txt").read_text()


def test_every_passage_of_the_shipped_file_has_its_own_id() -> None:
    import gzip
    import json

    from veriloop.knowledge.medquad import page_keys

    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    keys = page_keys(rows)
    assert len(set(keys)) == len(rows)  # 2,491 qids are shared by two sites or foci
    assert len({r["qid"] for r in rows}) < len(rows)


def test_a_passage_never_ends_on_a_lone_capitals_period(tmp_path: Path) -> None:
    # the shipped Peptic Ulcer page's first passage ended "To see if you have an H." and
    # the answer to "How is a stomach ulcer diagnosed?" quoted that
    before = "A peptic ulcer is a sore in the lining of your stomach. " * 13
    test = "To see if you have an H. pylori infection, your doctor will test your blood."
    assert len(before + test[:24]) <= medquad.PASSAGE_CHARS < len(before + test)
    row = {**PAIRS[0], "qid": "9", "focus": "Peptic Ulcer", "answer": before + test}
    passages = load_passages(write_pairs(tmp_path / "m.jsonl.gz", [row]))
    assert len(passages) == 2 and passages[1].text == test


def test_sentences_a_scrape_ran_together_are_spaced_apart(tmp_path: Path) -> None:
    answer = (
        "Treatment might include phlebotomy and treatment for complications.The goal of "
        "treatment is to reduce the amount of iron (BMI).You may need it. See "
        "www.Smokefree.gov or Cancer.Net."
    )
    row = {**PAIRS[0], "qid": "9", "focus": "Hemochromatosis", "answer": answer}
    [passage] = load_passages(write_pairs(tmp_path / "m.jsonl.gz", [row]))
    assert "complications. The goal" in passage.text and "(BMI). You may" in passage.text
    assert "www.Smokefree.gov or Cancer.Net." in passage.text


class CountingEmbedder:
    """Unit vectors by rule: the flu question and 'flu' texts point one way, the rest another."""

    name = "counting/embedder"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> object:
        import numpy as np

        self.texts += texts
        return np.asarray([[1.0, 0.0] if "flu" in t.lower() else [0.0, 1.0] for t in texts])


def test_questions_are_matched_by_embedding_and_cached_beside_the_index(tmp_path: Path) -> None:
    import numpy as np

    data = write_pairs(tmp_path / "m.jsonl.gz", PAIRS)
    medquad._open.clear()
    index = open_medquad(data, cache_root=tmp_path / "cache")
    embedder = CountingEmbedder()
    vectors = index.question_vectors(embedder)  # type: ignore[arg-type]
    assert index.questions == ["Is Noonan syndrome inherited ?", "How is flu spread ?"]
    assert vectors.shape == (2, 2) and len(embedder.texts) == 2
    assert index.folder is not None
    assert (index.folder / "questions-counting_embedder.npy").is_file()
    [(question, cosine)] = index.match_questions(np.asarray([1.0, 0.0]), vectors, 1)
    assert question == "How is flu spread ?" and cosine == pytest.approx(1.0)
    assert [p.source for p in index.answer_passages(question)] == ["CDC"]
    assert len(index.answer_passages("Is Noonan syndrome inherited ?", limit=2)) == 2
    assert index.answer_passages("never asked") == []
    medquad._open.clear()
    again = open_medquad(data, cache_root=tmp_path / "cache")
    fresh = CountingEmbedder()
    assert np.array_equal(again.question_vectors(fresh), vectors)  # type: ignore[arg-type]
    assert fresh.texts == []  # read from the cache, not embedded again
    assert again.match_questions(np.asarray([1.0, 0.0]), vectors, 0) == []
    medquad._open.clear()


def test_abbreviations_are_read_from_where_a_page_spells_them_out() -> None:
    from veriloop.knowledge.medquad import abbreviations_in

    texts = [
        "Irritable bowel syndrome (IBS) is a problem of the large intestine.",
        "Symptoms of irritable bowel syndrome (IBS) include cramping.",
        "Chronic obstructive pulmonary disease (COPD) makes it hard to breathe.",
        "The cause of the disease (XYZ) is unknown. Another (XYZ) too.",
    ]
    assert abbreviations_in(texts) == {"IBS": "irritable bowel syndrome"}  # COPD once only
    assert abbreviations_in(texts, least=1)["COPD"] == "chronic obstructive pulmonary disease"


def test_a_misspelt_focus_in_a_question_is_read_as_the_pages_name(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "m.jsonl.gz", PAIRS)
    index = open_medquad(data, cache_root=tmp_path / "cache")
    assert index.speller.corrected("Is Noonnan syndrome inherited?") == (
        "Is Noonan syndrome inherited?"
    )
    assert index.speller.corrected("How does influensa spread?") == "How does influenza spread?"
    medquad._open.clear()


def test_the_pages_a_question_names_are_found_by_name(tmp_path: Path) -> None:
    rows = [
        {**PAIRS[1], "qid": "2-1", "focus": "Flu"},
        {**PAIRS[1], "qid": "3-1", "focus": "Bird Flu", "answer": "Bird flu infects birds."},
        {**PAIRS[0], "qid": "4-1", "focus": "HIV/AIDS", "answer": "HIV is a virus. " * 3},
        {**PAIRS[0], "qid": "5-1", "focus": "Alcohol", "answer": "Alcohol is a drug. " * 3},
        {**PAIRS[1], "qid": "6-1", "focus": "Parasites - Lice - Body Lice", "answer": "Lice."},
        {**PAIRS[1], "qid": "8-1", "focus": "Burns", "answer": "A burn is damage to tissue."},
        {
            **PAIRS[1],
            "qid": "7-1",
            "focus": "Parasites - African Trypanosomiasis (also known as Sleeping Sickness)",
            "answer": "A parasite.",
        },
    ]
    index = fresh_index(tmp_path, rows)

    def foci(question: str, found: tuple[str, ...] = ()) -> list[str]:
        return [p.focus for p in index.named_openings(question, found)]

    assert foci("What are the treatments of Flu?") == ["Flu"]
    assert foci("what causes hiv/aids") == ["HIV/AIDS"]  # written as the focus's words
    assert foci("How is bird flu treated?") == ["Bird Flu"]  # not "Flu" inside it
    assert foci("What is alcohol use disorder?") == []  # a longer name it starts
    assert foci("I drink alcohol. Is that bad?") == ["Alcohol"]
    # a page filed under a category is named by its own name
    assert foci("Body Lice. How do I get rid of them?") == ["Parasites - Lice - Body Lice"]
    # and by the words before a parenthesis in its name
    assert foci("How is african trypanosomiasis treated?") == [rows[-1]["focus"]]
    # names the search found take no place of those it missed
    assert foci("flu and hiv/aids and bird flu", ("Flu", "HIV/AIDS")) == ["Bird Flu"]
    assert foci("What are the treatments of Flu?", ("Flu",)) == []  # the search found it
    assert foci("What is influenza?") == []
    assert foci("Is flu contagious?") == ["Flu"]  # what is asked of it, no longer name
    assert foci("How long does flu last?") == ["Flu"]  # its outlook
    assert foci("How long does the flu lasts?") == ["Flu"]
    # a page named in the plural is named by the singular ("a burn to my wrist"), where
    # the question's words name no page as written
    assert foci("burn to my wrist. What should I do?") == ["Burns"]
    assert foci("I have the flu and a burn on my wrist.") == ["Flu"]


def test_a_two_word_page_is_found_by_the_first_word_medquad_writes_only_in_its_name(
    tmp_path: Path,
) -> None:
    rows = [
        {**PAIRS[1], "qid": "2-1", "focus": "Canker Sores", "answer": "Canker sores hurt."},
        {**PAIRS[1], "qid": "3-1", "focus": "Rasmussen's Encephalitis", "answer": "Rare."},
        {**PAIRS[1], "qid": "4-1", "focus": "Cold Sores", "answer": "Cold sores are blisters."},
    ]
    index = fresh_index(tmp_path, rows)

    def foci(question: str) -> list[str]:
        return [p.focus for p in index.named_openings(question)]

    # "how to remove my mouth ulcer/canker" was refused: no search for it found the page
    assert foci("how to remove my mouth ulcer/canker. I have it every month") == ["Canker Sores"]
    assert foci("What causes rasmussen's?") == ["Rasmussen's Encephalitis"]
    assert foci("What causes rasmussen?") == ["Rasmussen's Encephalitis"]  # no "'s" too
    assert foci("I have a cold. What should I take?") == []  # "cold" names no page alone
    assert foci("canker medicine") == []  # it starts a longer phrase there


def test_a_condition_named_in_a_text_is_found_with_or_without_its_possessive(
    tmp_path: Path,
) -> None:
    rows = [
        {**PAIRS[0], "qid": "2-1", "focus": "Alzheimer disease", "answer": "A disease. " * 3},
        {**PAIRS[1], "qid": "3-1", "focus": "Alzheimer's Disease", "answer": "A disease."},
        {**PAIRS[1], "qid": "4-1", "focus": "Stroke", "answer": "A stroke."},
        {**PAIRS[1], "qid": "5-1", "focus": "Glass Disease", "answer": "Another."},
    ]
    index = fresh_index(tmp_path, rows)
    both = ["Alzheimer disease", "Alzheimer's Disease"]
    assert sorted(index.foci_named("Alzheimers disease")) == both  # NINDS drops apostrophes
    assert sorted(index.foci_named("Alzheimer's disease")) == both
    assert sorted(index.foci_named("Alzheimer disease")) == both
    assert index.foci_named("stroke") == ["Stroke"]
    assert index.foci_named("strokes") == []  # a last word keeps its ending
    assert index.foci_named("Glas disease") == []  # no "s" added, only taken off
    assert index.foci_named("") == []
    assert index.foci_named("early Alzheimers disease") == []  # three words, none such
    assert index.foci_named(" ".join(["Alzheimers"] * 40 + ["disease"])) == []  # no blow-up


def test_a_page_is_found_by_the_other_name_it_gives_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = "High blood pressure, sometimes called hypertension, happens when blood pushes."
    rows = [
        {**PAIRS[1], "qid": "2-1", "focus": "High Blood Pressure", "answer": said},
        {
            **PAIRS[1],
            "qid": "3-1",
            "focus": "Pulmonary Hypertension",
            "answer": "Pulmonary hypertension, also called PH, is high pressure in the lungs.",
        },
        {
            **PAIRS[1],
            "qid": "4-1",
            "focus": "Schindler disease",
            "answer": "Schindler disease, also called the infantile type, is rare.",
        },
        {
            **PAIRS[1],
            "qid": "5-1",
            "focus": "Childhood Acute Lymphoblastic Leukemia",
            "answer": "Childhood acute lymphoblastic leukemia, also called ALL or acute "
            "lymphocytic leukemia, is a cancer.",
        },
    ]
    index = fresh_index(tmp_path, rows)
    # "X or Y" names the page by each; a stop word ("ALL") names none
    assert [p.focus for p in index.named_openings("What is acute lymphocytic leukemia?")] == [
        "Childhood Acute Lymphoblastic Leukemia"
    ]
    assert index.named_openings("Are all of these inherited?") == []
    # the search finds a page's opening and its other name names it: one passage, once
    # ("What are the symptoms of low blood sugar?" quoted Hypoglycemia's list twice over)
    monkeypatch.setattr(sources, "open_medquad", lambda: index)
    found, _ = sources.MedQuADSource().search("acute lymphocytic leukemia treatment", 5)
    ids = [p["id"] for p in found]
    assert len(ids) == len(set(ids))
    assert any(p["title"] == "Childhood Acute Lymphoblastic Leukemia" for p in found)
    assert [p.focus for p in index.named_openings("What is hypertension?")] == [
        "High Blood Pressure"
    ]
    # a name a page has as its own stays that page's; "the ..." is no name
    assert [p.focus for p in index.named_openings("What is pulmonary hypertension?")] == [
        "Pulmonary Hypertension"
    ]
    assert index.named_openings("What is the infantile type?") == []
    # another name said of a stage, not right after the page's own name, is none
    staged = "Alzheimer's disease has stages: early (also called mild), then moderate."
    assert stated_names(staged, "Alzheimer's disease", adjacent=True) == []
    assert stated_names(said, "High Blood Pressure", adjacent=True) == ["hypertension"]
    # "X or Y" gives two names: "What are the symptoms of low blood sugar?" was refused
    # with the Hypoglycemia pages set aside
    low = "Hypoglycemia, also called low blood glucose or low blood sugar, occurs when ..."
    assert stated_names(low, "Hypoglycemia", adjacent=True) == [
        "low blood glucose",
        "low blood sugar",
    ]
    assert stated_names("An EKG, also called an ECG or EKG, records.", "EKG", adjacent=True) == [
        "ECG"
    ]
    bio = "Biological therapy, also called biotherapy or immunotherapy, uses ..."
    assert stated_names(bio, "Biological therapy", adjacent=True) == ["biotherapy", "immunotherapy"]
    bladder = "Cystocele, also called a prolapsed or dropped bladder, is ..."
    assert stated_names(bladder, "Cystocele", adjacent=True) == ["a prolapsed or dropped bladder"]
    # a short name in quotes right after the page's own: "How is mono spread?" was refused
    mono = 'Infectious mononucleosis, or "mono", is an infection. The virus spreads ...'
    assert stated_names(mono, "Infectious Mononucleosis", adjacent=True) == ["mono"]
    assert stated_names(mono, "Infectious Mononucleosis") == []  # only adjacent
    crabs = 'There are body lice and pubic lice ("crabs").'
    assert stated_names(crabs, "Pubic lice", adjacent=True) == ["crabs"]
    # a word in quotes after the name, with no comma, bracket or "or", is no name
    triggers = 'Eliminating tremor "triggers" such as caffeine may help.'
    assert stated_names(triggers, "Tremor", adjacent=True) == []


def test_every_answer_about_a_focus_is_listed_whatever_its_type(tmp_path: Path) -> None:
    rows = [
        {**PAIRS[1], "qid": "2-1", "focus": "Flu", "qtype": "information"},
        {**PAIRS[1], "qid": "2-2", "focus": "Flu", "qtype": "support groups"},
        {**PAIRS[1], "qid": "3-1", "focus": "Bird Flu", "qtype": "treatment"},
    ]
    index = fresh_index(tmp_path, rows)
    # a type no question classifier knows ("support groups") is listed too
    assert sorted(p.qtype for p in index.focus_openings("Flu")) == ["information", "support groups"]
    assert [p.qtype for p in index.typed_openings("Flu", "support groups")] == ["support groups"]
    assert index.focus_openings("Measles") == []
