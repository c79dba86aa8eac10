"""The side panel's headline figures for one field (no bootstrap: it must be quick).

Which measures it shows is declared once, on each measure (``panel=True``): among people
in :mod:`agreement.statistics`, the evaluator sections in :mod:`agreement.builtin_measures`.
"""

from __future__ import annotations

from typing import Any

from agreement.exclusions import exclusion_line
from agreement.measures import EVALUATOR_SECTIONS
from agreement.rows import evaluator_entries
from agreement.statistics import Entry, Statistic, field_entries
from annotation_store import Store
from reports.bias_text import own_model_text
from reports.data import agreement_document


def _in_panel(stat: Statistic) -> bool:
    return stat.panel


def _panel_entries(f: dict[str, Any]) -> list[Entry]:
    """The panel statistics of a field; of alpha's levels only the field's own (or the
    first defined one when that is undefined)."""
    entries = field_entries(f, keep=lambda s: s.panel)
    levels = [e for e in entries if e.level is not None]
    if levels:
        own = [e for e in levels if e.level == f["level"]]
        pick = own[0] if own and own[0].value is not None else None
        pick = pick or next((e for e in levels if e.value is not None), own[0] if own else None)
        entries = [e for e in entries if e.level is None or e is pick]
    return entries


def panel_summary(
    store: Store, project: str, field: str | None = None, reference: str = "majority"
) -> dict[str, Any]:
    """The declared panel statistics with n, and each evaluator's correlations and bias
    counts, for ``field`` (default: the project's first human field); evaluators against
    ``reference`` (see ``reports.quality.REFERENCES``). With annotators excluded,
    ``exclusions`` says who and why and ``with_excluded`` gives the figures with them."""
    info = store.project(project)
    names = [f.name for f in info.task_kind.human_fields(info.settings)]
    names += [d.name for d in info.task_kind.derived_scores]
    field = field if field in names else (names[0] if names else None)
    if field is None:
        return {"field": None, "fields": names}
    doc = agreement_document(
        store,
        project,
        fields=[field],
        n_resamples=0,
        timeline=False,
        keep=_in_panel,
        reference_method=reference,
    ).to_dict()
    f = doc["fields"].get(field) or doc["derived"].get(field)
    evaluators = []
    for name, by_field in doc["evaluators"].items():
        e = by_field.get(field)
        if e is None:
            continue
        bias = e.get("bias") or {}
        shown = [x for sec in EVALUATOR_SECTIONS for x in evaluator_entries(e, sec)]
        shown = [x for x in shown if x.measure.panel]
        evaluators.append(
            {
                "evaluator": name,
                "n": e["n"],
                "measures": [
                    {
                        "key": x.measure.key,
                        "label": x.measure.label,
                        "value": x.value,
                        "text": x.text,
                    }
                    for x in shown
                ],
                "reason": next((x.reason for x in shown if x.reason), None),
                "bias_own": own_model_text(bias) if bias else None,
                "over": bias.get("over"),
                "under": bias.get("under"),
                "bias_n": bias.get("n"),
                "bias_runs": bias.get("n_runs"),
            }
        )
    statistics = [
        {
            "key": e.statistic.key,
            "label": f"{e.statistic.label} {e.level}" if e.level else e.statistic.label,
            "value": e.value,
            "text": e.text,
            "n": e.n,
            "n_text": e.n_text,
            "reason": e.reason,
        }
        for e in (_panel_entries(f) if f else [])
    ]
    extra: dict[str, Any] = {}
    if doc.get("exclusions"):
        everyone = doc["exclusions"]["with_excluded"]
        g = everyone["fields"].get(field) or everyone["derived"].get(field)
        extra = {
            "exclusions": exclusion_line(doc["exclusions"]),
            "with_excluded": [
                {
                    "label": f"{e.statistic.label} {e.level}" if e.level else e.statistic.label,
                    "text": e.text,
                }
                for e in (_panel_entries(g) if g else [])
            ],
        }
    return {
        **extra,
        "field": field,
        "fields": names,
        "statistics": statistics,
        "n_pairable": f["n_pairable"] if f else 0,
        "n_items": f["n_items"] if f else 0,
        "n_ratings": f["n_ratings"] if f else 0,
        "fleiss_n": f.get("fleiss_n_items") if f else None,
        "fleiss_note": f.get("fleiss_items_note") if f else None,
        "evaluators": evaluators,
    }
