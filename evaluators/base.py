"""Core evaluator types: Evaluator, EvalContext, settings (records re-exported).

An evaluator is a class registered with ``@register_evaluator``. It declares the task
kinds it applies to, the fields it scores (human fields or derived scores of the kind),
its version and a pydantic settings model. ``evaluate`` takes a batch of items and
returns one :class:`EvalResult` per item, in order. A bad model reply is never a score:
it is a result with ``status="failed"``, the error and the raw reply.

Evaluators never touch the database. What they need from outside (an LLM client with
its persistent cache, a store for fetched web pages) comes through :class:`EvalContext`.

The records an evaluator reads and returns (:class:`EvalItem`, :class:`EvalResult`,
:class:`Signature`) live in ``common.records`` (standard library only) and are
re-exported here.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel, ConfigDict

from common.records import EvalItem as EvalItem
from common.records import EvalResult as EvalResult
from common.records import Signature as Signature
from common.records import stable_hash as stable_hash
from evaluators.llm.cache import LLMCache as LLMCache

if TYPE_CHECKING:
    import pydantic

    from evaluators.llm.client import JSONReply, Message, ReplyCheck, TextReply
    from evaluators.llm.config import LLMConfig


class EvaluatorSettings(BaseModel):
    """Base settings model; evaluators subclass it with their own fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PageStore(Protocol):
    """Where the URL Content Retriever keeps what it fetched (the store implements it)."""

    def page_get(self, url: str) -> dict[str, Any] | None:
        """The stored fetch record for ``url``, or None."""
        ...

    def page_put(self, url: str, record: dict[str, Any]) -> None:
        """Store a fetch record (text, status, content type, fetched_at)."""
        ...


class LLM(Protocol):
    """What evaluators use of an LLM client (``evaluators.llm.client.LLMClient``)."""

    model: str
    config: LLMConfig

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
        """``n`` completions of ``messages`` (raises ``LLMError`` when the call fails)."""
        ...

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
        """A reply validated against ``schema``, or the error and the raw reply."""
        ...

    def hold(self) -> None:
        """Count one more user of the running event loop's HTTP pool."""
        ...

    async def release(self) -> None:
        """One user fewer; the last one closes the pool."""
        ...


@dataclass
class EvalContext:
    """What an evaluator may use from outside: LLM client, caches, run options."""

    llm: LLM | None = None  # set when an endpoint is configured
    cache: LLMCache | None = None
    pages: PageStore | None = None
    run_index: int = 0  # which repetition of a repeated run this is (0-based)
    options: dict[str, Any] = field(default_factory=dict)


@contextlib.asynccontextmanager
async def llm_pool_held(llm: LLM | None) -> AsyncIterator[None]:
    """Hold ``llm``'s HTTP pool for the block (``LLMClient.hold`` / ``release``).

    The pool belongs to the running event loop; its last holder closes it, so a caller
    may end its loop right after. A client without a pool (or no client) needs nothing.
    """
    hold = getattr(llm, "hold", None)
    if llm is None or hold is None:
        yield
        return
    hold()
    try:
        yield
    finally:
        await llm.release()


def run_settings(results: Sequence[EvalResult]) -> dict[str, Any]:
    """The settings in the signature of a run's results ({} for an empty run)."""
    return dict(results[0].signature.settings) if results else {}


def count_of(values: Sequence[Any]) -> str:
    """``a on 3 items, b on 1`` for the values that occur (for run notes)."""
    counts: dict[str, int] = {}
    for v in values:
        counts[str(v)] = counts.get(str(v), 0) + 1
    return ", ".join(f"{k} on {n} item(s)" for k, n in sorted(counts.items())) or "no item"


class NotConfiguredError(RuntimeError):
    """An evaluator cannot run here; the message says what to set or install."""


SettingsT = TypeVar("SettingsT", bound=EvaluatorSettings)


