"""The triplet knowledge graph: (subject, relation, object) facts in a networkx graph.

Triplets come from a triplet file (TSV `subject<TAB>relation<TAB>object[<TAB>source]`, or
JSON lines `{"subject", "relation", "object", "source"}`) or are extracted from documents
by the LLM (`nodes/triplet_extraction.py`). Entity names are canonicalised before they
become nodes: Unicode NFKC, case-folded, whitespace collapsed, surrounding punctuation and
a leading article ("the", "a", "an") removed, so "The Aspirin." and "aspirin" are one node;
the node keeps the most frequent surface form as its display name. Duplicate triplets
(same canonical subject, relation and object) are stored once. Each triplet has the stable
id `TID-n` (its row, from 1).

Retrieval (`TripletGraph.subgraph`) is a simple version of the paper's sub-graph retrieval:
1. seed entities = canonical entity names that occur in the question as whole-word
   n-grams, plus the entities whose name embeddings are nearest the question's (cosine at
   least `min_entity_similarity`), at most `max_seeds`;
2. candidate triplets = the subgraph induced by the entities within `hops` of a seed
   (direction ignored);
3. rank the candidates by the cosine between the question and the triplet's text
   ("subject relation object") and keep the top k.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
from typing_extensions import TypedDict

from veriloop.errors import VeriloopError

ARTICLES = {"the", "a", "an"}
MAX_NAME_CHARS = 200
MAX_NGRAM = 6


class TripletError(VeriloopError):
    """A triplet file is malformed; the message names the file and line."""


class Triplet(TypedDict):
    """One fact of the graph."""

    id: str
    """Stable id `TID-n`."""
    subject: str
    relation: str
    object: str
    source: str
    """Where it came from: a document or chunk id, or the triplet file."""


def canonical_entity(name: str) -> str:
    """Return the canonical key of an entity name ('' when nothing is left)."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = " ".join(text.split())
    text = re.sub(r"^[\W_]+|[\W_]+$", "", text)
    words = text.split(" ")
    if len(words) > 1 and words[0] in ARTICLES:
        text = " ".join(words[1:])
    return text[:MAX_NAME_CHARS]


def canonical_relation(relation: str) -> str:
    """Return a relation lower-cased with spacing and underscores collapsed."""
    text = unicodedata.normalize("NFKC", relation).casefold().replace("_", " ")
    return " ".join(re.sub(r"[^\w\s-]", " ", text).split())[:MAX_NAME_CHARS]


def triplet_text(triplet: Triplet) -> str:
    """Render a triplet as one line of context: `subject relation object`."""
    return f"{triplet['subject']} {triplet['relation']} {triplet['object']}"


def read_triplet_file(path: Path) -> list[dict[str, str]]:
    """Read raw triplets from a TSV or JSON-lines file.

    Raises:
        TripletError: The file is missing, or a line does not hold a usable triplet.
    """
    path = Path(path)
    if not path.is_file():
        raise TripletError(f"triplet file {path} does not exist")
    rows = []
    is_jsonl = path.suffix.lower() in {".jsonl", ".json"}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if is_jsonl:
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TripletError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(data, dict):
                raise TripletError(f"{path}:{number}: expected a JSON object")
            fields: list[Any] = [data.get(key) for key in ("subject", "relation", "object")]
            source = str(data.get("source") or f"{path.name}:{number}")
        else:
            parts = line.split("\t")
            if len(parts) not in (3, 4):
                raise TripletError(
                    f"{path}:{number}: expected subject<TAB>relation<TAB>object[<TAB>source], "
                    f"got {len(parts)} fields"
                )
            fields = parts[:3]
            source = parts[3].strip() if len(parts) == 4 else f"{path.name}:{number}"
        if not all(isinstance(f, str) and f.strip() for f in fields):
            raise TripletError(f"{path}:{number}: subject, relation and object must be non-empty")
        subject, relation, obj = (str(f) for f in fields)
        rows.append({"subject": subject, "relation": relation, "object": obj, "source": source})
    return rows


