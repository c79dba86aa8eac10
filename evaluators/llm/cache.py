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
from typing import Any, Protocol

_PIECE = 2000
#: Marks where a pre-serialised value goes (no request text contains it).
_STAND_IN = "\u0000workbench-serialised-value-6f1c\u0000"


def request_record(model: str, params: dict[str, Any], salt: str | None) -> dict[str, Any]:
    """The JSON-ready request description that is hashed and stored with the reply."""
    record: dict[str, Any] = {"model": model, **params}
    if salt is not None:
        record["cache_salt"] = salt
    return record


#: ``json.dumps(..., sort_keys=True, ensure_ascii=False, default=str)`` made once: dumps
#: builds a new encoder per call when given options, which costs more than a small record.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
#: Pre-serialised values' markers and their JSON text, by position in a key's ``known``.
_MARKERS = [(f"{_STAND_IN}{n}", _ENCODER.encode(f"{_STAND_IN}{n}")) for n in range(4)]


def canonical_json(record: Any) -> str:
    """The canonical JSON text that is hashed into a key (sorted keys, no ASCII escaping)."""
    return _ENCODER.encode(record)


def digest(text: str) -> str:
    """sha256 hex of ``text``."""
    data = text.encode("utf-8")
    sha = hashlib.sha256()
    # Fed in pieces below hashlib's 2 KiB threshold, so the GIL is kept: releasing it for
    # microseconds of hashing costs the event loop a wait of up to the switch interval
    # (5 ms) behind the database threads, per item.
    for start in range(0, len(data), _PIECE):
        sha.update(data[start : start + _PIECE])
    return sha.hexdigest()


def cache_key(record: dict[str, Any]) -> str:
    """sha256 of the canonical JSON form of a request record."""
    return digest(canonical_json(record))


def cache_key_with(record: dict[str, Any], path: tuple[str, str], value_json: str) -> str:
    """:func:`cache_key` of ``record`` whose ``record[path[0]][path[1]]`` is a value
    whose canonical JSON (``value_json``) the caller already has (a JSON schema, the same
    for every item): the same key, without serialising the value again per request."""
    return cache_key_parts(record, {path: value_json})


def cache_key_parts(record: dict[str, Any], known: dict[tuple[str, ...], str]) -> str:
    """:func:`cache_key` of ``record`` where the values at the given paths (one or two
    keys deep) already have their canonical JSON text (a schema, rendered messages)."""
    if len(known) > len(_MARKERS):
        return cache_key(record)
    stand_in = dict(record)
    for (path, _), (marker, _) in zip(known.items(), _MARKERS, strict=False):
        if len(path) == 1:
            stand_in[path[0]] = marker
        else:
            outer, inner = path
            stand_in[outer] = {**stand_in[outer], inner: marker}
    text = canonical_json(stand_in)
    for value_json, (_, marker_json) in zip(known.values(), _MARKERS, strict=False):
        text = text.replace(marker_json, value_json, 1)
    return digest(text)


class LLMCache(Protocol):
    """Persistent response cache (the store implements it; ``evaluators.base`` re-exports
    it). Declared here, beside the keys, so the client need not import ``evaluators.base``."""

    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The stored response for ``key``, or None."""
        ...

    def cache_put(
        self, key: str, model: str, request: dict[str, Any], response: dict[str, Any]
    ) -> None:
        """Store a response under ``key``."""
        ...


class MemoryCache:
    """A process-local :class:`LLMCache` (tests, ad-hoc use)."""

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
