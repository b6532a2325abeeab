"""`veriloop kb ...`: create, fill, enrich, inspect and export knowledge bases.

    veriloop kb create kb/                       # empty base for the default embeddings
    veriloop kb add kb/ "Aspirin thins the blood." --confidence 0.9
    veriloop kb add kb/ --file facts.jsonl       # or .csv, or confidence<TAB>fact .txt
    veriloop kb import kb/ --dataset truthfulqa --data-dir ../shared/data/truthfulqa
    veriloop kb enrich kb/ --topic "common misconceptions" --target 20
    veriloop kb search kb/ "What does aspirin do?"
    veriloop kb stats kb/ ; veriloop kb export kb/ facts.jsonl

Every change is all-or-nothing: a base is rewritten as a new version and switched to
atomically, so an interrupted `add` of a large file leaves the base as it was.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from veriloop.cli.common import build_context, cache_setting, err, fail, out
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, VeriloopError
from veriloop.graphs.registry import get_method
from veriloop.knowledge.entries import NewEntry, new_entry, read_entries, write_entries
from veriloop.knowledge.index import INDEX_KINDS, IndexSpec

if TYPE_CHECKING:
    from veriloop.knowledge.store import KnowledgeBase

kb_app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Create, fill, enrich, search and export knowledge bases.",
)

BackendOption = Annotated[
    str | None, typer.Option(help="Model backend whose embeddings the base uses.")
]
SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Model setting, e.g. --set embedding_model=PATH."),
]


def _store() -> type[KnowledgeBase]:
    """Return the knowledge-base class, imported on first use.

    FAISS and the embedding stack load only when a command touches a base, never for
    `--help`.
    """
    from veriloop.knowledge.store import KnowledgeBase

    return KnowledgeBase


def _settings(backend: str | None, assignments: list[str] | None) -> ModelSettings:

    return build_context(ModelSettings, assignments or [], backend=backend)


def _embedder(backend: str | None, assignments: list[str] | None) -> Any:
    from veriloop.models.backends import get_embedder

    return get_embedder(_settings(backend, assignments))


def _add_all(directory: Path, facts: list[NewEntry], embedder: Any) -> None:
    from tqdm import tqdm

    with (
        _store().editing(directory, embedder) as base,
        tqdm(total=len(facts), unit="fact", file=sys.stderr, disable=len(facts) < 500) as bar,
    ):
        report = base.add(facts, embedder, progress=bar.update)
    err.print(
        f"added {len(report.added)} entr{'y' if len(report.added) == 1 else 'ies'}"
        + (f" ({report.added[0].id} .. {report.added[-1].id})" if report.added else "")
        + f"; skipped {len(report.duplicates)} duplicate(s); the base holds {len(base)}"
    )
    for fact, existing in report.duplicates[:5]:
        err.print(f"  duplicate of {existing}: {fact.knowledge[:90]}")


@kb_app.command("create")
def create(
    directory: Annotated[Path, typer.Argument(help="New or empty folder for the base.")],
    index: Annotated[str, typer.Option(help=f"Index kind: {', '.join(INDEX_KINDS)}.")] = "flat",
    ef_search: Annotated[int, typer.Option(min=1, help="HNSW: candidates per query.")] = 64,
    backend: BackendOption = None,
    settings: SetOption = None,
) -> None:
    """Create an empty knowledge base for the configured embeddings."""
    try:
        spec = IndexSpec.from_json({"kind": index, "ef_search": ef_search})
        base = _store().create(directory, _embedder(backend, settings), spec)
        err.print(
            f"created {directory}: {base.embedding_model} ({base.dim} dimensions), "
            f"{spec.kind} index"
        )
    except VeriloopError as exc:
        raise fail(exc) from None


@kb_app.command("add")
def add(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    text: Annotated[str | None, typer.Argument(help="One fact to add.")] = None,
    file: Annotated[
        Path | None, typer.Option(help="Facts file: .jsonl, .csv or confidence<TAB>fact .txt.")
    ] = None,
    confidence: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Confidence of TEXT (0-1).")
    ] = 1.0,
    source: Annotated[str, typer.Option(help="Provenance recorded with TEXT.")] = "manual",
    backend: BackendOption = None,
    settings: SetOption = None,
) -> None:
    """Add one curated fact (manual enrichment, confidence 1 by default) or a file of facts."""
    try:
        if (text is None) == (file is None):
            raise InvalidInputError("give either a fact as TEXT or --file FILE, not both")
        facts = (
            read_entries(file)
            if file is not None
            else [new_entry(text, confidence, source, where="the fact given")]
        )
        _add_all(directory, facts, _embedder(backend, settings))
    except VeriloopError as exc:
        raise fail(exc) from None


@kb_app.command("import")
def import_facts(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    file: Annotated[Path | None, typer.Argument(help="Facts file (.jsonl, .csv, .txt).")] = None,
    dataset: Annotated[
        str | None, typer.Option(help="Import a dataset's gold answers as facts instead.")
    ] = None,
    data_dir: Annotated[Path | None, typer.Option(help="The dataset's folder.")] = None,
    split: Annotated[str | None, typer.Option(help="Dataset split.")] = None,
    backend: BackendOption = None,
    settings: SetOption = None,
) -> None:
    """Import facts from a file, or a dataset's gold answers (the upper-bound 'gold KB')."""
    from veriloop.evaluation.datasets import load_dataset

    try:
        if (file is None) == (dataset is None):
            raise InvalidInputError("give either FILE or --dataset NAME --data-dir DIR")
        if dataset is not None:
            if data_dir is None:
                raise InvalidInputError("--dataset needs --data-dir")
            from veriloop.evaluation.adapters import gold_facts

            facts = gold_facts(load_dataset(dataset, data_dir, split))
        else:
            assert file is not None
            facts = read_entries(file)
        _add_all(directory, facts, _embedder(backend, settings))
    except VeriloopError as exc:
        raise fail(exc) from None


