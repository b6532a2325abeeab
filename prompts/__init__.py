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
- direct_answer (question): the direct-answer baseline; direct_choice (question,
  reply_format) for multiple-choice items; reply_format_paragraph, reply_format_choice.
- multiple_choice_question (question, options): a question with its lettered options.
- l2r_main_qa, l2r_main_qa_no_reasoning (knowledge, question, answer_hint): L2R's main QA
  agent, after the reference's prompt, full and without evidence/reason.
- rag_answer (knowledge, question, reply_format): the plain-RAG baseline.
- enrichment_questions (count, topic, seeds, avoid), enrichment_answer (question),
  enrichment_qa_to_knowledge (question, answer): the three knowledge-enrichment agents.
  Each has a `<name>_demo` file: a worked exchange (`USER:` / `ASSISTANT:` blocks, no
  placeholders) sent as earlier chat turns. SmolLM2-135M copies an example that sits
  inside the instruction; given as a previous turn, it follows it instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from string import Formatter

from veriloop.errors import InvalidInputError
from veriloop.models.gateway import ChatTurn


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


def demonstration_turns(name: str, overrides: Mapping[str, str] | None = None) -> list[ChatTurn]:
    """Return template `name` (a `USER:` / `ASSISTANT:` transcript) as chat turns.

    Raises:
        InvalidInputError: The text has no `USER:` turn or a block without a role.
    """
    text = load_prompt(name, overrides)
    turns: list[ChatTurn] = []
    for block in re.split(r"^(?=USER:|ASSISTANT:)", text, flags=re.MULTILINE):
        if not block.strip():
            continue
        role, _, content = block.partition(":")
        if role not in {"USER", "ASSISTANT"}:
            raise InvalidInputError(f"prompt {name!r}: a block must start with USER: or ASSISTANT:")
        turns.append(
            ChatTurn(role="user" if role == "USER" else "assistant", content=content.strip())
        )
    if not turns or turns[0]["role"] != "user":
        raise InvalidInputError(f"prompt {name!r} must start with a USER: turn")
    return turns


def demonstrations(count: int, overrides: Mapping[str, str] | None = None) -> str:
    """Return the first `count` factuality-scorer demonstrations, each ending in a blank line."""
    if count <= 0:
        return ""
    demos = [block.strip() for block in load_prompt("factuality_demos", overrides).split("\n\n")]
    return "".join(f"{demo}\n\n" for demo in demos[:count] if demo)
