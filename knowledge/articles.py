"""A local PubMed-style article corpus for M-Eval's extra evidence, searched with BM25.

Articles come from a PubMed/MEDLINE XML (gzipped or not) or JSON-lines export
(`veriloop.knowledge.pubmed.load_pubmed`); each is indexed on its title, abstract
and MeSH headings together, as M-Eval does, with the same BM25 tokenisation as the corpus
index (stop words out, Snowball stems). Indexes are built once per file and process.
"""

from __future__ import annotations

import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

import bm25s

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import bm25_search, lexical_tokens
from veriloop.knowledge.pubmed import Article, load_pubmed

_indexes: dict[str, ArticleIndex] = {}
_lock = threading.Lock()


def article_text(article: Article) -> str:
    """Return the text BM25 sees: title, abstract and MeSH headings."""
    return " ".join([article.title, article.abstract, " ".join(article.mesh)])


class ArticleIndex:
    """BM25 over articles' title + abstract + MeSH."""

    def __init__(self, articles: list[Article]) -> None:
        """Index `articles` (at least one)."""
        if not articles:
            raise InvalidInputError("the evidence corpus holds no articles")
        self.articles = articles
        self.bm25 = bm25s.BM25()
        self.bm25.index(lexical_tokens([article_text(a) for a in articles]), show_progress=False)

    def search(self, query: str, k: int) -> list[tuple[Article, float]]:
        """Return up to `k` articles with a positive BM25 score, best first."""
        return [
            (self.articles[row], score)
            for row, score in bm25_search(self.bm25, len(self.articles), query, k)
        ]


def open_article_index(path: str) -> ArticleIndex:
    """Return the (cached) index of the article file at `path`.

    Raises:
        InvalidInputError: No path was given.
        DatasetError: The file is missing or malformed.
    """
    if not path:
        raise InvalidInputError(
            "extra evidence needs an article corpus: set evidence_corpus to a PubMed XML or "
            "JSON-lines file (e.g. ../shared/data/pubmed_medline_sample/"
            "medline16n0902_sample.jsonl), or turn on no_extra_evidence"
        )
    key = str(Path(path).expanduser().resolve())
    with _lock:
        if key not in _indexes:
            _indexes[key] = ArticleIndex(load_pubmed(Path(key)))
        return _indexes[key]


def article_from_dict(data: dict[str, Any], position: int) -> Article:
    """Build an Article from a caller's dict (pmid/id, title, abstract/text, year, types, mesh).

    Raises:
        InvalidInputError: It has no abstract or text.
    """
    text = str(data.get("abstract") or data.get("text") or "").strip()
    if not text:
        raise InvalidInputError(f"cited article {position} has no abstract or text")
    year = data.get("year")
    return Article(
        pmid=str(data.get("pmid") or data.get("id") or f"G{position}"),
        title=str(data.get("title") or ""),
        abstract=text,
        year=int(year) if isinstance(year, int | str) and str(year).isdigit() else None,
        publication_types=[str(t) for t in data.get("publication_types") or []],
        mesh=[str(m) for m in data.get("mesh") or []],
    )


def article_to_dict(article: Article) -> dict[str, Any]:
    """Return the article as a JSON-ready dict."""
    return asdict(article)
