"""G-Eval: a definition and evaluation steps, scored by sampling and by token probabilities.

As in the FinGrAct paper's G-Eval baseline, the judge answers with a 1-5 score only;
twenty samples are drawn at temperature 1, top_p 1 (one request with ``n=20`` where the
server supports it, otherwise twenty requests) and their mean is the score: setting
``score="mean"``, the default. The G-Eval paper's probability-weighted score (each
sample's digit tokens 1-5 weighted by their top log-probabilities) is the setting
``score="weighted"`` (fails when the endpoint gives no log-probabilities); ``"auto"``
takes it when available, else the mean. ``details["mode"]`` records which one ran. The
1-5 score is mapped onto the kind's field by ``scale_mapping`` (see
:mod:`evaluators.llm.targets`).

Only a sample that *is* the form's answer counts (``4``, ``4.``, ``Score: 4``, ``4/5``, a
score alone on its first line): a digit inside prose ("1. Read the user", "You scored 4
out") is not a score. ``details`` say how many of the n samples were usable, and an item
with fewer than ``min_usable`` of them (half, by default) fails with that reason, since
a mean of a few stray samples would be a made-up score. ``geval_ucr`` adds the retrieved link content to the
prompt (the FinGrAct paper's second experiment).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from evaluators.base import EvalResult, EvaluatorSettings, count_of
from evaluators.llm.client import LLMError
from evaluators.llm.evaluator import Usage
from evaluators.llm.rubric import Grade, NoGrade, RubricJudge
from evaluators.llm.targets import ScaleMapping
from evaluators.registry import register_evaluator
from evaluators.ucr.judging import RetrieverJudge, UCRJudgeSettings

PROMPT_UCR = "geval_actionability_ucr.v1"
#: The form's answer: an optional label and colon, the number, an optional "/5" or
#: "out of 5" and a full stop, and nothing else on the line.
_ANSWER = re.compile(
    r"(?:-\s+)?(?:[a-z][a-z \-]{0,40}:\s*)?(\d+(?:\.\d+)?)\s*(?:/\s*5|out of 5)?\s*\.?", re.I
)
_DECORATION = "*_`\"' \t"
_DIGITS = {"1", "2", "3", "4", "5"}


class GEvalSettings(EvaluatorSettings):
    """Sampling settings (the paper's defaults)."""

    samples: int = Field(20, ge=1, le=50)
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(5, ge=1, le=64)
    use_logprobs: bool = True
    top_logprobs: int = Field(20, ge=1, le=20)
    score: str = Field("mean", pattern="^(auto|weighted|mean)$")
    scale_mapping: ScaleMapping = "stretch"
    #: The share of the samples that must be a score for the item to get one.
    min_usable: float = Field(0.5, ge=0.0, le=1.0)


class GEvalUCRSettings(GEvalSettings, UCRJudgeSettings):
    """G-Eval settings plus the URL Content Retriever's."""


def parse_sample(text: str | None) -> float | None:
    """The score in 1..5 that a completion answers with, else None.

    The answer is the first non-empty line, without markdown emphasis or quotes; it must
    be the score itself (see ``_ANSWER``). A reply cut off after that line still counts.
    """
    lines = [line.strip(_DECORATION) for line in (text or "").splitlines()]
    first = next((line for line in lines if line), "")
    match = _ANSWER.fullmatch(first)
    if not match:
        return None
    value = float(match.group(1))
    return value if 1 <= value <= 5 else None


def weighted_score(tokens: list[dict[str, Any]] | None) -> float | None:
    """Probability-weighted score at the first digit token, from its top logprobs."""
    if not tokens:
        return None
    for entry in tokens:
        if entry.get("token", "").strip() in _DIGITS:
            candidates = entry.get("top_logprobs") or [entry]
            probs: dict[int, float] = {}
            for cand in candidates:
                tok = str(cand.get("token", "")).strip()
                if tok in _DIGITS:
                    probs[int(tok)] = probs.get(int(tok), 0.0) + math.exp(cand["logprob"])
            total = sum(probs.values())
            return sum(k * p for k, p in probs.items()) / total if total > 0 else None
    return None


@register_evaluator
class GEval(RubricJudge[GEvalSettings]):
    """G-Eval (Liu et al. 2023) on each kind's one numeric score."""

    name = "geval"
    version = "2"  # 2: only samples that are the form's answer count; too few fail the item
    title = "G-Eval"
    description = (
        "Definition + evaluation steps; 20 samples at temperature 1 averaged, or "
        "the probability-weighted score when the endpoint gives logprobs."
    )
    kinds = ("actionability", "intent_resolution")
    fields = ("actionability", "resolution")
    Settings = GEvalSettings
    judge = "geval"

    @classmethod
    def decoding_notes(cls, s: Mapping[str, Any], results: Sequence[EvalResult]) -> list[str]:
        """The score setting and which score ran, and the decoding."""
        ok = [r for r in results if r.status == "ok"]
        usable = sum(int(r.details.get("valid_samples") or 0) for r in ok)
        received = sum(int(r.details.get("received_samples") or 0) for r in ok)
        return [
            f"score setting {s.get('score')!r} (default 'mean': the paper's 20-sample mean); "
            f"ran: {count_of([r.details.get('mode') for r in ok])}",
            f"decoding: {s.get('samples')} samples, temperature {s.get('temperature')}, "
            f"top_p {s.get('top_p')}",
            f"usable samples (a score from 1 to 5 as the answer): {usable} of {received} in "
            f"the {len(ok)} scored items; an item with less than {s.get('min_usable', 0.5)} "
            "of its samples usable fails",
        ]

    async def grade(
        self, messages: list[dict[str, str]], usage: Usage, details: dict[str, Any]
    ) -> Grade | NoGrade:
        """Sample the score, then take the mean or the probability-weighted score."""
        s = self.settings
        try:
            reply = usage.add(
                await self.llm.complete(
                    messages,
                    n=s.samples,
                    temperature=s.temperature,
                    top_p=s.top_p,
                    max_tokens=s.max_tokens,
                    logprobs=s.use_logprobs,
                    top_logprobs=s.top_logprobs if s.use_logprobs else None,
                    cache_salt=self.run_salt(s.temperature),
                )
            )
        except LLMError as exc:
            return NoGrade(f"LLM call failed: {exc}", {}, None)
        sampled = [parse_sample(t) for t in reply.texts]
        valid = [v for v in sampled if v is not None]
        weights = (
            [
                weighted_score(lp)
                for v, lp in zip(sampled, reply.logprobs, strict=False)
                if v is not None
            ]
            if s.use_logprobs
            else []
        )
        weighted = [w for w in weights if w is not None]
        raw = "\n---\n".join(reply.texts)
        details = {
            "samples": sampled,
            "valid_samples": len(valid),
            "received_samples": len(reply.texts),
            "requested_samples": s.samples,
            "sample_mean_1_5": sum(valid) / len(valid) if valid else None,
            "weighted_1_5": sum(weighted) / len(weighted) if weighted else None,
            "weighted_samples": len(weighted),
            **details,
            "score_setting": s.score,
            "scale_mapping": s.scale_mapping,
        }
        needed = math.ceil(s.min_usable * len(reply.texts))
        if valid and len(valid) < needed:
            example = next(t for t, v in zip(reply.texts, sampled, strict=False) if v is None)
            why = (
                f"only {len(valid)} of {len(reply.texts)} samples were a score from 1 to 5 "
                f"(at least {needed} needed, min_usable={s.min_usable:g}); e.g. {example[:60]!r}"
            )
            return NoGrade(why, details, raw)
        mode = _choose(s.score, details)
        if mode is None:
            why = (
                "score='weighted' but the endpoint returned no usable log-probabilities"
                if s.score == "weighted" and details["sample_mean_1_5"] is not None
                else "no sample contained a score from 1 to 5"
            )
            return NoGrade(why, details, raw)
        details["mode"] = mode
        value = details["weighted_1_5" if mode == "logprobs_weighted" else "sample_mean_1_5"]
        details["score_1_5"] = value
        return Grade(value, details, raw)


def _choose(preference: str, details: dict[str, Any]) -> str | None:
    has_weighted = details["weighted_1_5"] is not None
    has_mean = details["sample_mean_1_5"] is not None
    if preference in ("auto", "weighted") and has_weighted:
        return "logprobs_weighted"
    if preference == "weighted" and not has_weighted:
        return None
    return "sample_mean" if has_mean else None


@register_evaluator
class GEvalUCR(RetrieverJudge, GEval):
    """G-Eval with the URL Content Retriever: the linked pages are in the prompt."""

    name = "geval_ucr"
    title = "G-Eval + URL Content Retriever"
    description = (
        "G-Eval's sampled 1-5 score with each link of the explanation fetched (safely), "
        "condensed and shown to the judge; pages shared with fingract_ucr and prometheus_ucr."
    )
    Settings = GEvalUCRSettings
    ucr_prompt = PROMPT_UCR
