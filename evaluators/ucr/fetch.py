"""Fetch one URL safely: checked addresses, manual redirects, timeouts, a body cap.

Only http and https are fetched. Before each connection (the first and every redirect)
the host is resolved and checked by :mod:`evaluators.ucr.safety`; the request then goes
to that checked address with the original Host header (and, for https, the original
name for SNI and certificate checks), so DNS cannot be rebound between check and
connect. Only text/html and text/plain bodies are read, and reading stops at the cap;
compressed bodies (gzip, deflate) are inflated in steps bounded by what is left of the
cap, so a small compressed body cannot inflate into memory first (gzip bomb).

When private addresses are allowed, the record notes the first non-public address it
connected to (``private_address``), so a stored page is not served later under a policy
that refuses such addresses.
"""

from __future__ import annotations

import asyncio
import codecs
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from evaluators.ucr.extract import html_to_text
from evaluators.ucr.safety import RefusedAddress, forbidden_reason, resolve_checked

ALLOWED_TYPES = ("text/html", "text/plain")
USER_AGENT = "metric-audit-workbench-ucr/1 (+fact-check source retrieval)"
#: Content encodings this module inflates itself (with a bounded buffer).
ENCODINGS = ("gzip", "deflate")


@dataclass(frozen=True)
class FetchLimits:
    """Network limits of one fetch."""

    allow_private: bool = False
    max_bytes: int = 2_000_000
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 10.0
    total_timeout_s: float = 30.0
    max_redirects: int = 5


def new_record(url: str) -> dict[str, Any]:
    """An empty fetch record (what the page store keeps)."""
    return {
        "url": url,
        "final_url": None,
        "status": None,
        "content_type": None,
        "text": "",
        "extraction": None,
        "truncated": False,
        "redirects": [],
        "error": None,
        "refused": False,
        "private_address": None,  # e.g. "127.0.0.1 (loopback)" when one was contacted
        "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


async def fetch_url(url: str, limits: FetchLimits) -> dict[str, Any]:
    """Fetch ``url`` and return its record; failures are recorded, never raised."""
    record = new_record(url)
    try:
        await asyncio.wait_for(_fetch(url, limits, record), limits.total_timeout_s)
    except RefusedAddress as exc:
        record["error"], record["refused"] = str(exc), True
    except TimeoutError:
        record["error"] = f"timed out after {limits.total_timeout_s:g} s"
    except httpx.TimeoutException as exc:
        record["error"] = f"timed out: {type(exc).__name__}"
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        record["error"] = f"{type(exc).__name__}: {exc}"
    except (ValueError, LookupError, OSError, zlib.error) as exc:  # a hostile link's failure
        record["error"] = f"{type(exc).__name__}: {exc}"
    return record


async def _fetch(url: str, limits: FetchLimits, record: dict[str, Any]) -> None:
    timeout = httpx.Timeout(limits.read_timeout_s, connect=limits.connect_timeout_s)
    async with httpx.AsyncClient(
        timeout=timeout, follow_redirects=False, trust_env=False
    ) as client:  # no proxy may bypass checks
        current = url
        for hop in range(limits.max_redirects + 1):
            target = httpx.URL(current)
            if target.scheme not in ("http", "https"):
                raise RefusedAddress(f"scheme {target.scheme!r} is not fetched (http/https only)")
            port = target.port or (443 if target.scheme == "https" else 80)
            resolved = await resolve_checked(target.host, port, limits.allow_private)
            reason = forbidden_reason(resolved.address)
            if reason and not record["private_address"]:
                record["private_address"] = f"{resolved.address} ({reason})"
            request = client.build_request(
                "GET",
                target.copy_with(host=str(resolved.address)),
                headers={
                    "Host": target.netloc.decode("ascii"),
                    "User-Agent": USER_AGENT,
                    "Accept": "text/html, text/plain;q=0.9",
                    "Accept-Encoding": ", ".join(ENCODINGS),
                },
                extensions={"sni_hostname": target.host} if target.scheme == "https" else {},
            )
            response = await client.send(request, stream=True)
            try:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    if hop == limits.max_redirects:
                        record["error"] = f"more than {limits.max_redirects} redirects"
                        return
                    current = str(target.join(location))
                    record["redirects"].append(current)
                    continue
                await _read(response, current, limits, record)
                return
            finally:
                await response.aclose()


async def _read(
    response: httpx.Response, url: str, limits: FetchLimits, record: dict[str, Any]
) -> None:
    record["final_url"] = url
    record["status"] = response.status_code
    media = (response.headers.get("content-type") or "").split(";")[0].strip().lower()
    record["content_type"] = media or None
    if response.status_code >= 400:
        record["error"] = f"HTTP {response.status_code}"
        return
    if media not in ALLOWED_TYPES:
        record["error"] = f"content type {media or 'unknown'!r} is not text/html or text/plain"
        return
    charset = response.charset_encoding or "utf-8"
    try:
        codecs.lookup(charset)
    except LookupError:
        record["error"] = f"unknown charset {charset[:40]!r}"
        return
    encoding = (response.headers.get("content-encoding") or "identity").strip().lower()
    if encoding not in (*ENCODINGS, "identity", ""):
        record["error"] = f"content encoding {encoding[:40]!r} is not {' or '.join(ENCODINGS)}"
        return
    decoder = BoundedInflater(encoding, limits.max_bytes)
    async for chunk in response.aiter_raw():
        decoder.feed(chunk)
        if decoder.full:
            break
    record["truncated"] = decoder.full
    text = bytes(decoder.body).decode(charset, errors="replace")
    if media == "text/html":
        text, method = html_to_text(text)
    else:
        method = "plain"
    record["text"], record["extraction"] = text, method
    if not text:
        record["error"] = "the page has no extractable text (JavaScript-only or image content)"


class BoundedInflater:
    """Decode a (possibly compressed) body into at most ``cap`` bytes.

    Every inflate step asks zlib for no more than what is left of the cap, so memory
    stays near ``cap`` whatever the compression ratio; ``inflated`` counts the bytes
    produced, ``full`` says the cap was reached.
    """

    def __init__(self, encoding: str, cap: int) -> None:
        self.cap, self.body, self.inflated, self.full = cap, bytearray(), 0, False
        self._zlib: Any = None
        self._raw_fallback = encoding == "deflate"  # some servers send raw deflate
        if encoding == "gzip":
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()

    def feed(self, chunk: bytes) -> None:
        """Add one network chunk; stop (``full``) once the cap is reached."""
        if self.full:
            return
        if self._zlib is None:
            self._append(chunk)
            return
        data = chunk
        while data and not self.full and not self._zlib.eof:
            try:
                out = self._zlib.decompress(data, self.cap - len(self.body) + 1)
            except zlib.error:
                if not self._raw_fallback:
                    raise
                self._zlib, self._raw_fallback = zlib.decompressobj(-zlib.MAX_WBITS), False
                continue
            self._raw_fallback = False
            self._append(out)
            data = self._zlib.unconsumed_tail

    def _append(self, data: bytes) -> None:
        self.inflated += len(data)
        self.body.extend(data[: self.cap - len(self.body)])
        self.full = len(self.body) >= self.cap
