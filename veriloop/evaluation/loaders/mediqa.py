"""MEDIQA 2019 Task 3 (QA): questions with ranked, scored answers (XML).

Answers with ReferenceScore 3 or 4 are correct (as Ji et al. 2023 use them); the reference
is the top-ranked correct answer (lowest ReferenceRank), the others follow it. Questions
with no correct answer have no reference and are not items. Split `all` is the validation
set and both training sets (199 items): none of them is used to fit anything in veriloop.
"""

from __future__ import annotations

from pathlib import Path

from veriloop.evaluation.items import DatasetError, Item
from veriloop.files import text_of, xml_root

FILES = {
    "validation": ["MEDIQA2019-Task3-QA-ValidationSet.xml"],
    "train": [
        "MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed.xml",
        "MEDIQA2019-Task3-QA-TrainingSet2-Alexa.xml",
    ],
    "all": [
        "MEDIQA2019-Task3-QA-ValidationSet.xml",
        "MEDIQA2019-Task3-QA-TrainingSet1-LiveQAMed.xml",
        "MEDIQA2019-Task3-QA-TrainingSet2-Alexa.xml",
    ],
}


def load_mediqa2019(data_dir: Path, split: str = "validation") -> list[Item]:
    """Load MEDIQA 2019 Task 3 items from the split's XML file(s)."""
    items = []
    if split not in FILES:
        raise DatasetError(f"unknown MEDIQA2019 split {split!r}; use one of {sorted(FILES)}")
    for name in FILES[split]:
        path = Path(data_dir) / name
        if not path.is_file():
            raise DatasetError(f"{path} does not exist; point --data-dir at the MEDIQA2019 folder")
        for question in xml_root(path).iter("Question"):
            qid = question.get("QID")
            answers = []
            for answer in question.iter("Answer"):
                try:
                    score = int(answer.get("ReferenceScore", ""))
                    rank = int(answer.get("ReferenceRank", ""))
                except ValueError as exc:
                    raise DatasetError(
                        f"{path}: question {qid} answer {answer.get('AID')} has no numeric "
                        "ReferenceScore/ReferenceRank"
                    ) from exc
                answers.append(
                    (rank, score, text_of(answer.find("AnswerText")), answer.findtext("AnswerURL"))
                )
            correct = sorted(a for a in answers if a[1] >= 3)
            if not correct:
                continue
            items.append(
                Item(
                    id=f"{path.stem}:{qid}",
                    question=text_of(question.find("QuestionText")),
                    references=[text for _, _, text, _ in correct],
                    documents=[text for _, _, text, _ in sorted(answers)],
                    metadata={
                        "file": path.name,
                        "answer_scores": [s for _, s, _, _ in sorted(answers)],
                    },
                    dataset="mediqa2019",
                )
            )
    return items
