"""Cache keys for LLM requests and an in-memory cache for when no store is at hand.

A key is the sha256 of the model and every request parameter that can change the reply
(messages, temperature, n, response format, seed, logprobs ...). Sampling at temperature
above zero, and evaluators whose repeated runs must be distinct (FinGrAct averages three),
add a salt such as the run index, so run 2 is a new draw while a re-run of run 2 is a hit.
Nothing secret goes into the key or the stored request: no API key, no headers.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_PIECE = 2000


def request_record(model: str, params: dict[str, Any], salt: str | None) -> dict[str, Any]:
    """The JSON-ready request description that is hashed and stored with the reply."""
    record: dict[str, Any] = {"model": model, **params}
    if salt is not None:
        record["cache_salt"] = salt
    return record


def cache_key(record: dict[str, Any]) -> str:
    """sha256 of the canonical JSON form of a request record."""
    data = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    digest = hashlib.sha256()
    # Fed in pieces below hashlib's 2 KiB threshold, so the GIL is kept: releasing it for
    # microseconds of hashing costs the event loop a wait of up to the switch interval
    # (5 ms) behind the database threads, per item.
    for start in range(0, len(data), _PIECE):
        digest.update(data[start : start + _PIECE])
    return digest.hexdigest()


class MemoryCache:
    """A process-local :class:`evaluators.base.LLMCache` (tests, ad-hoc use)."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}

    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The cached response, or None."""
        return self.entries.get(key)

    def cache_get_many(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The cached responses of ``keys`` that have one."""
        return {k: self.entries[k] for k in keys if k in self.entries}

    def cache_put(
        self, key: str, model: str, request: dict[str, Any], response: dict[str, Any]
    ) -> None:
        """Keep the first response stored under ``key``."""
        self.entries.setdefault(key, response)
