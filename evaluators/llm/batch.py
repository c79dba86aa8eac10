"""Batch mode inside the LLM client: requests held back instead of sent.

While a :class:`BatchSession` is attached to an :class:`~evaluators.llm.client.LLMClient`
(``client.batch``), a request that misses the cache is not sent: it is recorded under its
cache key and the call raises :class:`BatchDeferred`, which ends that item's evaluation
for now. The job runner (``jobs/batch_mode.py``) sends the recorded requests as one
OpenAI batch, puts the replies into the cache and evaluates the items again, so replies
go through the same parser, validation and re-asks as online calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class BatchError(RuntimeError):
    """A Batch API call failed for good; the message says which and why.

    Declared here, not beside the Batch API calls, so that catching it (``cli.py
    evaluate``) does not import the ``openai`` package."""


class BatchDeferred(Exception):
    """The request was held back for the next batch (not an evaluation failure)."""


@dataclass
class BatchSession:
    """What one batch-mode evaluation pass collects, and what earlier batches taught.

    ``requests`` and ``records`` are keyed by cache key (the batch line's ``custom_id``).
    ``errors`` holds keys a batch answered with an error (they fail, never resend);
    ``fresh`` keys whose replies came from a batch of this run (paid now, so counted as
    calls with their usage, not as cache hits), ``brought`` those of them already read
    (a reply of this run is read again as it is, usable or not, so its re-ask follows).
    With ``final`` set, a miss fails.
    ``price_factor`` scales the online price for batch replies (1.0: no discount known).
    """

    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)
    brought: set[str] = field(default_factory=set)
    final: bool = False
    price_factor: float = 1.0

    def defer(self, key: str, record: dict[str, Any], body: dict[str, Any]) -> BatchDeferred:
        """Record a request for the next batch; returns the exception to raise."""
        self.requests[key] = body
        self.records[key] = record
        return BatchDeferred(key)
