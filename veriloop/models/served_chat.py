"""ChatOpenAI for engines that predate `max_completion_tokens`."""

from __future__ import annotations

from typing import Any

from langchain_openai import ChatOpenAI


class MaxTokensChatOpenAI(ChatOpenAI):
    """ChatOpenAI that sends the generation limit as `max_tokens`.

    ChatOpenAI always sends `max_completion_tokens`, which engines that predate it (e.g.
    llama-cpp-python's server) silently drop: asked for 16 tokens, 78 came back. The
    OpenAI backend picks this class when its probe finds the limit ignored.
    """

    def _get_request_payload(
        self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        if "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        return payload
