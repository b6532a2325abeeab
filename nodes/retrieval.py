"""Retrieval from a knowledge base inside a graph: open once, embed accounted, format.

Bases are kept open per process, keyed by directory and live version, so a benchmark
opens a base once while a base changed on disk (by `veriloop kb add`, or an enrichment
run) is re-read on the next question.
"""

from __future__ import annotations

import threading
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.knowledge.hybrid import fence
from veriloop.knowledge.store import Hit, KnowledgeBase
from veriloop.models import Models
from veriloop.trace import ModelCall

_open: dict[tuple[str, str], KnowledgeBase] = {}
_lock = threading.Lock()


def open_knowledge_base(kb_dir: str, models: Models) -> KnowledgeBase:
    """Return the base at `kb_dir`, checked against the models' embeddings.

    Raises:
        InvalidInputError: No directory was given.
        KnowledgeBaseError: Not a base, damaged, or built with other embeddings.
    """
    if not kb_dir:
        raise InvalidInputError(
            "this method needs a knowledge base: set kb_dir (CLI: --kb DIR; environment: "
            "VERILOOP_KB_DIR); create one with `veriloop kb create DIR`"
        )
    directory = Path(kb_dir).expanduser().resolve()
    pointer = directory / "CURRENT"
    version = pointer.read_text().strip() if pointer.is_file() else ""
    key = (str(directory), version)
    with _lock:
        base = _open.get(key)
        if base is None or base.embedding_model != models.embedder.name:
            base = KnowledgeBase.open(directory, models.embedder)
            for stale in [k for k in _open if k[0] == key[0]]:
                del _open[stale]
            _open[key] = base
        return base


def retrieve(
    models: Models, base: KnowledgeBase, query: str, k: int
) -> tuple[list[Hit], ModelCall]:
    """Embed `query` (accounted) and return the `k` nearest entries, nearest first."""
    vectors, call = models.embed([query], purpose="retrieval")
    return base.search_vectors(vectors, k)[0], call


def format_hits(hits: list[Hit], *, with_confidence: bool = True) -> str:
    """Render retrieved entries one per line as `[K-3] fact (confidence 0.80)`, fenced."""
    if not hits:
        return "(no knowledge)"
    lines = []
    for hit in hits:
        suffix = f" (confidence {hit['confidence']:.2f})" if with_confidence else ""
        lines.append(f"[{hit['id']}] {fence(hit['knowledge'])}{suffix}")
    return "\n".join(lines)
