"""The embedded chat model: llama.cpp through langchain-community's `ChatLlamaCpp`.

`ChatLlamaCpp` does what we need (chat template from the GGUF, sampling settings, and
per-call `response_format` JSON-schema grammars passed through to llama.cpp). One thing it
lacks: it reports token usage only in `llm_output`, which `invoke` drops and the LLM cache
does not keep (and its default streaming path drops them). This thin subclass puts the
counts on the message's `usage_metadata`, so accounting works for fresh and cached replies.
"""

from __future__ import annotations

from typing import Any

from langchain_community.chat_models import ChatLlamaCpp
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatResult


class EmbeddedChatModel(ChatLlamaCpp):
    """`ChatLlamaCpp` that records token usage on each reply message."""

    streaming: bool = False
    """Off: the streamed path never reports usage, and graphs stream per node, not token."""

    def _create_chat_result(self, response: dict[str, Any]) -> ChatResult:
        result: ChatResult = super()._create_chat_result(response)
        usage = response.get("usage") or {}
        for generation in result.generations:
            message = generation.message
            if isinstance(message, AIMessage):
                message.usage_metadata = {
                    "input_tokens": int(usage.get("prompt_tokens", 0)),
                    "output_tokens": int(usage.get("completion_tokens", 0)),
                    "total_tokens": int(usage.get("total_tokens", 0)),
                }
        return result