class Evaluator(Generic[SettingsT]):
    """Base class of every evaluator. Subclasses set the class attributes and ``evaluate``.

    ``Evaluator[MySettings]`` types ``self.settings`` as ``MySettings``; the class
    attribute ``Settings`` must be that model (a class variable cannot name the type
    parameter, so the two are declared side by side).
    """

    name: ClassVar[str]
    version: ClassVar[str] = "1"
    title: ClassVar[str] = ""
    description: ClassVar[str] = ""
    kinds: ClassVar[tuple[str, ...]] = ()
    #: Fields it scores: human fields or derived scores of its kinds.
    fields: ClassVar[tuple[str, ...]] = ()
    #: Scale of each scored field when it differs from the human one: field -> (min, max).
    scales: ClassVar[Mapping[str, tuple[float, float]]] = {}
    requires_llm: ClassVar[bool] = False
    Settings: ClassVar[type[EvaluatorSettings]] = EvaluatorSettings
    settings: SettingsT
    #: Default number of repeated runs (FinGrAct averages three).
    default_runs: ClassVar[int] = 1
    #: Items per ``evaluate`` call when a run does not set a batch size. Local models
    #: batch across the whole call: more items sort into better-filled model batches and
    #: share more repeated texts (a few seconds of work a batch). See LLMEvaluator.
    default_batch_size: ClassVar[int] = 256

    def __init__(
        self,
        settings: EvaluatorSettings | Mapping[str, Any] | None = None,
        ctx: EvalContext | None = None,
    ) -> None:
        if settings is None:
            settings = self.Settings()
        elif not isinstance(settings, EvaluatorSettings):
            settings = self.Settings(**dict(settings))
        self.settings = cast(SettingsT, settings)  # an instance of self.Settings
        self.ctx = ctx or EvalContext()

    # -- what subclasses may override -------------------------------------------------
    @classmethod
    def applies_to(cls, kind: str) -> bool:
        """True when the evaluator scores items of the task kind called ``kind`` (by
        default: the kind is named in ``kinds``)."""
        return kind in cls.kinds

    @classmethod
    def corpus_summary(cls, results: Sequence[EvalResult]) -> dict[str, Any] | None:
        """Corpus-level figures over one run's results (SGSAcc with and without
        validation, SER ...), shown after a run; None for evaluators without any."""
        return None

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """Sentences on what one stored run's figures mean: settings that change their
        meaning (scale mapping, decoding, variants), which backend or mode ran, and
        fallbacks. ``human`` maps item ids to each field's mean human value. Printed in
        the agreement report; [] when there is nothing to say."""
        return []

    def unavailable_reason(self) -> str | None:
        """None when the evaluator can run here, else one line saying what is missing."""
        if self.requires_llm and self.ctx.llm is None:
            from evaluators.llm.config import not_configured_message

            return not_configured_message()
        return None

    def model_name(self) -> str | None:
        """The model behind the scores (the judge model for LLM evaluators)."""
        if self.requires_llm and self.ctx.llm is not None:
            return str(getattr(self.ctx.llm, "model", None))  # test doubles may lack it
        return None

    def prompt_hash(self) -> str | None:
        """Hash of the prompt templates used, when there are any."""
        return None

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        """Evaluate a batch; one result per item, in the same order."""
        raise NotImplementedError

    def preferred_batch_size(self) -> int:
        """Items per batch when a run does not choose (``default_batch_size``)."""
        return self.default_batch_size

    # -- shared -----------------------------------------------------------------------
    def signature(self) -> Signature:
        """The signature stored with every result of this evaluator instance."""
        return Signature(
            evaluator=self.name,
            version=self.version,
            model=self.model_name(),
            prompt_hash=self.prompt_hash(),
            settings=self.signature_settings(),
        )

    def signature_settings(self) -> dict[str, Any]:
        """The settings recorded in the signature (the settings model's JSON form)."""
        return self.settings.model_dump(mode="json")

    def check_available(self) -> None:
        """Raise :class:`NotConfiguredError` when the evaluator cannot run."""
        reason = self.unavailable_reason()
        if reason:
            raise NotConfiguredError(reason)
