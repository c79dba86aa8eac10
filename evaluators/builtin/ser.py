"""Slot Error Rate baseline for dialogue acts (string match of slot values).

A value counts as realised when it appears in the utterance (case-insensitive). SER can
only judge non-categorical slots, whose values are meant to be said verbatim. Everything
else (categorical and boolean slots, acts without values, slots whose categorical flag is
unknown such as ``count`` and ``intent``) is *not applicable*: the result is "ok" with
``faithful = None`` and the reason in details, so it is counted, never scored as a guess.
:func:`ser_report` gives the corpus figures.

Unlike the Slot Error Rate of the literature (missing plus invented values over the
values to realise), this SER counts only *missing* values: it has no list of values an
utterance could invent (an act without values, such as a REQUEST, has nothing to match
against), so invented values are not counted. The corpus figures say so
(``invented_values_counted: false``) and acts without values are not applicable.

Besides the per-act rate, :func:`ser_report` gives a per-utterance figure: acts are
grouped into utterances as SGSAcc groups them (:mod:`evaluators.utterances`), and an
utterance has an error when any of its applicable acts misses a value; utterances with
no applicable act are left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from evaluators.base import EvalItem, EvalResult, Evaluator, EvaluatorSettings
from evaluators.registry import register_evaluator
from evaluators.sgd_acts import Act
from evaluators.utterances import UtteranceKey, group_units, share, unit_values, utterance_key


def not_applicable_reason(act: Act) -> str | None:
    """Why SER cannot judge this act, or None when it can."""
    if not act.slot or not act.values:
        return "act has no slot values (invented values are not counted)"
    if act.is_categorical is None:
        return "slot's categorical flag is unknown"
    if act.is_categorical:
        return "categorical slot"
    return None


@register_evaluator
class SlotErrorRateEvaluator(Evaluator[EvaluatorSettings]):
    """faithful = 1 when every value of a non-categorical slot appears in the utterance."""

    name = "ser"
    version = "2"  # 2: results carry their utterance key (per-utterance figure)
    title = "Slot Error Rate"
    description = (
        "Non-categorical slot values must appear verbatim (case-insensitive) in "
        "the utterance; categorical slots are counted as not applicable."
    )
    kinds: ClassVar[tuple[str, ...]] = ("dialogue_faithfulness",)
    fields: ClassVar[tuple[str, ...]] = ("faithful",)

    @classmethod
    def corpus_summary(cls, results: Sequence[EvalResult]) -> dict[str, Any] | None:
        """Slot, act and utterance error rates, and the slots SER cannot judge."""
        return ser_report(results).as_dict()

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        sig = self.signature()
        out = []
        for item in items:
            act = Act.from_fields(item.fields)
            key = utterance_key(item.item_id, item.fields).as_dict()
            reason = not_applicable_reason(act)
            if reason:
                out.append(
                    EvalResult(
                        item.item_id,
                        sig,
                        scores={"faithful": None},
                        details={"applicable": False, "reason": reason, "utterance": key},
                    )
                )
                continue
            text = str(item.fields.get("utterance") or "").lower()
            missing = [v for v in act.values if v.lower() not in text]
            out.append(
                EvalResult(
                    item.item_id,
                    sig,
                    scores={"faithful": float(not missing)},
                    details={
                        "applicable": True,
                        "values": len(act.values),
                        "missing": missing,
                        "utterance": key,
                    },
                )
            )
        return out


@dataclass(frozen=True)
class SERReport:
    """Corpus Slot Error Rate over the acts SER can judge, and what it could not."""

    applicable: int
    not_applicable: int
    not_applicable_reasons: dict[str, int]
    slot_values: int
    slot_errors: int
    slot_error_rate: float | None  # missing values / values, over applicable acts
    act_error_rate: float | None  # share of applicable acts with a missing value
    #: share of utterances (with an applicable act) where some act misses a value
    utterance_error_rate: float | None = None
    n_utterances: int = 0
    invented_values_counted: bool = False  # see the module docstring

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def ser_report(results: Iterable[EvalResult]) -> SERReport:
    """Aggregate ``ser`` results into the corpus figures."""
    judged = []
    reasons: Counter[str] = Counter()
    for r in results:
        if r.status != "ok":
            continue
        if r.details.get("applicable"):
            judged.append(r)
        else:
            reasons[str(r.details.get("reason"))] += 1
    realised = {r.item_id: float(not r.details["missing"]) for r in judged}
    units = {
        unit: [a for a in acts if a in realised]
        for unit, acts in group_units({r.item_id: _key(r) for r in judged}).items()
    }
    per_utterance = unit_values({u: a for u, a in units.items() if a}, realised)
    clean = share(per_utterance.values())
    values = sum(int(r.details["values"]) for r in judged)
    errors = sum(len(r.details["missing"]) for r in judged)
    return SERReport(
        applicable=len(judged),
        not_applicable=sum(reasons.values()),
        not_applicable_reasons=dict(reasons),
        slot_values=values,
        slot_errors=errors,
        slot_error_rate=errors / values if values else None,
        act_error_rate=sum(bool(r.details["missing"]) for r in judged) / len(judged)
        if judged
        else None,
        utterance_error_rate=None if clean is None else 1.0 - clean,
        n_utterances=len(per_utterance),
    )


def _key(result: EvalResult) -> UtteranceKey:
    data = result.details.get("utterance")
    return UtteranceKey.from_dict(data) if data else UtteranceKey(result.item_id, False)
