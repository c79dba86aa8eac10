"""Intent resolution judge: did the response understand and resolve the query's intent?

The judge returns JSON: an explanation, the structured record (perceived intent, actual
intent, correct intent detected, resolved) and a score in 0.0-1.0 in steps of 0.2. Any
other score is re-asked, then recorded as a failure. Pass/fail uses a configurable
threshold; the prompt version is stored with every score (details and signature hash).
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field, field_validator

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings, Signature
from evaluators.llm.evaluator import LLMEvaluator, Usage, YesNo, field_text
from evaluators.registry import register_evaluator

PROMPT = "intent_resolution.v1"
LEVELS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


class IntentRecord(BaseModel):
    """The judge's JSON record."""

    explanation: str
    conversation_has_intent: YesNo = True
    agent_perceived_intent: str
    actual_user_intent: str
    correct_intent_detected: YesNo
    intent_resolved: YesNo
    resolution_score: float = Field(validation_alias=AliasChoices("resolution_score", "score"))

    @field_validator("resolution_score")
    @classmethod
    def _on_grid(cls, value: float) -> float:
        for level in LEVELS:
            if abs(value - level) < 1e-6:
                return level
        raise ValueError(f"{value} is not one of {', '.join(f'{x:.1f}' for x in LEVELS)}")


class IntentResolutionSettings(EvaluatorSettings):
    """Pass threshold and decoding settings."""

    threshold: float = Field(0.6, ge=0.0, le=1.0)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(800, ge=16)


@register_evaluator
class IntentResolution(LLMEvaluator):
    """LLM judge of intent resolution (0.0-1.0 in steps of 0.2)."""

    name = "intent_resolution"
    version = "1"
    title = "Intent resolution judge"
    description = (
        "Query and response in; score 0.0-1.0 in steps of 0.2 with explanation, "
        "perceived/actual intent record and pass/fail at a threshold."
    )
    kinds = ("intent_resolution",)
    fields = ("resolution",)
    Settings = IntentResolutionSettings
    prompt_ids = (PROMPT,)

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s: IntentResolutionSettings = self.settings  # type: ignore[assignment]
        usage = Usage()
        reply = usage.add(
            await self.llm.complete_json(
                self.render(
                    PROMPT, query=field_text(item, "query"), response=field_text(item, "response")
                ),
                IntentRecord,
                temperature=s.temperature,
                max_tokens=s.max_tokens,
                cache_salt=self.run_salt(s.temperature),
            )
        )
        if not reply.ok:
            return self.failed(
                item, sig, usage, reply.error or "no reply", reply.raw, {"prompt_version": PROMPT}
            )
        rec: IntentRecord = reply.value
        score = rec.resolution_score
        details = {
            "record": rec.model_dump(),
            "threshold": s.threshold,
            "result": "pass" if score >= s.threshold - 1e-9 else "fail",
            "prompt_version": PROMPT,
            "prompt_versions": [PROMPT],
        }
        res = EvalResult(
            item.item_id,
            sig,
            scores={"resolution": score},
            details=details,
            reasoning=rec.explanation,
            raw_reply=reply.raw,
        )
        return usage.apply(res)
