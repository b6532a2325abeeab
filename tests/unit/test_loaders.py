"""Loaders on small fixtures written here, and on ../shared/data when it is present."""

import gzip
import json
from pathlib import Path

import pytest

from veriloop.evaluation.datasets import DATASETS, load_dataset
from veriloop.evaluation.items import DatasetError
from veriloop.knowledge.pubmed import load_pubmed

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is not present")


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_mediqa_keeps_scores_3_and_4_ranked(tmp_path):
    (tmp_path / "MEDIQA2019-Task3-QA-ValidationSet.xml").write_text("""<?xml version="1.0"?>
<Root><Question QID="7"><QuestionText>Is X bad?</QuestionText><AnswerList>
<Answer AID="a" SystemRank="1" ReferenceRank="2" ReferenceScore="3"><AnswerText>Second best.</AnswerText></Answer>
<Answer AID="b" SystemRank="2" ReferenceRank="1" ReferenceScore="4"><AnswerText>Best.</AnswerText></Answer>
<Answer AID="c" SystemRank="3" ReferenceRank="3" ReferenceScore="1"><AnswerText>Wrong.</AnswerText></Answer>
</AnswerList></Question>
<Question QID="8"><QuestionText>None right?</QuestionText><AnswerList>
<Answer AID="d" SystemRank="1" ReferenceRank="1" ReferenceScore="2"><AnswerText>Meh.</AnswerText></Answer>
</AnswerList></Question></Root>""")
    items = load_dataset("mediqa2019", tmp_path)
    assert len(items) == 1 and items[0].references == ["Best.", "Second best."]


def test_liveqa_uses_the_nlm_summary_and_both_answer_tags(tmp_path):
    (tmp_path / "TestQuestions.xml").write_text("""<?xml version="1.0"?>
<LiveQA_Medical_Task_TREC2017>
<NLM-QUESTION qid="1"><Original-Question><SUBJECT>help</SUBJECT><MESSAGE>my kid has x</MESSAGE>
</Original-Question><NIST-PARAPHRASE>What is x?</NIST-PARAPHRASE><NLM-Summary>What causes x?</NLM-Summary>
<ReferenceAnswers><RefAnswer><ANSWER>Germs.</ANSWER><AnswerURL>u</AnswerURL></RefAnswer>
<ReferenceAnswer><ANSWER>Genes.</ANSWER><AnswerURL>v</AnswerURL></ReferenceAnswer></ReferenceAnswers>
</NLM-QUESTION></LiveQA_Medical_Task_TREC2017>""")
    (item,) = load_dataset("liveqa2017", tmp_path)
    assert item.question == "What causes x?" and item.references == ["Germs.", "Genes."]
    assert item.metadata["message"] == "my kid has x"


def test_mashqa_joins_spans_and_skips_unanswerable(tmp_path):
    data = {
        "data": [
            {
                "title": "t",
                "paragraphs": [
                    {
                        "context": "ctx",
                        "qas": [
                            {
                                "id": "q1",
                                "question": "What?",
                                "answers": [{"text": "One."}, {"text": "Two."}],
                            },
                            {
                                "id": "q2",
                                "question": "Nothing?",
                                "answers": [],
                                "is_impossible": True,
                            },
                        ],
                    }
                ],
            }
        ]
    }
    (tmp_path / "mashqa_test.json").write_text(json.dumps(data))
    (item,) = load_dataset("mashqa", tmp_path)
    assert item.references == ["One. Two."] and item.documents == ["ctx"]


def test_truthfulqa_mc_shuffles_options_and_tracks_gold(tmp_path):
    (tmp_path / "data").mkdir()
    record = {
        "question": "Q?",
        "mc1_targets": {"right": 1, "wrong": 0},
        "mc2_targets": {"right": 1, "also right": 1, "wrong": 0},
    }
    (tmp_path / "data" / "mc_task.json").write_text(json.dumps([record] * 8))
    items = load_dataset("truthfulqa", tmp_path, "mc")
    for item in items:
        assert item.options[item.gold] == "right"
        assert {item.options[label] for label in item.metadata["mc2_correct"]} == {
            "right",
            "also right",
        }
    assert len({item.gold for item in items}) > 1  # the right answer is not always first


def test_truthfulqa_generation_csv(tmp_path):
    (tmp_path / "TruthfulQA.csv").write_text(
        "\ufeffType,Category,Question,Best Answer,Correct Answers,Incorrect Answers,Source\n"
        'A,Misc,Q?,Best,"Best; Other","Bad; Worse",s\n',
        encoding="utf-8",
    )
    (item,) = load_dataset("truthfulqa", tmp_path, "generation")
    assert item.references == ["Best", "Other"] and item.metadata["incorrect"] == ["Bad", "Worse"]


def test_halueval_qa_and_general(tmp_path):
    (tmp_path / "data").mkdir()
    write_lines(
        tmp_path / "data" / "qa_data.json",
        [{"knowledge": "K", "question": "Q?", "right_answer": "R", "hallucinated_answer": "H"}],
    )
    write_lines(
        tmp_path / "data" / "general_data.json",
        [
            {"ID": "9", "user_query": "U", "chatgpt_response": "C", "hallucination": "yes"},
            {"ID": "10", "user_query": "U", "chatgpt_response": "C", "hallucination": "maybe"},
        ],
    )
    (qa,) = load_dataset("halueval", tmp_path, "qa")
    assert qa.documents == ["K"] and qa.metadata["hallucinated_answer"] == "H"
    with pytest.raises(DatasetError, match="general_data.json:2"):
        load_dataset("halueval", tmp_path, "general")


