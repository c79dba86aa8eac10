"""The OpenAI Batch API through the ``openai`` client: upload, create, poll, read back.

Requests are written as JSONL (one chat completion per line, ``custom_id`` = the cache
key), uploaded with ``files.create(purpose="batch")`` and submitted with
``batches.create``. Output and error files are read with ``files.content`` and turned
into cache entries (replies) and error messages (failed lines) by :func:`read_results`.

Every call to the endpoint goes through :func:`with_retries`: 408 / 409 / 429 / 5xx and
lost connections are retried with backoff (a long batch must survive a rate limit on a
status check); anything else, or too many failures, is a :class:`BatchError` with a
plain reason. :func:`create_once` never makes a second batch from one input file: after
a failed create it looks for the batch the endpoint may have made anyway.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import openai

from evaluators.llm.batch import BatchError as BatchError
from evaluators.llm.client import _message, _retry_after

#: Batch states after which nothing more will come.
FINISHED = ("completed", "failed", "expired", "cancelled")
ENDPOINT = "/v1/chat/completions"
#: Longest wait between two attempts of one call, in seconds.
MAX_WAIT_S = 60.0

T = TypeVar("T")


@dataclass(frozen=True)
class Retry:
    """How often and how patiently endpoint calls are retried."""

    attempts: int = 6
    base_s: float = 1.0

    def wait(self, attempt: int) -> float:
        """About base x 2**attempt with +-25 % jitter, capped."""
        return min(MAX_WAIT_S, self.base_s * (2**attempt) * (0.75 + 0.5 * random.random()))


#: Errors worth a look at: connection trouble and HTTP errors (some are retried).
TRANSIENT = (openai.APIConnectionError, openai.APIStatusError)


def _failure(label: str, exc: Exception) -> tuple[str, float | None]:
    """The reason and the server's requested wait of a retryable failure.

    Raises :class:`BatchError` for an HTTP status that will not pass by retrying."""
    if isinstance(exc, openai.APIStatusError):
        reason = f"HTTP {exc.status_code}: {_message(exc)}"
        if not retryable(exc.status_code):
            raise BatchError(f"{label} was refused ({reason})") from None
        return reason, _retry_after(exc.response.headers)
    return f"{type(exc).__name__}: {exc}", None


def retryable(status: int) -> bool:
    """True for statuses that may pass on their own (rate limit, server trouble)."""
    return status in (408, 409, 429) or status >= 500


async def with_retries(label: str, call: Callable[[], Awaitable[T]], retry: Retry) -> T:
    """``await call()``, retrying transient failures; :class:`BatchError` when it gives up."""
    last = "no attempt"
    for attempt in range(retry.attempts):
        try:
            return await call()
        except TRANSIENT as exc:
            last, wait = _failure(label, exc)
        if attempt + 1 < retry.attempts:
            await asyncio.sleep(wait if wait is not None else retry.wait(attempt))
    raise BatchError(f"{label} failed {retry.attempts} times; last error: {last}")


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


async def create_once(client: Any, input_file_id: str, state_key: str, retry: Retry) -> Any:
    """A batch over the input file, made at most once.

    A create that fails with a transient error may still have made the batch (a 500
    after the commit, a dropped connection); before each new attempt the endpoint is
    asked for a batch made from this input file, and that one is used if it exists.
    """
    last = "no attempt"
    for attempt in range(retry.attempts):
        try:
            return await create(client, input_file_id, state_key)
        except TRANSIENT as exc:
            last, wait = _failure("creating the batch", exc)
        made = await with_retries(
            "looking up the batch", lambda: find_by_input(client, input_file_id), retry
        )
        if made is not None:
            return made
        if attempt + 1 < retry.attempts:
            await asyncio.sleep(wait if wait is not None else retry.wait(attempt))
    raise BatchError(f"creating the batch failed {retry.attempts} times; last error: {last}")


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
    client: Any,
    batch: Any,
    keys: Mapping[str, Any],
    normalise: Any,
    redact: Any,
    keep: Any = None,
    retry: Any = None,
) -> BatchOutcome:
    """Replies and errors of a finished batch for the requested ``keys``.

    Every line is read on its own: a line with a non-200 status, an error, or a body that
    is not a completion is an error for its key alone; a key the batch did not answer at
    all (expired, cancelled, failed batch) gets an error naming the batch's status.
    ``keep(replies)`` is awaited with each file's replies as soon as that file is read,
    before the next download (which may fail): paid replies are stored first.
    ``retry(label, call)`` wraps each download (the caller's retries with backoff).
    """
    out = BatchOutcome()
    for file_id in (batch.output_file_id, batch.error_file_id):
        if not file_id:
            continue

        async def download(file_id: str = file_id) -> str:
            return str((await client.files.content(file_id)).text)

        text = await (retry(f"download of {file_id}", download) if retry else download())
        found: dict[str, dict[str, Any]] = {}
        for line in text.splitlines():
            _read_line(line, keys, found, out.errors, normalise, redact)
        out.replies.update(found)
        if keep is not None and found:
            await keep(found)
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
    line: str,
    keys: Mapping[str, Any],
    replies: dict[str, dict[str, Any]],
    errors: dict[str, str],
    normalise: Any,
    redact: Any,
) -> None:
    """One output or error line into ``replies`` or ``errors``; never raises."""
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
        detail = error or (body.get("error") if isinstance(body, dict) else None) or body
        errors[key] = redact(
            f"batch line failed (HTTP {status}): {json.dumps(detail, default=str)[:300]}"
        )
        return
    try:
        replies[key] = normalise(body)
    except Exception as exc:  # one malformed line fails its own item, not the batch
        errors[key] = redact(f"batch line unusable: {exc}")
