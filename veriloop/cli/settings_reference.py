"""The settings reference, written from the Context fields (never by hand, so never stale).

The docs site's "Settings reference" page is this module's output (`docs/gen_pages.py`,
run by mkdocs-gen-files on every `mkdocs build`); `veriloop doctor` and `--set` read the
same fields.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from veriloop.context import MethodSettings, ModelSettings
from veriloop.graphs.registry import METHODS


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, str):
        return annotation
    if typing.get_origin(annotation) is typing.Literal:
        return " / ".join(repr(a) for a in typing.get_args(annotation))
    return getattr(annotation, "__name__", str(annotation)).replace("typing.", "")


def _default(spec: dataclasses.Field[Any]) -> str:
    if spec.default is not dataclasses.MISSING:
        return repr(spec.default)
    if spec.default_factory is not dataclasses.MISSING:
        return repr(spec.default_factory())
    return "(required)"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def field_rows(cls: type[Any], skip: set[str]) -> list[str]:
    """Return one Markdown table row per field of `cls` not in `skip`."""
    hints = typing.get_type_hints(cls, include_extras=False)
    rows = []
    for spec in dataclasses.fields(cls):
        if spec.name in skip:
            continue
        bounds = ", ".join(
            f"{key} {spec.metadata[key]}"
            for key in ("ge", "le", "gt", "lt")
            if key in spec.metadata
        )
        description = spec.metadata.get("description", "")
        rows.append(
            f"| `{spec.name}` | `{_cell(_type_name(hints.get(spec.name, spec.type)))}` | "
            f"`{_cell(_default(spec))}` | {_cell(description)}"
            + (f" ({bounds})" if bounds else "")
            + " |"
        )
    return rows


def settings_reference() -> str:
    """Return the settings reference as Markdown: shared model settings, then each method's."""
    header = ["| setting | type | default | what it does |", "|---|---|---|---|"]
    shared = {spec.name for spec in dataclasses.fields(MethodSettings)}
    lines = [
        "# Settings reference",
        "",
        "Generated from the Context dataclasses on every docs build "
        "(`veriloop/cli/settings_reference.py`). Set any of them with `--set name=value` on "
        "the command line, `VERILOOP_<NAME>` in the environment (model settings), the "
        "`context=` of a Python call, or LangGraph Studio's context form.",
        "",
        "## Model settings (every method)",
        "",
        *header,
        *field_rows(MethodSettings, set()),
        "",
    ]
    for method in METHODS:
        cls = method.context_class()
        own = field_rows(cls, shared if issubclass(cls, ModelSettings) else set())
        lines += [f"## `{method.id}`", "", method.summary, ""]
        lines += [*header, *own, ""] if own else ["No settings of its own.", ""]
    return "\n".join(lines)
