"""The front door and the docs site: README stays short, its links resolve, the settings
reference lists every setting."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from veriloop.cli.settings_reference import settings_reference
from veriloop.graphs.registry import METHODS

ROOT = Path(__file__).resolve().parents[2]


def test_readme_is_a_front_door_of_at_most_250_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail to docs/"


def test_every_relative_link_in_readme_resolves() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    generated = {"docs/reference/settings.md"}  # written by docs/gen_pages.py at build time
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if target.startswith("http") or target in generated:
            continue
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_the_settings_reference_lists_every_setting_of_every_method() -> None:
    page = settings_reference()
    for method in METHODS:
        assert f"## `{method.id}`" in page
        for spec in dataclasses.fields(method.context_class()):
            assert f"| `{spec.name}` |" in page, f"{method.id}.{spec.name} missing"
    assert "| `relevant_at` | `float` | `0.5` | Hard refusal when" in page
    assert "(ge -1.0, le 1.0)" in page  # the bounds the CLI enforces are shown
