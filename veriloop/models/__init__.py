"""Models for every node: chat, token scoring and embeddings, chosen by settings.

`get_models(context)` returns a `Models` gateway; see `gateway` for what it adds to every
call (retries, cache, accounting), `calls` for what a call takes and returns, `backends`
for the built-in backends, and `fakes` for scripted test doubles.
"""

from veriloop.models.backends import get_models, register_backend, unregister_backend
from veriloop.models.calls import (
    ChatFailure,
    ChatReply,
    ChatTurn,
    ScoredText,
    failed_call,
)
from veriloop.models.gateway import Models
from veriloop.models.token_scoring import ScoreError, TokenLogprobs

__all__ = [
    "ChatFailure",
    "ChatReply",
    "ChatTurn",
    "Models",
    "ScoreError",
    "ScoredText",
    "TokenLogprobs",
    "failed_call",
    "get_models",
    "register_backend",
    "unregister_backend",
]