def test_medqa_and_commonsenseqa(tmp_path):
    write_lines(
        tmp_path / "phrases_no_exclude_test.jsonl",
        [{"question": "Q?", "options": {"A": "a", "B": "b"}, "answer_idx": "B", "answer": "b"}],
    )
    (item,) = load_dataset("medqa", tmp_path)
    assert item.gold == "B" and item.references == ["b"]
    write_lines(
        tmp_path / "dev_rand_split.jsonl",
        [
            {
                "id": "x",
                "question": "Q?",
                "choices": {"label": ["A", "B"], "text": ["a", "b"]},
                "answerKey": "C",
            }
        ],
    )
    with pytest.raises(DatasetError, match="dev_rand_split.jsonl:1: answerKey 'C'"):
        load_dataset("commonsenseqa", tmp_path)


def test_claims_with_corpus(tmp_path):
    write_lines(
        tmp_path / "claims_dev.jsonl",
        [
            {
                "id": 1,
                "claim": "C1",
                "evidence": {"5": [{"sentences": [0], "label": "SUPPORT"}]},
                "cited_doc_ids": [5],
            },
            {"id": 2, "claim": "C2", "evidence": {}, "cited_doc_ids": [6]},
        ],
    )
    write_lines(tmp_path / "corpus.jsonl", [{"doc_id": 5, "title": "", "abstract": ["S0.", "S1."]}])
    first, second = load_dataset("scifact", tmp_path)
    assert (first.gold, first.documents) == ("SUPPORT", ["S0. S1."])
    assert (second.gold, second.documents) == ("NEI", [])


def test_pubmed_xml_gz_and_jsonl(tmp_path):
    xml = """<?xml version="1.0"?><MedlineCitationSet><MedlineCitation><PMID>42</PMID>
<Article><Journal><JournalIssue><PubDate><Year>2001</Year></PubDate></JournalIssue></Journal>
<ArticleTitle>T.</ArticleTitle><Abstract><AbstractText>A1.</AbstractText><AbstractText>A2.</AbstractText></Abstract>
<PublicationTypeList><PublicationType>Randomized Controlled Trial</PublicationType></PublicationTypeList></Article>
<MeshHeadingList><MeshHeading><DescriptorName>Humans</DescriptorName></MeshHeading></MeshHeadingList>
</MedlineCitation></MedlineCitationSet>"""
    with gzip.open(tmp_path / "m.xml.gz", "wt") as handle:
        handle.write(xml)
    (article,) = load_pubmed(tmp_path / "m.xml.gz")
    assert (article.pmid, article.year, article.abstract) == ("42", 2001, "A1. A2.")
    assert article.publication_types == ["Randomized Controlled Trial"] and article.mesh == [
        "Humans"
    ]
    write_lines(
        tmp_path / "m.jsonl",
        [
            {
                "pmid": "42",
                "title": "T.",
                "abstract": "A.",
                "pub_date": "{'Year': '2001'}",
                "publication_types": "['Review']",
                "mesh": [],
            }
        ],
    )
    assert load_pubmed(tmp_path / "m.jsonl")[0].publication_types == ["Review"]
    (tmp_path / "bad.xml").write_text("<a><b></a>")
    with pytest.raises(DatasetError, match="bad.xml:1: malformed XML"):
        load_pubmed(tmp_path / "bad.xml")


def test_unknown_dataset_and_split():
    from veriloop.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="unknown dataset"):
        load_dataset("nope", Path("."))
    with pytest.raises(InvalidInputError, match="has no split"):
        load_dataset("pubmedqa", Path("."), "nope")


REAL = {
    "pubmedqa": ("pubmedqa", None, 500),
    "medquad": ("medquad", None, 540),
    "mediqa2019": ("mediqa2019", None, 25),
    "truthfulqa": ("truthfulqa", None, 817),
    "halueval": ("halueval", None, 1000),
    "medqa": ("medqa", None, 1273),
    "commonsenseqa": ("commonsenseqa", None, 1221),
    "scifact": ("scifact", None, 300),
    "citation_integrity": ("citation_integrity", None, 316),
    "healthver": ("healthver", None, 1917),
}


@needs_shared
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_files_load(name):
    folder, split, count = REAL[name]
    items = load_dataset(name, SHARED / folder, split)
    assert len(items) == count
    assert all(item.question for item in items)
    assert len({item.id for item in items}) == count  # ids are unique


def test_every_dataset_is_covered():
    assert set(REAL) | {"liveqa2017", "mashqa"} == set(DATASETS)


def test_repeated_ids_are_made_unique_in_order():
    from veriloop.evaluation.items import Item, with_unique_ids

    items = with_unique_ids(
        [
            Item(id="a", question="1"),
            Item(id="a", question="2"),
            Item(id="b", question="3"),
            Item(id="a", question="4"),
        ]
    )
    assert [i.id for i in items] == ["a", "a#2", "b", "a#3"]
