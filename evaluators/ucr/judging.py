"""The URL Content Retriever as LLM judges use it: shared settings, one call per item.

``fingract_ucr``, ``geval_ucr`` and ``prometheus_ucr`` all fetch an explanation's links
through :func:`links_for_judge`, so they share the retriever, its address policy and the
stored page snapshots (a page fetched for one of them is reused by the others).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from evaluators.base import EvalResult, EvaluatorSettings, PageStore
from evaluators.ucr import (
    UCRSettings,
    allow_private_default,
    extract_urls,
    render_records,
    retrieve,
)
from evaluators.ucr.condense import embedding_unavailable, model_error

#: What a result keeps of a fetch record (the full text stays in the page store).
PUBLIC_RECORD_KEYS = (
    "url",
    "final_url",
    "status",
    "content_type",
    "error",
    "fetched_at",
    "truncated",
    "condensed",
    "condense_method",
    "extraction",
    "reused",
    "redirects",
)


class UCRJudgeSettings(EvaluatorSettings):
    """Retriever settings shared by the judges that read fetched pages."""

    allow_private_addresses: bool = Field(default_factory=allow_private_default)
    max_links: int = Field(5, ge=1, le=20)
    token_budget: int = Field(400, ge=50, le=4000)
    condense: str = Field("auto", pattern="^(auto|embedding|leading)$")
    refetch: bool = False

    def ucr(self) -> UCRSettings:
        """The retriever's own settings object."""
        shared = self.model_dump(include={"max_links", "token_budget", "condense", "refetch"})
        return UCRSettings(allow_private=self.allow_private_addresses, **shared)


def condense_unavailable(settings: UCRJudgeSettings) -> str | None:
    """Why the judge cannot run with these settings: an explicit ``condense:
    "embedding"`` fails (as G-Eval's ``score: "weighted"`` does) instead of falling back."""
    return embedding_unavailable() if settings.condense == "embedding" else None


def public_record(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a fetch record that a result keeps (:data:`PUBLIC_RECORD_KEYS`)."""
    return {k: rec.get(k) for k in PUBLIC_RECORD_KEYS}


@dataclass(frozen=True)
class RetrievedLinks:
    """What one item's retrieval gives a judge."""

    records: list[dict[str, Any]]

    @property
    def prompt_text(self) -> str:
        """The condensed pages as prompt text."""
        return render_records(self.records)

    @property
    def answered(self) -> bool:
        """True when at least one page answered (HTTP status below 400)."""
        return any(r.get("status") is not None and r["status"] < 400 for r in self.records)

    def public(self) -> list[dict[str, Any]]:
        """The records as result details keep them."""
        return [public_record(r) for r in self.records]


class RetrieverJudge:
    """Mixin (listed first) for a generic judge's ``_ucr`` variant: actionability only,
    the pages of the explanation's links in the prompt (:func:`add_link_content`), and
    the retriever's figures after a run."""

    kinds: ClassVar[tuple[str, ...]] = ("actionability",)
    fields: ClassVar[tuple[str, ...]] = ("actionability",)
    use_ucr: ClassVar[bool] = True

    @classmethod
    def corpus_summary(cls, results: Sequence[EvalResult]) -> dict[str, Any] | None:
        """How the fetched pages were condensed, with the MiniLM fallback warning."""
        return retriever_summary(results)

    def unavailable_reason(self) -> str | None:
        """The judge's own reason, else an explicit embedding condense that cannot run."""
        reason = super().unavailable_reason()  # type: ignore[misc]
        return reason or condense_unavailable(self.settings)  # type: ignore[attr-defined]


async def add_link_content(
    values: dict[str, str],
    settings: UCRJudgeSettings,
    pages: PageStore | None,
    details: dict[str, Any],
) -> None:
    """Fetch the links of ``values["explanation"]`` (ranked against claim and evidence)
    into ``values["link_content"]``; the fetch records go to ``details["links"]``."""
    links = await links_for_judge(
        values["explanation"], f"{values['claim']} {values['evidence']}", settings, pages
    )
    details["links"] = links.public()
    values["link_content"] = links.prompt_text


async def links_for_judge(
    explanation: str, query: str, settings: UCRJudgeSettings, pages: PageStore | None
) -> RetrievedLinks:
    """Fetch (or reuse) every link of ``explanation``, condensed against ``query``."""
    records = await retrieve(extract_urls(explanation), query, settings.ucr(), pages)
    return RetrievedLinks(records)


def condense_methods(details: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """How often each condensing method ran, over results' ``links`` details."""
    return Counter(
        str(link.get("condense_method"))
        for d in details
        for link in d.get("links") or []
        if link.get("condense_method")
    )


def retriever_notes(details: Iterable[Mapping[str, Any]]) -> list[str]:
    """Run notes on the retriever: how the fetched pages were condensed, with a warning
    when pages were cut to their leading sentences instead of being condensed with MiniLM
    (the model the paper summarises pages with), because the sentence model could not
    load or ``condense="leading"`` was asked for."""
    methods = condense_methods(details)
    if not methods:
        return ["URL Content Retriever: no page text was condensed in this run"]
    used = ", ".join(f"{k} {n}" for k, n in sorted(methods.items()))
    notes = [f"URL Content Retriever pages condensed by: {used}"]
    warning = fallback_warning(methods)
    return [*notes, warning] if warning else notes


def fallback_warning(methods: Mapping[str, int]) -> str | None:
    """The warning for pages cut to their leading sentences because MiniLM could not load
    (the paper summarises pages with it), or None."""
    n = methods.get("leading_fallback", 0)
    if not n:
        return None
    why = model_error() or "not installed"
    return (
        f"WARNING: {n} page(s) kept their leading sentences because the MiniLM sentence "
        f"model could not load ({why}); the paper summarises pages with MiniLM-L6-v2"
    )


def retriever_summary(results: Iterable[EvalResult]) -> dict[str, Any]:
    """Run-level figures of the retriever, printed after a run (CLI line, Evaluate page):
    pages per condensing method and the fallback warning (None when there is none)."""
    methods = condense_methods(r.details for r in results)
    return {"pages_condensed": dict(sorted(methods.items())), "warning": fallback_warning(methods)}
