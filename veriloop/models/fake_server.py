"""A loopback OpenAI-compatible server for tests and throughput benchmarks.

It answers `/v1/chat/completions` (a fixed reply numbered by request, so replies differ)
and `/v1/completions` with `echo` and `logprobs` (one token per whitespace-separated piece,
log-prob -0.1 * (1 + index % 5), with character offsets), after a fixed delay, so
the OpenAI backend and the concurrency of a harness can be exercised without a model. It
binds 127.0.0.1 only and stops when its context manager exits.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def echo_logprobs(text: str) -> dict[str, Any]:
    """Build an OpenAI `logprobs` object for `text`, split at whitespace boundaries."""
    tokens = re.findall(r"\s*\S+|\s+$", text)
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token)
    values: list[float | None] = [-0.1 * (1 + i % 5) for i in range(len(tokens))]
    if values:
        values[0] = None  # the first token has no context, as real servers report
    return {
        "tokens": tokens,
        "token_logprobs": values,
        "text_offset": offsets,
        "top_logprobs": None,
    }


class _Handler(BaseHTTPRequestHandler):
    server: _FakeServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return  # keep test output clean

    def _send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append((self.path, request))
        time.sleep(self.server.delay)
        if self.path.endswith("/chat/completions"):
            last = str(request["messages"][-1]["content"])
            text = f"{self.server.reply} (reply {len(self.server.requests)})"
            self._send(
                {
                    "id": "fake",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text},
                        }
                    ],
                    "usage": {
                        "prompt_tokens": len(last.split()),
                        "completion_tokens": len(text.split()),
                        "total_tokens": len(last.split()) + len(text.split()),
                    },
                }
            )
        elif self.path.endswith("/completions"):
            prompt = str(request["prompt"])
            generated = " ok"
            logprobs = echo_logprobs(prompt + generated)
            self._send(
                {
                    "id": "fake",
                    "object": "text_completion",
                    "created": 0,
                    "model": request["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "length",
                            "text": prompt + generated,
                            "logprobs": logprobs,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": len(prompt.split()),
                        "completion_tokens": 1,
                        "total_tokens": len(prompt.split()) + 1,
                    },
                }
            )
        else:
            self.send_error(404)


class _FakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, delay: float, reply: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = delay
        self.reply = reply
        self.lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, Any]]] = []


@contextmanager
def fake_openai_server(
    delay: float = 0.0,
    reply: str = "The condition is inherited in an autosomal dominant manner.",
) -> Iterator[_FakeServer]:
    """Serve the fake API on a free loopback port; `server.server_address` gives the port."""
    server = _FakeServer(delay, reply)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def base_url(server: _FakeServer) -> str:
    """Return the server's OpenAI base URL (http://127.0.0.1:PORT/v1)."""
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}/v1"


@contextmanager
def fake_openai_server_process(delay: float = 0.0) -> Iterator[str]:
    """Run the fake server in a separate process (as a real remote server would be).

    Yields its base URL. Benchmarks use this so the server's request handling does not
    compete with the harness for the same interpreter lock.
    """
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "veriloop.models.fake_server", "--delay", str(delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the fake server did not start (said {url!r})")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> None:
    """Serve until terminated; print the base URL on the first line of stdout."""
    import argparse

    parser = argparse.ArgumentParser(description="Loopback fake OpenAI-compatible server.")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    server = _FakeServer(args.delay, "The condition is inherited in an autosomal dominant manner.")
    print(base_url(server), flush=True)  # noqa: T201 - the parent process reads this line
    server.serve_forever()


if __name__ == "__main__":
    main()
