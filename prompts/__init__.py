"""Prompt templates, one file per agent (and per variant), loaded by name.

Templates are `str.format` strings with named placeholders; values are substituted as
data, so braces inside a question are safe. A Context's `prompt_overrides` maps a template
name to replacement text, which is how a user changes any prompt without editing code.

- self_reflection_knowledge (question): the knowledge generator.
- self_reflection_knowledge_feedback, ..._no_number, ..._no_aspect (score, threshold):
  knowledge refinement feedback, full and ablated.
- self_reflection_answer (knowledge, question): the answer generator.
- self_reflection_answer_feedback, ..._no_number, ..._no_aspect (score, threshold).
- factuality_scorer (demos, question): the factuality scorer's prompt T(D, Q).
- factuality_demos: its demonstrations (paper appendix C), separated by blank lines.
- consistency_forward (prefix), consistency_backward (continuation): the two
  CTRL-Eval-style infilling evaluators.
- direct_answer (question): the direct-answer baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from string import Formatter

from veriloop.errors import InvalidInputError


@cache
def _read(name: str) -> str:
    resource = resources.files(__name__).joinpath(f"{name}.txt")
    if not resource.is_file():
        raise InvalidInputError(f"no prompt template named {name!r} in prompts/")
    return resource.read_text(encoding="utf-8")


def load_prompt(name: str, overrides: Mapping[str, str] | None = None) -> str:
    """Return the template `name`, or its override when one is given."""
    if overrides and name in overrides:
        return overrides[name]
    return _read(name)


def placeholders(template: str) -> set[str]:
    """List the named placeholders a template uses."""
    return {field for _, field, _, _ in Formatter().parse(template) if field}


def render(name: str, overrides: Mapping[str, str] | None = None, **values: object) -> str:
    """Fill template `name` with `values`.

    Raises:
        InvalidInputError: An override uses a placeholder this template does not provide.
    """
    template = load_prompt(name, overrides)
    unknown = placeholders(template) - set(values)
    if unknown:
        raise InvalidInputError(
            f"prompt {name!r} uses unknown placeholder(s) {sorted(unknown)}; "
            f"available: {sorted(values)}"
        )
    return template.format(**values)


def demonstrations(count: int, overrides: Mapping[str, str] | None = None) -> str:
    """Return the first `count` factuality-scorer demonstrations, each ending in a blank line."""
    if count <= 0:
        return ""
    demos = [block.strip() for block in load_prompt("factuality_demos", overrides).split("\n\n")]
    return "".join(f"{demo}\n\n" for demo in demos[:count] if demo)
