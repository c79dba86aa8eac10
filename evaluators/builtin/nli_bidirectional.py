"""Bidirectional NLI baseline for intent match: mean entailment of both directions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from evaluators.base import EvalItem, EvalResult, EvaluatorSettings
from evaluators.nli import NLISettings
from evaluators.nli.evaluator import NLIEvaluator
from evaluators.registry import register_evaluator


@register_evaluator
class NLIBidirectionalEvaluator(NLIEvaluator[NLISettings]):
    """match = (P(gold entails predicted) + P(predicted entails gold)) / 2."""

    name = "nli_bidirectional"
    version = "1"
    title = "Bidirectional NLI"
    description = (
        "Mean entailment probability of gold => predicted and predicted => gold "
        "(local NLI model or LLM backend)."
    )
    kinds: ClassVar[tuple[str, ...]] = ("intent_match",)
    fields: ClassVar[tuple[str, ...]] = ("match",)
    Settings: ClassVar[type[EvaluatorSettings]] = NLISettings

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        sig = self.signature()
        pairs: list[tuple[str, str]] = []
        for item in items:
            gold, pred = str(item.fields.get("gold", "")), str(item.fields.get("predicted", ""))
            pairs += [(gold, pred), (pred, gold)]
        preds = await self.backend.predict_unique(pairs)
        results = []
        for k, item in enumerate(items):
            fwd, bwd = preds[2 * k], preds[2 * k + 1]
            usage = {
                "tokens_in": fwd.tokens_in + bwd.tokens_in,
                "tokens_out": fwd.tokens_out + bwd.tokens_out,
                "cost": fwd.cost + bwd.cost,
                "cached": fwd.cached and bwd.cached,
            }
            if fwd.probs is None or bwd.probs is None:
                bad = fwd if fwd.probs is None else bwd
                res = EvalResult.failure(item.item_id, sig, f"NLI failed: {bad.error}", bad.raw)
                for key, value in usage.items():
                    setattr(res, key, value)
                results.append(res)
                continue
            score = (fwd.probs.entailment + bwd.probs.entailment) / 2
            results.append(
                EvalResult(
                    item.item_id,
                    sig,
                    scores={"match": score},
                    details={
                        "gold_entails_predicted": fwd.probs.as_dict(),
                        "predicted_entails_gold": bwd.probs.as_dict(),
                    },
                    **usage,
                )
            )
        return self.stamp_backend(results)
