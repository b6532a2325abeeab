"""Token scorer: log P(target | prompt), per target token, teacher-forced.

The factuality and consistency scorers of Self-Reflection need the log-probability a
language model gives each token of a text that follows a prompt. Target tokens are found
by character (byte) offsets in the tokenisation of prompt + target, never by tokenising the
target alone: BPE merges across the boundary would otherwise shift or change the tokens.

Two backends:
- `LlamaCppTokenScorer`: a separate small-context llama.cpp instance with
  `logits_all=True`; `eval` the whole sequence once and log-softmax each row. We do not use
  `create_completion(echo=True, logprobs=...)`: there `max_tokens=0` means unlimited, and
  without a BOS token the returned log-probs are shifted by one position.
- `OpenAICompletionsTokenScorer`: `/v1/completions` with `echo=True, logprobs` as vLLM and
  llama-cpp-python's server serve it (the scale-out option); `capabilities` checks once per
  backend that its values are aligned, and `UnavailableTokenScorer` stands in when a server
  cannot score.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt


class ScoreError(Exception):
    """A text could not be scored (empty target, alignment failure, too long)."""


@dataclass(frozen=True)
class TokenLogprobs:
    """Log-probabilities of a target's tokens given its prompt."""

    tokens: tuple[str, ...]
    logprobs: tuple[float, ...]
    prompt_tokens: int
    truncated_prompt_tokens: int = 0

    @property
    def mean(self) -> float:
        """Mean log-prob per target token (the reference code's normalisation)."""
        return mean_logprob(self.logprobs)


class TokenScorer(Protocol):
    """Anything that gives per-token log-probs of a target after a prompt."""

    name: str

    def target_logprobs(self, prompt: str, target: str) -> TokenLogprobs:
        """Return the log-prob of each target token, teacher-forced after the prompt."""
        ...


def mean_logprob(logprobs: Sequence[float]) -> float:
    """Average log-probs; raise ScoreError on an empty sequence rather than return NaN."""
    if len(logprobs) == 0:
        raise ScoreError("no target tokens to score")
    return float(sum(logprobs) / len(logprobs))


def log_softmax(logits: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float64]:
    """Compute a numerically stable log-softmax over the last axis."""
    values = np.asarray(logits, dtype=np.float64)
    shifted = values - values.max(axis=-1, keepdims=True)
    result: npt.NDArray[np.float64] = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return result


def token_end_offsets(pieces: Sequence[bytes]) -> list[int]:
    """Return the cumulative byte offset at which each token ends."""
    ends: list[int] = []
    position = 0
    for piece in pieces:
        position += len(piece)
        ends.append(position)
    return ends


def first_target_token(pieces: Sequence[bytes], text: bytes, boundary: int) -> int:
    """Find the index of the first token that holds any byte at or after `boundary`.

    A token that straddles the prompt/target boundary counts as a target token: it is the
    model's prediction of the target's first characters.

    Args:
        pieces: The bytes each token of `text` decodes to, in order.
        text: The full prompt + target, UTF-8 encoded.
        boundary: Byte length of the prompt.

    Raises:
        ScoreError: If the pieces do not reassemble the text, or no token reaches the target.
    """
    joined = b"".join(pieces)
    shift = 0
    if joined != text:
        # SentencePiece vocabularies decode a leading "▁" as a space the text never had.
        if joined == b" " + text:
            shift = 1
        else:
            raise ScoreError("token pieces do not reassemble the scored text")
    for index, end in enumerate(token_end_offsets(pieces)):
        if end - shift > boundary:
            return index
    raise ScoreError("no token falls in the target")


def gather_target_logprobs(
    token_ids: Sequence[int], logprob_rows: npt.NDArray[np.float64], start: int
) -> list[float]:
    """Pick log P(token_i | tokens_<i) for i >= start from per-position log-softmax rows.

    Row i-1 is the model's distribution for position i, so position 0 is never scored.
    """
    if start < 1:
        raise ScoreError("the first scored token needs at least one token of context")
    return [float(logprob_rows[i - 1, token_ids[i]]) for i in range(start, len(token_ids))]


