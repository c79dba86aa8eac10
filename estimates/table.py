"""All estimates of one field and judge: per group, differences, plans; JSON and text."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from estimates.differences import Difference
from estimates.groups import GroupEstimates
from estimates.planning import Plan
from estimates.verdict import ranked, small_sample_note, why

#: Method key -> the label the table, page and report use.
METHOD_LABELS = {
    "human": "human only",
    "judge": "judge only (biased)",
    "ppi": "PPI++",
    "corrected": "judge corrected (Rogan-Gladen)",
}
METHOD_NOTES = {
    "human": "mean of the human reference, normal 95% interval",
    "judge": "the judge's mean over every judged item; its interval ignores the judge's errors",
    "ppi": "prediction-powered mean with power-tuned lambda (Angelopoulos, Duchi, Zrnic 2023)",
    "corrected": "judge rate corrected by measured sensitivity and specificity, delta-method CI",
}


def verdict(g: GroupEstimates) -> dict[str, Any]:
    """A group's methods in table order (the narrowest valid interval first), why that
    one leads, and the small-sample note (None when it has none)."""
    methods = g.methods()
    return {
        "order": ranked(methods),
        "why": why(methods, METHOD_LABELS),
        "note": small_sample_note(methods, g.n_human, g.n_both, METHOD_LABELS),
    }


@dataclass
class EstimateTable:
    """What ``cli.py estimate --json`` prints."""

    project: str
    field: str
    field_type: str
    evaluator: str
    groups: list[GroupEstimates]
    differences: list[Difference] = dataclasses.field(default_factory=list)
    plans: dict[str, list[Plan]] = dataclasses.field(default_factory=dict)
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document."""
        return {
            "project": self.project,
            "field": self.field,
            "field_type": self.field_type,
            "evaluator": self.evaluator,
            "groups": [{**g.to_dict(), **verdict(g)} for g in self.groups],
            "differences": [d.to_dict() for d in self.differences],
            "plans": {k: [p.to_dict() for p in v] for k, v in self.plans.items()},
            "methods": {k: METHOD_NOTES[k] for k in METHOD_LABELS},
            "meta": self.meta,
        }


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _ci(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def table_text(t: EstimateTable) -> str:
    """A readable table: one block per group, one line per method."""
    lines = [f"{t.project} · {t.field} ({t.field_type}) · judge {t.evaluator}"]
    for g in t.groups:
        lines.append(
            f"{g.group}: n_human {g.n_human}, n_judge {g.n_judge}"
            + (" (inverse-probability weighted)" if g.weighted else "")
        )
        v = verdict(g)
        methods = g.methods()
        for key in v["order"]:
            est = methods[key]
            text = f"{_fmt(est.estimate)}{_ci(est.ci)}" if est.estimate is not None else est.reason
            extra = ""
            if key == "ppi" and est.estimate is not None:
                extra = f"  lambda {est.extra['lambda']:.3f}"
                if g.effective_n is not None and g.saved is not None:
                    extra += f", effective n {g.effective_n:.0f}, interval {g.saved:.0%} narrower"
            lines.append(f"  {METHOD_LABELS[key]:<32} {text}{extra}")
        lines += [f"  {v[k]}" for k in ("why", "note") if v[k]]
    for d in t.differences:
        p = d.estimates["ppi"]
        paired = f"paired over {d.n_pairs} inputs" if d.paired else "unpaired"
        lines.append(
            f"difference {d.a} - {d.b} (PPI++, {paired}): {_fmt(p.estimate)}{_ci(p.ci)}"
            if p.estimate is not None
            else f"difference {d.a} - {d.b}: {p.reason}"
        )
    for group, plans in t.plans.items():
        for plan in plans:
            need = (
                f"{plan.more} more ({plan.n_needed} in all)"
                if plan.more is not None
                else plan.reason
            )
            lines.append(f"plan {group} · {plan.figure} to ±{plan.target:g}: {need}")
    return "\n".join(lines)