def _read_topics(path: Path) -> list[dict[str, Any]]:
    requests = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict) or not str(row.get("topic", "")).strip():
            raise InvalidInputError(f'{path}:{number}: expected {{"topic": ..., ...}}')
        seeds = row.get("seed_questions", [])
        if not isinstance(seeds, list) or not all(isinstance(q, str) for q in seeds):
            raise InvalidInputError(f"{path}:{number}: seed_questions must be a list of text")
        requests.append({"topic": str(row["topic"]), "seed_questions": seeds})
    if not requests:
        raise InvalidInputError(f"{path} holds no topics")
    return requests


@kb_app.command("enrich")
def enrich(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    topic: Annotated[str | None, typer.Option(help="What the new facts should be about.")] = None,
    topics_file: Annotated[
        Path | None,
        typer.Option(help='JSON lines {"topic": ..., "seed_questions": [...]}: one run each.'),
    ] = None,
    target: Annotated[int, typer.Option(min=1, help="Facts per topic to hold at the end.")] = 10,
    seed_question: Annotated[
        list[str] | None, typer.Option(help="Example question (repeatable).")
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Questions per batch.")] = 5,
    max_batches: Annotated[int, typer.Option(min=1, help="Cap on batches in this run.")] = 10,
    backend: BackendOption = None,
    settings: SetOption = None,
) -> None:
    """Grow the base from the model: questions -> confident answers -> facts (resumable)."""
    try:
        enrichment = get_method("enrichment", "build")
        build_graph, enrichment_context = enrichment.load()
        context = build_context(
            enrichment_context,
            settings or [],
            backend=backend,
            kb_dir=str(directory),
            batch_size=batch_size,
            max_batches=max_batches,
            cache_dir=cache_setting(False),
        )
        _store().open(directory)  # a clear error before any model loads
        if (topic is None) == (topics_file is None):
            raise InvalidInputError("give either --topic or --topics-file")
        requests = (
            _read_topics(topics_file)
            if topics_file is not None
            else [{"topic": topic, "seed_questions": seed_question or []}]
        )
        graph: Any = build_graph().compile(name=enrichment.id)
        for request in requests:
            err.print(f"[bold]{request['topic']}[/bold]")
            result: dict[str, Any] = {}
            for mode, chunk in graph.stream(
                {**request, "target_facts": target},
                context=context,
                stream_mode=["updates", "values"],
            ):
                if mode == "updates":
                    for node, update in chunk.items():
                        if node == "write_to_base" and update:
                            err.print(
                                f"  batch {update['batch']}: {update['facts_on_topic']} "
                                "fact(s) on the topic"
                            )
                else:
                    result = chunk
            for entry in result.get("added", []):
                out.print(f"{entry['id']}  {entry['confidence']:.2f}  {entry['knowledge']}")
            stop = result["trace"]["stops"][-1]
            err.print(
                f"  added {len(result.get('added', []))} fact(s), {result.get('duplicates', 0)} "
                f"duplicate(s) skipped; {stop['reason']}: {stop['detail']}"
            )
    except VeriloopError as exc:
        raise fail(exc) from None


@kb_app.command("search")
def search_base(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    query: Annotated[str, typer.Argument(help="Text to search for (semantic).")],
    k: Annotated[int, typer.Option("-k", min=1, help="Entries to return.")] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as JSON.")] = False,
    backend: BackendOption = None,
    settings: SetOption = None,
) -> None:
    """Show the entries nearest to QUERY with their distances and refusal scores."""
    try:
        embedder = _embedder(backend, settings)
        hits = _store().open(directory, embedder).search(query, embedder, k)
    except VeriloopError as exc:
        raise fail(exc) from None
    if as_json:
        sys.stdout.write(json.dumps(hits, indent=2, ensure_ascii=False) + "\n")
    else:
        from veriloop.cli.render import hits_table

        out.print(hits_table(hits, f"nearest to {query!r}"))


@kb_app.command("list")
def list_entries(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    contains: Annotated[str | None, typer.Option(help="Only entries containing this.")] = None,
    entry_id: Annotated[str | None, typer.Option("--id", help="Only this entry.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many.")] = 50,
) -> None:
    """List entries, by id or by a text fragment."""
    try:
        base = _store().open(directory)
        entries = (
            [base.get(entry_id)]
            if entry_id
            else (base.find_text(contains) if contains else base.entries)
        )
    except VeriloopError as exc:
        raise fail(exc) from None
    table = Table(title=f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}")
    for column in ("id", "confidence", "source", "created", "knowledge"):
        table.add_column(column, overflow="fold")
    for entry in entries[:limit]:
        table.add_row(
            entry.id, f"{entry.confidence:.2f}", entry.source, entry.created, entry.knowledge
        )
    out.print(table)


@kb_app.command("update")
def update(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    entry_id: Annotated[str, typer.Argument(help="Entry id, e.g. K-12.")],
    text: Annotated[str | None, typer.Option(help="New text (re-embedded).")] = None,
    confidence: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="New confidence (0-1).")
    ] = None,
    backend: BackendOption = None,
    settings: SetOption = None,
) -> None:
    """Change an entry's text or confidence, keeping its id."""
    try:
        if text is None and confidence is None:
            raise InvalidInputError("nothing to change: give --text and/or --confidence")
        embedder = _embedder(backend, settings)
        with _store().editing(directory, embedder) as base:
            entry = base.update(entry_id, embedder, knowledge=text, confidence=confidence)
        err.print(f"updated {entry.id}: {entry.confidence:.2f} {entry.knowledge}")
    except VeriloopError as exc:
        raise fail(exc) from None


