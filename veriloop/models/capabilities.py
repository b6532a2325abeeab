"""What an OpenAI-compatible server can do, found out once per backend.

Engines that all say "OpenAI-compatible" differ where veriloop depends on them:

- **Structured output**: the OpenAI API and vLLM take `response_format={"type":
  "json_schema", ...}`; llama-cpp-python's server rejects that (HTTP 500, `Input should be
  'text' or 'json_object'`) and takes `{"type": "json_object", "schema": ...}` instead;
  others ignore both. The chain is json_schema -> json_object + schema -> prompt only (the
  lenient parser and one re-ask of `structured.ask_structured` do the rest).
- **Token scores**: teacher-forced log-probs come from `/v1/completions` with `echo=True,
  logprobs=0`. llama-cpp-python's echoed values are shifted by one position for a model
  whose tokenizer adds no BOS token (the value for token i is row i of the log-softmax at
  token i, not log P(token i | tokens < i)); when the prompt starts with the BOS token the
  server drops it and the values line up. So the probe scores a counting text ("1, 2, ...")
  whose continuation any language model predicts (mean log-prob near 0 when aligned,
  about -12 when shifted on SmolLM2-135M), and if the raw echo is shifted it tries the
  BOS texts in `BOS_CANDIDATES` as a prefix. A chat-only endpoint (404), a server started
  without logits, or a shift nothing mends leaves token scoring unavailable, said once.
- **Generation limit**: ChatOpenAI sends `max_completion_tokens`, which engines that predate
  it drop silently (llama-cpp-python: asked for 16 tokens, 78 came back); the probe checks
  whether the limit holds and otherwise sends `max_tokens`.

`probe_capabilities` asks these questions with a handful of tiny requests; each answer can
instead be set (`structured_output`, `token_scoring`, `max_tokens_param` settings). The
result, with one line per finding, is recorded in every trace (`Models.describe`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import httpx
import openai

from veriloop.errors import ModelUnavailableError
from veriloop.models.token_scoring import TokenScorer
from veriloop.text import first_json_value

StructuredOutput = Literal["json_schema", "json_object", "prompt"]
TokenScoring = Literal["echo", "none"]
MaxTokensParam = Literal["max_completion_tokens", "max_tokens"]

STRUCTURED_CHAIN: tuple[StructuredOutput, ...] = ("json_schema", "json_object", "prompt")
"""Structured-output modes, best first; a deterministic rejection moves one step down."""

BOS_CANDIDATES: tuple[str, ...] = (
    "<|im_start|>",
    "<s>",
    "<|begin_of_text|>",
    "<bos>",
    "<|endoftext|>",
    "<|startoftext|>",
)
"""BOS token texts tried as a prompt prefix when a server's echoed log-probs are shifted."""

ALIGNMENT_PROMPT = "Counting: 1, 2, 3, 4, 5, 6, 7, 8,"
ALIGNMENT_TARGET = " 9, 10, 11, 12, 13, 14, 15, 16, 17, 18"
ALIGNED_MEAN_AT_LEAST = -2.5
"""Mean log-prob the counting continuation must reach for echoed log-probs to count as
aligned. Measured on SmolLM2-135M through llama-cpp-python's server: -0.08 aligned (the
embedded scorer gives the same), -12.1 shifted by one position."""

PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 12}},
    "required": ["answer"],
}
PROBE_LIMIT = 6


