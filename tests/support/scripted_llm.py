"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benches.

The real ``openai`` client talks to it over HTTP. A test decides every reply:

    with ScriptedLLM() as server:
        server.queue(Reply(content='{"score": 1.0}'))          # next call gets this
        server.handler = lambda req: Reply(content="...")       # or decide per request
        client = openai.OpenAI(base_url=server.base_url, api_key="test")

Replies can carry an HTTP status (429, 500 ...), a delay, logprobs and usage. Every
request body is recorded in ``server.requests``; ``server.calls`` counts them.

The Batch API is served too: ``POST /v1/files`` (multipart upload), ``GET
/v1/files/ID/content``, ``POST /v1/batches``, ``GET /v1/batches[/ID]`` and ``POST
/v1/batches/ID/cancel``. A batch stays ``in_progress`` while ``server.hold_batches`` is
set; the first retrieve after that answers every line with the scripted replies (a
status other than 200 becomes a line of the error file) and completes it. Line bodies go
to ``server.batch_requests``, not ``requests``; ``server.batch_creates`` counts creates.

Structured output: the client's probe of the output modes (one short request before a
run, :mod:`evaluators.llm.negotiate`) is answered apart, recorded in ``server.probes``
and not in ``requests``; ``server.refuse["json_schema"] = (500, "message")`` makes the
server refuse that ``response_format`` type, in probes and in ordinary requests alike
(as llama-cpp-python's server refuses ``json_schema``).

Faults: ``server.fail(op, status, times)`` makes the next ``times`` calls of one Batch API
operation (``create``, ``retrieve``, ``list``, ``content``) answer ``status``; with
``after=True`` a ``create`` makes its batch first and then answers the error (the batch
exists, the client never heard of it). ``Reply(body=...)`` sends that JSON as the
completion body, online and in a batch output line (a malformed reply).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evaluators.llm.negotiate import PROBE_TEXT


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
    body: Any = None  # sent instead of the completion (a malformed reply)


@dataclass
class Fault:
    """The next ``times`` calls of a Batch API operation answer ``status``."""

    op: str
    status: int
    times: int = 1
    after: bool = False  # create: make the batch, then answer the error
    match: str = ""  # only calls whose path contains this (a file id)


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
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_requests: list[dict[str, Any]] = []
        self.batch_creates = 0
        self.batch_retrieves = 0
        self.hold_batches = False
        self.faults: list[Fault] = []
        self.probes: list[dict[str, Any]] = []
        #: response_format type -> (HTTP status, error message) this server answers it with.
        self.refuse: dict[str, tuple[int, str]] = {}
        self.fault_hits: list[tuple[str, int]] = []
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

    def wait_for_calls(self, n: int, timeout_s: float = 10.0) -> int:
        """The number of requests once ``n`` have arrived, or after ``timeout_s``.

        A client that timed out has sent its request; on a busy machine the server's
        thread may read it a moment after the client has given up and moved on.
        """
        deadline = time.monotonic() + timeout_s
        while self.calls < n and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.calls

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
            self.probes.clear()
            self.paths.clear()
            self._queue.clear()

    def fail(
        self, op: str, status: int, times: int = 1, after: bool = False, match: str = ""
    ) -> None:
        """Script ``times`` failures of one Batch API operation (see the module doc)."""
        with self._lock:
            self.faults.append(Fault(op, status, times, after, match))

    def _fault(self, op: str, path: str = "") -> Fault | None:
        """The fault for this call of ``op``, if one is scripted (used up as it fires)."""
        with self._lock:
            for fault in self.faults:
                if fault.op == op and fault.times > 0 and fault.match in path:
                    fault.times -= 1
                    self.fault_hits.append((op, fault.status))
                    return fault
        return None

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
                path = self.path.split("?")[0].rstrip("/")
                if "/files/" in path or "/batches" in path:
                    status, payload = outer._batch_get(path)
                    if isinstance(payload, bytes):
                        self._send_bytes(status, payload)
                    else:
                        self._send(status, payload)
                elif path.endswith("/models"):
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
                data = self.rfile.read(length)
                path = self.path.split("?")[0].rstrip("/")
                if path.endswith("/files"):
                    self._send(*outer._upload(self.headers.get("Content-Type", ""), data))
                    return
                if "/batches" in path:
                    self._send(*outer._batch_post(path, json.loads(data or b"{}")))
                    return
                body = json.loads(data or b"{}")
                if "chat/completions" not in self.path:
                    self._send(404, {"error": {"message": f"unknown path {self.path}"}})
                    return
                fmt = (body.get("response_format") or {}).get("type")
                refusal = outer.refuse.get(fmt) if fmt else None
                messages = body.get("messages") or [{}]
                probing = messages[0].get("content") == PROBE_TEXT
                with outer._lock:
                    (outer.probes if probing else outer.requests).append(body)
                    if not probing:
                        outer.paths.append(self.path)
                if refusal is not None:
                    reply = Reply(status=refusal[0], content=refusal[1])
                elif probing:
                    reply = Reply(content='{"ok": true}')
                else:
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
                payload = reply.body if reply.body is not None else outer._completion(body, reply)
                self._send(200, payload, reply.extra_headers)

            def _send(
                self, status: int, payload: Any, headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_bytes(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return _Handler

    # -- Batch API ----------------------------------------------------------------------
    def _upload(self, content_type: str, data: bytes) -> tuple[int, dict[str, Any]]:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + data
        )
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
        if "file" not in fields:
            return 400, {"error": {"message": "no file part"}}
        purpose = fields.get("purpose", (None, b""))[1].decode()
        return 200, self._add_file(fields["file"][1], fields["file"][0] or "upload", purpose)

    def _add_file(self, content: bytes, filename: str, purpose: str) -> dict[str, Any]:
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            meta = {
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": filename,
                "purpose": purpose,
                "status": "processed",
            }
            self.files[file_id] = {**meta, "content": content}
        return meta

    def _batch_post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path.endswith("/cancel"):
            batch = self.batches.get(path.split("/")[-2])
            if batch is None:
                return 404, {"error": {"message": "no such batch"}}
            batch["status"] = "cancelled"
            return 200, batch
        if body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "unknown input_file_id"}}
        fault = self._fault("create")
        if fault is not None and not fault.after:
            return _fault_reply(fault)
        with self._lock:
            self.batch_creates += 1
            batch_id = f"batch-{len(self.batches) + 1}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body.get("endpoint"),
                "input_file_id": body["input_file_id"],
                "completion_window": body.get("completion_window", "24h"),
                "status": "in_progress",
                "created_at": int(time.time()),
                "metadata": body.get("metadata"),
                "output_file_id": None,
                "error_file_id": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
            }
        if fault is not None:
            return _fault_reply(fault)
        return 200, self.batches[batch_id]

    def _batch_get(self, path: str) -> tuple[int, dict[str, Any] | bytes]:
        parts = path.split("/")
        op = (
            "content"
            if path.endswith("/content")
            else "list"
            if parts[-1] == "batches"
            else "retrieve"
            if parts[-2] == "batches"
            else "file"
        )
        fault = self._fault(op, path)
        if fault is not None:
            return _fault_reply(fault)
        if path.endswith("/content"):
            file = self.files.get(parts[-2])
            return (200, file["content"]) if file else (404, {"error": {"message": "no file"}})
        if parts[-2] == "files":
            file = self.files.get(parts[-1])
            if file is None:
                return 404, {"error": {"message": "no file"}}
            return 200, {k: v for k, v in file.items() if k != "content"}
        if parts[-1] == "batches":
            return 200, {"object": "list", "data": list(self.batches.values()), "has_more": False}
        batch = self.batches.get(parts[-1])
        if batch is None:
            return 404, {"error": {"message": "no such batch"}}
        with self._lock:
            self.batch_retrieves += 1
        if batch["status"] == "in_progress" and not self.hold_batches:
            self._complete(batch)
        return 200, batch

    def _complete(self, batch: dict[str, Any]) -> None:
        """Answer every line of the batch's input file; finish it."""
        out: list[str] = []
        errors: list[str] = []
        usage = {"input_tokens": 0, "output_tokens": 0}
        for n, line in enumerate(self.files[batch["input_file_id"]]["content"].splitlines()):
            if not line.strip():
                continue
            request = json.loads(line)
            body = request["body"]
            with self._lock:
                self.batch_requests.append(body)
            reply = self._next_reply(body)
            if reply.status != 200:
                error = {"code": str(reply.status), "message": reply.content or "error"}
                errors.append(
                    json.dumps(
                        {
                            "id": f"r{n}",
                            "custom_id": request["custom_id"],
                            "response": None,
                            "error": error,
                        }
                    )
                )
                continue
            completion = self._completion(body, reply)
            usage["input_tokens"] += completion["usage"]["prompt_tokens"]
            usage["output_tokens"] += completion["usage"]["completion_tokens"]
            if reply.body is not None:
                completion = reply.body
            response = {"status_code": 200, "request_id": f"req{n}", "body": completion}
            out.append(
                json.dumps(
                    {
                        "id": f"r{n}",
                        "custom_id": request["custom_id"],
                        "response": response,
                        "error": None,
                    }
                )
            )
        if out:
            batch["output_file_id"] = self._add_file(
                ("\n".join(out) + "\n").encode(), "output.jsonl", "batch_output"
            )["id"]
        if errors:
            batch["error_file_id"] = self._add_file(
                ("\n".join(errors) + "\n").encode(), "errors.jsonl", "batch_output"
            )["id"]
        total = len(out) + len(errors)
        batch["request_counts"] = {"total": total, "completed": len(out), "failed": len(errors)}
        batch["usage"] = {
            **usage,
            "total_tokens": usage["input_tokens"] + usage["output_tokens"],
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        batch["status"] = "completed"
        batch["completed_at"] = int(time.time())

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


def _fault_reply(fault: Fault) -> tuple[int, dict[str, Any]]:
    return fault.status, {
        "error": {"message": f"scripted fault {fault.status}", "type": "scripted"}
    }
