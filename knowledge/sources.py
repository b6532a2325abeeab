"""Where passages come from: the bundled MedQuAD, a knowledge base, a corpus index.

One place opens a source and searches it, for every method: `open_source` picks the user's
corpus index (`veriloop index`) or knowledge base (`veriloop kb`) when given, else the
bundled MedQuAD answers, and each adapter returns `SourcePassage`s through the
`PassageSource` protocol (the grounded default). The knowledge-base methods (RAG, Learn to
Refuse, enrichment) open a base with `open_knowledge_base` and search it with `retrieve`;
the corpus methods (RAG, Factual Evidence) open a hybrid retriever with `open_retriever`
and search it with `retrieve_context`. Bases and retrievers are kept open per process,
keyed by directory and live version, so a benchmark opens one once while a source changed
on disk (by `veriloop kb add`, an enrichment run, a re-index) is re-read on the next
question.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, Protocol

from typing_extensions import TypedDict

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import CorpusIndex
from veriloop.knowledge.folder_index import folder_index, is_plain_folder
from veriloop.knowledge.hybrid import (
    CrossEncoderReranker,
    HybridRetriever,
    Retrieval,
    RetrievalSettings,
    fence,
    get_web_search,
)
from veriloop.knowledge.medquad import Passage, open_medquad, without_lead
from veriloop.knowledge.store import Hit, KnowledgeBase
from veriloop.knowledge.versioned import live_version
from veriloop.models import Models
from veriloop.trace import ModelCall


@dataclass(kw_only=True)
class SourceSettings:
    """Where a method retrieves from: a knowledge base or a corpus index (Context mixin).

    Mixed into the Context of every method that can take either (grounded, RAG, grounded
    Self-Reflection), so the two settings have one name and one description everywhere.
    """

    kb_dir: str = field(
        default="",
        metadata={
            "description": "Knowledge-base directory (`veriloop kb create DIR`) to retrieve "
            "from; replaces the bundled MedQuAD source where the method has one."
        },
    )
    corpus_dir: str = field(
        default="",
        metadata={
            "description": "Corpus index directory (`veriloop index`) to retrieve from; wins "
            "over kb_dir when both are set."
        },
    )


class SourcePassage(TypedDict):
    """One retrieved passage an answer sentence may cite."""

    id: str
    text: str
    title: str
    """The page's focus (MedQuAD), or the document title; may be empty."""
    url: str
    """Where the passage comes from (a URL for MedQuAD; the entry's source otherwise)."""
    relevance: float
    """MiniLM cosine between the question and title + text (set by `rank_passages`)."""
    qtype: NotRequired[str]
    """What question the passage's page answers there (MedQuAD's question type:
    "treatment", "symptoms", ...); absent for sources without types."""
    site: NotRequired[str]
    """The NIH site the page comes from (MedQuAD's `source`: "GARD", "CancerGov", ...);
    absent for other sources."""
    cuis: NotRequired[list[str]]
    """The UMLS concepts the page is about (MedQuAD); absent for other sources."""
    kin: NotRequired[bool]
    """The page is about a kind of the question's subject, not the subject itself
    ("Bird Flu" for a flu question; `nodes.subject.kind_of`)."""
    named_in: NotRequired[str]
    """For a kind's page answering for its subject: the sentence of the subject's own page
    that names the kind ("Many different diseases can cause dementia, including
    Alzheimer's disease and stroke"; `nodes.named_kinds`)."""
    named_by: NotRequired[str]
    """With `named_in`: the focus of the subject's page that names the kind; with `treats`:
    the subject's focus the treatment's page names."""
    treats: NotRequired[str]
    """For a treatment's page answering for a subject whose own pages say no treatment: its
    unit saying it treats the subject ("Some women take hormone replacement therapy ...,
    also called menopausal hormone therapy, to relieve these symptoms";
    `nodes.treating_pages`)."""
    defines: NotRequired[str]
    """The question's subject phrase, which this passage of a page about something else
    says what it is ("sleep paralysis" on Narcolepsy's: `nodes.subject.defines_phrase`):
    only its units writing the phrase are quoted."""
    page: NotRequired[str]
    """The answer (page) the passage is part of (MedQuAD); absent for other sources."""
    part: NotRequired[int]
    """The passage's place in that answer: 1 opens it (MedQuAD)."""
    lead: NotRequired[str]
    """The sentence put before the passage from the one before it in its page (MedQuAD's
    `Passage.lead`), part of `text`: quoted with it, not ranked with it."""
    for_part: NotRequired[bool]
    """The passage was kept only for another part of the question (one asking a type of
    its own: `nodes.grounding.retrieve_parts`), not for its first type."""


