"""PubMed/MEDLINE articles (original XML, gzipped or not, or a JSON-lines export).

Articles are a corpus for evidence retrieval (M-Eval's extra evidence), not QA items.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veriloop.errors import DatasetError
from veriloop.files import json_lines, text_of, xml_root


@dataclass(frozen=True)
class Article:
    """One PubMed article."""

    pmid: str
    title: str
    abstract: str
    year: int | None = None
    publication_types: list[str] = field(default_factory=list)
    mesh: list[str] = field(default_factory=list)


def _listish(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, str) and value.startswith("["):
        parsed = ast.literal_eval(value)  # the export writes Python list reprs; no code runs
        return list(parsed)
    return []


def _year(value: Any) -> int | None:
    if isinstance(value, str) and value.startswith("{"):
        value = ast.literal_eval(value)
    if isinstance(value, dict):
        value = value.get("Year")
    try:
        return int(str(value)[:4])
    except ValueError:
        return None


def load_pubmed(path: Path) -> list[Article]:
    """Load articles from a MEDLINE XML file (.xml or .xml.gz) or a JSON-lines export."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path} does not exist; give a MEDLINE .xml(.gz) or .jsonl file")
    if path.name.endswith((".xml", ".xml.gz")):
        articles = []
        for citation in xml_root(path).iter("MedlineCitation"):
            pmid = citation.findtext("PMID")
            if not pmid:
                raise DatasetError(f"{path}: a MedlineCitation has no PMID")
            article = citation.find("Article")
            year = citation.findtext("Article/Journal/JournalIssue/PubDate/Year")
            articles.append(
                Article(
                    pmid=pmid,
                    title=text_of(article.find("ArticleTitle")) if article is not None else "",
                    abstract=" ".join(text_of(a) for a in citation.iter("AbstractText")),
                    year=_year(year) if year else None,
                    publication_types=[text_of(t) for t in citation.iter("PublicationType")],
                    mesh=[text_of(d) for d in citation.iter("DescriptorName")],
                )
            )
        return articles
    articles = []
    for number, record in json_lines(path):
        if "pmid" not in record:
            raise DatasetError(f"{path}:{number}: missing field 'pmid'")
        articles.append(
            Article(
                pmid=str(record["pmid"]),
                title=str(record.get("title") or ""),
                abstract=str(record.get("abstract") or ""),
                year=_year(record.get("pub_date")),
                publication_types=[str(t) for t in _listish(record.get("publication_types"))],
                mesh=[
                    str(m.get("descriptor", m)) if isinstance(m, dict) else str(m)
                    for m in _listish(record.get("mesh"))
                ],
            )
        )
    return articles