@dataclass(frozen=True)
class Capabilities:
    """How veriloop talks to one served model, and why."""

    structured_output: StructuredOutput
    token_scoring: TokenScoring
    max_tokens_param: MaxTokensParam
    bos_prefix: str = ""
    """Text put before every scored prompt (the BOS token, when the raw echo is shifted)."""
    findings: tuple[str, ...] = field(default=())
    """What each probe tried and what came back, one line each."""

    def to_json(self) -> dict[str, Any]:
        """Return the capabilities as a JSON object (for the probe cache)."""
        return {**asdict(self), "findings": list(self.findings)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Capabilities:
        """Read capabilities written by `to_json`.

        Raises:
            ValueError: A field is missing or holds a value no probe gives.
        """
        structured, scoring, limit = (
            data["structured_output"],
            data["token_scoring"],
            data["max_tokens_param"],
        )
        if (
            structured not in STRUCTURED_CHAIN
            or scoring not in ("echo", "none")
            or limit not in ("max_completion_tokens", "max_tokens")
        ):
            raise ValueError(f"not a probe result: {data!r}")
        return cls(
            structured_output=structured,
            token_scoring=scoring,
            max_tokens_param=limit,
            bos_prefix=str(data.get("bos_prefix", "")),
            findings=tuple(str(f) for f in data.get("findings", [])),
        )

    def describe(self) -> str:
        """Summarise the capabilities in one line, for traces and `doctor`."""
        scoring: str = self.token_scoring
        if scoring == "echo" and self.bos_prefix:
            scoring = f"echo after BOS {self.bos_prefix}"
        return (
            f"structured output: {self.structured_output}; token scores: {scoring}; "
            f"generation limit: {self.max_tokens_param}"
        )


def response_format(mode: StructuredOutput, schema: dict[str, Any]) -> dict[str, Any] | None:
    """Return the `response_format` that asks for `schema` in `mode` (None: prompt only)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema, "strict": False},
        }
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


def next_structured(mode: StructuredOutput) -> StructuredOutput | None:
    """Return the next mode down the chain after a rejection of `mode` (None: none left)."""
    index = STRUCTURED_CHAIN.index(mode)
    return STRUCTURED_CHAIN[index + 1] if index + 1 < len(STRUCTURED_CHAIN) else None


# -- classifying failures ---------------------------------------------------------------

FailureKind = Literal[
    "connection", "timeout", "rate_limit", "server", "rejected", "auth", "missing"
]

_VALIDATION_MARKERS = (
    "validation error",
    "input should be",
    "not supported",
    "unsupported",
    "unrecognized",
    "unknown parameter",
    "extra inputs are not permitted",
    "logits_all",
)


def failure_kind(exc: BaseException) -> FailureKind | None:
    """Classify a failed request; None when it is not a server or transport failure.

    `connection`, `timeout`, `rate_limit` and `server` (a 5xx) are worth retrying;
    `rejected` (the request itself was refused: 400, 409, 422, or a 5xx whose body is a
    validation error, as llama-cpp-python reports unknown parameter values), `auth` (401,
    403) and `missing` (404, 405: no such endpoint or model) are not.
    """
    if isinstance(exc, openai.APITimeoutError | TimeoutError | httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError | ConnectionError):
        return "connection"
    if isinstance(exc, openai.RateLimitError):
        return "rate_limit"
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in (401, 403):
            return "auth"
        if status in (404, 405):
            return "missing"
        text = f"{exc.message} {exc.body}".lower()
        if status >= 500:
            return "rejected" if any(m in text for m in _VALIDATION_MARKERS) else "server"
        return "rejected"
    return None


def is_transient(exc: BaseException) -> bool:
    """Return True for failures a retry may cure (connection, timeout, rate limit, 5xx)."""
    return failure_kind(exc) in ("connection", "timeout", "rate_limit", "server")


def explain_failure(exc: BaseException, *, what: str, where: str, api_key_env: str) -> str:
    """Say what failed, the real cause, and what to set, in one sentence or two."""
    kind = failure_kind(exc)
    detail = _detail(exc)
    if kind == "connection":
        return (
            f"the {what} could not be reached at {where} ({detail}). Check that the server "
            "is running and that VERILOOP_BASE_URL points at it (it usually ends in /v1)."
        )
    if kind == "timeout":
        return (
            f"the {what} at {where} did not answer in time ({detail}). Raise "
            "VERILOOP_REQUEST_TIMEOUT or use a smaller request."
        )
    if kind == "rate_limit":
        return f"the {what} at {where} is rate-limiting requests ({detail}). Lower --workers."
    if kind == "auth":
        return (
            f"the {what} at {where} refused the credentials ({detail}). Put the key in the "
            f"environment variable {api_key_env} (or name another one with "
            "VERILOOP_API_KEY_ENV)."
        )
    if kind == "missing":
        return (
            f"the {what} at {where} has no such endpoint or model ({detail}). Check "
            "VERILOOP_MODEL_NAME against the server's /v1/models and that VERILOOP_BASE_URL "
            "ends in /v1."
        )
    if kind == "rejected":
        return (
            f"the {what} at {where} rejected the request ({detail}). This is not "
            "transient: set the capability explicitly (VERILOOP_STRUCTURED_OUTPUT, "
            "VERILOOP_TOKEN_SCORING, VERILOOP_MAX_TOKENS_PARAM) or report it."
        )
    if kind == "server":
        return f"the {what} at {where} failed ({detail}). See the server's log."
    return f"the {what} at {where} failed: {detail}"


def _detail(exc: BaseException) -> str:
    if isinstance(exc, openai.APIStatusError):
        body = exc.body
        message = exc.message
        if isinstance(body, dict):
            inner = body.get("error", body)
            message = str(inner.get("message", inner) if isinstance(inner, dict) else inner)
        first = " ".join(message.split())[:240]
        return f"HTTP {exc.status_code}: {first}"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:240]}"


# -- probing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AlignmentCheck:
    """The counting-text self-check of a scorer: its mean log-prob and verdict."""

    mean: float
    aligned: bool
    reason: str


def check_alignment(logprobs: Sequence[float]) -> AlignmentCheck:
    """Judge whether log-probs of `ALIGNMENT_TARGET` after `ALIGNMENT_PROMPT` are aligned.

    Every value must be finite and <= 0 (a log-probability), and their mean at least
    `ALIGNED_MEAN_AT_LEAST`: the continuation of a count is the most predictable text
    there is, so only a scorer reading the wrong position gives it a low likelihood.
    """
    if not logprobs:
        return AlignmentCheck(float("nan"), False, "no log-probs came back for the check text")
    if any(not math.isfinite(v) or v > 1e-4 for v in logprobs):
        return AlignmentCheck(
            float("nan"), False, "the values are not log-probabilities (some are > 0 or not finite)"
        )
    mean = sum(logprobs) / len(logprobs)
    if mean < ALIGNED_MEAN_AT_LEAST:
        return AlignmentCheck(
            mean,
            False,
            f"a counting text scored a mean log-prob of {mean:.2f} (an aligned scorer gives "
            f"about 0, so the values are shifted or not conditional log-probs)",
        )
    return AlignmentCheck(mean, True, f"a counting text scored a mean log-prob of {mean:.2f}")


def probe_max_tokens(client: Any, model: str) -> tuple[MaxTokensParam, str]:
    """Find out whether the server honours `max_completion_tokens`; else use `max_tokens`."""
    try:
        response = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "Count from 1 to 60, separated by commas."}],
            max_completion_tokens=PROBE_LIMIT,
            temperature=0.0,
        )
    except Exception as exc:
        if is_transient(exc):
            raise
        return "max_tokens", f"max_completion_tokens rejected ({_detail(exc)}): using max_tokens"
    usage = getattr(response, "usage", None)
    produced = getattr(usage, "completion_tokens", None)
    if produced is None:
        return "max_tokens", "no token usage reported: using max_tokens"
    if produced > PROBE_LIMIT:
        return (
            "max_tokens",
            f"max_completion_tokens={PROBE_LIMIT} ignored ({produced} tokens came back): "
            "using max_tokens",
        )
    return "max_completion_tokens", f"max_completion_tokens honoured ({produced} tokens)"


def probe_structured(
    client: Any, model: str, limit_param: MaxTokensParam, modes: Sequence[StructuredOutput]
) -> tuple[StructuredOutput, list[str]]:
    """Return the first mode in `modes` whose reply is a JSON object, with the findings."""
    findings: list[str] = []
    for mode in modes:
        if mode == "prompt":
            findings.append("prompt only: replies are parsed leniently and re-asked once")
            return mode, findings
        options: dict[str, Any] = {
            "response_format": response_format(mode, PROBE_SCHEMA),
            limit_param: 40,
            "temperature": 0.0,
        }
        try:
            response = client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": 'Reply with JSON: {"answer": "yes"}'}],
                **options,
            )
        except Exception as exc:
            if is_transient(exc):
                raise
            findings.append(f"{mode} rejected ({_detail(exc)})")
            continue
        text = response.choices[0].message.content or ""
        if _is_json_object(text):
            findings.append(f"{mode} accepted")
            return mode, findings
        findings.append(f"{mode} ignored (the reply was not a JSON object: {text[:60]!r})")
    return "prompt", findings


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(first_json_value(text), dict)
    except ValueError:
        return False


def probe_scoring(
    scorer_for: Callable[[str], TokenScorer], bos_candidates: Sequence[str]
) -> tuple[str | None, list[str]]:
    """Find a prompt prefix under which the server's echoed log-probs are aligned.

    Args:
        scorer_for: Function from a prefix to a scorer (`target_logprobs(prompt, target)`).
        bos_candidates: Prefixes to try when the raw echo is shifted.

    Returns:
        The prefix ("" for none) or None when scoring is unavailable, and the findings.
    """
    findings: list[str] = []
    for prefix in ("", *bos_candidates):
        try:
            check = _alignment_under(scorer_for, prefix)
        except Exception as exc:
            if is_transient(exc):
                raise
            if prefix == "":
                findings.append(f"echo log-probs unavailable ({_detail(exc)})")
                return None, findings
            findings.append(f"BOS {prefix!r}: {_detail(exc)}")
            continue
        findings.append(f"{_echo_label(prefix)}: {check.reason}")
        if check.aligned:
            return prefix, findings
    findings.append(
        "no prefix aligns the echoed log-probs: token scoring through this server is "
        "unavailable (the values would be shifted by one position)"
    )
    return None, findings


def recheck_scoring(scorer_for: Callable[[str], TokenScorer], prefix: str) -> tuple[bool, str]:
    """Check once that echoed log-probs under an earlier probe's `prefix` are still aligned.

    A cached probe result is reused only after this one request: the server behind a URL
    may have been restarted with other flags, or replaced by another engine.

    Returns:
        Whether they are, and a finding saying what was checked.
    """
    try:
        check = _alignment_under(scorer_for, prefix)
    except Exception as exc:
        if is_transient(exc):
            raise
        return False, f"cached {_echo_label(prefix)} no longer works ({_detail(exc)})"
    return check.aligned, f"cached {_echo_label(prefix)} re-checked: {check.reason}"


def _alignment_under(scorer_for: Callable[[str], TokenScorer], prefix: str) -> AlignmentCheck:
    """Score the counting text through the scorer with `prefix` and judge its alignment."""
    scored = scorer_for(prefix).target_logprobs(ALIGNMENT_PROMPT, ALIGNMENT_TARGET)
    return check_alignment(scored.logprobs)


def _echo_label(prefix: str) -> str:
    return "raw echo" if prefix == "" else f"echo after BOS {prefix!r}"


def unreachable(exc: BaseException, where: str, api_key_env: str) -> ModelUnavailableError:
    """Build the error for a probe that could not reach the server."""
    return ModelUnavailableError(
        "probing the served model's capabilities failed: "
        + explain_failure(exc, what="server", where=where, api_key_env=api_key_env)
    )
