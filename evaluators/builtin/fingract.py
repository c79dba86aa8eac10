"""FinGrAct: fine-grained actionability of fact-checking explanations (with and without UCR).

Stage 1 (error segmentation and correction) splits the claim into sub-claims and lists
the false ones with the reason and the correction, from the evidence. Stage 2
(explanation evaluation) asks, per error, whether the explanation mentions it, corrects it
and backs the correction with a link. ``fingract_ucr`` first fetches every link with the
URL Content Retriever, puts the condensed page text into the prompt and also asks whether
a link works (exists) and is relevant.

Without UCR the judge is asked only what the paper's no-retriever prompt asks: error
mentioned, error corrected, and (from its knowledge) a link that supports the correction.
Existence and relevance are never asked then; they are only implied by a supporting link
(the paper's sanity rule: a link cannot support without existing and being relevant), so
a link that supports nothing earns no link points. The earlier behaviour, asking existence
and relevance from the model's knowledge, is the named variant
``link_judgement="from_knowledge"`` (not in the paper).

Scoring (computed here, not by the model):
detection and correction are 0 / 1 / 2 for none / some / all errors; links score
1 (exists) + 0.5 (relevant) + 0.5 (supports every correction); actionability =
(detection + correction + links) x 5/6 on 0-5. Sanity rules: no relevant link without an
existing one, no supporting link without both. A link can only exist when the
explanation contains one (and, with UCR, when a page actually answered).

Per-dimension scores on the annotators' scales: errors_detected = detection (0-2),
errors_corrected = correction (0-2), sources = exists + relevant + supports (0-3), which
matches the guideline's 0 none / 1 works / 2 relevant / 3 supports.

Replies in the paper's own format are understood: a bare list of per-error entries with
``response`` / ``correction`` / ``supporting_links`` (and, with UCR, ``existing_links`` /
``related_links``). Link judgements the reply leaves out are never scored as "No": they
are taken from the per-error keys, or implied by a supporting link (a link cannot
support a correction without existing and being relevant); when they still cannot be
known and the explanation has a link, the reply is re-asked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import AliasChoices, BaseModel, Field, PrivateAttr, model_validator

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings, Signature, run_settings
from evaluators.llm.evaluator import LLMEvaluator, Usage, YesNo, field_text, yes_no_answer
from evaluators.registry import register_evaluator
from evaluators.ucr import extract_urls
from evaluators.ucr.judging import (
    PUBLIC_RECORD_KEYS,
    UCRJudgeSettings,
    condense_unavailable,
    links_for_judge,
    retriever_notes,
    retriever_summary,
)

SEGMENT = "fingract_segment.v2"
JUDGE_PAPER = "fingract_judge_paper.v1"
JUDGE = "fingract_judge.v1"  # the from_knowledge variant: existence/relevance asked too
JUDGE_UCR = "fingract_judge_ucr.v1"
__all__ = ["PUBLIC_RECORD_KEYS"]


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
    # where the link judgement came from: "links", "per_error" or "implied_by_support";
    # None when the reply said nothing about the links (the defaults are not an answer)
    _links_from: str | None = PrivateAttr(None)

    # A validator, not extra fields: the JSON schema sent to the server (part of the
    # cache key) stays as it was.
    @model_validator(mode="wrap")
    @classmethod
    def _paper_link_keys(cls, data: Any, handler: Any) -> ExplanationCheck:
        source = "links" if isinstance(data, dict) and "links" in data else None
        if isinstance(data, dict) and source is None:
            derived, source = _links_from_error_entries(data.get("errors"))
            if derived is not None:
                data = {**data, "links": derived}
        value = handler(data)
        if isinstance(data, dict):  # an instance passed in keeps its own record
            value._links_from = source
        return value


def _links_from_error_entries(entries: Any) -> tuple[dict[str, bool] | None, str | None]:
    """The explanation's link judgement from per-error keys, as the paper's replies give it.

    With UCR the paper asks, per error, ``existing_links`` and ``related_links``; the
    links belong to the explanation as a whole, so a "Yes" for any error counts. Without
    UCR the paper asks only ``supporting_links``: a supporting link must exist and be
    relevant (the paper's sanity rule), so one "Yes" implies both. Otherwise the reply
    does not say, and None is returned.
    """
    if not isinstance(entries, list):
        return None, None
    rows = [e for e in entries if isinstance(e, dict)]

    def answers(*keys: str) -> list[bool | None]:
        out = []
        for row in rows:
            key = next((k for k in keys if k in row), None)
            out.append(None if key is None else yes_no_answer(row[key]))
        return out

    links: dict[str, bool] = {}
    exists = [a for a in answers(*_EXISTS_KEYS) if a is not None]
    relevant = [a for a in answers(*_RELEVANT_KEYS) if a is not None]
    if exists:
        links["exists"] = any(exists)
    if relevant:  # only what was answered: a missing answer is not a "No"
        links["relevant"] = any(relevant)
    source = "per_error" if links else "implied_by_support"
    if any(answers(*_SUPPORT_KEYS)):
        links.setdefault("exists", True)
        links.setdefault("relevant", True)
    return (links, source) if links else (None, None)


# the paper's spellings (its text uses both the plural and the singular)
_EXISTS_KEYS = ("existing_links", "existing_link")
_RELEVANT_KEYS = ("related_links", "related_link")
_SUPPORT_KEYS = ("supported_by_link", "supporting_links", "supporting_link")


class FinGrActDecoding(EvaluatorSettings):
    """Decoding settings, and how the agreement view averages the runs of an item:
    ``rounded`` (the paper reports the rounded average of three runs; to whole points)
    or ``mean`` (the plain mean)."""

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=16)
    run_average: Literal["rounded", "mean"] = "rounded"


class FinGrActSettings(FinGrActDecoding):
    """Decoding plus which link questions the judge gets without the retriever."""

    link_judgement: Literal["paper", "from_knowledge"] = "paper"


class FinGrActUCRSettings(FinGrActDecoding, UCRJudgeSettings):
    """Decoding plus URL Content Retriever settings."""


def run_average_note(setting: str) -> str:
    """The run note naming how an item's runs are averaged."""
    if setting == "mean":
        return "run_average='mean' (not the paper's): an item's score is the plain mean of its runs"
    return (
        "run_average='rounded' (the paper's): an item's score is the mean of its runs "
        "rounded to whole points"
    )


def categorize(hits: int, total: int) -> int:
    """0 when none, 1 when some, 2 when all of ``total`` (Algorithm 1's Categorize)."""
    if total <= 0 or hits <= 0:
        return 0
    return 2 if hits >= total else 1


def support_only_links(checks: list[ErrorCheck]) -> LinkCheck:
    """Without the retriever only support is asked; a supporting link implies that a
    relevant link exists (the paper's sanity rule), nothing else does."""
    supported = any(c.supported_by_link for c in checks)
    return LinkCheck(exists=supported, relevant=supported)


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
class FinGrAct(LLMEvaluator[FinGrActDecoding]):
    """FinGrAct (Eldifrawi et al. 2025), links judged from the model's knowledge."""

    name = "fingract"
    # 2: link judgements are no longer defaulted to "No" when left out
    # 3: without UCR only the paper's questions (existence/relevance only by support)
    # 4: the segmentation example is our own (prompt fingract_segment.v2)
    version = "4"
    title = "FinGrAct"
    description = (
        "Error segmentation and correction, then per-error detection/correction "
        "and link checks; (detect + correct + links) x 5/6. Three runs, their average "
        "rounded as in the paper (setting run_average: rounded / mean)."
    )
    kinds = ("actionability",)
    fields = ("actionability", "errors_detected", "errors_corrected", "sources")
    Settings: ClassVar[type[EvaluatorSettings]] = FinGrActSettings
    default_runs = 3
    distinct_runs = True  # three runs are three draws, as in the paper
    prompt_ids: ClassVar[tuple[str, ...]] = (SEGMENT, JUDGE_PAPER, JUDGE)
    use_ucr = False
    structured_output = True

    @classmethod
    def run_notes(
        cls, results: Sequence[EvalResult], human: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[str]:
        """How the runs are averaged, which link questions the judge got, the
        retriever's condensing, and the structured-output mode."""
        return [*cls.link_notes(results), *super().run_notes(results, human)]

    @classmethod
    def link_notes(cls, results: Sequence[EvalResult]) -> list[str]:
        """How the runs are averaged, which link questions the judge got, and the
        retriever's condensing."""
        average = run_average_note(run_settings(results).get("run_average", "rounded"))
        if cls.use_ucr:
            return [
                average,
                "links judged on their fetched pages (exists, relevant, supports)",
                *retriever_notes(r.details for r in results),
            ]
        variant = run_settings(results).get("link_judgement", "paper")
        if variant == "paper":
            return [
                average,
                "without the retriever: only the paper's questions (mentioned, corrected, "
                "supported by a link); link points only through a supporting link",
            ]
        return [
            average,
            "variant link_judgement='from_knowledge' (not the paper's): link existence and "
            "relevance judged from the model's knowledge, without fetching",
        ]

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s = self.settings
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
        asks_links = True  # existence and relevance are asked of the judge
        if self.use_ucr and isinstance(s, UCRJudgeSettings):
            query = " ".join([claim, *(e.correction for e in errors)])
            links = await links_for_judge(explanation, query, s, self.ctx.pages)
            details["links"] = links.public()
            link_possible = links.answered
            prompt = JUDGE_UCR
            values = {"link_content": links.prompt_text}
        else:
            details["links"] = [{"url": u} for u in urls]
            link_possible = bool(urls)
            asks_links = isinstance(s, FinGrActSettings) and s.link_judgement == "from_knowledge"
            prompt, values = (JUDGE if asks_links else JUDGE_PAPER), {}
        details["judge_prompt"] = prompt
        messages = self.render(prompt, errors=numbered, explanation=explanation, **values)
        judge = usage.add(
            await self.llm.complete_json(
                messages,
                ExplanationCheck,
                check=_reply_check(len(errors), link_possible, asks_links),
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
        link_check = check.links if asks_links else support_only_links(check.errors)
        parts = score(check.errors, link_check, link_possible)
        for err, c in zip(details["errors"], check.errors, strict=True):
            err.update(
                mentioned=c.mentioned, corrected=c.corrected, supported_by_link=c.supported_by_link
            )
        links_from = check._links_from if asks_links else "implied_by_support"
        details["scoring"] = {**parts, "links_from": links_from}
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

    def unavailable_reason(self) -> str | None:
        """The LLM's reason, else an explicit embedding condense that cannot run."""
        reason = super().unavailable_reason()
        if reason or not isinstance(self.settings, UCRJudgeSettings):
            return reason
        return condense_unavailable(self.settings)

    @classmethod
    def corpus_summary(cls, results: Sequence[EvalResult]) -> dict[str, Any] | None:
        """How the fetched pages were condensed, with the MiniLM fallback warning."""
        return retriever_summary(results)


def _missing_support(value: ExplanationCheck) -> str | None:
    """Re-ask reason when an error has no ``supported_by_link`` answer."""
    missing = [
        str(i)
        for i, c in enumerate(value.errors, 1)
        if "supported_by_link" not in c.model_fields_set
    ]
    if missing:
        return f'error(s) {", ".join(missing)} have no "supported_by_link" answer ("Yes" or "No")'
    return None


def _reply_check(n: int, link_possible: bool, asks_links: bool = True):
    """Re-ask unless every error is judged and every link judgement that counts is given.

    Link answers only count when the explanation can have a working link; then a missing
    answer is asked for again instead of being scored as "No". Without existence and
    relevance questions (``asks_links`` False) only the support answers count.
    """

    def check(value: ExplanationCheck) -> str | None:
        if len(value.errors) != n:
            return f"'errors' has {len(value.errors)} entries but there are {n} numbered errors"
        if not link_possible:
            return None
        if not asks_links:
            return _missing_support(value)
        given = value.links.model_fields_set if value._links_from else set()
        if "exists" not in given:
            return (
                'the reply does not judge the links of the explanation; add "links": '
                '{"exists": "Yes" or "No", "relevant": "Yes" or "No"}'
            )
        if value.links.exists and "relevant" not in given:
            return 'the reply does not say whether the links are relevant ("links.relevant")'
        if value.links.exists and value.links.relevant:
            return _missing_support(value)
        return None

    return check
