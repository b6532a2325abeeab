"""MedQuAD: the trusted medical source that ships with veriloop (CC BY 4.0).

`data/medquad/medquad_answered.jsonl.gz` holds MedQuAD's 16,407 answered question-answer
pairs from 9 NIH websites (Ben Abacha & Demner-Fushman 2019), each answer with the URL of
the page it came from; the licence and attribution sit beside it (`ATTRIBUTION.md`,
`LICENSE.txt`). veriloop cites what it retrieves from here by passage id and page URL.

- Passages: each answer, its run-together words repaired (`run_together`: "fissuressmall"
  -> "fissures — small", where the scrape lost a dash), split with LangChain's
  `RecursiveCharacterTextSplitter` at paragraph, line and then sentence ends
  (`PASSAGE_CHARS` 800, no overlap), so a passage holds whole sentences and no quoted
  sentence is cut at a passage boundary; a passage opening inside a list gets the list's
  lead-in (`with_list_leads`), one opening on a sentence that leans on the one before
  gets that sentence (`with_antecedents`); ids `MQ-<page key>-<n>`, the key
  being the qid, or the site and qid where sites share a qid (`page_keys`; stable: the
  file is fixed).
- First stage: BM25 (the corpus index's tokenisation: stop words out, Snowball stems) over
  focus + question + passage. Built on first use (about 10 s on 2 cores) and stored under
  `index_cache_root()/medquad-<key>` (passages as JSON lines, the BM25 arrays as bm25s
  writes them; about 30 MB), keyed by the data file's hash and the passage settings, so
  later processes load it in about a second. A half-written cache is never used: it is
  written to a temporary folder and renamed.
- Re-ranking is the caller's: `search` returns BM25's candidates with their scores.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import bm25s
import numpy as np
import numpy.typing as npt
from bm25s.stopwords import STOPWORDS_EN_PLUS

from veriloop.errors import InvalidInputError
from veriloop.knowledge.corpus_index import bm25_search, lexical_tokens
from veriloop.knowledge.spelling import NameSpeller
from veriloop.knowledge.stated_names import first_word_name_of, lay_names_of, stated_names
from veriloop.standalone import ANAPHORS, LIST_ITEM, THE_SUBJECT, leans_back
from veriloop.text import NOT_ABBREVIATED, split_sentences

if TYPE_CHECKING:
    from veriloop.models.embeddings import Embedder

DATA_DIR = Path(__file__).resolve().with_name("data") / "medquad"
MEDQUAD_FILE = DATA_DIR / "medquad_answered.jsonl.gz"
PASSAGE_CHARS = 800
PASSAGE_OVERLAP = 0
CACHE_VERSION = "24"
SEPARATORS = [
    "\n\n",
    "\n",
    NOT_ABBREVIATED + r"\. ",
    r"\? ",
    "! ",
    "; ",
    " ",
    "",
]
"""Where a passage may end, best first (regular expressions): a sentence end before any
space, never an abbreviation's period ("calcium channel blockers (i.e. nifedipine)" was
cut after "i.e.") nor a lone capital's (`NOT_ABBREVIATED`: Peptic Ulcer's first passage
ended "To see if you have an H." and the next opened "pylori infection, ...")."""
LICENCE = "MedQuAD (Ben Abacha & Demner-Fushman 2019), CC BY 4.0"
NAMED_PAGES = 3
"""Pages a question names exactly that join its search's candidates, longest names first."""
_NAME_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")

CATEGORY = re.compile(r"^Parasites - ")
"""The category CDC files its parasite pages under ("Parasites - Scabies")."""


def page_name(focus: str) -> str:
    """Return the name a focus gives its page, without the category it is filed under.

    CDC writes "Parasites - Lice - Body Lice": the page is about body lice, and "parasites"
    is no word a question about body lice needs to hold. A part whose words the next part
    holds is its family ("Lice" of "Body Lice"); GARD's "Ataxia - hypogonadism - choroidal
    dystrophy" names one syndrome by all its parts and stays whole.
    """
    parts = CATEGORY.sub("", focus).split(" - ")
    while len(parts) > 1 and set(parts[0].lower().split()) <= set(parts[1].lower().split()):
        parts = parts[1:]
    return " - ".join(parts)


