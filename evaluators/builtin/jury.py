"""A jury (Verga et al. 2024, *PoLL*): an evaluator made of other evaluators.

Members are evaluator names (stored judges ``judge:NAME[@N]`` or registered evaluators);
the runner builds them (:func:`jobs.runner.run_evaluator`) and hands them over with
``bind_members``. Each member scores every item on its own; per item and field the jury's
score is the members' majority, mean or median (:mod:`common.jury_rule`). The order of the
members is drawn per item (seeded by the jury's ``seed`` and the item id) and stored
with the result: a majority tie goes to the tied value of the earliest member in that
order. A member that fails on an item is left out of that item's figure; an item no
member scored fails.

The signature holds the members' own signatures, so a new member version or model is a
new jury signature.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field

from common.jury_rule import aggregate as aggregate
from common.jury_rule import member_order as member_order
from evaluators.base import EvalItem, EvalResult, Evaluator, EvaluatorSettings, stable_hash
from evaluators.registry import register_evaluator


class JurySettings(EvaluatorSettings):
    """The members (two or more evaluator names), how their scores combine, the seed
    of the per-item member order."""

    members: list[str] = Field(default_factory=list)
    aggregate: Literal["majority", "mean", "median"] = "majority"
    seed: int = 0


def member_label(ev: Evaluator[Any]) -> str:
    """``name vVERSION`` of a member."""
    return f"{ev.name} v{ev.version}"


@register_evaluator
class JuryEvaluator(Evaluator[JurySettings]):
    """A panel of evaluators whose scores are combined item by item."""

    name = "jury"
    version = "1"
    title = "Jury"
    description = (
        "A panel of judges (PoLL): each member scores the item, the jury takes their "
        "majority, mean or median; the member order is drawn per item and stored."
    )
    Settings = JurySettings
    #: Any kind its members fit (checked when they are built); not offered per kind,
    #: since a jury is nothing without the members its settings name.
    panel: ClassVar[bool] = True

    def __init__(self, settings: Any = None, ctx: Any = None) -> None:
        super().__init__(settings, ctx)
        names = self.settings.members
        if len(names) < 2:
            raise ValueError("a jury needs two or more members (settings 'members')")
        if len(set(names)) < len(names):
            raise ValueError("a jury's members must differ")
        self.members: list[Evaluator[Any]] = []

    def bind_members(self, members: Sequence[Evaluator[Any]]) -> None:
        """The built member evaluators, in the order of ``settings.members``."""
        self.members = list(members)
        self.fields = tuple(  # type: ignore[misc]
            dict.fromkeys(f for m in self.members for f in m.fields)
        )

    def unavailable_reason(self) -> str | None:
        """Unbuilt members, or the first member that cannot run here."""
        if not self.members:
            return "the jury's members are not built (run it through the runner)"
        return next((r for m in self.members if (r := m.unavailable_reason())), None)

    def check_available(self) -> None:
        """Each member's own check."""
        super().check_available()
        for m in self.members:
            m.check_available()

    def model_name(self) -> str | None:
        """The members' models, joined."""
        models = dict.fromkeys(str(m.model_name()) for m in self.members)
        return "+".join(models) or None

    def prompt_hash(self) -> str | None:
        """A hash of the members' signatures."""
        return stable_hash([str(m.signature()) for m in self.members], 16)

    def signature_settings(self) -> dict[str, Any]:
        """Members, aggregate, seed, and each member's signature."""
        return {
            **self.settings.model_dump(mode="json"),
            "member_signatures": [str(m.signature()) for m in self.members],
        }

    def preferred_batch_size(self) -> int:
        """The smallest of the members' batch sizes."""
        return min((m.preferred_batch_size() for m in self.members), default=16)

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        """Every member on the batch, then the jury's figure per item."""
        self.check_available()
        sig = self.signature()
        per_member = await asyncio.gather(*(m.evaluate(items) for m in self.members))
        return [
            self._combine(item, [results[k] for results in per_member], sig)
            for k, item in enumerate(items)
        ]

    def _combine(self, item: EvalItem, got: list[EvalResult], sig: Any) -> EvalResult:
        labels = [member_label(m) for m in self.members]
        order = member_order(len(self.members), self.settings.seed, item.item_id)
        how = self.settings.aggregate
        scores: dict[str, float | None] = {}
        broken = []
        for f in self.fields:
            values = [
                float(x)
                for k in order
                if got[k].status == "ok" and isinstance(x := got[k].scores.get(f), int | float)
            ]
            if values:
                scores[f], tie = aggregate(values, how)
                if tie:
                    broken.append(f)
        details = {
            "aggregate": how,
            "order": [labels[k] for k in order],
            "jurors": [
                {
                    "member": labels[k],
                    "status": got[k].status,
                    "scores": got[k].scores,
                    **({"error": got[k].error} if got[k].error else {}),
                }
                for k in order
            ],
        }
        if broken:
            details["tie_broken_by_order"] = broken
        result = EvalResult(
            item.item_id,
            sig,
            scores=scores,
            details=details,
            tokens_in=sum(r.tokens_in for r in got),
            tokens_out=sum(r.tokens_out for r in got),
            cost=sum(r.cost for r in got),
            latency_s=max((r.latency_s for r in got), default=0.0),
            cached=all(r.cached for r in got),
        )
        if not scores:
            errors = "; ".join(f"{labels[k]}: {got[k].error}" for k in order)
            result.status, result.error = "failed", f"no member scored the item ({errors})"
            result.details = details
        return result
