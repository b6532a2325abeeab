"""The persistent cache of model calls: chat replies and token scores, on disk.

Chat replies go through LangChain's SQLite LLM cache (`ObservedSQLiteCache` tells the
calling thread whether its call was a hit, for the trace); token log-probs go to a disk
cache keyed by scorer, prompt and target (`ScoreCache`). `Models` opens both in its
`cache_dir`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from pathlib import Path
from typing import Any

from langchain_community.cache import SQLiteCache
from langchain_core._api.deprecation import LangChainPendingDeprecationWarning

from veriloop.models.token_scoring import TokenLogprobs


class ObservedSQLiteCache(SQLiteCache):
    """LangChain's SQLite LLM cache that tells the calling thread whether it hit."""

    def __init__(self, database_path: str) -> None:
        super().__init__(database_path=database_path)
        self.last_hit = threading.local()

    def lookup(self, prompt: str, llm_string: str) -> Any:
        """Look a generation up and record in `last_hit` whether it was there."""
        # The cache file holds only generations this process family wrote; the pending
        # change of `loads`' default `allowed_objects` does not concern it, and the warning
        # would print once per cached call.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainPendingDeprecationWarning)
            value = super().lookup(prompt, llm_string)
        self.last_hit.value = value is not None
        return value


class ScoreCache:
    """Persistent cache of token log-probs keyed by scorer, prompt and target."""

    def __init__(self, directory: Path) -> None:
        import diskcache

        self._cache = diskcache.Cache(str(directory))

    @staticmethod
    def key(scorer: str, prompt: str, target: str) -> str:
        """Return the cache key of `target`'s log-probs after `prompt` by `scorer`."""
        digest = hashlib.sha256(f"{scorer}\x00{prompt}\x00{target}".encode()).hexdigest()
        return digest

    def get(self, key: str) -> TokenLogprobs | None:
        """Return the log-probs stored under `key`, or None."""
        raw = self._cache.get(key)
        if raw is None:
            return None
        data = json.loads(raw)
        return TokenLogprobs(
            tuple(data["tokens"]),
            tuple(data["logprobs"]),
            int(data["prompt_tokens"]),
            int(data["truncated_prompt_tokens"]),
        )

    def set(self, key: str, value: TokenLogprobs) -> None:
        """Store `value` under `key`."""
        payload = {
            "tokens": list(value.tokens),
            "logprobs": list(value.logprobs),
            "prompt_tokens": value.prompt_tokens,
            "truncated_prompt_tokens": value.truncated_prompt_tokens,
        }
        self._cache.set(key, json.dumps(payload))


__all__ = ["ObservedSQLiteCache", "ScoreCache"]