_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]\"]")


def _name_keys(focus: str) -> list[str]:
    """Return the keys a page is named by.

    Its `page_name`'s words, and those before a parenthesis or comma in it.
    """
    name = page_name(focus).lower()
    keys = [
        " ".join(_NAME_WORD.findall(name)),
        " ".join(_NAME_WORD.findall(_CLAUSE_BREAK.split(name)[0])),
    ]
    return list(dict.fromkeys(k for k in keys if k))


ASKING_WORDS = frozenset(
    """treatment treatments treat treated cure symptom symptoms sign signs cause causes
    caused diagnosis diagnose diagnosed test tests testing prevention prevent outlook
    prognosis risk risks genetic hereditary inherited contagious last lasts""".split()
)
"""Words after a name that say what is asked about it ("lung cancer treatment", "is
diabetes genetic", "how long does hepatitis A last"), not a longer name it starts
("alcohol use disorder", "blood drainage")."""

_NOT_A_NAME = re.compile(r"^(?:the|a|an|type)\b|\b(?:and|or)\b")
"""Stated names that are no name to find a page by: "the infantile type", "type i" (a
form of the page's subject), "dysphagia and heartburn" (its symptoms)."""

_open: dict[Path, MedQuADIndex] = {}
_ABBREVIATION = re.compile(r"\(([A-Z]{2,6})s?\)")
_JOINING = frozenset({"and", "of", "the", "in", "to", "with", "for", "or"})
_lock = threading.Lock()


def without_lead(text: str, lead: str) -> str:
    """Return a passage's text without the lead put before it (the text when none is)."""
    return text.removeprefix(lead).strip() if lead and text.startswith(lead) else text


@dataclass(frozen=True)
class Passage:
    """One retrievable piece of a MedQuAD answer, with where it came from."""

    id: str
    text: str
    url: str
    source: str
    """The NIH site (GHR, GARD, CancerGov, ...)."""
    focus: str
    question: str
    """The MedQuAD question this passage answers (part of)."""
    qtype: str = ""
    """That question's type (MedQuAD's `qtype`: "treatment", "symptoms", ...)."""
    cuis: list[str] = field(default_factory=list)
    """The UMLS concepts the page is about (MedQuAD's `cuis`): pages sharing one are
    about the same thing under other names."""
    page: str = ""
    """The key every passage of one answer shares (`MQ-<page key>`)."""
    part: int = 1
    """The passage's place in its answer: 1 opens it (where the page's author answers
    the question), 2 follows it, ..."""
    lead: str = ""
    """The sentence put before the passage from the one before it (`with_antecedents`),
    part of `text`; the search does not index it again (it is the other passage's)."""

    @property
    def own_text(self) -> str:
        """Return the passage's text without the sentence put before it."""
        return without_lead(self.text, self.lead)


def index_cache_root() -> Path:
    """Return where derived indexes live: `$VERILOOP_INDEX_CACHE` or ~/.cache/veriloop/indexes."""
    return Path(os.environ.get("VERILOOP_INDEX_CACHE", "~/.cache/veriloop/indexes")).expanduser()


