"""The Python entry points: `veriloop.method(...)` and `veriloop.evaluate(...)`.

    import veriloop

    fe = veriloop.method("fe")                     # (graph, Context) of Factual Evidence
    result = fe.invoke("Can aspirin cause bleeding?", corpus_dir="pq_index")
    graph, Context = fe                            # or unpack it

    run_dir = veriloop.evaluate(["fe"], baselines=["rag"], dataset="pubmedqa",
                                data_dir="../shared/data/pubmedqa", limit=20,
                                settings={"corpus_dir": "pq_index"})

Graph and harness modules are imported when called, so `import veriloop` stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from veriloop.context import ModelSettings, resolve_context


class MethodHandle(NamedTuple):
    """A method's compiled graph and its Context class (unpack it, or call `invoke`)."""

    graph: Any
    Context: type[ModelSettings]

    def invoke(self, request: str | dict[str, Any], **settings: Any) -> dict[str, Any]:
        """Run the graph once: a question (or a full input dict) and Context settings.

        Args:
            request: The question text, or the graph's input (e.g. {"question", "options"}
                or, for a verifier, {"question", "answer", "sources"}).
            **settings: Context fields, e.g. `corpus_dir="pq_index"`, `max_rounds=1`.

        Raises:
            InvalidInputError: A setting this method does not have (the message lists the
                ones it has), a value out of bounds, or bad input.
        """
        payload = {"question": request} if isinstance(request, str) else dict(request)
        context = resolve_context(settings, self.Context)  # unknown names: a clear error
        result: dict[str, Any] = self.graph.invoke(payload, context=context)
        return result


def method(name: str) -> MethodHandle:
    """Return the compiled graph and Context class of a method by id or alias.

    Raises:
        InvalidInputError: No method has that name (the message lists them).
    """
    from veriloop.graphs.registry import get_method

    chosen = get_method(name)
    return MethodHandle(chosen.compiled(), chosen.context_class())


def evaluate(
    methods: Sequence[str],
    *,
    dataset: str,
    data_dir: str | Path,
    baselines: Sequence[str] = (),
    ablations: Sequence[str] = (),
    split: str | None = None,
    limit: int | None = None,
    shuffle: bool = False,
    seed: int = 0,
    settings: dict[str, Any] | None = None,
    workers: int = 1,
    out: str | Path | None = None,
    report: bool = True,
) -> Path:
    """Run methods and baselines on the same dataset items, resumably, like `veriloop bench`.

    Results go to `out` (default runs/<dataset>_<split>_n<limit>), one record per (run,
    item) in results.jsonl; a second call with the same arguments resumes. With `report`,
    report.md and the plots are written too.

    Returns:
        The run directory.

    Raises:
        InvalidInputError: Unknown methods, ablations or settings; bad limit or workers.
        DatasetError: Missing or malformed dataset files.
        ModelUnavailableError: The model server stopped answering (finished work is kept).
    """
    from veriloop.evaluation import bench as harness

    runs = harness.plan_runs(list(methods), list(baselines), list(ablations))
    selection = harness.Selection(dataset, Path(data_dir), split, limit, shuffle, seed)
    items = selection.items()
    run_dir = Path(out) if out is not None else selection.default_run_dir()
    base = harness.typed_settings(runs, {"seed": seed, **(settings or {})}, flag="settings")
    results = harness.start_run(
        run_dir,
        runs,
        selection,
        settings=base,
        command=f"veriloop.evaluate({list(methods)!r}, dataset={dataset!r}, ...)",
    )
    harness.run_bench(runs, items, results, base_settings=base, workers=workers)
    if report:
        from veriloop.evaluation.report import write_report

        write_report(run_dir, cache_dir=base.get("cache_dir"))
    return run_dir
