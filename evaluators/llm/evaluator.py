"""Shared base of the LLM evaluators: prompt hashing, run salts, usage, failure handling."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator

from evaluators.base import (
    LLM,
    EvalItem,
    EvalResult,
    Evaluator,
    NotConfiguredError,
    SettingsT,
    Signature,
    llm_pool_held,
)
from evaluators.llm.batch import BatchDeferred
from evaluators.llm.prompts import load_prompt, prompts_hash


def yes_no_answer(value: Any) -> bool | None:
    """A model's Yes/No answer (any case; also true/false, y/n, 1/0) as a bool; None when
    it is neither."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "y", "true", "1"):
        return True
    if text in ("no", "n", "false", "0"):
        return False
    return None


def _yes_no(value: Any) -> Any:
    """'Yes'/'No' strings as booleans; other values pass to pydantic unchanged."""
    answer = yes_no_answer(value) if isinstance(value, str) else None
    return value if answer is None else answer


YesNo = Annotated[bool, BeforeValidator(_yes_no)]


@dataclass
class Usage:
    """Tokens, cost and latency summed over the calls made for one item."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    cached_flags: list[bool] = field(default_factory=list)
    #: Structured-output modes of the JSON replies (json_schema, json_object, text).
    output_modes: list[str] = field(default_factory=list)

    def add(self, reply: Any) -> Any:
        """Count a TextReply or JSONReply; returns it for chaining."""
        self.tokens_in += reply.tokens_in
        self.tokens_out += reply.tokens_out
        self.cost += reply.cost
        self.latency_s += reply.latency_s
        self.cached_flags.append(bool(reply.cached))
        mode = getattr(reply, "mode", None)
        if isinstance(mode, str) and mode not in self.output_modes:
            self.output_modes.append(mode)
        return reply

    def apply(self, result: EvalResult) -> EvalResult:
        """Copy the counters onto a result (cached when every call was a cache hit)."""
        result.tokens_in, result.tokens_out = self.tokens_in, self.tokens_out
        result.cost, result.latency_s = self.cost, self.latency_s
        result.cached = bool(self.cached_flags) and all(self.cached_flags)
        if self.output_modes:
            result.details["output_mode"] = "+".join(self.output_modes)
        return result


class LLMEvaluator(Evaluator[SettingsT]):
    """An evaluator that calls the judge model through ``ctx.llm`` (an LLMClient)."""

    requires_llm: ClassVar[bool] = True
    #: Batches run side by side up to the client's concurrency limit, so the batch size
    #: only sets how often results are saved and cancellation is checked.
    default_batch_size: ClassVar[int] = 16
    #: Every template the evaluator may render (all of them go into the prompt hash).
    prompt_ids: ClassVar[tuple[str, ...]] = ()
    #: True when repeated runs must be fresh draws even at temperature 0 (FinGrAct).
    distinct_runs: ClassVar[bool] = False
    #: True when the judge asks for JSON replies (``complete_json``): the endpoint's
    #: structured-output mode is then settled before the run and named in the signature.
    structured_output: ClassVar[bool] = False

    @property
    def llm(self) -> LLM:
        """The LLM client; :class:`NotConfiguredError` when none is configured."""
        if self.ctx.llm is None:
            from evaluators.llm.config import not_configured_message

            raise NotConfiguredError(not_configured_message())
        return self.ctx.llm

    def preferred_batch_size(self) -> int:
        """No more than the client's concurrency limit (at most 16): with a slow judge
        one call at a time, progress is saved after every call, not every 16."""
        config = getattr(self.ctx.llm, "config", None)
        limit = int(getattr(config, "concurrency", 0) or 0) or self.default_batch_size
        return max(1, min(self.default_batch_size, limit))

    def signature(self) -> Signature:
        """The base signature; a JSON judge's adds the structured-output mode when the
        endpoint does not constrain replies to the schema (``output_mode`` json_object or
        text: the replies are then only asked, not forced, to follow it)."""
        sig = super().signature()
        mode = self.output_mode()
        if mode in (None, "json_schema"):
            return sig
        settings = {**sig.settings, "output_mode": mode}
        return Signature(sig.evaluator, sig.version, sig.model, sig.prompt_hash, settings)

    def output_mode(self) -> str | None:
        """The structured-output mode of this judge's JSON requests (None: no JSON)."""
        settle = getattr(self.ctx.llm, "output_mode", None)
        if not self.structured_output or not callable(settle):
            return None
        return str(settle())

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """Which structured-output mode the replies came in (JSON judges)."""
        return output_mode_notes(results)

    def prompt_hash(self) -> str | None:
        """sha256 of the template files used."""
        return prompts_hash(self.prompt_ids) if self.prompt_ids else None

    def prompt_versions(self) -> list[str]:
        """Template ids (``name.vN``), stored in every result's details."""
        return list(self.prompt_ids)

    def render(self, prompt_id: str, **values: Any) -> list[dict[str, str]]:
        """Messages of one template filled with ``values``."""
        return load_prompt(prompt_id).render(values)

    def run_salt(self, temperature: float) -> str | None:
        """Cache salt: the run index when sampling or when runs must be distinct."""
        if self.distinct_runs or temperature > 0:
            return f"run:{self.ctx.run_index}"
        return None

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        """Evaluate items concurrently (the client's semaphore bounds the calls)."""
        self.check_available()
        sig = self.signature()
        async with llm_pool_held(self.llm):
            return list(await asyncio.gather(*(self._guarded(item, sig) for item in items)))

    async def _guarded(self, item: EvalItem, sig: Signature) -> EvalResult:
        try:
            return await self.evaluate_item(item, sig)
        except BatchDeferred:  # batch mode: the item waits for its batch, it has not failed
            raise
        except Exception as exc:  # a broken item must not sink the batch
            return EvalResult.failure(item.item_id, sig, f"{type(exc).__name__}: {exc}")

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        """One item's result; subclasses implement it."""
        raise NotImplementedError

    @staticmethod
    def failed(
        item: EvalItem,
        sig: Signature,
        usage: Usage,
        error: str,
        raw: str | None,
        details: dict[str, Any] | None = None,
    ) -> EvalResult:
        """A failed result with the raw reply, no scores, and the usage so far."""
        res = EvalResult.failure(item.item_id, sig, error, raw)
        res.details = dict(details or {})
        return usage.apply(res)


_MODE_WORDS = {
    "json_schema": "json_schema (the endpoint held replies to the schema)",
    "json_object": "json_object with the schema in the prompt (the endpoint refused json_schema)",
    "text": "plain text with the schema in the prompt, read by the tolerant parser "
    "(the endpoint refused json_schema and json_object)",
}


def output_mode_notes(results: Sequence[EvalResult]) -> list[str]:
    """One sentence on the structured-output modes of a run's results ([] when none)."""
    modes: dict[str, int] = {}
    for res in results:
        mode = res.details.get("output_mode")
        if mode:
            modes[str(mode)] = modes.get(str(mode), 0) + 1
    if not modes:
        return []
    parts = [f"{_MODE_WORDS.get(m, m)} for {n} of {len(results)} items" for m, n in modes.items()]
    return ["structured output: " + "; ".join(parts)]


def field_text(item: EvalItem, name: str) -> str:
    """An item field as text ('' when missing)."""
    value = item.fields.get(name)
    return "" if value is None else str(value)
