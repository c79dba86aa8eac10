"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benches.

The real ``openai`` client talks to it over HTTP. A test decides every reply:

    with ScriptedLLM() as server:
        server.queue(Reply(content='{"score": 1.0}'))          # next call gets this
        server.handler = lambda req: Reply(content="...")       # or decide per request
        client = openai.OpenAI(base_url=server.base_url, api_key="test")

Replies can carry an HTTP status (429, 500 ...), a delay, logprobs and usage. Every
request body is recorded in ``server.requests``; ``server.calls`` counts them.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer. ``status`` != 200 sends an OpenAI-style error body."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    logprobs: list[dict[str, Any]] | None = None  # OpenAI "content" logprob entries
    prompt_tokens: int = 10
    completion_tokens: int = 5
    finish_reason: str = "stop"
    n: int | None = None  # number of choices; default: the request's n
    extra_headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[dict[str, Any]], Reply]


class _Server(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: a client opening 16 connections at once
    # gets SYNs dropped and waits a full second for the retransmit (or sees a reset).
    request_queue_size = 128
    daemon_threads = True


class ScriptedLLM:
    """The server. Use as a context manager; ``base_url`` ends with ``/v1``."""

    def __init__(self, model: str = "scripted-model", default_delay_s: float = 0.0) -> None:
        self.model = model
        self.default_delay_s = default_delay_s
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.handler: Handler | None = None
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._make_handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle ----------------------------------------------------------------------
    def __enter__(self) -> ScriptedLLM:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start serving in a background thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """Base URL for ``openai.OpenAI(base_url=...)``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def calls(self) -> int:
        """How many chat-completion requests arrived."""
        with self._lock:
            return len(self.requests)

    # -- scripting ----------------------------------------------------------------------
    def queue(self, *replies: Reply | str) -> None:
        """Append replies used in order, before the handler is asked."""
        with self._lock:
            for r in replies:
                self._queue.append(Reply(content=r) if isinstance(r, str) else r)

    def reset(self) -> None:
        """Forget recorded requests and queued replies."""
        with self._lock:
            self.requests.clear()
            self.paths.clear()
            self._queue.clear()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.handler is not None:
            return self.handler(body)
        return Reply(status=500, content="no scripted reply left")

    # -- HTTP ---------------------------------------------------------------------------
    def _make_handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; with Nagle on, each reply would
            # wait ~40 ms for the client's delayed ACK.
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200,
                        {
                            "object": "list",
                            "data": [{"id": outer.model, "object": "model", "owned_by": "tests"}],
                        },
                    )
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if "chat/completions" not in self.path:
                    self._send(404, {"error": {"message": f"unknown path {self.path}"}})
                    return
                with outer._lock:
                    outer.requests.append(body)
                    outer.paths.append(self.path)
                reply = outer._next_reply(body)
                delay = reply.delay_s or outer.default_delay_s
                if delay:
                    time.sleep(delay)
                if reply.status != 200:
                    self._send(
                        reply.status,
                        {
                            "error": {
                                "message": reply.content or "error",
                                "type": "scripted",
                                "code": reply.status,
                            }
                        },
                        reply.extra_headers,
                    )
                    return
                self._send(200, outer._completion(body, reply), reply.extra_headers)

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return _Handler

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        n = reply.n or int(body.get("n") or 1)
        choice_logprobs = {"content": reply.logprobs} if reply.logprobs is not None else None
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": reply.content},
                "logprobs": choice_logprobs,
                "finish_reason": reply.finish_reason,
            }
            for i in range(n)
        ]
        return {
            "id": f"chatcmpl-{self.calls}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": choices,
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens * n,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens * n,
            },
        }
