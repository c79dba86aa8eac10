"""Fetch one URL safely: checked addresses, manual redirects, timeouts, a body cap.

Only http and https are fetched. Before each connection (the first and every redirect)
the host is resolved and checked by :mod:`evaluators.ucr.safety`; the request then goes
to that checked address with the original Host header (and, for https, the original
name for SNI and certificate checks), so DNS cannot be rebound between check and
connect. Only text/html and text/plain bodies are read, and reading stops at the cap.

When private addresses are allowed, the record notes the first non-public address it
connected to (``private_address``), so a stored page is not served later under a policy
that refuses such addresses.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from evaluators.ucr.extract import html_to_text
from evaluators.ucr.safety import RefusedAddress, forbidden_reason, resolve_checked

ALLOWED_TYPES = ("text/html", "text/plain")
USER_AGENT = "metric-audit-workbench-ucr/1 (+fact-check source retrieval)"


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
    except httpx.HTTPError as exc:
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
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) >= limits.max_bytes:
            del body[limits.max_bytes :]
            record["truncated"] = True
            break
    text = body.decode(response.charset_encoding or "utf-8", errors="replace")
    if media == "text/html":
        text, method = html_to_text(text)
    else:
        method = "plain"
    record["text"], record["extraction"] = text, method
    if not text:
        record["error"] = "the page has no extractable text (JavaScript-only or image content)"
