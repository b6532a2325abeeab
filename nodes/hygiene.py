"""Output hygiene: strip what a small model echoes back instead of answering.

SmolLM2-135M often repeats the instruction, prefixes its reply with a label such as
"Knowledge:", or leaks chat-template tokens. Left in place, echoed prompt text inflates
the consistency score (copying the knowledge scores as highly consistent) and pollutes
metrics, so every generated text is cleaned before it is scored or shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SPECIAL_TOKENS = re.compile(r"<\|[a-z_]+\|>|</?s>|\[/?INST\]")
_LEADING_LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:background\s+)?(?:knowledge|answer|response|refined\s+"
    r"(?:knowledge|response|answer)|assistant)(?:\*\*)?\s*:\s*",
    re.IGNORECASE,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
MIN_ECHO_CHARS = 20
"""Prompt fragments shorter than this are not removed (too likely to be real content)."""


def _echo_fragments(prompts: Iterable[str]) -> list[str]:
    fragments: list[str] = []
    for prompt in prompts:
        for fragment in _SENTENCE_SPLIT.split(prompt):
            fragment = fragment.strip()
            if len(fragment) >= MIN_ECHO_CHARS:
                fragments.append(fragment)
    return sorted(set(fragments), key=len, reverse=True)


def clean_generation(text: str, echoed_prompts: Iterable[str] = ()) -> str:
    """Remove template tokens, leading labels and verbatim echoes of the prompts sent.

    Args:
        text: The raw reply.
        echoed_prompts: Instructions sent in this call whose sentences must not be
            passed off as content (the question itself is not included by callers).

    Returns:
        The cleaned reply; empty when nothing but echoes remained.
    """
    cleaned = _SPECIAL_TOKENS.sub("", text)
    for fragment in _echo_fragments(echoed_prompts):
        cleaned = cleaned.replace(fragment, " ")
    cleaned = _LEADING_LABEL.sub("", cleaned.strip())
    cleaned = re.sub(r"[ \t]+", " ", cleaned)
    cleaned = re.sub(r"\n{3,}", "\n\n", cleaned)
    return cleaned.strip().strip('"').strip()
