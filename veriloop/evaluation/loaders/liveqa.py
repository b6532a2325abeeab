"""LiveQA-Med 2017 test questions (XML): the question is the NLM summary, as Ji et al. use it.

Root with NLM-QUESTION[qid] elements: Original-Question (SUBJECT, MESSAGE), NIST-PARAPHRASE,
NLM-Summary, ANNOTATIONS, and ReferenceAnswers holding RefAnswer or ReferenceAnswer
children (both tags occur), each with ANSWER and AnswerURL.
"""

from __future__ import annotations

from pathlib import Path

from veriloop.evaluation.items import DatasetError, Item
from veriloop.files import text_of, xml_root


def load_liveqa2017(data_dir: Path, split: str = "test") -> list[Item]:
    """Load every *.xml under `data_dir` (or the file itself)."""
    path = Path(data_dir)
    files = [path] if path.is_file() else sorted(path.glob("*.xml"))
    if not files:
        raise DatasetError(f"{path} holds no LiveQA-Med XML file")
    items = []
    for file in files:
        for question in xml_root(file).iter("NLM-QUESTION"):
            qid = question.get("qid") or question.get("QID")
            summary = text_of(question.find("NLM-Summary"))
            if not summary:
                raise DatasetError(f"{file}: question {qid} has no NLM-Summary")
            answers = [
                text_of(answer.find("ANSWER"))
                for container in question.iter("ReferenceAnswers")
                for answer in container
                if answer.tag in {"RefAnswer", "ReferenceAnswer"}
            ]
            original = question.find("Original-Question")
            items.append(
                Item(
                    id=str(qid),
                    question=summary,
                    references=[a for a in answers if a],
                    metadata={
                        "subject": text_of(original.find("SUBJECT"))
                        if original is not None
                        else "",
                        "message": text_of(original.find("MESSAGE"))
                        if original is not None
                        else "",
                        "paraphrase": text_of(question.find("NIST-PARAPHRASE")),
                    },
                    dataset="liveqa2017",
                )
            )
    return items
