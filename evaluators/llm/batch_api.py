"""The OpenAI Batch API through the ``openai`` client: upload, create, poll, read back.

Requests are written as JSONL (one chat completion per line, ``custom_id`` = the cache
key), uploaded with ``files.create(purpose="batch")`` and submitted with
``batches.create``. Output and error files are read with ``files.content`` and turned
into cache entries (replies) and error messages (failed lines) by :func:`read_results`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Batch states after which nothing more will come.
FINISHED = ("completed", "failed", "expired", "cancelled")
ENDPOINT = "/v1/chat/completions"


@dataclass
class BatchOutcome:
    """What a finished batch brought: replies and errors by custom id, and its usage."""

    replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0


def requests_jsonl(requests: Mapping[str, Mapping[str, Any]]) -> bytes:
    """One batch input line per request (``custom_id`` = key), in key order."""
    lines = [
        json.dumps(
            {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": dict(requests[key])},
            ensure_ascii=False,
        )
        for key in sorted(requests)
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


async def upload(client: Any, requests: Mapping[str, Mapping[str, Any]]) -> str:
    """Upload the requests as a batch input file; returns its id."""
    file = await client.files.create(
        file=("workbench-batch.jsonl", requests_jsonl(requests), "application/jsonl"),
        purpose="batch",
    )
    return str(file.id)


async def create(client: Any, input_file_id: str, state_key: str) -> Any:
    """Submit a batch over an uploaded file (the state key is kept in its metadata)."""
    return await client.batches.create(
        input_file_id=input_file_id,
        endpoint=ENDPOINT,
        completion_window="24h",
        metadata={"workbench_state": state_key},
    )


async def find_by_input(client: Any, input_file_id: str) -> Any | None:
    """A batch already made from ``input_file_id`` (a crash came between create and save)."""
    page = await client.batches.list(limit=100)
    for batch in page.data:
        if batch.input_file_id == input_file_id:
            return batch
    return None


async def retrieve(client: Any, batch_id: str) -> Any:
    """The batch's current state."""
    return await client.batches.retrieve(batch_id)


async def cancel(client: Any, batch_id: str) -> None:
    """Ask the endpoint to stop the batch."""
    await client.batches.cancel(batch_id)


async def read_results(
    client: Any, batch: Any, keys: Mapping[str, Any], normalise: Any, redact: Any
) -> BatchOutcome:
    """Replies and errors of a finished batch for the requested ``keys``.

    A line with a non-200 status, an error, or a body that is not a completion is an
    error for its key; a key the batch did not answer at all (expired, cancelled, failed
    batch) gets an error naming the batch's status.
    """
    out = BatchOutcome()
    for file_id in (batch.output_file_id, batch.error_file_id):
        if not file_id:
            continue
        content = await client.files.content(file_id)
        for line in content.text.splitlines():
            _read_line(line, keys, out, normalise, redact)
    usage = getattr(batch, "usage", None)
    if usage is not None:
        out.tokens_in = int(getattr(usage, "input_tokens", 0) or 0)
        out.tokens_out = int(getattr(usage, "output_tokens", 0) or 0)
    else:  # older endpoints: sum the usage of the output lines
        out.tokens_in = sum(r.get("tokens_in", 0) for r in out.replies.values())
        out.tokens_out = sum(r.get("tokens_out", 0) for r in out.replies.values())
    for key in keys:
        if key not in out.replies and key not in out.errors:
            out.errors[key] = f"batch {batch.id} {batch.status} without a reply for this request"
    return out


def _read_line(
    line: str, keys: Mapping[str, Any], out: BatchOutcome, normalise: Any, redact: Any
) -> None:
    if not line.strip():
        return
    try:
        entry = json.loads(line)
        key = str(entry["custom_id"])
    except (ValueError, KeyError, TypeError):
        return  # a line without a custom id cannot be matched to a request
    if key not in keys:
        return
    response = entry.get("response") or {}
    error = entry.get("error")
    body = response.get("body") if isinstance(response, dict) else None
    status = response.get("status_code") if isinstance(response, dict) else None
    if error or status != 200 or not isinstance(body, dict) or "choices" not in body:
        detail = error or (body or {}).get("error") or body
        out.errors[key] = redact(f"batch line failed (HTTP {status}): {json.dumps(detail)[:300]}")
        return
    out.replies[key] = normalise(body)