class TripletGraph:
    """Canonicalised triplets in a `networkx.MultiDiGraph` (nodes: entities, edges: facts)."""

    def __init__(self) -> None:
        """Start an empty graph."""
        self.graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        self.triplets: list[Triplet] = []
        self._keys: set[tuple[str, str, str]] = set()
        self._surface: dict[str, Counter[str]] = {}

    def __len__(self) -> int:
        """Return the number of triplets."""
        return len(self.triplets)

    def _node(self, name: str) -> str:
        key = canonical_entity(name)
        self._surface.setdefault(key, Counter())[" ".join(name.split())] += 1
        if key not in self.graph:
            self.graph.add_node(key)
        return key

    def add(self, subject: str, relation: str, obj: str, source: str = "") -> Triplet | None:
        """Add one triplet; return it, or None when it is a duplicate or has an empty part."""
        s_key, o_key = canonical_entity(subject), canonical_entity(obj)
        rel = canonical_relation(relation)
        if not s_key or not o_key or not rel or s_key == o_key:
            return None
        if (s_key, rel, o_key) in self._keys:
            return None
        self._keys.add((s_key, rel, o_key))
        self._node(subject)
        self._node(obj)
        triplet = Triplet(
            id=f"TID-{len(self.triplets) + 1}",
            subject=s_key,
            relation=rel,
            object=o_key,
            source=source,
        )
        self.triplets.append(triplet)
        self.graph.add_edge(s_key, o_key, key=triplet["id"], row=len(self.triplets) - 1)
        return triplet

    def add_many(self, rows: Iterable[dict[str, str]]) -> int:
        """Add raw triplets; return how many were new."""
        return sum(
            self.add(r["subject"], r["relation"], r["object"], r.get("source", "")) is not None
            for r in rows
        )

    def display_name(self, entity: str) -> str:
        """Return the most frequent surface form of a canonical entity."""
        forms = self._surface.get(entity)
        return forms.most_common(1)[0][0] if forms else entity

    @classmethod
    def from_triplets(cls, triplets: Iterable[Triplet]) -> TripletGraph:
        """Rebuild a graph from stored triplets, keeping their ids."""
        graph = cls()
        for triplet in triplets:
            graph._keys.add((triplet["subject"], triplet["relation"], triplet["object"]))
            for name in (triplet["subject"], triplet["object"]):
                graph._node(name)
            graph.triplets.append(triplet)
            graph.graph.add_edge(
                triplet["subject"],
                triplet["object"],
                key=triplet["id"],
                row=len(graph.triplets) - 1,
            )
        return graph

    def entities(self) -> list[str]:
        """Return the canonical entity names, in node order."""
        return list(self.graph.nodes)

    def mentioned_entities(self, text: str) -> list[str]:
        """Return entities whose canonical name occurs in `text` as whole words, longest first."""
        words = canonical_entity(re.sub(r"[^\w\s-]", " ", text)).split()
        found: list[str] = []
        for size in range(min(MAX_NGRAM, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                gram = " ".join(words[start : start + size])
                if gram in self.graph and gram not in found:
                    if size == 1 and (len(gram) < 3 or gram in ARTICLES):
                        continue
                    found.append(gram)
        return found

    def neighbourhood_rows(self, seeds: Sequence[str], hops: int) -> list[int]:
        """Return the rows of the subgraph induced by the entities within `hops` of a seed.

        Distances ignore edge direction; a triplet is kept when both its entities are
        within reach, so one hop gives the facts linking a seed to its neighbours.
        """
        undirected = self.graph.to_undirected(as_view=True)
        nodes: set[str] = set()
        for seed in seeds:
            if seed in undirected:
                nodes.update(nx.single_source_shortest_path_length(undirected, seed, hops))
        rows = {int(data["row"]) for _, _, data in self.graph.subgraph(nodes).edges(data=True)}
        return sorted(rows)

    def subgraph(self, rows: Sequence[int]) -> nx.MultiDiGraph[str]:
        """Return the graph of the given triplet rows (for drawing), with display names."""
        view: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        for row in rows:
            triplet = self.triplets[row]
            view.add_edge(
                self.display_name(triplet["subject"]),
                self.display_name(triplet["object"]),
                key=triplet["id"],
                relation=triplet["relation"],
            )
        return view


def triplets_to_jsonl(triplets: Iterable[Triplet]) -> str:
    """Serialise triplets one JSON object per line."""
    return "".join(json.dumps(dict(t), ensure_ascii=False) + "\n" for t in triplets)


def triplets_from_jsonl(text: str) -> list[Triplet]:
    """Parse what `triplets_to_jsonl` wrote."""
    out: list[Triplet] = []
    for line in text.splitlines():
        if line.strip():
            data: dict[str, Any] = json.loads(line)
            out.append(Triplet(**data))  # type: ignore[typeddict-item]
    return out