def page_keys(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Return each MedQuAD pair's page key, unique across the file.

    The key is the pair's qid where no other pair has it. MedQuAD numbers questions per
    website, so one qid can name pairs of two sites (GARD's 0000058-3 is Angelman syndrome,
    SeniorHealth's is prostate cancer), and one CancerGov document answers the same question
    for several foci. Such pairs get their site in the key (`GARD-0000058-3`) and, where the
    site repeats it too, the focus's place among the pair's foci (`CancerGov-0000013_2-1~3`).
    Stable, since the file is fixed.
    """
    by_qid = Counter(str(row["qid"]) for row in rows)
    by_site = Counter((str(row["source"]), str(row["qid"])) for row in rows)
    seen: Counter[tuple[str, str]] = Counter()
    keys = []
    for row in rows:
        qid, site = str(row["qid"]), str(row["source"])
        if by_qid[qid] == 1:
            keys.append(qid)
            continue
        seen[(site, qid)] += 1
        suffix = f"~{seen[(site, qid)]}" if by_site[(site, qid)] > 1 else ""
        keys.append(f"{site}-{qid}{suffix}")
    return keys


def load_passages(path: Path = MEDQUAD_FILE) -> list[Passage]:
    """Read the answered pairs at `path` and split every answer into passages.

    Raises:
        InvalidInputError: The file is missing or a line is not a MedQuAD pair.
    """
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from veriloop.knowledge.run_together import RunTogetherRepair, spaced_sentence_ends

    if not Path(path).is_file():
        raise InvalidInputError(
            f"{path} does not exist; reinstall veriloop (the MedQuAD source ships with it)"
        )
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                row = json.loads(line)
                rows.append((row, str(row["answer"]), row["qid"], row["url"], row["source"]))
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise InvalidInputError(
                    f"{path}:{number}: not a MedQuAD pair ({error}); expected qid, url, "
                    "source, focus, question and answer"
                ) from error
    keys = page_keys([row for row, *_ in rows])
    repair = RunTogetherRepair(answer for _, answer, _, _, _ in rows)
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=PASSAGE_CHARS,
        chunk_overlap=PASSAGE_OVERLAP,
        separators=SEPARATORS,
        keep_separator="end",
        is_separator_regex=True,
    )
    passages = []
    for (row, answer, _, url, source), key in zip(rows, keys, strict=True):
        text = repair.repair(spaced_sentence_ends(answer))
        raw = [c.strip() for c in splitter.split_text(text) if c.strip()]
        passages += [
            Passage(
                id=f"MQ-{key}-{n}",
                text=f"{lead} {chunk}" if lead else chunk,
                lead=lead,
                url=url,
                source=source,
                focus=row.get("focus") or "",
                question=row.get("question") or "",
                qtype=row.get("qtype") or "",
                cuis=list(row.get("cuis") or []),
                page=f"MQ-{key}",
                part=n,
            )
            for n, (lead, chunk) in enumerate(with_leads(raw), start=1)
        ]
    return passages


def with_leads(chunks: list[str]) -> list[tuple[str, str]]:
    """Return each passage as (lead, text): a list's lead-in or the sentence it leans on.

    A passage opening inside a list gets the list's lead-in in its text
    (`with_list_leads`); one opening on a sentence that leans on the one before gets that
    sentence as its lead (`with_antecedents`), unless a lead-in was put before it (what it
    opens on is then the lead-in, whose antecedent is not the passage before).
    """
    return [
        (lead if listed == chunk else "", listed)
        for lead, listed, chunk in zip(
            with_antecedents(chunks), with_list_leads(chunks), chunks, strict=True
        )
    ]


def with_antecedents(chunks: list[str]) -> list[str]:
    """Return, per passage, the sentence before it that its opening leans on ("" if none).

    The splitter cuts at sentence ends, so a passage can open on "They include: chest
    pain", "However, ..." or "Some examples of these medicines include: ..."
    (`leans_back`), whose antecedent ended the passage before: such an opening was never
    quotable alone, or was quoted as a pointer to nothing. The earlier passage's last
    sentence is its lead, put before it, so the two are quoted together; none when that
    sentence is a list item or leans back itself (it would add a sentence that is no
    antecedent either). A later passage opening "This condition ..." (`THE_SUBJECT`) gets
    the sentence before even when that is a list item or points back inside it: only a
    page's first passage opens on the page's subject for sure, a later one may open on
    what the passage before ended on ("- Heart Failure. This condition occurs when ...",
    "Anemia results if these cells ... This condition can lead to ..."), and
    `standalone_units` drops it with a lead it cannot quote. After a sentence opening on
    an anaphor ("These goiters ... This syndrome is caused by mutations in DICER1") it
    takes none and is read as the page's subject, as before.
    """
    leads = [""]
    for before, chunk in pairwise(chunks):
        sentences = split_sentences(chunk)
        last = split_sentences(before)[-1:] if sentences and leans_back(sentences[0]) else []
        fits = bool(last) and (
            (
                bool(THE_SUBJECT.match(sentences[0]))
                and (bool(LIST_ITEM.match(last[0])) or not ANAPHORS.match(last[0]))
            )
            or (not LIST_ITEM.match(last[0]) and not leans_back(last[0]))
        )
        leads.append(last[0] if fits else "")
    return leads[: len(chunks)]


def with_list_leads(chunks: list[str]) -> list[str]:
    """Give a passage that opens inside a list the list's lead-in from an earlier passage.

    MedQuAD writes lists inline ("Complications can include - bowel obstruction. ...
    - anal fissures — small tears ..."); a passage that starts at "- anal fissures" would
    quote the item without what it is an item of. The lead-in is the text before the first
    " - " of the last sentence, in an earlier passage of the same answer, that opened a list;
    it is put before the passage as its own sentence, ending in a colon.
    """
    out: list[str] = []
    lead = ""
    for chunk in chunks:
        if lead:
            for sentence in split_sentences(chunk):
                head, sep, _ = sentence.partition(" - ")
                if sentence.startswith("- "):  # an item before any lead-in of its own
                    chunk = f"{lead.rstrip(' :')}:\n{chunk}"
                    break
                if sep and head.strip():
                    break
        out.append(chunk)
        for sentence in split_sentences(chunk):
            head, sep, _ = sentence.partition(" - ")
            if sep and head.strip() and not head.lstrip().startswith("-"):
                lead = head.strip()
    return out


def _cache_key(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(f"{CACHE_VERSION}:{PASSAGE_CHARS}:{PASSAGE_OVERLAP}".encode())
    return digest.hexdigest()[:16]


def abbreviations_in(texts: Iterable[str], least: int = 2) -> dict[str, str]:
    """Return what the texts spell their abbreviations out as ("IBS": "irritable bowel syndrome").

    From "<words> (ABBR)" where the initials of the words before the parenthesis spell it
    ("of", "and" ... skipped), kept when the texts say it so `least` times or more.
    """
    found: dict[str, Counter[str]] = {}
    for text in texts:
        for match in _ABBREVIATION.finditer(text):
            abbr = match.group(1)
            tokens = re.findall(r"[A-Za-z][\w']*", text[max(0, match.start() - 90) : match.start()])
            for size in range(1, min(len(tokens), 8) + 1):
                tail = tokens[-size:]
                initials = "".join(w[0] for w in tail if w.lower() not in _JOINING)
                if initials.upper() == abbr:
                    found.setdefault(abbr, Counter())[" ".join(tail).lower()] += 1
                    break
    return {
        abbr: name
        for abbr, names in found.items()
        for name, count in names.most_common(1)
        if count >= least
    }


class MedQuADIndex:
    """BM25 over MedQuAD passages (focus + question + text), cached on disk."""

    def __init__(
        self, passages: list[Passage], bm25: bm25s.BM25, folder: Path | None = None
    ) -> None:
        """Wrap passages and their BM25 index (use `open_medquad` to get one)."""
        self.passages = passages
        self.bm25 = bm25
        self.folder = folder
        """The cache folder the index was read from or saved to (None: not cached)."""
        self._question_vectors: dict[str, npt.NDArray[Any]] = {}

    @classmethod
    def build(cls, passages: list[Passage]) -> MedQuADIndex:
        """Index `passages` with BM25."""
        bm25 = bm25s.BM25()
        bm25.index(
            lexical_tokens([f"{p.focus} {p.question} {p.own_text}" for p in passages]),
            show_progress=False,
        )
        return cls(passages, bm25)

    def save(self, folder: Path) -> None:
        """Write the passages and BM25 arrays to `folder` atomically (temp dir + rename)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
        try:
            with gzip.open(staging / "passages.jsonl.gz", "wt", encoding="utf-8") as out:
                for passage in self.passages:
                    out.write(json.dumps(asdict(passage)) + "\n")
            self.bm25.save(str(staging / "bm25"))
            (staging / "complete").write_text(LICENCE + "\n")
            try:
                staging.rename(folder)
            except OSError:  # another process finished first: keep theirs
                shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    @classmethod
    def load(cls, folder: Path) -> MedQuADIndex:
        """Read an index `save` wrote."""
        with gzip.open(folder / "passages.jsonl.gz", "rt", encoding="utf-8") as lines:
            passages = [Passage(**json.loads(line)) for line in lines]
        return cls(passages, bm25s.BM25.load(str(folder / "bm25")), folder)

    @cached_property
    def questions(self) -> list[str]:
        """Return MedQuAD's distinct questions, in passage order."""
        return list(dict.fromkeys(p.question for p in self.passages if p.question))

    @cached_property
    def _by_question(self) -> dict[str, list[Passage]]:
        rows: dict[str, list[Passage]] = {}
        for passage in self.passages:
            rows.setdefault(passage.question, []).append(passage)
        return rows

    def question_vectors(self, embedder: Embedder, folder: Path | None = None) -> npt.NDArray[Any]:
        """Return one unit vector per `questions` entry, embedded once and cached.

        The matrix (about 15,000 x 384, 25 s on 2 cores) is kept beside the BM25 index,
        keyed by the embedding model's name.
        """
        key = "".join(ch if ch.isalnum() else "_" for ch in embedder.name)
        if key in self._question_vectors:
            return self._question_vectors[key]
        path = (folder or self.folder or Path(tempfile.gettempdir())) / f"questions-{key}.npy"
        vectors: npt.NDArray[Any] | None = None
        if path.is_file():
            loaded = np.load(path)
            vectors = loaded if loaded.shape[0] == len(self.questions) else None
        if vectors is None:
            vectors = np.asarray(embedder.embed(self.questions), dtype=np.float32)
            try:
                staging = path.with_suffix(f".{os.getpid()}.tmp.npy")
                np.save(staging, vectors)
                staging.replace(path)
            except OSError:  # a read-only cache costs a re-embedding next time
                pass
        self._question_vectors[key] = vectors
        return vectors

    def match_questions(
        self, query_vector: npt.NDArray[Any], vectors: npt.NDArray[Any], k: int
    ) -> list[tuple[str, float]]:
        """Return the `k` MedQuAD questions nearest `query_vector` (cosine), best first."""
        if k < 1 or not len(vectors):
            return []
        sims = vectors @ np.asarray(query_vector, dtype=np.float32)
        best = np.argsort(-sims)[:k]
        return [(self.questions[i], float(sims[i])) for i in best]

    @cached_property
    def _first_parts(self) -> list[Passage]:
        """Return the passages that open their page's answer, in order (one scan)."""
        return [p for p in self.passages if p.part == 1]

    @cached_property
    def _openings(self) -> dict[str, Passage]:
        return {p.page: p for p in reversed(self._first_parts)}

    def opening(self, page: str) -> Passage | None:
        """Return the passage that opens the answer `page` keys (None: no such page)."""
        return self._openings.get(page)

    @cached_property
    def abbreviations(self) -> dict[str, str]:
        """Return what MedQuAD spells its abbreviations out as (`abbreviations_in`)."""
        return abbreviations_in(p.own_text for p in self.passages)

    def spelled_out(self, query: str) -> str:
        """Return the query with the abbreviations it uses spelled out after it.

        BM25 over "My father is suffering from IBS ..." missed the Irritable Bowel Syndrome
        page, which says "irritable bowel syndrome (IBS)" once and its name often. An
        abbreviation that is a page's focus ("COPD") is left as it is: it names its pages,
        and the spelled-out words pulled in other pages ("How to diagnose COPD?" lost
        its diagnosis page to them).
        """
        words = set(re.findall(r"[a-z]+", query.lower()))
        extra = [
            name
            for abbr in dict.fromkeys(re.findall(r"\b([A-Z]{2,6})s?\b", query))
            if (name := self.abbreviations.get(abbr))
            and not set(name.split()) <= words
            and abbr.lower() not in self._foci  # "COPD" names pages itself
        ]
        return " ".join([query, *extra])

    @cached_property
    def speller(self) -> NameSpeller:
        """Return the corrector of misspelt page names (`knowledge.spelling`)."""
        return NameSpeller(p.focus for p in self.passages)

    @cached_property
    def _foci(self) -> frozenset[str]:
        return frozenset(p.focus.lower() for p in self.passages)

    @cached_property
    def _pages(self) -> dict[str, list[Passage]]:
        return grouped(self.passages, lambda p: p.page)

    def page_parts(self, page: str) -> list[Passage]:
        """Return the passages of the answer `page` keys, in order (none: no such page)."""
        return sorted(self._pages.get(page, []), key=lambda p: p.part)

    @cached_property
    def _typed_openings(self) -> dict[tuple[str, str], list[Passage]]:
        return grouped(self._first_parts, lambda p: (p.focus, p.qtype))

    @cached_property
    def _named(self) -> dict[str, list[Passage]]:
        rows: dict[str, list[Passage]] = {}
        for passage in self._first_parts:
            for name in _name_keys(passage.focus):
                rows.setdefault(name, []).append(passage)
        by_focus = self._focus_openings
        stated: dict[str, list[Passage]] = {}  # another name -> its pages' openings
        for passage in self._first_parts:
            for other in stated_names(passage.text, passage.focus, adjacent=True):
                key = " ".join(_NAME_WORD.findall(other.lower()))
                if (
                    key
                    and key not in rows
                    and not _NOT_A_NAME.search(key)
                    and key not in STOPWORDS_EN_PLUS  # "ALL" of "ALL or acute ... leukemia"
                ):
                    held = stated.setdefault(key, [])
                    ids = {p.id for p in held}
                    held += [p for p in by_focus[passage.focus] if p.id not in ids]
        lay: dict[str, list[Passage]] = {}  # "irregular heartbeat": other pages' gloss
        for focus, openings in by_focus.items():
            for phrase in lay_names_of(focus):
                key = " ".join(_NAME_WORD.findall(phrase))
                if key not in rows and key not in stated:
                    lay.setdefault(key, []).extend(openings)
        first: dict[str, list[Passage]] = {}  # "canker": Canker Sores, its name's first word
        for focus, openings in by_focus.items():
            word = first_word_name_of(focus)
            for key in dict.fromkeys([word, word.removesuffix("'s")] if word else []):
                if key not in rows and key not in stated and key not in lay:
                    first.setdefault(key, []).extend(openings)
        return rows | stated | lay | first

    def named_openings(self, question: str, found: Iterable[str] = ()) -> list[Passage]:
        """Return the openings of the pages whose name the question writes word for word.

        BM25 over a long message can rank thirty passages of other pages above every one of
        the page the message names ("Body Lice", "Lung Cancer"), and the subject rule then
        never sees it; pages of a focus in `found` (the foci the search returned) are not
        returned again. A page is named by its `page_name` (in the plural too where the
        question's words name no page: "a burn" names Burns), and by the words before a
        parenthesis or comma in it ("African Trypanosomiasis" of "African
        Trypanosomiasis (also known as Sleeping Sickness)"), and by the other names its
        pages give it ("High blood pressure, sometimes called hypertension":
        `knowledge.stated_names`; not a name another page has), and by the lay names other
        pages gloss with its name ("an irregular heartbeat (arrhythmia)":
        `knowledge.stated_names.lay_names_of`), and by the first word of a two-word name
        that MedQuAD writes only in that name ("canker" of Canker Sores:
        `knowledge.stated_names.first_word_name_of`). A name counts where it ends a
        clause or a stop word or a word of what is asked follows it ("lung cancer
        treatment"), not where it starts a longer name ("alcohol use disorder", "a bit of
        blood drainage"); a name inside a longer one the question writes is left out ("flu"
        in "bird flu"); at most `NAMED_PAGES` names, longest first.
        """
        have = {name for focus in found for name in _name_keys(focus)}
        grams: set[str] = set()
        for clause in _CLAUSE_BREAK.split(question.lower()):
            words = _NAME_WORD.findall(clause)
            for n in range(1, 6):
                for i in range(len(words) - n + 1):
                    after = words[i + n] if i + n < len(words) else None
                    if after is None or after in STOPWORDS_EN_PLUS or after in ASKING_WORDS:
                        grams.add(" ".join(words[i : i + n]))
        named = grams & self._named.keys()
        if not named:  # "burn": Burns, where the words as written name no page
            named = {f"{gram}s" for gram in grams if not gram.endswith("s")} & self._named.keys()
        names = sorted(named, key=lambda name: (-len(name.split()), name))
        kept: list[str] = []
        for name in names:
            if not any(f" {name} " in f" {longer} " for longer in kept):
                kept.append(name)
        missing = [name for name in kept if name not in have]
        pages = {p.id: p for name in missing[:NAMED_PAGES] for p in self._named[name]}
        return list(pages.values())

    def foci_named(self, name: str) -> list[str]:
        """Return the foci of the pages a condition's name names, as `named_openings` reads.

        The names are `named_openings`'s: page names, the other names pages give them, and
        the lay names other pages gloss with them (`lay_names_of`: "muscle weakness" names
        Myopathy). The name is read with and without a possessive before its last word:
        NINDS writes "Alzheimers disease" (its apostrophes dropped), MedlinePlus "Alzheimer's
        disease",
        and the pages are "Alzheimer's Disease" and "Alzheimer disease".
        """
        words = _NAME_WORD.findall(name.lower())
        if not words:
            return []
        readings = [words]
        if len(words) > 1:  # the word before the last, as written, bare and possessive
            *head, word, last = words
            bare = word.removesuffix("'s")
            if bare == word and len(word) > 3 and word.endswith("s") and word[-2] != "s":
                bare = word[:-1]
            readings += [[*head, form, last] for form in (bare, f"{bare}'s") if form != word]
        pages = [p for r in readings for p in self._named.get(" ".join(r), [])]
        return list(dict.fromkeys(p.focus for p in pages))

    @cached_property
    def _focus_openings(self) -> dict[str, list[Passage]]:
        return grouped(self._first_parts, lambda p: p.focus)

    def focus_openings(self, focus: str) -> list[Passage]:
        """Return the openings of every answer about `focus`, of every question type."""
        return list(self._focus_openings.get(focus, []))

    def typed_openings(self, focus: str, qtype: str) -> list[Passage]:
        """Return the openings of the answers to `qtype` questions about `focus`."""
        return list(self._typed_openings.get((focus, qtype), []))

    def answer_passages(self, question: str, limit: int = 2) -> list[Passage]:
        """Return the first `limit` passages of the answer to a MedQuAD `question`."""
        return self._by_question.get(question, [])[:limit]

    def search(self, query: str, k: int) -> list[tuple[Passage, float]]:
        """Return up to `k` passages with a positive BM25 score, best first."""
        return [
            (self.passages[row], score)
            for row, score in bm25_search(self.bm25, len(self.passages), query, k)
        ]


K = TypeVar("K", bound=Hashable)


def grouped(passages: Iterable[Passage], key: Callable[[Passage], K]) -> dict[K, list[Passage]]:
    """Return the passages grouped by `key`, each group in the passages' order."""
    rows: dict[K, list[Passage]] = {}
    for passage in passages:
        rows.setdefault(key(passage), []).append(passage)
    return rows


def open_medquad(path: Path = MEDQUAD_FILE, cache_root: Path | None = None) -> MedQuADIndex:
    """Return the MedQuAD index: from this process, from the disk cache, or built now.

    Raises:
        InvalidInputError: The data file is missing or malformed.
    """
    path = Path(path).resolve()
    with _lock:
        if path in _open:
            return _open[path]
        if not path.is_file():
            raise InvalidInputError(
                f"{path} does not exist; reinstall veriloop (the MedQuAD source ships with it)"
            )
        folder = (cache_root or index_cache_root()) / f"medquad-{_cache_key(path)}"
        if (folder / "complete").is_file():
            index = MedQuADIndex.load(folder)
        else:
            index = MedQuADIndex.build(load_passages(path))
            try:
                index.save(folder)
                index.folder = folder
            except OSError:  # a read-only cache costs a rebuild next time, not this answer
                pass
        _open[path] = index
        return index