_open_bases: dict[tuple[str, str], KnowledgeBase] = {}
_open_retrievers: dict[tuple[str, str, str], HybridRetriever] = {}
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
        base = _open_bases.get(key)
        if base is None or base.embedding_model != models.embedder.name:
            base = KnowledgeBase.open(directory, models.embedder)
            for stale in [k for k in _open_bases if k[0] == key[0]]:
                del _open_bases[stale]
            _open_bases[key] = base
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
        retriever = _open_retrievers.get(key)
        if retriever is None or retriever.index.embedding_model != models.embedder.name:
            index = CorpusIndex.open(directory, models.embedder)
            reranker = CrossEncoderReranker.from_path(reranker_model) if reranker_model else None
            retriever = HybridRetriever(index, reranker=reranker)
            for stale in [k for k in _open_retrievers if k[0] == key[0]]:
                del _open_retrievers[stale]
            _open_retrievers[key] = retriever
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


class PassageSource(Protocol):
    """Where candidate passages come from."""

    name: str

    def normalized(self, question: str) -> str:
        """Return the question as the source reads it (its page names' misspellings fixed)."""
        ...

    def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[ModelCall]]:
        """Return up to `k` candidate passages for `question`, best first."""
        ...

    def opening(self, passage: SourcePassage) -> SourcePassage | None:
        """Return the passage that opens `passage`'s answer (None: the source has no pages)."""
        ...

    def typed(self, title: str, qtype: str) -> list[SourcePassage]:
        """Return the openings of the pages about `title` answering `qtype` questions."""
        ...

    def parts(self, passage: SourcePassage) -> list[SourcePassage]:
        """Return every passage of `passage`'s page, in order (none: no pages)."""
        ...

    def openings_of(self, title: str) -> list[SourcePassage]:
        """Return the opening of every page about `title`, of any type (none: no pages)."""
        ...

    def foci_named(self, name: str) -> list[str]:
        """Return the foci of the pages a condition's name names (none: no pages)."""
        ...


def medquad_passage(passage: Passage) -> SourcePassage:
    """Return a MedQuAD passage as a candidate: its page's focus is its title."""
    candidate = SourcePassage(
        id=passage.id,
        text=passage.text,
        title=passage.focus,
        url=passage.url,
        relevance=0.0,
        qtype=passage.qtype,
        site=passage.source,
        cuis=list(passage.cuis),
        page=passage.page,
        part=passage.part,
    )
    if passage.lead:
        candidate["lead"] = passage.lead
    return candidate


def own_text(passage: SourcePassage) -> str:
    """Return a passage's text without the sentence put before it (`lead`).

    Relevance is the passage's own: a lead ("Late Symptoms Four to 10 days after the
    initial phase of illness, ...") had pulled "Is the Disease Fatal? Yes. HPS can be
    fatal." from 0.77 to 0.62 for "The hantavirus can lead to death?".
    """
    return without_lead(passage["text"], passage.get("lead", ""))