class LlamaCppTokenScorer:
    """Teacher-forced scoring on a llama.cpp model (its own instance, logits for all tokens)."""

    def __init__(
        self, model_path: Path, *, context_size: int = 2048, seed: int = 0, bos: bool = False
    ) -> None:
        """Load a scoring instance of the GGUF model at `model_path`.

        `bos=True` conditions every text on the BOS token even when the vocabulary does not
        add one (as a served scorer does after its BOS prefix; see `capabilities`).
        """
        from llama_cpp import Llama

        self.name = f"llama.cpp:{model_path.name}" + ("+bos" if bos else "")
        self.bos = bos
        self.context_size = context_size
        self._llm = Llama(
            model_path=str(model_path),
            n_ctx=context_size,
            logits_all=True,
            seed=seed,
            verbose=False,
        )
        self._lock = threading.Lock()

    def target_logprobs(self, prompt: str, target: str) -> TokenLogprobs:
        """Return per-token log-probs of `target` after `prompt`."""
        if not target.strip():
            raise ScoreError("the text to score is empty")
        text = (prompt + target).encode("utf-8")
        boundary = len(prompt.encode("utf-8"))
        with self._lock:
            token_ids = list(self._llm.tokenize(text, add_bos=True, special=False))
            bos = self._llm.token_bos()
            if self.bos and (not token_ids or token_ids[0] != bos):
                token_ids = [bos, *token_ids]
            # A BOS the vocabulary prepends is not part of the text: it decodes to nothing.
            pieces = [
                b"" if (index == 0 and token == bos) else self._llm.detokenize([token])
                for index, token in enumerate(token_ids)
            ]
            start = first_target_token(pieces, text, boundary)
            if start == 0:
                # Empty prompt and no BOS: give the first token a BOS to condition on.
                token_ids = [self._llm.token_bos(), *token_ids]
                start = 1
            truncated = 0
            if len(token_ids) > self.context_size:
                truncated = len(token_ids) - self.context_size
                if truncated >= start:
                    raise ScoreError(
                        f"the target alone ({len(token_ids) - start} tokens) does not fit the "
                        f"scorer's context of {self.context_size} tokens"
                    )
                token_ids = token_ids[truncated:]
                start -= truncated
            rows = self._evaluate(token_ids, first_row=start - 1)
        logprobs = [float(rows[i - start, token_ids[i]]) for i in range(start, len(token_ids))]
        # Target tokens are never the BOS, so their pieces are the decoded tokens.
        token_text = tuple(piece.decode("utf-8", "replace") for piece in pieces[-len(logprobs) :])
        return TokenLogprobs(token_text, tuple(logprobs), start, truncated)

    def _evaluate(self, token_ids: list[int], *, first_row: int) -> npt.NDArray[np.float64]:
        """Run the model over `token_ids`; return log-softmax rows `first_row` onwards.

        The longest prefix already in the KV cache (up to `first_row`, the last prompt
        token) is reused rather than evaluated again, so scoring several targets after
        one prompt (MC2's options, a knowledge text and its refinements) processes the
        prompt once: 6 options after a 330-token prompt took 0.9 s instead of 25.8 s
        (2 busy cores). Reuse is exact (the integration test compares every log-prob
        with an independent teacher-forced pass). Row r is the distribution of token r + 1.
        """
        llm: Any = self._llm
        prefix = 0
        limit = min(int(llm.n_tokens), first_row)
        while prefix < limit and int(llm.input_ids[prefix]) == token_ids[prefix]:
            prefix += 1
        llm.n_tokens = prefix  # eval() drops the cache beyond this position
        try:
            llm.eval(token_ids[prefix:])
        except Exception:
            llm.reset()
            raise
        return log_softmax(np.asarray(llm.scores[first_row : len(token_ids) - 1]))


