"""The real OpenAI-compatible engine the served-engine tests share (one per session)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from veriloop.models.locate import bundled_chat_model_path
from veriloop.models.loopback import free_port, running_server


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Start llama-cpp-python's server on a free loopback port; yield backend settings.

    It serves the bundled SmolLM2 with logits for every token (`--logits_all`, which echo
    scoring needs), as a user would start it.
    """
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(bundled_chat_model_path()),
        "--model_alias",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--logits_all",
        "true",
    ]
    url = f"http://127.0.0.1:{port}/v1"
    with running_server(
        command,
        ready_url=f"{url}/models",
        log=tmp_path_factory.mktemp("llama_server") / "server.log",
        name="llama_cpp.server",
    ):
        yield {"backend": "openai", "base_url": url, "model_name": "smollm2"}
