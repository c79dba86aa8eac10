"""URL Content Retriever (UCR): fetch the links of an explanation and condense them.

:func:`retrieve` takes the URLs found in an explanation, fetches each one safely (see
:mod:`evaluators.ucr.fetch`), keeps the fetch record in the page store so a re-run reuses
what was fetched then (reproducible when the web has changed), and condenses each text
to a token budget, ranked against the claim and its corrections.

A stored page is served only under an address policy that would have allowed fetching
it: with private addresses refused (the default), a page that came from a loopback or
private address -- noted in the record, or visible in its URL, redirects or final URL
-- is refused as a fresh fetch would be, without network access and without touching
the stored record.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import httpx

from evaluators.base import PageStore
from evaluators.ucr.condense import condense
from evaluators.ucr.fetch import FetchLimits, fetch_url, new_record
from evaluators.ucr.safety import static_host_reason

# A host in brackets is an IPv6 literal (kept whole); elsewhere "]" ends a link, as in
# Markdown's [text](url) or [url].
_URL = re.compile(
    r"https?://(?:\[[0-9a-f:.]+(?:%25[\w.~-]+)?\][^\s<>\"'\]`]*|[^\s<>\"'\]`]+)", re.I
)
_TRAILING = ".,;:!?'\""


def allow_private_default() -> bool:
    """``WORKBENCH_UCR_ALLOW_PRIVATE`` (off unless set to 1/true/yes)."""
    return os.environ.get("WORKBENCH_UCR_ALLOW_PRIVATE", "").strip().lower() in ("1", "true", "yes")


def extract_urls(text: str) -> list[str]:
    """http(s) URLs in ``text``, in order, without duplicates or trailing punctuation."""
    out: list[str] = []
    for match in _URL.finditer(text or ""):
        url = match.group(0).rstrip(_TRAILING)
        while url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1].rstrip(_TRAILING)
        if url not in out:
            out.append(url)
    return out


@dataclass(frozen=True)
class UCRSettings:
    """Limits and condensation settings of one retrieval."""

    allow_private: bool = False
    max_links: int = 5
    max_bytes: int = 2_000_000
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 10.0
    max_redirects: int = 5
    token_budget: int = 400  # per link
    condense: str = "auto"  # auto | embedding | leading
    refetch: bool = False  # ignore stored records and fetch again

    def limits(self) -> FetchLimits:
        """The network limits for :func:`fetch_url`."""
        return FetchLimits(
            allow_private=self.allow_private,
            max_bytes=self.max_bytes,
            connect_timeout_s=self.connect_timeout_s,
            read_timeout_s=self.read_timeout_s,
            max_redirects=self.max_redirects,
        )


async def retrieve(
    urls: list[str], query: str, settings: UCRSettings, pages: PageStore | None = None
) -> list[dict[str, Any]]:
    """One record per URL (up to ``max_links``) with ``condensed`` text added."""
    records = []
    for url in urls[: settings.max_links]:
        record = None if settings.refetch or pages is None else pages.page_get(url)
        if record is not None and not settings.allow_private:
            reason = stored_private_reason(record)
            if reason:
                record = new_record(url)
                record["error"] = (
                    f"the stored page came from a non-public address ({reason}); "
                    "refused because private addresses are not allowed"
                )
                record["refused"] = True
        reused = record is not None and not record.get("refused")
        if record is None:
            record = await fetch_url(url, settings.limits())
        text = record.get("text") or ""
        condensed, method = condense(text, query, settings.token_budget, settings.condense)
        record = {**record, "condensed": condensed, "condense_method": method}
        if pages is not None and not reused and not record.get("refused"):
            pages.page_put(url, record)  # policy refusals are not facts about the web
        records.append({**record, "reused": reused})
    return records


def stored_private_reason(record: dict[str, Any]) -> str | None:
    """Why a stored fetch record came from a non-public address, or None.

    Records name the address themselves (``private_address``); for older records the
    URL, every redirect and the final URL are checked without DNS (literals, localhost).
    """
    if record.get("private_address"):
        return str(record["private_address"])
    for url in [record.get("url"), *(record.get("redirects") or []), record.get("final_url")]:
        if not url:
            continue
        try:
            host = httpx.URL(str(url)).host
        except (httpx.InvalidURL, TypeError, ValueError):
            continue
        reason = static_host_reason(host) if host else None
        if reason:
            return f"{host} ({reason})"
    return None


def render_records(records: list[dict[str, Any]]) -> str:
    """The retrieved content as prompt text, one block per link."""
    if not records:
        return "(the explanation contains no link)"
    blocks = []
    for i, rec in enumerate(records, 1):
        status = rec.get("status")
        head = f"Link {i}: {rec['url']} -- HTTP status: {status if status is not None else 'none'}"
        if rec.get("error"):
            head += f" -- problem: {rec['error']}"
        body = rec.get("condensed") or "(no text could be retrieved from this link)"
        blocks.append(f"{head}\n{body}")
    return "\n\n".join(blocks)
