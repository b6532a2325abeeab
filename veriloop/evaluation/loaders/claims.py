"""SciFact-format claim verification (SciFact, Citation-Integrity): claims plus a corpus.

Each claim becomes an item: question = the claim, documents = the cited documents'
abstracts when `corpus.jsonl` is present (SciFact's corpus is not in our copy, so then
documents stay empty), labels = the evidence labels, gold = SUPPORT / CONTRADICT (REFUTE
in Citation-Integrity) / NEI when there is no evidence, or MIXED when labels disagree.
"""

from __future__ import annotations

from pathlib import Path

from veriloop.evaluation.items import Item
from veriloop.files import field, json_lines, require_file


def load_claims(data_dir: Path, split: str = "dev", dataset: str = "scifact") -> list[Item]:
    """Load `claims_{split}.jsonl` (and `corpus.jsonl` if present) from `data_dir`."""
    folder = Path(data_dir)
    path = require_file(
        folder / f"claims_{split}.jsonl", f"point --data-dir at the {dataset} folder"
    )
    corpus: dict[str, str] = {}
    if (folder / "corpus.jsonl").is_file():
        for number, doc in json_lines(folder / "corpus.jsonl"):
            where = f"{folder / 'corpus.jsonl'}:{number}"
            abstract = field(doc, "abstract", where)
            text = " ".join(abstract) if isinstance(abstract, list) else str(abstract)
            corpus[str(field(doc, "doc_id", where))] = text
    items = []
    for number, record in json_lines(path):
        where = f"{path}:{number}"
        evidence = record.get("evidence") or {}
        labels = sorted({str(e["label"]) for entries in evidence.values() for e in entries})
        gold = "NEI" if not labels else labels[0] if len(labels) == 1 else "MIXED"
        cited = [str(d) for d in record.get("cited_doc_ids", [])]
        items.append(
            Item(
                id=str(field(record, "id", where)),
                question=str(field(record, "claim", where)),
                documents=[corpus[d] for d in cited if d in corpus],
                gold=gold,
                labels=labels,
                metadata={"cited_doc_ids": cited, "evidence": evidence},
                dataset=dataset,
            )
        )
    return items
