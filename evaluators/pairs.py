"""Shared base for evaluators that compare two texts of an item (baselines).

Which two texts, and the score they write, is declared by the item's kind
(``TaskKind.text_pair``: hypothesis field, reference field, scored field): intent match
compares the predicted intent with the gold one as ``match``; the generic binary, likert
and score kinds compare the item ``text`` with an extra ``reference`` column as ``label``.
The baselines apply to every kind that declares a pair, a plugin's too.

``direction="both"`` (the default) scores each pair both ways and averages, as papers
that compare both ways do; ``"forward"`` scores the prediction against the reference only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal, TypeVar

from evaluators.base import EvalItem, EvalResult, Evaluator, EvaluatorSettings
from kinds.registry import KINDS, get_kind


class PairSettings(EvaluatorSettings):
    """Which way to compare; field names override the kind's defaults."""

    direction: Literal["both", "forward"] = "both"
    hypothesis_field: str | None = None
    reference_field: str | None = None


PairSettingsT = TypeVar("PairSettingsT", bound=PairSettings)


def text_pair(kind: str | None) -> tuple[str, str, str] | None:
    """The (hypothesis, reference, scored) fields the kind called ``kind`` declares."""
    if kind is None or kind not in KINDS:
        return None
    return get_kind(kind).text_pair


class PairEvaluator(Evaluator[PairSettingsT]):
    """Scores ``(hypothesis, reference)`` pairs; subclasses implement ``score_pairs``."""

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

    @classmethod
    def applies_to(cls, kind: str) -> bool:
        """True for the kinds that declare a text pair."""
        return text_pair(kind) is not None

    def pair_fields(self, item: EvalItem) -> tuple[str, str, str] | None:
        """(hypothesis field, reference field, scored field) for this item, as its kind
        declares them (settings may rename the two texts); None when it declares none."""
        pair = text_pair(item.kind)
        if pair is None:
            return None
        hyp, ref, scored = pair
        s = self.settings
        return s.hypothesis_field or hyp, s.reference_field or ref, scored

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        sig = self.signature()
        both = self.settings.direction == "both" and not self.symmetric
        results: list[EvalResult | None] = [None] * len(items)
        hyps: list[str] = []
        refs: list[str] = []
        todo: list[tuple[int, str]] = []  # (item, scored field)
        for i, item in enumerate(items):
            pair = self.pair_fields(item)
            if pair is None:
                why = f"kind {item.kind!r} declares no text pair to compare"
                results[i] = EvalResult.failure(item.item_id, sig, why)
                continue
            hyp_f, ref_f, scored = pair
            hyp, ref = item.fields.get(hyp_f), item.fields.get(ref_f)
            if not isinstance(hyp, str) or not isinstance(ref, str) or not hyp or not ref:
                missing = hyp_f if not hyp else ref_f
                results[i] = EvalResult.failure(item.item_id, sig, f"item has no {missing!r} text")
                continue
            todo.append((i, scored))
            hyps.append(hyp)
            refs.append(ref)
        if todo:
            forward = await self.score_pairs_async(hyps, refs)
            backward = await self.score_pairs_async(refs, hyps) if both else forward
            for k, (i, scored) in enumerate(todo):
                value = (forward[k] + backward[k]) / 2 if both else forward[k]
                details = {"forward": forward[k]}
                if both:
                    details["backward"] = backward[k]
                results[i] = EvalResult(
                    items[i].item_id, sig, scores={scored: value}, details=details
                )
        return [r for r in results if r is not None]
