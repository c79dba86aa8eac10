"""The LLM client: async chat completions with retries, a persistent cache and JSON replies.

One :class:`LLMClient` sends each request on an aiohttp keep-alive pool of its own
(:mod:`evaluators.llm.direct`), or through ``openai.AsyncOpenAI`` (``AsyncAzureOpenAI``
when an API version is set; ``WORKBENCH_LLM_HTTP=httpx``) with the openai package's own
retries switched off, so the retries counted here are the only ones. Calls are limited by a semaphore
(``WORKBENCH_LLM_CONCURRENCY``), retried with exponential backoff and jitter on timeouts,
connection errors, 429 and 5xx (``Retry-After`` is honoured), and cached by a hash of
the full request, so a re-run makes no HTTP call at all. Only usable replies are cached
(a JSON reply that validates, a completion with some text): a failed reply is neither
stored nor, when an older version stored one, served again; the request is asked anew.

``complete_json`` asks for JSON in the structured-output mode the endpoint takes
(:mod:`evaluators.llm.negotiate`: json_schema, else json_object or plain text with the
schema in the prompt; asked once before a run, or learnt from a refusal, which is never
retried), parses tolerantly, validates with pydantic, re-asks with the reason on a bad
reply, and finally returns a failed :class:`JSONReply` -- never a made-up value.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic

from common.redact import DataRedactor
from evaluators.llm.batch import BatchSession
from evaluators.llm.cache import (
    LLMCache,
    MemoryCache,
    cache_key,
    cache_key_parts,
    canonical_json,
    request_record,
)
from evaluators.llm.config import LLMConfig, load_llm_config
from evaluators.llm.direct import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    ChatTransport,
    DirectChat,
    SDKChat,
    endpoint_url,
)
from evaluators.llm.http import aiohttp_installed, http_client
from evaluators.llm.jsonparse import JSONExtractError, extract_json
from evaluators.llm.negotiate import LADDER as _JSON_LADDER
from evaluators.llm.negotiate import is_refusal, probe, response_format, schema_note

Message = dict[str, Any]
#: Extra check on a validated reply: return a reason to re-ask, or None when it is fine.
ReplyCheck = Callable[[Any], str | None]

_MAX_WAIT_S = 60.0
_REASK = (
    "Your previous reply could not be used: {error}. Reply again with only the JSON "
    "object in the requested format, with nothing before or after it."
)


class LLMError(RuntimeError):
    """A call failed for good (retries exhausted or a non-retryable error)."""


@dataclass
class TextReply:
    """Plain completions: one text per choice, with per-token logprobs when asked."""

    texts: list[str]
    logprobs: list[list[dict[str, Any]] | None] = field(default_factory=list)
    raw: str | None = None  # the first choice's text
    finish_reasons: list[str | None] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    cached: bool = False  # True when every underlying call came from the cache
    latency_s: float = 0.0
    calls: int = 0  # HTTP requests made (0 when fully cached)


@dataclass
class JSONReply:
    """A validated JSON reply, or the error and the last raw text when there is none."""

    value: Any | None
    raw: str | None
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    cached: bool = False
    latency_s: float = 0.0
    attempts: int = 0
    #: The structured-output mode of the call that gave the last reply (json_schema,
    #: json_object, text); None when no call was made.
    mode: str | None = None

    @property
    def ok(self) -> bool:
        """True when ``value`` holds a validated model instance."""
        return self.error is None and self.value is not None


@dataclass
class _Call:
    response: dict[str, Any]
    cached: bool
    latency_s: float
    cost: float


class _Unsupported(Exception):
    """The server refused a parameter; the caller steps down and tries again."""

    def __init__(self, param: str) -> None:
        super().__init__(param)
        self.param = param


class LLMClient:
    """Async client for one model on one endpoint. Safe to share between evaluators."""

    def __init__(self, config: LLMConfig, cache: LLMCache | None = None) -> None:
        self.config = config
        self.model: str = config.model
        self.cache: LLMCache = cache if cache is not None else MemoryCache()
        self.json_mode = "json_schema" if config.json_mode == "auto" else config.json_mode
        self.supports_n = True
        self.supports_logprobs = True
        #: True once the structured-output mode is settled (configured, asked, learnt).
        self.mode_settled = config.json_mode != "auto"
        #: A mode asked or learnt that the cache does not hold yet: written with the next
        #: reply (not at once: a run's first call goes out before the ORM is imported).
        self._mode_unsaved = False
        self.http_calls = 0
        self.cache_hits = 0
        #: False: every request is asked afresh (a drift check must see today's answers,
        #: not the cached ones of a temperature-0 judge); replies are still written.
        self.read_cache = True
        self._loop: asyncio.AbstractEventLoop | None = None
        self._transport: ChatTransport | None = None
        self._sdk: Any = None  # the openai client of the loop (batch mode's files, batches)
        self._sem: asyncio.Semaphore | None = None
        # Cache writes go through one dedicated thread so they never queue in front of
        # cache reads in the default pool (SQLite has a single writer anyway).
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llm-cache")
        self._pending_puts: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self._flushing = False
        self._pending_gets: list[tuple[str, asyncio.Future[dict[str, Any] | None]]] = []
        self._getting = False
        self._users = 0
        self._users_loop: asyncio.AbstractEventLoop | None = None
        #: A BatchSession while a batch-mode run evaluates (cache misses are held back).
        self.batch: BatchSession | None = None
        self._redactor: DataRedactor | None = None

    # -- public API ---------------------------------------------------------------------
    async def complete(
        self,
        messages: Sequence[Message],
        *,
        n: int = 1,
        temperature: float = 0.0,
        logprobs: bool = False,
        top_logprobs: int | None = None,
        max_tokens: int | None = None,
        cache_salt: str | int | None = None,
        **params: Any,
    ) -> TextReply:
        """``n`` completions of ``messages``; raises :class:`LLMError` when the call fails.

        ``cache_salt`` (e.g. the run index) separates repeated runs in the cache; it is
        used when sampling (temperature > 0) or when the caller asks for distinct runs.
        When the server ignores or refuses ``n``, the missing samples are requested one by
        one (each cached under its own sample index).
        """
        base: dict[str, Any] = {"messages": list(messages), "temperature": temperature, **params}
        if max_tokens is not None:
            base["max_tokens"] = max_tokens
        if logprobs:
            base["logprobs"] = True
            if top_logprobs is not None:
                base["top_logprobs"] = top_logprobs
        salt = None if cache_salt is None else str(cache_salt)
        reply = TextReply(texts=[])
        calls: list[_Call] = []
        if n > 1 and self.supports_n:
            try:
                calls.append(await self._cached_call({**base, "n": n}, salt, usable=_has_text))
            except _Unsupported:
                self.supports_n = False
        if calls:
            _add_choices(reply, calls[0].response)
        sample = len(reply.texts)
        while len(reply.texts) < n:  # top up one by one (also the n == 1 path)
            sample_salt = salt if n == 1 else f"{salt}|sample:{sample}"
            call = await self._cached_call(dict(base), sample_salt, usable=_has_text)
            calls.append(call)
            _add_choices(reply, call.response, limit=1)
            sample += 1
        reply.texts = reply.texts[:n]
        reply.logprobs = reply.logprobs[:n]
        reply.raw = reply.texts[0] if reply.texts else None
        return _account(reply, calls)

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: type[pydantic.BaseModel],
        *,
        check: ReplyCheck | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        cache_salt: str | int | None = None,
        max_reasks: int | None = None,
        **params: Any,
    ) -> JSONReply:
        """A reply validated against ``schema``; never raises for a bad or failed reply."""
        msgs = list(messages)
        # Rendered messages bring their canonical JSON (checked unchanged): the key then
        # need not escape the prompt's text again. A re-ask's messages are serialised.
        canonical = getattr(messages, "canonical_json", None)
        msgs_json: str | None = canonical() if callable(canonical) else None
        salt = None if cache_salt is None else str(cache_salt)
        reasks = self.config.json_retries if max_reasks is None else max_reasks
        calls: list[_Call] = []
        raw: str | None = None
        mode: str | None = None
        error = "no reply"
        # each reply is validated once: by the cache's usability check, then read here
        checked: dict[int, tuple[Any | None, str]] = {}

        def usable(response: dict[str, Any]) -> bool:
            texts = response.get("texts") or [""]
            checked[id(response)] = validate_reply(texts[0], schema, check)
            return checked[id(response)][0] is not None

        for _attempt in range(reasks + 1):
            base: dict[str, Any] = {"messages": msgs, "temperature": temperature, **params}
            if max_tokens is not None:
                base["max_tokens"] = max_tokens
            try:
                call = await self._cached_call(base, salt, schema, msgs_json, usable=usable)
            except LLMError as exc:
                reply = JSONReply(
                    None, raw, f"LLM call failed: {exc}", attempts=len(calls) + 1, mode=mode
                )
                return _account(reply, calls)
            calls.append(call)
            texts = call.response.get("texts") or [""]
            raw = texts[0]
            mode = call.response.get("output_mode", mode)
            value, error = checked.pop(id(call.response), None) or validate_reply(
                raw, schema, check
            )
            if value is not None:
                return _account(JSONReply(value, raw, None, attempts=len(calls), mode=mode), calls)
            if (call.response.get("finish_reasons") or [None])[0] == "length":
                error += " (the reply was cut off at the token limit)"
            msgs = [
                *msgs,
                {"role": "assistant", "content": raw or ""},
                {"role": "user", "content": _REASK.format(error=error)},
            ]
            msgs_json = None
        reply = JSONReply(
            None,
            raw,
            f"no valid JSON after {len(calls)} attempts: {error}",
            attempts=len(calls),
            mode=mode,
        )
        return _account(reply, calls)

    def hold(self) -> None:
        """Count one more user (an ``evaluate`` call) of the running loop's HTTP pool."""
        loop = asyncio.get_running_loop()
        if self._users_loop is not loop:
            self._users_loop, self._users = loop, 0
        self._users += 1

    async def release(self) -> None:
        """One user fewer; the last user of the loop closes the pool. Batches evaluated
        side by side in one loop (the job runner) share the pool; a caller that runs one
        ``evaluate`` per ``asyncio.run`` gets it closed before its loop ends."""
        self._users -= 1
        if self._users <= 0:
            self._users_loop = None
            await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP pool of the running loop (call before the loop ends)."""
        # Detach first: a call starting while the close is awaited builds a new pool
        # instead of using the closing one.
        transport, sdk = self._transport, self._sdk
        same_loop = self._loop is asyncio.get_running_loop()
        self._transport, self._sdk, self._loop, self._sem = None, None, None, None
        if same_loop:
            if transport is not None:
                await transport.close()
            if sdk is not None and not (isinstance(transport, SDKChat) and transport.client is sdk):
                await sdk.close()

    # -- structured output --------------------------------------------------------------
    def output_mode(self) -> str:
        """The structured-output mode JSON requests go out in, settled before the first
        one: the configured mode, else what the cache remembers of this endpoint, else
        asked with a short probe (:mod:`evaluators.llm.negotiate`). Blocks for the probe's
        round trip once per client; a probe without a clear answer leaves json_schema,
        and the first refusal steps down."""
        if self.mode_settled or self.batch is not None:
            return self.json_mode
        self.mode_settled = True
        key, _record = self._mode_key()
        get_many = getattr(self.cache, "cache_get_many", None)  # the store's light path
        known = get_many([key]).get(key) if get_many else self.cache.cache_get(key)
        if known and known.get("json_mode") in _JSON_LADDER:
            self.json_mode = str(known["json_mode"])
            return self.json_mode
        if self.config.is_azure:
            return self.json_mode
        from evaluators.llm.direct import default_headers

        found = probe(
            endpoint_url(self.config.base_url),
            default_headers(self.config.api_key or "not-needed"),
            self.model,
            min(self.config.timeout_s, 30.0),
        )
        if found is not None:
            self.json_mode = found
            self._mode_unsaved = True
        return self.json_mode

    def _mode_key(self) -> tuple[str, dict[str, Any]]:
        record = request_record(
            self.model, {"structured_output_of": self.config.base_url or "default"}, None
        )
        return cache_key(record), record

    def _mode_marker(self) -> dict[str, Any]:
        """The endpoint's mode as a cache entry (the next client starts from it)."""
        return {"json_mode": self.json_mode, "texts": [], "tokens_in": 0, "tokens_out": 0}

    # -- cache --------------------------------------------------------------------------
    async def _cached_call(
        self,
        params: dict[str, Any],
        salt: str | None,
        schema: type[pydantic.BaseModel] | None = None,
        messages_json: str | None = None,
        usable: Callable[[dict[str, Any]], bool] | None = None,
    ) -> _Call:
        """One request through the cache. The key holds the request as asked for;
        ``messages_json`` is the canonical JSON of ``params["messages"]`` when known.
        ``usable`` says whether a reply may be cached: a reply it rejects is not stored,
        and a stored one it rejects is asked again (unless this run's batch brought it).

        What the server turns out to support (json_schema, logprobs, n) only changes the
        wire request, never the key, so a cached re-run makes no call even with a fresh
        client. A refused ``n`` is cached too, as a marker.
        """
        key_params = dict(params)
        if schema is not None:
            key_params["response_format"] = {"json_schema": _json_schema(schema)}
        record = request_record(self.model, key_params, salt)
        known: dict[tuple[str, ...], str] = {}
        if schema is not None:  # the schema's JSON is made once, not per request
            known["response_format", "json_schema"] = _schema_json(schema)
        if messages_json is not None:
            known["messages",] = messages_json
        key = cache_key_parts(record, known) if known else cache_key(record)
        hit = await self._get(key) if self.read_cache else None
        session = self.batch
        if hit is not None:
            if session is not None and key in session.fresh:
                # A reply this run's batch brought: paid now, so it counts as a call.
                session.fresh.discard(key)
                session.brought.add(key)
                cost = self.config.cost(hit.get("tokens_in", 0), hit.get("tokens_out", 0))
                return _Call(hit, False, 0.0, cost * session.price_factor)
            if hit.get("refused"):
                self.cache_hits += 1
                raise _Unsupported(str(hit["refused"]))
            if usable is None or (session is not None and key in session.brought) or usable(hit):
                self.cache_hits += 1
                return _Call(hit, True, 0.0, 0.0)
        if session is not None:
            if key in session.errors:
                raise LLMError(session.errors[key])
            if session.final:
                raise LLMError("no reply from the batch (re-ask rounds exhausted)")
            raise session.defer(key, record, {"model": self.model, **self._wire(params, schema)})
        start = time.perf_counter()
        response = await self._request_adapting(dict(params), schema, key, record)
        latency = time.perf_counter() - start
        response["latency_s"] = latency
        if usable is None or usable(response):
            await self._put(key, record, response)
        return _Call(
            response,
            False,
            latency,
            self.config.cost(response["tokens_in"], response["tokens_out"]),
        )

    async def _get(self, key: str) -> dict[str, Any] | None:
        """The cached response for ``key`` (None on a miss).

        With a cache that offers ``cache_get_many`` (the store), the lookups of all items
        that reach this point together are answered by one query: a cached re-run of a
        batch costs one database round trip, not one per item.
        """
        get_many = getattr(self.cache, "cache_get_many", None)
        if get_many is None:
            return await asyncio.to_thread(self.cache.cache_get, key)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[dict[str, Any] | None] = loop.create_future()
        self._pending_gets.append((key, done))
        if not self._getting:
            self._getting = True
            loop.create_task(self._flush_gets(get_many))
        return await done

    async def _flush_gets(self, get_many: Any) -> None:
        try:
            while self._pending_gets:
                batch, self._pending_gets = self._pending_gets, []
                try:
                    found = await asyncio.to_thread(get_many, list({k for k, _ in batch}))
                except Exception as exc:
                    _settle(batch, exc, lambda key: None)
                else:
                    _settle(batch, None, lambda key, hits=found: _copy_or_none(hits.get(key)))
        finally:
            self._getting = False

    async def _put(self, key: str, record: dict[str, Any], response: dict[str, Any]) -> None:
        """Store a response; returns once it is committed.

        With a cache that offers ``cache_put_many`` (the store), the puts of concurrent
        requests are written together: while one transaction commits, the next ones queue
        and go in the following transaction. One commit per request would otherwise cost a
        few percent of throughput at 16 concurrent calls.
        """
        if self._mode_unsaved:
            self._mode_unsaved = False
            mode_key, mode_record = self._mode_key()
            await self._put(mode_key, mode_record, self._mode_marker())
        loop = asyncio.get_running_loop()
        put_many = getattr(self.cache, "cache_put_many", None)
        if put_many is None:
            await loop.run_in_executor(
                self._writer, self.cache.cache_put, key, self.model, record, response
            )
            return
        done: asyncio.Future[None] = loop.create_future()
        self._pending_puts.append(((key, self.model, record, response), done))
        if not self._flushing:
            self._flushing = True
            loop.create_task(self._flush_puts(put_many))
        await done

    async def _flush_puts(self, put_many: Any) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending_puts:
                batch, self._pending_puts = self._pending_puts, []
                try:
                    await loop.run_in_executor(self._writer, put_many, [e for e, _ in batch])
                except Exception as exc:
                    _settle(batch, exc, lambda entry: None)
                else:
                    _settle(batch, None, lambda entry: None)
        finally:
            self._flushing = False

    async def _request_adapting(
        self,
        wire: dict[str, Any],
        schema: type[pydantic.BaseModel] | None,
        key: str,
        record: dict[str, Any],
    ) -> dict[str, Any]:
        """Send, stepping down response_format / dropping logprobs when the server refuses.

        A refused mode is left for the next one once (and the lesson kept in the cache for
        the next client of this endpoint); the mode that answered is in the response."""
        asked = wire
        while True:
            mode = self.json_mode
            wire = self._wire(asked, schema)
            try:
                response = await self._request(wire)
                if schema is not None:
                    response["output_mode"] = mode
                return response
            except _Unsupported as exc:
                if exc.param == "response_format" and mode != "text":
                    if self.json_mode == mode:  # a concurrent call may have stepped already
                        self.json_mode = _JSON_LADDER[_JSON_LADDER.index(mode) + 1]
                        self.mode_settled = self._mode_unsaved = True
                elif exc.param == "logprobs":
                    self.supports_logprobs = False
                elif exc.param == "n":
                    await asyncio.to_thread(
                        self.cache.cache_put, key, self.model, record, {"refused": "n"}
                    )
                    raise
                else:
                    raise LLMError(f"the server refused {exc.param!r}") from None

    def _wire(
        self, params: dict[str, Any], schema: type[pydantic.BaseModel] | None
    ) -> dict[str, Any]:
        """The request as sent: the JSON mode this server takes, logprobs if supported."""
        wire = dict(params)
        if schema is not None:
            wire.pop("response_format", None)
            fmt = response_format(self.json_mode, schema.__name__, _json_schema(schema))
            if fmt is not None:
                wire["response_format"] = fmt
            if self.json_mode != "json_schema":  # the server does not enforce it: say it
                wire["messages"] = _with_note(wire["messages"], _schema_note(schema))
        if not self.supports_logprobs:
            wire.pop("logprobs", None)
            wire.pop("top_logprobs", None)
        return wire

    def openai_client(self) -> Any:
        """The ``openai`` async client of the running event loop (files, batches)."""
        self._runtime()
        if self._sdk is None:
            self._sdk = self._make_openai()
        return self._sdk

    def normalise(self, completion: dict[str, Any]) -> dict[str, Any]:
        """A chat completion (e.g. a batch output line's body) as the cache keeps it."""
        return self._scrub(_normalise(completion))

    def redact_text(self, text: str) -> str:
        """``text`` without this client's key (errors are stored)."""
        return self._redact(text)

    # -- HTTP ---------------------------------------------------------------------------
    def _runtime(self) -> tuple[ChatTransport, asyncio.Semaphore]:
        """The transport and semaphore of the running event loop.

        The job runner runs each batch under its own ``asyncio.run``; a connection pool
        must not outlive its loop, so both are rebuilt when the loop changes.
        """
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._transport is None or self._sem is None:
            self._loop, self._sdk = loop, None
            self._transport = self._make_transport()
            self._sem = asyncio.Semaphore(max(1, self.config.concurrency))
        return self._transport, self._sem

    def _make_transport(self) -> ChatTransport:
        """Our own HTTP/1.1 connections for OpenAI-compatible endpoints (aiohttp behind a
        proxy); the SDK for Azure and httpx."""
        cfg = self.config
        if cfg.http == "aiohttp" and not cfg.is_azure:
            from evaluators.llm.streams import StreamChat, proxy_configured

            key = cfg.api_key or "not-needed"  # local servers take any key
            if not proxy_configured(endpoint_url(cfg.base_url)):
                return StreamChat(cfg.base_url, key, cfg.timeout_s)
            if aiohttp_installed():
                return DirectChat(cfg.base_url, key, cfg.timeout_s, cfg.concurrency)
        self._sdk = self._make_openai()
        return SDKChat(self._sdk)

    def _make_openai(self) -> Any:
        import openai  # only for Azure, httpx and the Batch API: a second of imports

        cfg = self.config
        key = cfg.api_key or "not-needed"  # local servers take any key
        common: dict[str, Any] = {"api_key": key, "timeout": cfg.timeout_s, "max_retries": 0}
        transport = http_client(cfg.http, cfg.timeout_s)
        if transport is not None:
            common["http_client"] = transport
        if cfg.is_azure:
            return openai.AsyncAzureOpenAI(
                azure_endpoint=cfg.base_url or "", api_version=cfg.api_version, **common
            )
        return openai.AsyncOpenAI(base_url=cfg.base_url, **common)

    async def _request(self, wire: dict[str, Any]) -> dict[str, Any]:
        client, sem = self._runtime()
        attempts = self.config.max_retries + 1
        last = "no attempt"
        for attempt in range(attempts):
            wait: float | None = None
            try:
                async with sem:
                    self.http_calls += 1
                    completion = await client.chat({"model": self.model, **wire})
                return self._scrub(_normalise(completion))
            except MalformedReply as exc:
                raise MalformedReply(self._redact(str(exc))) from None
            except (APITimeoutError, APIConnectionError) as exc:
                last = self._redact(f"{type(exc).__name__}: {exc}")
            except APIStatusError as exc:
                status = exc.status_code
                last = self._redact(f"HTTP {status}: {_message(exc)}")
                if status in (400, 422):
                    param = _refused_param(wire, _message(exc))
                    if param is None:
                        raise LLMError(last) from None
                    raise _Unsupported(param) from None
                if "response_format" in wire and is_refusal(status, _message(exc)):
                    # Deterministic (a 500 whose message names the format): not retried.
                    raise _Unsupported("response_format") from None
                if status not in (408, 409, 429) and status < 500:
                    raise LLMError(last) from None
                wait = _retry_after(exc.headers)
            if attempt + 1 < attempts:
                await asyncio.sleep(wait if wait is not None else self._backoff(attempt))
        raise LLMError(f"gave up after {attempts} attempts; last error: {last}")

    def _redact(self, text: str) -> str:
        """``text`` without this client's key or token-shaped strings (errors are stored).

        The secrets to mask are looked up once per client: every reply passes through
        here, and a lookup reads the environment and checks the secrets file.
        """
        if self._redactor is None:
            self._redactor = DataRedactor((self.config.api_key,))
        return self._redactor(text)

    def _scrub(self, response: dict[str, Any]) -> dict[str, Any]:
        """A normalised response whose texts cannot carry the key into cache or results."""
        response["texts"] = [self._redact(t) for t in response["texts"]]
        return response

    def _backoff(self, attempt: int) -> float:
        """About base x 2**attempt, with +-25 % jitter so retries of many calls spread out.

        The jitter stays below the doubling, so every wait is longer than the one before
        (until the cap); with +-50 % a later wait could be shorter than an earlier one.
        """
        base = self.config.backoff_base_s * (2**attempt)
        return min(_MAX_WAIT_S, base * (0.75 + 0.5 * random.random()))


