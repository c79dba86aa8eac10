"""Intent resolution judge: did the response understand and resolve the query's intent?

As the source prompt asks, the judge reasons step by step *before* it gives the
structured record: the reply's first key is ``thought_chain`` (prose before the JSON is
taken too), then an explanation, the record (perceived intent, actual intent, correct
intent detected, resolved) and a score in 0.0-1.0 in steps of 0.2. Any other score is
re-asked, then recorded as a failure. The reasoning is stored (``details["thought_chain"]``
and the result's reasoning, shown in the audit). Pass/fail uses the setting
``threshold``: 0.6 by default, the workbench's choice (the source prompt defines no
threshold; 0.6 is the lowest level that "addresses the main intent with useful
specifics"). The prompt version is stored with every score (details and signature hash).
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field, field_validator

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings, Signature
from evaluators.llm.evaluator import LLMEvaluator, Usage, YesNo, field_text
from evaluators.registry import register_evaluator

PROMPT = "intent_resolution.v2"  # v2: step-by-step reasoning before the record
LEVELS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


class IntentRecord(BaseModel):
    """The judge's JSON record, its step-by-step reasoning first."""

    thought_chain: str = Field(
        "", validation_alias=AliasChoices("thought_chain", "ThoughtChain", "chain_of_thought")
    )
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
    """Pass threshold (0.6: the workbench's default, see the module docstring) and
    decoding settings (the source prompt's: temperature 0, up to 800 tokens)."""

    threshold: float = Field(0.6, ge=0.0, le=1.0)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(800, ge=16)


@register_evaluator
class IntentResolution(LLMEvaluator[IntentResolutionSettings]):
    """LLM judge of intent resolution (0.0-1.0 in steps of 0.2)."""

    name = "intent_resolution"
    version = "2"  # 2: step-by-step reasoning before the record, kept
    title = "Intent resolution judge"
    description = (
        "Query and response in; score 0.0-1.0 in steps of 0.2 with explanation, "
        "perceived/actual intent record and pass/fail at a threshold."
    )
    kinds = ("intent_resolution",)
    fields = ("resolution",)
    structured_output = True
    Settings = IntentResolutionSettings
    prompt_ids = (PROMPT,)

    async def evaluate_item(self, item: EvalItem, sig: Signature) -> EvalResult:
        s = self.settings
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
        thoughts = rec.thought_chain.strip() or _prose_before_json(reply.raw)
        details = {
            "thought_chain": thoughts or None,
            "record": rec.model_dump(exclude={"thought_chain"}),
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
            reasoning=f"{thoughts}\n\nExplanation: {rec.explanation}"
            if thoughts
            else rec.explanation,
            raw_reply=reply.raw,
        )
        return usage.apply(res)


def _prose_before_json(raw: str | None) -> str:
    """Reasoning written before the JSON object (a reply in the source prompt's style)."""
    text = raw or ""
    cut = min((i for i in (text.find("{"), text.find("```")) if i >= 0), default=-1)
    return text[:cut].strip() if cut > 0 else ""
