"""A recording HTTP proxy on 127.0.0.1 in front of a real OpenAI-compatible server.

Every chat-completion request and the server's answer (status, body) are kept in
``proxy.exchanges``, so a test against a real model can count calls, read what was sent
and add up the usage the server reported.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evaluators.llm.negotiate import PROBE_TEXT


@dataclass
class Exchange:
    """One request and the server's answer."""

    request: dict[str, Any]
    status: int
    reply: Any

    @property
    def probe(self) -> bool:
        """True for the client's structured-output probe."""
        messages = self.request.get("messages") or [{}]
        return messages[0].get("content") == PROBE_TEXT

    @property
    def format(self) -> str | None:
        """The ``response_format`` type asked for (None: plain text)."""
        return (self.request.get("response_format") or {}).get("type")


class RecordingProxy:
    """Forwards ``POST``/``GET`` under ``/v1`` to ``target`` (a base URL ending in /v1)."""

    def __init__(self, target: str, timeout_s: float = 300.0) -> None:
        self.target = target.rstrip("/")
        self.timeout_s = timeout_s
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The proxy's base URL (ends with ``/v1``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def calls(self) -> list[Exchange]:
        """The chat-completion exchanges so far, probes left out."""
        with self._lock:
            return [e for e in self.exchanges if not e.probe]

    def probes(self) -> list[Exchange]:
        """The structured-output probes so far."""
        with self._lock:
            return [e for e in self.exchanges if e.probe]

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _forward(self, method: str, path: str, data: bytes | None) -> tuple[int, bytes]:
        url = self.target + path.removeprefix("/v1")
        headers = {"Content-Type": "application/json"}
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as reply:
                return int(reply.status), reply.read()
        except urllib.error.HTTPError as exc:
            return int(exc.code), exc.read()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._answer(*outer._forward("GET", self.path, None))

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, body = outer._forward("POST", self.path, data)
                if self.path.endswith("/chat/completions"):
                    try:
                        reply: Any = json.loads(body)
                    except ValueError:
                        reply = body.decode("utf-8", "replace")
                    with outer._lock:
                        outer.exchanges.append(Exchange(json.loads(data), status, reply))
                self._answer(status, body)

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return _Handler