@kb_app.command("delete")
def delete(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    entry_ids: Annotated[list[str], typer.Argument(help="Entry ids to remove.")],
) -> None:
    """Remove entries by id (all or none)."""
    try:
        with _store().editing(directory) as base:
            removed = base.delete(entry_ids)
        err.print(f"removed {len(removed)} entr{'y' if len(removed) == 1 else 'ies'}")
    except VeriloopError as exc:
        raise fail(exc) from None


@kb_app.command("stats")
def stats(directory: Annotated[Path, typer.Argument(help="The knowledge base.")]) -> None:
    """Print the base's size, embeddings, index and confidence summary as JSON."""
    try:
        summary = _store().open(directory).stats()
    except VeriloopError as exc:
        raise fail(exc) from None
    sys.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")


@kb_app.command("export")
def export(
    directory: Annotated[Path, typer.Argument(help="The knowledge base.")],
    path: Annotated[Path, typer.Argument(help="Output file: .jsonl, .csv or .txt.")],
) -> None:
    """Write every entry to a file (JSONL keeps provenance; .txt is confidence<TAB>fact)."""
    try:
        base = _store().open(directory)
        write_entries(base.entries, path)
        err.print(f"wrote {len(base)} entries to {path}")
    except VeriloopError as exc:
        raise fail(exc) from None