def build_llm_client(
    config: LLMConfig | None = None, cache: LLMCache | None = None
) -> LLMClient | None:
    """A client for the configured endpoint, or None when none is configured."""
    config = config or load_llm_config()
    if config is None:
        return None
    return LLMClient(config, cache)


# -- helpers ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=128)
def _json_schema(schema: type[pydantic.BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, built once (pydantic rebuilds it on every call otherwise).

    Callers must not mutate the returned dict.
    """
    return schema.model_json_schema()


def _settle(
    waiting: Sequence[tuple[Any, asyncio.Future[Any]]],
    error: Exception | None,
    value: Callable[[Any], Any],
) -> None:
    """Answer every still-waiting future of a coalesced cache operation."""
    for item, fut in waiting:
        if fut.done():
            continue
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(value(item))


def _copy_or_none(hit: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if hit is None else dict(hit)


@functools.lru_cache(maxsize=128)
def _schema_json(schema: type[pydantic.BaseModel]) -> str:
    """The canonical JSON text of a model's schema (as inside a cache key), built once."""
    return canonical_json(_json_schema(schema))


class MalformedReply(LLMError):
    """The server answered 200 with a body that is not a chat completion."""


def _normalise(completion: Any) -> dict[str, Any]:
    """The JSON-ready part of a completion that evaluators use (and the cache keeps).

    Raises :class:`MalformedReply` with a plain reason when the body is not shaped like a
    chat completion (a proxy's error page, ``"choices": "oops"``): the caller stores that
    reason instead of a Python error about a ``str`` having no ``get``.
    """
    completion = _shape(completion, dict, "the reply")
    choices = _shape(completion.get("choices") or [], list, '"choices"')
    texts: list[str] = []
    logprobs: list[list[dict[str, Any]] | None] = []
    finish: list[str | None] = []
    for n, raw in enumerate(choices):
        choice = _shape(raw, dict, f"choice {n}")
        message = _shape(choice.get("message") or {}, dict, f"choice {n}'s message")
        content = message.get("content") or ""
        texts.append(_shape(content, str, f"choice {n}'s content"))
        reason = choice.get("finish_reason")
        finish.append(None if reason is None else str(reason))
        logprobs.append(_choice_logprobs(choice, n))
    usage = _shape(completion.get("usage") or {}, dict, '"usage"')
    try:
        tokens_in = int(usage.get("prompt_tokens") or 0)
        tokens_out = int(usage.get("completion_tokens") or 0)
    except (TypeError, ValueError):
        raise MalformedReply('the reply\'s "usage" token counts are not numbers') from None
    return {
        "texts": texts,
        "logprobs": logprobs,
        "finish_reasons": finish,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
    }


def _choice_logprobs(choice: dict[str, Any], n: int) -> list[dict[str, Any]] | None:
    where = f"choice {n}'s logprobs"
    content = _shape(choice.get("logprobs") or {}, dict, where).get("content")
    if not content:
        return None
    out = []
    for raw in _shape(content, list, where):
        tok = _shape(raw, dict, where)
        tops = _shape(tok.get("top_logprobs") or [], list, where)
        out.append(
            {
                "token": tok.get("token"),
                "logprob": tok.get("logprob"),
                "top_logprobs": [
                    {"token": t.get("token"), "logprob": t.get("logprob")}
                    for t in (_shape(t, dict, where) for t in tops)
                ],
            }
        )
    return out


_KIND = {dict: "an object", list: "a list", str: "a string"}


def _shape(value: Any, kind: type, where: str) -> Any:
    """``value`` if it is a ``kind``; otherwise a :class:`MalformedReply` naming ``where``."""
    if not isinstance(value, kind):
        shown = json.dumps(value, default=str)[:80]
        raise MalformedReply(
            f"the server's reply is not a chat completion: {where} should be "
            f"{_KIND[kind]}, got {shown}"
        )
    return value


def _add_choices(reply: TextReply, response: dict[str, Any], limit: int | None = None) -> None:
    texts = list(response.get("texts") or [])[:limit]
    lps = list(response.get("logprobs") or [None] * len(texts))[: len(texts)]
    reply.texts.extend(texts)
    reply.logprobs.extend(lps + [None] * (len(texts) - len(lps)))
    reply.finish_reasons.extend(
        list(response.get("finish_reasons") or [None] * len(texts))[: len(texts)]
    )


def _has_text(response: dict[str, Any]) -> bool:
    """A completion is usable when some choice has text."""
    return any(response.get("texts") or [])


def _account(reply: Any, calls: list[_Call]) -> Any:
    """Sum tokens, cost and latency of the calls made now (cached calls count zero)."""
    fresh = [c for c in calls if not c.cached]
    reply.tokens_in = sum(c.response.get("tokens_in", 0) for c in fresh)
    reply.tokens_out = sum(c.response.get("tokens_out", 0) for c in fresh)
    reply.cost = sum(c.cost for c in fresh)
    reply.latency_s = sum(c.latency_s for c in fresh)
    reply.cached = bool(calls) and not fresh
    if isinstance(reply, TextReply):
        reply.calls = len(fresh)
    return reply


def validate_reply(
    raw: str | None, schema: type[pydantic.BaseModel], check: ReplyCheck | None = None
) -> tuple[Any | None, str]:
    """(the reply read as ``schema`` and passed by ``check``, "") or (None, the reason):
    how every JSON judge reads a reply."""
    try:
        data = extract_json(raw)
    except JSONExtractError as exc:
        return None, str(exc)
    data = _wrap_bare_list(data, schema)
    try:
        value = schema.model_validate(data)
    except pydantic.ValidationError as exc:
        return None, _short_validation_error(exc)
    if check is not None:
        problem = check(value)
        if problem:
            return None, problem
    return value, ""


def _wrap_bare_list(data: Any, schema: type[pydantic.BaseModel]) -> Any:
    """A bare list for a schema with one list field is that field (models do this)."""
    if not isinstance(data, list):
        return data
    list_fields = [
        name
        for name, f in schema.model_fields.items()
        if getattr(f.annotation, "__origin__", None) is list
    ]
    return {list_fields[0]: data} if len(list_fields) == 1 else data


def _short_validation_error(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "reply"
        parts.append(f"{loc}: {err.get('msg')}")
    more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "the JSON does not match the required format: " + "; ".join(parts) + more


@functools.lru_cache(maxsize=128)
def _schema_note(schema: type[pydantic.BaseModel]) -> str:
    return schema_note(_json_schema(schema))


def _with_note(messages: list[Message], note: str) -> list[Message]:
    """``messages`` with ``note`` after the last user message's text (a second system
    message would break chat templates that want turns to alternate)."""
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        content = out[i].get("content")
        if out[i].get("role") == "user" and isinstance(content, str):
            out[i] = {**out[i], "content": f"{content}\n\n{note}"}
            return out
    return [*out, {"role": "user", "content": note}]


def _refused_param(wire: dict[str, Any], message: str) -> str | None:
    """Which optional parameter a 400/422 is about (the first present one if unclear)."""
    present = [
        p for p in ("response_format", "logprobs", "n") if p in wire and (p != "n" or wire["n"] > 1)
    ]
    if not present:
        return None
    lowered = message.lower()
    named = [
        p
        for p in present
        if p in lowered
        or (p == "logprobs" and "logprob" in lowered)
        or (p == "response_format" and "json" in lowered)
    ]
    return (named or present)[0]


def _message(exc: Any) -> str:
    """The server's own error message of an HTTP error (ours or the SDK's)."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(exc)[:300]


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return min(_MAX_WAIT_S, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return min(_MAX_WAIT_S, max(0.0, float(value)))
    except ValueError:
        import email.utils  # an HTTP date: rare, and the email package is slow to import

        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return min(_MAX_WAIT_S, max(0.0, parsed.timestamp() - time.time()))
