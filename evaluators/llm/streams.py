"""Chat completions over asyncio streams: HTTP/1.1 keep-alive without an HTTP library.

An online call is one JSON POST and one JSON reply. Importing aiohttp costs an
``evaluate`` process about 0.2 s of CPU before its first call (its connector builds two
TLS contexts at import, reading the system's certificates), and each call pays for its
request and response objects. :class:`StreamChat` writes the request itself and reads
the reply with asyncio's streams: the status line, the headers, then a body of
``Content-Length`` bytes, chunked, or up to the close (gzip and deflate are decoded).

Connections are kept alive and reused. An idle connection the server has closed is
dropped before use; a reused connection that closes before any byte of the reply is
tried once more on a fresh one (the keep-alive race every HTTP client meets). A TLS
context is built only for an ``https`` endpoint. Proxies are aiohttp's job:
:func:`proxy_configured` tells the client when to use :class:`~evaluators.llm.direct.
DirectChat` instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import zlib
from typing import Any
from urllib.parse import urlsplit

from evaluators.llm.direct import (
    APIConnectionError,
    APITimeoutError,
    answer,
    default_headers,
    endpoint_url,
)

#: Longest status line plus headers accepted.
_HEAD_LIMIT = 1 << 20
#: Largest reply body accepted, as sent and once inflated (a judge's reply is a few KB).
MAX_BODY = 64 << 20
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class _Closed(Exception):
    """The connection closed before the reply's first byte."""


def proxy_configured(url: str) -> bool:
    """True when a proxy variable applies to ``url`` (then aiohttp sends the request)."""
    if not any(name.lower() in _PROXY_VARIABLES for name in os.environ):
        return False
    import urllib.request  # only when some proxy variable is set

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if parts.scheme not in proxies and "all" not in proxies:
        return False
    return not urllib.request.proxy_bypass_environment(parts.netloc, proxies)


class StreamChat:
    """``POST {base_url}/chat/completions`` on keep-alive connections of the running loop."""

    def __init__(self, base_url: str | None, api_key: str, timeout_s: float) -> None:
        url = endpoint_url(base_url)
        parts = urlsplit(url)
        self._tls = parts.scheme == "https"
        self._host = parts.hostname or ""
        try:
            self._port = parts.port or (443 if self._tls else 80)
        except ValueError:  # a port that is not a number
            self._port = 0
        # A URL that cannot be reached fails each call (and is retried) like a dead host.
        self._bad_url = (
            None
            if parts.scheme in ("http", "https") and self._host and self._port
            else f"not an http(s) URL: {url}"
        )
        self._timeout = timeout_s
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc.rpartition('@')[2]}"]
        headers = {**default_headers(api_key), "Accept-Encoding": "gzip, deflate"}
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self._idle: list[Connection] = []
        self._ssl: Any = None

    async def chat(self, body: dict[str, Any]) -> Any:
        """The parsed reply; HTTP errors, timeouts and lost connections as ``APIError``."""
        if self._bad_url:
            raise APIConnectionError(f"Connection error: {self._bad_url}")
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = b"".join((self._head, str(len(data)).encode(), b"\r\n\r\n", data))
        try:
            async with asyncio.timeout(self._timeout):
                status, headers, raw = await self._exchange(request)
        except TimeoutError:
            raise APITimeoutError("Request timed out.") from None
        except (
            OSError,
            EOFError,
            ValueError,
            zlib.error,
            asyncio.LimitOverrunError,
            _Closed,
        ) as exc:
            raise APIConnectionError(f"Connection error: {exc or type(exc).__name__}") from None
        return answer(status, headers, raw)

    async def close(self) -> None:
        """Close the idle connections."""
        idle, self._idle = self._idle, []
        for _, writer in idle:
            writer.close()
        for _, writer in idle:
            try:
                await writer.wait_closed()
            except (OSError, asyncio.CancelledError):  # already gone
                pass

    async def _exchange(self, request: bytes) -> tuple[int, dict[str, str], bytes]:
        conn, reused = await self._connection()
        try:
            try:
                return await self._send(conn, request)
            except _Closed:
                if not reused:
                    raise
            conn[1].close()
            conn = await self._open()
            return await self._send(conn, request)
        except BaseException:
            conn[1].close()
            raise

    async def _send(self, conn: Connection, request: bytes) -> tuple[int, dict[str, str], bytes]:
        reader, writer = conn
        writer.write(request)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise _Closed("the server closed the connection") from None
            raise
        except ConnectionResetError:
            raise _Closed("the server reset the connection") from None
        status, version, headers = _head(head)
        while 100 <= status < 200:  # an interim reply (100 Continue): the real one follows
            status, version, headers = _head(await reader.readuntil(b"\r\n\r\n"))
        keep = version != "HTTP/1.0" and "close" not in headers.get("connection", "").lower()
        if status in (204, 304):
            raw = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            raw = await _chunked(reader)
        elif "content-length" in headers:
            raw = await reader.readexactly(_within_cap(int(headers["content-length"])))
        else:
            raw, keep = await reader.read(), False
        encoding = headers.get("content-encoding", "").lower()
        if encoding in ("gzip", "deflate"):
            inflate = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding == "gzip" else 15)
            raw = inflate.decompress(raw, MAX_BODY + 1)  # a gzip bomb stops at the cap
            _within_cap(len(raw))
        if keep:
            self._idle.append(conn)
        else:
            writer.close()
        return status, headers, raw

    async def _connection(self) -> tuple[Connection, bool]:
        """An idle connection still open (and True), or a new one (and False)."""
        while self._idle:
            reader, writer = self._idle.pop()
            if reader.at_eof() or writer.is_closing():
                writer.close()
                continue
            return (reader, writer), True
        return await self._open(), False

    async def _open(self) -> Connection:
        if not self._tls:
            return await asyncio.open_connection(self._host, self._port, limit=_HEAD_LIMIT)
        if self._ssl is None:
            import ssl

            self._ssl = ssl.create_default_context()
            self._ssl.set_alpn_protocols(["http/1.1"])
        return await asyncio.open_connection(
            self._host, self._port, ssl=self._ssl, server_hostname=self._host, limit=_HEAD_LIMIT
        )


def _head(raw: bytes) -> tuple[int, str, dict[str, str]]:
    """Status, HTTP version and headers (lower-case names) of a reply's head."""
    lines = raw.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    if not version.startswith("HTTP/"):
        raise ValueError(f"not an HTTP reply: {lines[0][:80]!r}")
    status = int(rest[:3])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return status, version, headers


def _within_cap(size: int) -> int:
    if size > MAX_BODY:
        raise ValueError(f"a reply body over {MAX_BODY:,} bytes")
    return size


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    """A chunked body (the trailers, if any, are read and dropped)."""
    parts: list[bytes] = []
    total = 0
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0].strip(), 16)
        total = _within_cap(total + size)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
