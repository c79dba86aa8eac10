"""FinGrAct: fine-grained actionability of fact-checking explanations (with and without UCR).

Stage 1 (error segmentation and correction) splits the claim into sub-claims and lists
the false ones with the reason and the correction, from the evidence. Stage 2
(explanation evaluation) asks, per error, whether the explanation mentions it, corrects it
and backs the correction with a link, and whether a link exists and is relevant. Without
UCR the links are judged from the model's knowledge; ``fingract_ucr`` first fetches every
link with the URL Content Retriever and puts the condensed page text into the prompt.

Scoring (computed here, not by the model):
detection and correction are 0 / 1 / 2 for none / some / all errors; links score
1 (exists) + 0.5 (relevant) + 0.5 (supports every correction); actionability =
(detection + correction + links) x 5/6 on 0-5. Sanity rules: no relevant link without an
existing one, no supporting link without both. A link can only exist when the
explanation contains one (and, with UCR, when a page actually answered).

Per-dimension scores on the annotators' scales: errors_detected = detection (0-2),
errors_corrected = correction (0-2), sources = exists + relevant + supports (0-3), which
matches the guideline's 0 none / 1 works / 2 relevant / 3 supports.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import AliasChoices, BaseModel, Field

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings, Signature
from evaluators.llm.evaluator import LLMEvaluator, Usage, YesNo, field_text
from evaluators.registry import register_evaluator
from evaluators.ucr import (
    UCRSettings,
    allow_private_default,
    extract_urls,
    render_records,
    retrieve,
)

SEGMENT = "fingract_segment.v1"
JUDGE = "fingract_judge.v1"
JUDGE_UCR = "fingract_judge_ucr.v1"


class ClaimError(BaseModel):
    """One false sub-claim with why it is false and its correction."""

    false_subclaim: str = Field(
        validation_alias=AliasChoices("false_subclaim", "sentence", "subclaim")
    )
    reason: str
    correction: str


class Segmentation(BaseModel):
    """Stage 1 reply."""

    errors: list[ClaimError]


class ErrorCheck(BaseModel):
    """Stage 2, one error."""

    error: int | str | None = None
    mentioned: YesNo = Field(validation_alias=AliasChoices("mentioned", "response"))
    corrected: YesNo = Field(validation_alias=AliasChoices("corrected", "correction"))
    supported_by_link: YesNo = Field(
        False,
        validation_alias=AliasChoices("supported_by_link", "supporting_links", "supporting_link"),
    )


class LinkCheck(BaseModel):
    """Stage 2, the links as a whole."""

    exists: YesNo = False
    relevant: YesNo = False


class ExplanationCheck(BaseModel):
    """Stage 2 reply."""

    errors: list[ErrorCheck]
    links: LinkCheck = Field(default_factory=LinkCheck)
    reasoning: str = ""


class FinGrActSettings(EvaluatorSettings):
    """Decoding settings."""

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=16)


class FinGrActUCRSettings(FinGrActSettings):
    """Decoding plus URL Content Retriever settings."""

    allow_private_addresses: bool = Field(default_factory=allow_private_default)
    max_links: int = Field(5, ge=1, le=20)
    token_budget: int = Field(400, ge=50, le=4000)
    condense: str = Field("auto", pattern="^(auto|embedding|leading)$")
    refetch: bool = False


def categorize(hits: int, total: int) -> int:
    """0 when none, 1 when some, 2 when all of ``total`` (Algorithm 1's Categorize)."""
    if total <= 0 or hits <= 0:
        return 0
    return 2 if hits >= total else 1


def score(checks: list[ErrorCheck], links: LinkCheck, link_possible: bool) -> dict[str, Any]:
    """The paper's scheme with its sanity rules; returns scores and the applied flags."""
    n = len(checks)
    detection = categorize(sum(c.mentioned for c in checks), n)
    correction = categorize(sum(c.corrected for c in checks), n)
    exists = bool(links.exists) and link_possible
    relevant = bool(links.relevant) and exists
    supports = bool(checks) and all(c.supported_by_link for c in checks) and relevant
    link_score = 1.0 * exists + 0.5 * relevant + 0.5 * supports
    return {
        "detection": detection,
        "correction": correction,
        "exists": exists,
        "relevant": relevant,
        "supports": supports,
        "links": link_score,
        "total": detection + correction + link_score,
        "actionability": (detection + correction + link_score) * 5 / 6,
        "sources": int(exists) + int(relevant) + int(supports),
    }


@register_evaluator
class FinGrAct(LLMEvaluator):
    """FinGrAct (Eldifrawi et al. 2025), links judged from the model's knowledge."""

    name = "fingract"
    version = "1"
    title = "FinGrAct"
    description = (
        "Error segmentation and correction, then per-error detection/correction "
        "and link checks; (detect + correct + links) x 5/6. Averaged over 3 runs."
    )
    kinds = ("actionability",)
    fields = ("actionability", "errors_detected", "errors_corrected", "sources")
    Settings = FinGrActSettings
    default_runs = 3
    distinct_runs = True  # three runs are three draws, as in the paper
    prompt_ids = (SEGMENT, JUDGE)
    use_ucr = False

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s: FinGrActSettings = self.settings  # type: ignore[assignment]
        usage = Usage()
        salt = self.run_salt(s.temperature)
        claim, evidence = field_text(item, "claim"), field_text(item, "evidence")
        explanation = field_text(item, "explanation")
        seg = usage.add(
            await self.llm.complete_json(
                self.render(SEGMENT, claim=claim, evidence=evidence),
                Segmentation,
                temperature=s.temperature,
                max_tokens=s.max_tokens,
                cache_salt=salt,
            )
        )
        if not seg.ok:
            return self.failed(
                item,
                sig,
                usage,
                f"error segmentation: {seg.error}",
                seg.raw,
                {"stage": "segmentation"},
            )
        errors: list[ClaimError] = seg.value.errors
        details: dict[str, Any] = {
            "errors": [e.model_dump() for e in errors],
            "prompt_versions": self.prompt_versions(),
        }
        if not errors:
            details["note"] = "no factual error found in the claim; actionability undefined"
            res = EvalResult(
                item.item_id,
                sig,
                scores=dict.fromkeys(self.fields),
                details=details,
                raw_reply=seg.raw,
            )
            return usage.apply(res)
        urls = extract_urls(explanation)
        numbered = "\n".join(
            f"{i}. error: {e.reason} | correction: {e.correction}" for i, e in enumerate(errors, 1)
        )
        if self.use_ucr:
            query = " ".join([claim, *(e.correction for e in errors)])
            records = await retrieve(urls, query, self._ucr_settings(), self.ctx.pages)
            details["links"] = [_public_record(r) for r in records]
            link_possible = any(r.get("status") is not None and r["status"] < 400 for r in records)
            messages = self.render(
                JUDGE_UCR,
                errors=numbered,
                explanation=explanation,
                link_content=render_records(records),
            )
        else:
            details["links"] = [{"url": u} for u in urls]
            link_possible = bool(urls)
            messages = self.render(JUDGE, errors=numbered, explanation=explanation)
        judge = usage.add(
            await self.llm.complete_json(
                messages,
                ExplanationCheck,
                check=_count_check(len(errors)),
                temperature=s.temperature,
                max_tokens=s.max_tokens,
                cache_salt=salt,
            )
        )
        if not judge.ok:
            return self.failed(
                item,
                sig,
                usage,
                f"explanation evaluation: {judge.error}",
                judge.raw,
                {**details, "stage": "explanation"},
            )
        check: ExplanationCheck = judge.value
        parts = score(check.errors, check.links, link_possible)
        for err, c in zip(details["errors"], check.errors, strict=True):
            err.update(
                mentioned=c.mentioned, corrected=c.corrected, supported_by_link=c.supported_by_link
            )
        details["scoring"] = parts
        res = EvalResult(
            item.item_id,
            sig,
            scores={
                "actionability": parts["actionability"],
                "errors_detected": float(parts["detection"]),
                "errors_corrected": float(parts["correction"]),
                "sources": float(parts["sources"]),
            },
            details=details,
            reasoning=check.reasoning or None,
            raw_reply=json.dumps(
                {"segmentation": seg.raw, "explanation": judge.raw}, ensure_ascii=False
            ),
        )
        return usage.apply(res)

    def _ucr_settings(self) -> UCRSettings:
        s: FinGrActUCRSettings = self.settings  # type: ignore[assignment]
        return UCRSettings(
            allow_private=s.allow_private_addresses,
            max_links=s.max_links,
            token_budget=s.token_budget,
            condense=s.condense,
            refetch=s.refetch,
        )


@register_evaluator
class FinGrActUCR(FinGrAct):
    """FinGrAct with the URL Content Retriever: links judged on their fetched text."""

    name = "fingract_ucr"
    title = "FinGrAct + URL Content Retriever"
    description = (
        "FinGrAct with each link fetched (safely), condensed with MiniLM and "
        "shown to the judge; fetched pages are stored for reproducible re-runs."
    )
    Settings = FinGrActUCRSettings
    prompt_ids = (SEGMENT, JUDGE_UCR)
    use_ucr = True


def _count_check(n: int):
    def check(value: ExplanationCheck) -> str | None:
        if len(value.errors) != n:
            return f"'errors' has {len(value.errors)} entries but there are {n} numbered errors"
        return None

    return check


def _public_record(rec: dict[str, Any]) -> dict[str, Any]:
    """What the result keeps of a fetch record (the full text stays in the page store)."""
    keep = (
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
    return {k: rec.get(k) for k in keep}
