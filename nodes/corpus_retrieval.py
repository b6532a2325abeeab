"""Retrieval from a corpus index inside a graph: open once per version, embed accounted.

Indexes are kept open per process, keyed by directory and live version (a rebuilt index
is re-read on the next question), like `nodes/retrieval.py` does for knowledge bases.
"""

from __future__ import annotations

import threading
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import CorpusIndex
from veriloop.knowledge.folder_index import folder_index, is_plain_folder
from veriloop.knowledge.hybrid import (
    CrossEncoderReranker,
    HybridRetriever,
    Retrieval,
    RetrievalSettings,
    get_web_search,
)
from veriloop.knowledge.versioned import live_version
from veriloop.models import Models
from veriloop.trace import ModelCall

_open: dict[tuple[str, str, str], HybridRetriever] = {}
_lock = threading.Lock()


def open_retriever(corpus_dir: str, models: Models, reranker_model: str = "") -> HybridRetriever:
    """Return a hybrid retriever over the index at `corpus_dir`.

    Raises:
        InvalidInputError: No directory was given.
        CorpusIndexError: Not a corpus index, damaged, or built with other embeddings;
            or a plain folder with no usable document.

    A plain folder of documents (not an index) is indexed on first use into the cache
    (`knowledge.folder_index`) and that index is reused while the folder is unchanged.
    """
    if not corpus_dir:
        raise InvalidInputError(
            "this method needs a corpus index: set corpus_dir (CLI: --corpus DIR; "
            "environment: VERILOOP_CORPUS_DIR); build one with `veriloop index FOLDER --out DIR`"
        )
    directory = Path(corpus_dir).expanduser().resolve()
    if is_plain_folder(directory):  # a folder of documents: indexed once into the cache
        directory = folder_index(directory, models.embedder)
    key = (str(directory), live_version(directory) or "", reranker_model)
    with _lock:
        retriever = _open.get(key)
        if retriever is None or retriever.index.embedding_model != models.embedder.name:
            index = CorpusIndex.open(directory, models.embedder)
            reranker = CrossEncoderReranker.from_path(reranker_model) if reranker_model else None
            retriever = HybridRetriever(index, reranker=reranker)
            for stale in [k for k in _open if k[0] == key[0]]:
                del _open[stale]
            _open[key] = retriever
        return retriever


def retrieve_context(
    models: Models,
    retriever: HybridRetriever,
    question: str,
    settings: RetrievalSettings,
    web_search: str = "",
) -> tuple[Retrieval, ModelCall]:
    """Embed the question (accounted) and run hybrid retrieval (web only if named)."""
    vectors, call = models.embed([question], purpose="retrieval")
    web = get_web_search(web_search) if web_search else None
    with _lock:
        result = retriever.retrieve(question, vectors[0], settings, models.embedder, web)
    return result, call