@dataclass
class MedQuADSource:
    """The bundled MedQuAD answers (BM25 over focus + question + passage).

    The openings of the pages the question names word for word join the candidates when
    the search returned none of theirs (`MedQuADIndex.named_openings`). With
    `question_match`, the answers to the MedQuAD questions nearest the user's (MiniLM
    cosine: question entailment, as the MEDIQA 2019 organisers suggest for consumer
    questions) join the BM25 candidates, their first two passages each.
    """

    models: Models | None = None
    question_match: int = 0
    name: str = "MedQuAD (NIH answers, CC BY 4.0)"

    def normalized(self, question: str) -> str:
        """Return the question with misspelt page names corrected ("Mediterean fever")."""
        return open_medquad().speller.corrected(question)

    def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[ModelCall]]:
        """Return up to `k` passages by BM25, then the named pages', the matched questions'."""
        index = open_medquad()
        found = [medquad_passage(p) for p, _ in index.search(index.spelled_out(question), k)]
        have = {p["id"] for p in found}
        found += [  # an opening the search found is not added again
            medquad_passage(p)
            for p in index.named_openings(question, [p["title"] for p in found])
            if p.id not in have
        ]
        have = {p["id"] for p in found}
        if not self.question_match or self.models is None:
            return found, []
        vectors = index.question_vectors(self.models.embedder)
        asked, call = self.models.embed([question], purpose="question match")
        for matched, _ in index.match_questions(asked[0], vectors, self.question_match):
            for p in index.answer_passages(matched):
                if p.id not in have:
                    have.add(p.id)
                    found.append(medquad_passage(p))
        return found, [call]

    def opening(self, passage: SourcePassage) -> SourcePassage | None:
        """Return the passage that opens `passage`'s answer (itself when it opens it)."""
        first = open_medquad().opening(passage.get("page", ""))
        return medquad_passage(first) if first is not None else None

    def typed(self, title: str, qtype: str) -> list[SourcePassage]:
        """Return the openings of MedQuAD's answers to `qtype` questions about `title`."""
        return [medquad_passage(p) for p in open_medquad().typed_openings(title, qtype)]

    def parts(self, passage: SourcePassage) -> list[SourcePassage]:
        """Return every passage of `passage`'s MedQuAD answer, in order."""
        return [medquad_passage(p) for p in open_medquad().page_parts(passage.get("page", ""))]

    def openings_of(self, title: str) -> list[SourcePassage]:
        """Return the openings of MedQuAD's answers about `title`, of every question type."""
        return [medquad_passage(p) for p in open_medquad().focus_openings(title)]

    def foci_named(self, name: str) -> list[str]:
        """Return the foci of MedQuAD's pages that `name` names (`MedQuADIndex.foci_named`)."""
        return open_medquad().foci_named(name)


class WithoutPages:
    """A source whose entries are not parts of typed pages (a knowledge base, a corpus)."""

    def normalized(self, question: str) -> str:
        """Return the question as it is: entries have no page names to spell by."""
        return question

    def opening(self, passage: SourcePassage) -> SourcePassage | None:
        """Return None: entries are not parts of pages."""
        return None

    def typed(self, title: str, qtype: str) -> list[SourcePassage]:
        """Return nothing: entries carry no question types."""
        return []

    def parts(self, passage: SourcePassage) -> list[SourcePassage]:
        """Return nothing: entries are not parts of pages."""
        return []

    def openings_of(self, title: str) -> list[SourcePassage]:
        """Return nothing: entries are not parts of pages."""
        return []

    def foci_named(self, name: str) -> list[str]:
        """Return nothing: entries have no page names."""
        return []


@dataclass
class KnowledgeBaseSource(WithoutPages):
    """A knowledge base made with `veriloop kb` (nearest entries by embedding)."""

    models: Models
    kb_dir: str
    name: str = "knowledge base"

    def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[ModelCall]]:
        """Return the `k` nearest entries."""
        base = open_knowledge_base(self.kb_dir, self.models)
        hits, call = retrieve(self.models, base, question, k)
        return [
            SourcePassage(id=h["id"], text=h["knowledge"], title="", url=h["source"], relevance=0.0)
            for h in hits
        ], [call]


@dataclass
class CorpusSource(WithoutPages):
    """A corpus index made with `veriloop index` (hybrid BM25 + embedding paragraphs)."""

    models: Models
    corpus_dir: str
    name: str = "corpus index"

    def search(self, question: str, k: int) -> tuple[list[SourcePassage], list[ModelCall]]:
        """Return the `k` best fused paragraphs."""
        retriever = open_retriever(self.corpus_dir, self.models)
        settings = RetrievalSettings(mode="paragraphs", top_paragraphs=k)
        result, call = retrieve_context(self.models, retriever, question, settings)
        return [
            SourcePassage(id=u["id"], text=u["text"], title="", url=u["source"], relevance=0.0)
            for u in result.units
        ], [call]


def open_source(
    models: Models, *, kb_dir: str = "", corpus_dir: str = "", question_match: int = 0
) -> PassageSource:
    """Return the user's corpus or knowledge base when given, else the bundled MedQuAD.

    `question_match`: MedQuAD only, how many of its questions nearest the user's bring
    their answers into the candidates (`MedQuADSource`).
    """
    if corpus_dir:
        return CorpusSource(models, corpus_dir)
    if kb_dir:
        return KnowledgeBaseSource(models, kb_dir)
    return MedQuADSource(models, question_match)
