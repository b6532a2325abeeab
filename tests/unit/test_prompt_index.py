"""The prompt index in prompts/__init__.py names every template with its placeholders."""

from __future__ import annotations

import re
from importlib import resources
from string import Formatter

import veriloop.prompts as prompts

ENTRY = re.compile(r"^- (\w+)(?: \(([\w, ]+)\))?:", re.MULTILINE)


def template_fields(name: str) -> set[str]:
    text = resources.files(prompts).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return {field for _, field, _, _ in Formatter().parse(text) if field}


def test_every_template_is_indexed_once_with_its_placeholders() -> None:
    files = {p.name[:-4] for p in resources.files(prompts).iterdir() if p.name.endswith(".txt")}
    entries = ENTRY.findall(prompts.__doc__ or "")
    names = [name for name, _ in entries]
    assert sorted(names) == sorted(set(names)), "a template is indexed twice"
    assert set(names) == files, (
        f"not indexed: {sorted(files - set(names))}; no such file: {sorted(set(names) - files)}"
    )
    for name, listed in entries:
        if name.endswith("_demo"):
            continue  # worked exchanges: sent as chat turns, never formatted
        given = {part.strip() for part in listed.split(",")} if listed else set()
        assert given == template_fields(name), name