class OpenAICompletionsTokenScorer:
    """Teacher-forced scoring through an OpenAI-compatible `/v1/completions` endpoint.

    `prefix` goes before every scored text (the BOS token, for servers whose echoed
    log-probs are shifted without one: see `capabilities`); the server's token for it is
    not part of the prompt the offsets refer to.
    """

    def __init__(self, client: Any, model_name: str, *, prefix: str = "") -> None:
        """Score with `client` (an `openai.OpenAI`) against `model_name`."""
        suffix = f"+bos{prefix}" if prefix else ""
        self.name = f"openai-completions:{model_name}{suffix}"
        self._client = client
        self._model_name = model_name
        self.prefix = prefix

    def target_logprobs(self, prompt: str, target: str) -> TokenLogprobs:
        """Return per-token log-probs of `target` after `prompt` via echo + logprobs."""
        if not target.strip():
            raise ScoreError("the text to score is empty")
        text = prompt + target
        tokens, values, offsets, _ = self._echo(text, top=0)
        return align_echoed_logprobs(
            tokens, values, offsets, prompt_chars=len(prompt), text_chars=len(text)
        )

    def _echo(
        self, text: str, *, top: int
    ) -> tuple[list[str], list[float | None], list[int], list[Any]]:
        """Echo `prefix + text` with log-probs, the prefix's tokens removed.

        Returns:
            Tokens, their log-probs, their offsets in `text`, and the `top` alternatives the
            server lists for each token.

        Raises:
            ScoreError: The server returned no log-probs.
        """
        response = self._client.completions.create(
            model=self._model_name,
            prompt=self.prefix + text,
            echo=True,
            logprobs=top,
            max_tokens=1,
            temperature=0.0,
        )
        logprobs = response.choices[0].logprobs
        if logprobs is None or not logprobs.tokens:
            raise ScoreError("the server returned no log-probs for the echoed prompt")
        tokens, values, offsets = drop_prefix_tokens(
            list(logprobs.tokens),
            list(logprobs.token_logprobs),
            list(logprobs.text_offset),
            self.prefix,
        )
        dropped = len(logprobs.tokens) - len(tokens)  # the prefix's tokens, when echoed
        alternatives = list(getattr(logprobs, "top_logprobs", None) or [])[dropped:]
        return tokens, values, offsets, alternatives

    def next_token_logprobs(
        self, prompt: str, top: int, continuation: str
    ) -> tuple[dict[str, float], int]:
        """Return the `top` most likely next tokens after `prompt` with their log-probs.

        One echo request of `prompt` + `continuation` with `logprobs=top`: the alternatives
        the server lists at the continuation's first token are the next-token distribution
        after the prompt (a generated token would not do: a model that ends its turn there
        generates nothing and lists nothing). This is how `Models.score_targets` scores
        single-token answers such as " Yes" / " No" in one request instead of one echo
        each. The prompt gets the same `prefix` as `target_logprobs`.

        Returns:
            Token texts and log-probs (the continuation's own first token included), and
            the prompt's token count.

        Raises:
            ScoreError: The server listed no alternatives there, or the prompt's last token
                merges with the continuation's first.
        """
        tokens, values, offsets, alternatives = self._echo(prompt + continuation, top=top)
        if len(prompt) not in offsets:
            raise ScoreError("the prompt's last token runs into the continuation")
        position = offsets.index(len(prompt))
        listed = alternatives[position] if position < len(alternatives) else None
        if not listed:
            raise ScoreError("the server listed no top log-probs at the continuation")
        found = {str(k): float(v) for k, v in dict(listed).items()}
        own = values[position]
        if own is not None:
            found.setdefault(tokens[position], float(own))
        return found, position


def drop_prefix_tokens(
    tokens: list[str], values: list[float | None], offsets: list[int], prefix: str
) -> tuple[list[str], list[float | None], list[int]]:
    """Remove the tokens of `prefix` from an echo and make offsets relative to the text.

    Servers differ: llama-cpp-python drops a leading BOS from the echo (offsets already
    start at the text); others echo it as a token at offset 0 (then every later offset
    counts its characters).
    """
    if not prefix or not offsets:
        return tokens, values, offsets
    if "".join(tokens).startswith(prefix) and offsets[0] == 0:
        keep = [i for i, offset in enumerate(offsets) if offset >= len(prefix)]
        return (
            [tokens[i] for i in keep],
            [values[i] for i in keep],
            [offsets[i] - len(prefix) for i in keep],
        )
    return tokens, values, offsets


class ScoringUnavailableError(ScoreError):
    """The backend has no token scorer (e.g. a chat-only server); the message says why."""


class UnavailableTokenScorer:
    """The scorer of a backend that cannot give token log-probs; says why on every use."""

    def __init__(self, reason: str) -> None:
        """Remember why scoring is unavailable (shown to whoever asks for a score)."""
        self.name = "unavailable"
        self.reason = reason

    def target_logprobs(self, prompt: str, target: str) -> TokenLogprobs:
        """Raise ScoringUnavailableError: there is nothing to score with."""
        raise ScoringUnavailableError(self.reason)


def align_echoed_logprobs(
    tokens: Sequence[str],
    token_logprobs: Sequence[float | None],
    text_offsets: Sequence[int],
    *,
    prompt_chars: int,
    text_chars: int,
) -> TokenLogprobs:
    """Select the target tokens of an echoed completion by their character offsets.

    Tokens starting at or after `text_chars` are the generated continuation and are dropped;
    a token straddling the prompt/target boundary counts as a target token.
    """
    kept_tokens: list[str] = []
    kept: list[float] = []
    prompt_tokens = 0
    for index, (token, offset) in enumerate(zip(tokens, text_offsets, strict=True)):
        if offset >= text_chars:
            break
        end = text_offsets[index + 1] if index + 1 < len(text_offsets) else text_chars
        if min(end, text_chars) <= prompt_chars:
            prompt_tokens += 1
            continue
        value = token_logprobs[index]
        if value is None:
            raise ScoreError("the server returned no log-prob for a target token")
        kept_tokens.append(token)
        kept.append(float(value))
    if not kept:
        raise ScoreError("no token falls in the target")
    return TokenLogprobs(tuple(kept_tokens), tuple(kept), prompt_tokens)
