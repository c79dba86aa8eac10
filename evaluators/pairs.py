"""Shared base for evaluators that compare two texts of an item (baselines).

The item kinds and fields compared:

- ``intent_match``: the predicted intent against the gold intent, scored as ``match``
  (a continuous similarity; the agreement engine compares it with the binary human
  judgment through its calibrated threshold), as the Bi-Fact paper's baselines do.
- ``binary`` / ``likert`` / ``score``: the item ``text`` against an extra ``reference``
  column, scored as ``label``.

``direction="both"`` (the default) scores each pair both ways and averages, as papers
that compare both ways do; ``"forward"`` scores the prediction against the reference only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal, TypeVar

from evaluators.base import EvalItem, EvalResult, Evaluator, EvaluatorSettings

#: kind -> (hypothesis field, reference field, scored field)
PAIR_FIELDS: dict[str, tuple[str, str, str]] = {
    "intent_match": ("predicted", "gold", "match"),
    "binary": ("text", "reference", "label"),
    "likert": ("text", "reference", "label"),
    "score": ("text", "reference", "label"),
}


class PairSettings(EvaluatorSettings):
    """Which way to compare; field names override the kind's defaults."""

    direction: Literal["both", "forward"] = "both"
    hypothesis_field: str | None = None
    reference_field: str | None = None


PairSettingsT = TypeVar("PairSettingsT", bound=PairSettings)


def _kind_of(item: EvalItem) -> str:
    return "intent_match" if "gold" in item.fields or "predicted" in item.fields else "score"


class PairEvaluator(Evaluator[PairSettingsT]):
    """Scores ``(hypothesis, reference)`` pairs; subclasses implement ``score_pairs``."""

    kinds: ClassVar[tuple[str, ...]] = tuple(PAIR_FIELDS)
    fields: ClassVar[tuple[str, ...]] = ("match", "label")
    Settings: ClassVar[type[EvaluatorSettings]] = PairSettings
    #: True when score(a, b) == score(b, a), so one direction is enough.
    symmetric: ClassVar[bool] = False

    def score_pairs(self, hypotheses: Sequence[str], references: Sequence[str]) -> list[float]:
        """Scores of each hypothesis against its reference (batched)."""
        raise NotImplementedError

    async def score_pairs_async(
        self, hypotheses: Sequence[str], references: Sequence[str]
    ) -> list[float]:
        """Async hook; model-based subclasses run the work off the event loop."""
        return self.score_pairs(hypotheses, references)

    def pair_fields(self, item: EvalItem) -> tuple[str, str, str]:
        """(hypothesis field, reference field, scored field) for this item."""
        hyp, ref, scored = PAIR_FIELDS[_kind_of(item)]
        s = self.settings
        return s.hypothesis_field or hyp, s.reference_field or ref, scored

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        sig = self.signature()
        both = self.settings.direction == "both" and not self.symmetric
        results: list[EvalResult | None] = [None] * len(items)
        hyps: list[str] = []
        refs: list[str] = []
        todo: list[int] = []
        for i, item in enumerate(items):
            hyp_f, ref_f, _ = self.pair_fields(item)
            hyp, ref = item.fields.get(hyp_f), item.fields.get(ref_f)
            if not isinstance(hyp, str) or not isinstance(ref, str) or not hyp or not ref:
                missing = hyp_f if not hyp else ref_f
                results[i] = EvalResult.failure(item.item_id, sig, f"item has no {missing!r} text")
                continue
            todo.append(i)
            hyps.append(hyp)
            refs.append(ref)
        if todo:
            forward = await self.score_pairs_async(hyps, refs)
            backward = await self.score_pairs_async(refs, hyps) if both else forward
            for k, i in enumerate(todo):
                _, _, scored = self.pair_fields(items[i])
                value = (forward[k] + backward[k]) / 2 if both else forward[k]
                details = {"forward": forward[k]}
                if both:
                    details["backward"] = backward[k]
                results[i] = EvalResult(
                    items[i].item_id, sig, scores={scored: value}, details=details
                )
        return [r for r in results if r is not None]
