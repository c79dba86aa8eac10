"""G-Eval: a definition and evaluation steps, scored by sampling and by token probabilities.

As in the G-Eval paper (and the FinGrAct baselines), the judge answers with a 1-5 score
only. Twenty samples are drawn at temperature 1 (one request with ``n=20`` where the
server supports it, otherwise twenty requests) and averaged. When the endpoint returns
top log-probabilities, each sample's score is also weighted by the probabilities of the
digit tokens 1-5 at the score position; that probability-weighted score is then the
result. ``details["mode"]`` records which one was used. The 1-5 score is mapped onto the
kind's field (actionability 0-5, resolution 0-1).
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import Field

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings, Signature
from evaluators.llm.client import LLMError
from evaluators.llm.evaluator import LLMEvaluator, Usage
from evaluators.llm.targets import prompt_values, target_for
from evaluators.registry import register_evaluator

PROMPTS = {
    "actionability": "geval_actionability.v1",
    "intent_resolution": "geval_intent_resolution.v1",
}
_NUMBER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)")
_DIGITS = {"1", "2", "3", "4", "5"}


class GEvalSettings(EvaluatorSettings):
    """Sampling settings (the paper's defaults)."""

    samples: int = Field(20, ge=1, le=50)
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    max_tokens: int = Field(5, ge=1, le=64)
    use_logprobs: bool = True
    top_logprobs: int = Field(20, ge=1, le=20)
    score: str = Field("auto", pattern="^(auto|weighted|mean)$")


def parse_sample(text: str) -> float | None:
    """The first number of a completion when it is a score in 1..5, else None."""
    match = _NUMBER.search(text or "")
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
class GEval(LLMEvaluator):
    """G-Eval (Liu et al. 2023) adapted to the workbench's kinds."""

    name = "geval"
    version = "1"
    title = "G-Eval"
    description = (
        "Definition + evaluation steps; 20 samples at temperature 1 averaged, or "
        "the probability-weighted score when the endpoint gives logprobs."
    )
    kinds = ("actionability", "intent_resolution")
    fields = ("actionability", "resolution")
    Settings = GEvalSettings
    prompt_ids = tuple(PROMPTS.values())

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s: GEvalSettings = self.settings  # type: ignore[assignment]
        usage = Usage()
        target = target_for(item.fields)
        messages = self.render(PROMPTS[target.kind], **prompt_values(item.fields, target))
        try:
            reply = usage.add(
                await self.llm.complete(
                    messages,
                    n=s.samples,
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    logprobs=s.use_logprobs,
                    top_logprobs=s.top_logprobs if s.use_logprobs else None,
                    cache_salt=self.run_salt(s.temperature),
                )
            )
        except LLMError as exc:
            return self.failed(item, sig, usage, f"LLM call failed: {exc}", None)
        sampled = [parse_sample(t) for t in reply.texts]
        valid = [v for v in sampled if v is not None]
        weights = [weighted_score(lp) for lp in reply.logprobs] if s.use_logprobs else []
        weighted = [w for w in weights if w is not None]
        raw = "\n---\n".join(reply.texts)
        details: dict[str, Any] = {
            "samples": sampled,
            "valid_samples": len(valid),
            "requested_samples": s.samples,
            "sample_mean_1_5": sum(valid) / len(valid) if valid else None,
            "weighted_1_5": sum(weighted) / len(weighted) if weighted else None,
            "weighted_samples": len(weighted),
            "prompt_versions": [PROMPTS[target.kind]],
            "target": target.field,
        }
        mode = _choose(s.score, details)
        if mode is None:
            return self.failed(
                item, sig, usage, "no sample contained a score from 1 to 5", raw, details
            )
        details["mode"] = mode
        value = details["weighted_1_5" if mode == "logprobs_weighted" else "sample_mean_1_5"]
        details["score_1_5"] = value
        res = EvalResult(
            item.item_id,
            sig,
            scores={target.field: target.rescale(value)},
            details=details,
            raw_reply=raw,
        )
        return usage.apply(res)


def _choose(preference: str, details: dict[str, Any]) -> str | None:
    has_weighted = details["weighted_1_5"] is not None
    has_mean = details["sample_mean_1_5"] is not None
    if preference in ("auto", "weighted") and has_weighted:
        return "logprobs_weighted"
    if preference == "weighted" and not has_weighted:
        return None
    return "sample_mean" if has_mean else None
