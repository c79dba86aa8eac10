"""The stream transport of online calls: HTTP/1.1 keep-alive without an HTTP library."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from evaluators.llm.direct import APIConnectionError, APIStatusError, APITimeoutError
from evaluators.llm.streams import StreamChat, proxy_configured
from tests.support.scripted_llm import Reply, ScriptedLLM

BODY = {"model": "m", "messages": [{"role": "user", "content": "héllo"}]}
#: Answers one request on a connection: (raw request head + body) -> raw reply or None to hang up.
Script = Callable[[int, bytes], bytes | None]


def _reply(body: bytes, *extra: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", *extra]
    if not any(h.lower().startswith("transfer-encoding") for h in extra):
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def _with_server(
    script: Script, work: Callable[[str], Awaitable[Any]], tls: ssl.SSLContext | None = None
) -> Any:
    """Run ``work(base_url)`` against a raw server answering each request by ``script``
    (called with the request's number and bytes); returns what ``work`` returns. With
    ``tls`` the server speaks HTTPS."""
    count = {"requests": 0, "connections": 0}

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        count["connections"] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                request = head + await reader.readexactly(length)
                count["requests"] += 1
                answer = script(count["requests"], request)
                if answer is None:
                    break
                writer.write(answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    scheme = "https" if tls else "http"
    try:
        return await work(f"{scheme}://127.0.0.1:{port}/v1"), count
    finally:
        server.close()


def test_calls_reuse_one_connection_and_send_the_json_the_sdk_sends(
    scripted_llm: ScriptedLLM,
) -> None:
    scripted_llm.handler = lambda req: Reply(content='{"ok": true}')

    async def three_calls() -> list[Any]:
        chat = StreamChat(scripted_llm.base_url, "k", 10)
        opened: list[int] = []
        real_open = chat._open

        async def counted() -> Any:
            opened.append(1)
            return await real_open()

        chat._open = counted  # type: ignore[method-assign]
        try:
            replies = [await chat.chat(BODY) for _ in range(3)]
        finally:
            await chat.close()
        return [replies, len(opened)]

    replies, opened = asyncio.run(three_calls())
    assert [r["choices"][0]["message"]["content"] for r in replies] == ['{"ok": true}'] * 3
    assert opened == 1
    assert scripted_llm.requests[0] == BODY
    assert scripted_llm.paths == ["/v1/chat/completions"] * 3


def test_a_chunked_gzip_reply_is_decoded_and_the_connection_kept() -> None:
    payload = json.dumps({"choices": [], "n": 1}).encode()
    packed = gzip.compress(payload)
    chunked = (
        f"{len(packed[:10]):x}\r\n".encode()
        + packed[:10]
        + f"\r\n{len(packed[10:]):x};ext=1\r\n".encode()
        + packed[10:]
        + b"\r\n0\r\nX-Trailer: t\r\n\r\n"
    )
    seen: list[bytes] = []

    def script(n: int, request: bytes) -> bytes:
        seen.append(request)
        return _reply(chunked, "Transfer-Encoding: chunked", "Content-Encoding: gzip")

    async def work(url: str) -> list[Any]:
        chat = StreamChat(url, "secret", 10)
        try:
            return [await chat.chat(BODY), await chat.chat(BODY)]
        finally:
            await chat.close()

    replies, count = asyncio.run(_with_server(script, work))
    assert replies == [{"choices": [], "n": 1}] * 2
    assert count == {"requests": 2, "connections": 1}
    head, _, body = seen[0].partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nAuthorization: Bearer secret\r\n" in head
    assert json.loads(body) == BODY


def test_a_reused_connection_closed_by_the_server_is_tried_once_more_on_a_new_one() -> None:
    ok = _reply(b'{"answer": 1}')

    def script(n: int, request: bytes) -> bytes | None:
        return None if n == 2 else ok  # the second request: hang up without a reply

    async def work(url: str) -> list[Any]:
        chat = StreamChat(url, "k", 10)
        try:
            return [await chat.chat(BODY), await chat.chat(BODY)]
        finally:
            await chat.close()

    replies, count = asyncio.run(_with_server(script, work))
    assert replies == [{"answer": 1}] * 2
    assert count == {"requests": 3, "connections": 2}


def test_a_fresh_connection_that_closes_is_a_connection_error_and_close_is_honoured() -> None:
    def script(n: int, request: bytes) -> bytes | None:
        if n == 1:
            return _reply(b'{"a": 1}', "Connection: close")
        return None

    async def work(url: str) -> list[Any]:
        chat = StreamChat(url, "k", 10)
        try:
            first = await chat.chat(BODY)
            idle_after_close = len(chat._idle)
            with pytest.raises(APIConnectionError, match="^Connection error: the server closed"):
                await chat.chat(BODY)
            return [first, idle_after_close]
        finally:
            await chat.close()

    (first, idle), count = asyncio.run(_with_server(script, work))
    assert first == {"a": 1} and idle == 0
    assert count == {"requests": 2, "connections": 2}


def test_errors_carry_status_body_and_headers_and_a_slow_reply_times_out() -> None:
    def script(n: int, request: bytes) -> bytes | None:
        body = json.dumps({"error": {"message": "slow down"}}).encode()
        return _reply(body, "Retry-After: 3", status="429 Too Many Requests")

    async def work(url: str) -> APIStatusError:
        chat = StreamChat(url, "k", 10)
        try:
            with pytest.raises(APIStatusError) as caught:
                await chat.chat(BODY)
            return caught.value
        finally:
            await chat.close()

    error, _ = asyncio.run(_with_server(script, work))
    assert error.status_code == 429
    assert error.body == {"error": {"message": "slow down"}}
    assert error.headers.get("retry-after") == "3"

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)
        writer.close()

    async def timed_out() -> str:
        server = await asyncio.start_server(hang, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        chat = StreamChat(f"http://127.0.0.1:{port}/v1", "k", 0.2)
        try:
            with pytest.raises(APITimeoutError) as caught:
                await chat.chat(BODY)
            return str(caught.value)
        finally:
            await chat.close()
            server.close()

    assert asyncio.run(timed_out()) == "Request timed out."


def test_a_url_that_is_not_http_fails_each_call_as_a_connection_error() -> None:
    async def call() -> str:
        with pytest.raises(APIConnectionError) as caught:
            await StreamChat("localhost:8000/v1", "k", 1).chat(BODY)
        return str(caught.value)

    assert asyncio.run(call()) == (
        "Connection error: not an http(s) URL: localhost:8000/v1/chat/completions"
    )


def test_proxy_variables_send_calls_through_aiohttp_unless_no_proxy_exempts_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    url = "http://judge.example:8000/v1/chat/completions"
    assert not proxy_configured(url)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert not proxy_configured(url)  # a proxy for https only
    assert proxy_configured("https://api.example/v1/chat/completions")
    monkeypatch.setenv("ALL_PROXY", "http://proxy:3128")
    assert proxy_configured(url)
    monkeypatch.setenv("NO_PROXY", "judge.example")
    assert not proxy_configured(url)


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made by the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


def _tls_server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def _ok(n: int, request: bytes) -> bytes:
    return _reply(json.dumps({"choices": [], "n": n}).encode())


async def _two_calls(url: str) -> list[Any]:
    chat = StreamChat(url, "k", 10)
    try:
        return [await chat.chat(BODY), await chat.chat(BODY)]
    finally:
        await chat.close()


def test_an_https_endpoint_is_verified_and_its_connection_kept(tmp_path, monkeypatch) -> None:
    """A hosted endpoint speaks TLS: a certificate the system trusts (here: ours, named by
    SSL_CERT_FILE as a company CA would be) is accepted and the connection reused."""
    cert, key = _self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    replies, count = asyncio.run(_with_server(_ok, _two_calls, _tls_server_context(cert, key)))
    assert [r["n"] for r in replies] == [1, 2]
    assert count == {"requests": 2, "connections": 1}


def test_an_untrusted_certificate_is_refused_not_ignored(tmp_path, monkeypatch) -> None:
    cert, key = _self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "no-such-ca.pem"))
    with pytest.raises(APIConnectionError) as caught:
        asyncio.run(_with_server(_ok, _two_calls, _tls_server_context(cert, key)))
    assert "certificate" in str(caught.value).lower()


def test_a_gzip_bomb_reply_stops_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1 KiB cap shows the same bound as the real 64 MiB one: 4 KiB of zeros gzipped to
    a few dozen bytes is a connection error, not 4 KiB (or 4 GB) in memory."""
    from evaluators.llm import streams

    monkeypatch.setattr(streams, "MAX_BODY", 1024)
    packed = gzip.compress(b"0" * 4096)
    assert len(packed) < 100

    def script(n: int, request: bytes) -> bytes:
        return _reply(packed, "Content-Encoding: gzip")

    async def work(url: str) -> str:
        chat = StreamChat(url, "k", 10)
        try:
            with pytest.raises(APIConnectionError) as caught:
                await chat.chat(BODY)
            return str(caught.value)
        finally:
            await chat.close()

    message, _ = asyncio.run(_with_server(script, work))
    assert message == "Connection error: a reply body over 1,024 bytes"
