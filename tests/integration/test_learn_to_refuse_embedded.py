"""Learn-to-Refuse and knowledge enrichment on the real embedded model, offline."""

from pathlib import Path

import pytest

from veriloop.context import ModelSettings
from veriloop.graphs.knowledge_enrichment import KnowledgeEnrichmentContext
from veriloop.graphs.knowledge_enrichment import build_graph as build_enrichment
from veriloop.graphs.learn_to_refuse import LearnToRefuseContext, build_graph
from veriloop.knowledge.entries import new_entry
from veriloop.knowledge.store import KnowledgeBase
from veriloop.models import get_models

pytestmark = [pytest.mark.integration, pytest.mark.full]

FACTS = [
    ("Noonan syndrome is inherited in an autosomal dominant pattern.", 0.9),
    ("Aspirin reduces the risk of blood clots by thinning the blood.", 1.0),
    ("The Eiffel Tower stands in Paris.", 0.6),
]


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("l2r") / "kb"
    embedder = get_models(ModelSettings()).embedder
    base = KnowledgeBase.create(directory, embedder)
    base.add([new_entry(text, confidence) for text, confidence in FACTS], embedder)
    base.save()
    return directory


def test_close_question_reaches_the_model_and_its_reply_parses(kb_dir: Path) -> None:
    result = (
        build_graph()
        .compile()
        .invoke(
            {"question": "Is Noonan syndrome inherited?"},
            context=LearnToRefuseContext(kb_dir=str(kb_dir)),
        )
    )
    top = result["retrieved"][0]
    assert top["id"] == "K-1" and top["refusal_score"] < 0.75  # MiniLM puts it close
    assert result["trace"]["usage"]["chat_calls"] == 1
    answer_candidate = result["trace"]["candidates"][1]
    # the grammar makes the reply valid JSON: the model gave a verdict either way
    assert answer_candidate["scores"]["can_answer"] in (0.0, 1.0)
    assert answer_candidate["error"] is None
    assert result["stop_reason"] in {"single_pass", "refused", "no_usable_output"}


def test_unrelated_question_is_hard_refused_without_a_model_call(kb_dir: Path) -> None:
    result = (
        build_graph()
        .compile()
        .invoke(
            {"question": "Who won the 1930 football World Cup?"},
            context=LearnToRefuseContext(kb_dir=str(kb_dir)),
        )
    )
    assert result["refusal"]["kind"] == "hard" and result.get("answer") is None
    assert result["trace"]["usage"]["chat_calls"] == 0


def test_multiple_choice_pick_is_always_a_real_label(kb_dir: Path) -> None:
    options = {"A": "It is not inherited.", "B": "Autosomal dominant.", "C": "Only in women."}
    result = (
        build_graph()
        .compile()
        .invoke(
            {"question": "How is Noonan syndrome inherited?", "options": options},
            context=LearnToRefuseContext(kb_dir=str(kb_dir)),
        )
    )
    if result.get("choice") is not None:
        assert result["choice"] in options
        assert set(result["option_scores"]) == set(options)
        assert all(score < 0 for score in result["option_scores"].values())


def test_enrichment_writes_facts_with_confidence_and_provenance(tmp_path: Path) -> None:
    directory = tmp_path / "kb"
    KnowledgeBase.create(directory, get_models(ModelSettings()).embedder)
    result = (
        build_enrichment()
        .compile()
        .invoke(
            {"topic": "human anatomy", "target_facts": 2, "seed_questions": ["How many bones?"]},
            context=KnowledgeEnrichmentContext(kb_dir=str(directory), batch_size=2, max_batches=2),
        )
    )
    base = KnowledgeBase.open(directory)
    assert len(base) == result["facts_on_topic"] == len(result["added"])
    for entry in base.entries:
        assert 0.0 <= entry.confidence <= 1.0
        assert entry.source == "enrichment:human anatomy"
        assert entry.metadata["question"] and entry.metadata["answer"]
    assert result["stop_reason"] in {"met", "cap_reached"}
