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
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+|\"")
MIN_ECHO_CHARS = 20
"""Prompt fragments shorter than this are not removed (too likely to be real content)."""
ECHO_WORD_SHARE = 0.7
"""A reply sentence whose words come at least this much from one instruction sentence is a
paraphrased echo (the model restating its feedback with other numbers) and is dropped."""
MIN_ECHO_WORDS = 5
_WORD = re.compile(r"[a-z]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _is_paraphrased_echo(sentence: str, instruction_words: list[set[str]]) -> bool:
    words = _words(sentence)
    if len(words) < MIN_ECHO_WORDS:
        return False
    return any(len(words & source) / len(words) >= ECHO_WORD_SHARE for source in instruction_words)


def _echo_fragments(prompts: Iterable[str]) -> list[str]:
    fragments: list[str] = []
    for prompt in prompts:
        for fragment in _SENTENCE_SPLIT.split(prompt):
            fragment = fragment.strip()
            if len(fragment) >= MIN_ECHO_CHARS:
                fragments.append(fragment)
    return sorted(set(fragments), key=len, reverse=True)


def _normalised(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def clean_generation(
    text: str, echoed_prompts: Iterable[str] = (), restated: Iterable[str] = ()
) -> str:
    """Remove template tokens, leading labels, and verbatim or paraphrased prompt echoes.

    Args:
        text: The raw reply.
        echoed_prompts: Instructions sent in this call whose sentences must not be
            passed off as content (without the question: an answer may reuse its words).
        restated: Texts (the question) that are dropped only where a reply sentence is
            nothing but a restatement of them.

    Returns:
        The cleaned reply; empty when nothing but echoes remained.
    """
    cleaned = _SPECIAL_TOKENS.sub("", text)
    fragments = _echo_fragments(echoed_prompts)
    for fragment in fragments:
        cleaned = cleaned.replace(fragment, " ")
    instruction_words = [_words(fragment) for fragment in fragments]
    restatements = {_normalised(item) for item in restated} - {""}
    kept_lines = []
    for line in cleaned.split("\n"):
        sentences = re.split(r"(?<=[.!?])\s+", line)
        kept_lines.append(
            " ".join(
                s
                for s in sentences
                if not _is_paraphrased_echo(s, instruction_words)
                and _normalised(s) not in restatements
            )
        )
    cleaned = "\n".join(kept_lines)
    cleaned = _LEADING_LABEL.sub("", cleaned.strip())
    cleaned = re.sub(r"[ \t]+", " ", cleaned)
    cleaned = re.sub(r"\n{3,}", "\n\n", cleaned)
    return cleaned.strip().strip('"').strip()
