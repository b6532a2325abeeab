"""`veriloop ask`: answer one question with a method, showing each step and the scores.

veriloop ask "Is Noonan syndrome inherited?"            # grounded default, embedded model
veriloop ask "..." --method self-reflection             # the paper's closed-book loops
veriloop ask "..." --method direct --json               # baseline, full output as JSON
veriloop ask "..." --set max_rounds=1 --set no_number=true
"""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer

from veriloop.cli.common import (
    DEFAULT_CACHE_DIR,
    build_context,
    cache_setting,
    err,
    fail,
)
from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError, VeriloopError
from veriloop.graphs.registry import get_method, method_ids


def ask(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    method: Annotated[
        str,
        typer.Option(
            "--method", "-m", help=f"One of: {', '.join(method_ids('answer'))} (or an alias)."
        ),
    ] = "grounded",
    as_json: Annotated[bool, typer.Option("--json", help="Print the full output state.")] = False,
    details: Annotated[
        bool,
        typer.Option(
            "--details", help="Full tables (each sentence's check, the passages) for grounded."
        ),
    ] = False,
    backend: Annotated[
        str | None, typer.Option(help="Model backend: embedded, openai, ...")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option(help=f"Model-call cache directory [{DEFAULT_CACHE_DIR}].")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Call models afresh.")] = False,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override a Context field, e.g. --set max_rounds=1."),
    ] = None,
    kb: Annotated[
        Path | None,
        typer.Option(help="Knowledge-base directory (grounded, l2r, rag); replaces MedQuAD."),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(help="A multiple-choice option LABEL=TEXT (repeatable)."),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="Corpus index directory (grounded, fe, rag; `veriloop index`)."),
    ] = None,
    rationale: Annotated[
        bool, typer.Option("--rationale", help="Show the rationale table with its labels (fe).")
    ] = False,
    verify: Annotated[
        str | None,
        typer.Option(help="Then verify the answer (chained): factored, self-correction or m-eval."),
    ] = None,
) -> None:
    """Answer one question with a method, showing each step and the scores."""
    # The model stack loads here, not at import: `veriloop --help` answers at once.
    from veriloop.nodes.input import check_question

    try:
        # An empty or wordless question is refused before anything heavy is imported; its
        # length is checked once the settings (max_question_chars) are known.
        check_question(question, max_chars=sys.maxsize)
        chosen = get_method(method, "answer")
        verifier = get_method(verify, "verify") if verify else None  # before anything runs
        for flag, path in (("--kb", kb), ("--corpus", corpus)):
            if path is not None and not path.exists():
                raise InvalidInputError(f"{flag} {path} does not exist; give an existing folder")
        from veriloop.cli.render import progress_line, render_result, render_verification
        from veriloop.cli.verify import run_verifier, verification_input

        build_graph, context_class = chosen.load()
        verifier_class: type[ModelSettings] | None = None
        if verifier is not None:
            verifier_class = verifier.context_class()
        cache = cache_setting(no_cache, cache_dir)
        given: dict[str, Any] = {"backend": backend, "cache_dir": cache}
        if kb is not None:
            if "kb_dir" not in {field.name for field in fields(context_class)}:
                raise InvalidInputError(f"method {method!r} does not use a knowledge base (--kb)")
            given["kb_dir"] = str(kb)
        if corpus is not None:
            if "corpus_dir" not in {field.name for field in fields(context_class)}:
                raise InvalidInputError(
                    f"method {method!r} does not use a corpus index (--corpus); use --method fe"
                )
            given["corpus_dir"] = str(corpus)
        if verifier_class is not None:
            # --set pairs go to the method and to the chained verifier, each taking the
            # names its Context has; a name neither has is an error before anything runs.
            both = {spec.name for spec in (*fields(context_class), *fields(verifier_class))}
            for assignment in settings or []:
                name = assignment.partition("=")[0].strip().replace("-", "_")
                if name not in both:
                    raise InvalidInputError(
                        f"--set {assignment!r}: neither {chosen.id} nor the {verify} verifier "
                        f"has a setting {name!r}; known: {', '.join(sorted(both))}"
                    )
            build_context(
                verifier_class,
                settings or [],
                ignore_unknown=True,
                backend=backend,
                cache_dir=cache,
            )
        context = build_context(
            context_class, settings or [], ignore_unknown=verifier_class is not None, **given
        )
        question = check_question(question, max_chars=context.max_question_chars)
        request: dict[str, Any] = {"question": question}
        if option:
            request["options"] = _parse_options(option)
        graph = build_graph().compile(name=chosen.id)
        err.print(f"[bold]{chosen.id}[/bold] on {context.backend} models: {chosen.summary}")
        result: dict[str, Any] = {}
        for mode, chunk in graph.stream(
            request, context=context, stream_mode=["updates", "values"]
        ):
            if mode == "updates":
                for node, update in chunk.items():
                    err.print(f"  [dim]▸[/dim] {progress_line(node, update or {})}")
            else:
                result = chunk
    except VeriloopError as exc:
        raise fail(exc) from None
    output_keys = set(graph.get_output_jsonschema()["properties"])
    final = {key: value for key, value in result.items() if key in output_keys}
    checked: dict[str, Any] | None = None
    if verify and not as_json:
        render_result(final, show_rationale=rationale, details=details)
    if verify:
        try:
            payload = verification_input(final, f"the {chosen.id} output")
            err.print(f"[bold]{verify}[/bold] verification of the answer")
            checked = run_verifier(
                verify,
                payload,
                settings or [],
                ignore_unknown=True,
                backend=backend,
                cache_dir=cache,
            )
        except VeriloopError as exc:
            raise fail(exc) from None
        if not as_json:
            render_verification(checked, details=details)
    if as_json:
        document = final if checked is None else {**final, "verification": checked}
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    elif not verify:
        render_result(final, show_rationale=rationale, details=details)


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        label, sep, text = pair.partition("=")
        if not sep or not label.strip() or not text.strip():
            raise InvalidInputError(f"--option {pair!r}: expected LABEL=TEXT, e.g. A=Paris")
        options[label.strip()] = text.strip()
    return options
