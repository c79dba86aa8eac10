"""The side panel's headline figures for one field (no bootstrap: it must be quick).

Which measures it shows is declared once, on each measure (``panel=True``): among people
in :mod:`agreement.statistics`, the evaluator sections in :mod:`agreement.builtin_measures`.
"""

from __future__ import annotations

from typing import Any

from agreement.exclusions import exclusion_line
from agreement.measures import EVALUATOR_SECTIONS, NOTE, Measure
from agreement.statistics import Entry, field_details, field_entries
from agreement.statistics import statistics as statistics_declared
from agreement.views import evaluator_views, variable, with_excluded
from annotation_store import Store
from reports.bias_text import own_model_text
from reports.data import agreement_document
from study_inputs.load import StudyInputs


def _in_panel(stat: Measure) -> bool:
    return stat.view.panel


def _panel_entries(f: dict[str, Any]) -> list[Entry]:
    """The panel statistics of a field; of alpha's levels only the field's own (or the
    first defined one when that is undefined)."""
    entries = field_entries(f, keep=lambda s: s.view.panel)
    levels = [e for e in entries if e.level is not None]
    if levels:
        own = [e for e in levels if e.level == f["level"]]
        pick = own[0] if own and own[0].value is not None else None
        pick = pick or next((e for e in levels if e.value is not None), own[0] if own else None)
        entries = [e for e in entries if e.level is None or e is pick]
    return entries


def panel_fields(store: Store, project: str) -> list[str]:
    """The fields the panel can show: the human fields, then the derived scores."""
    info = store.project(project)
    names = [f.name for f in info.task_kind.human_fields(info.settings)]
    return names + [d.name for d in info.task_kind.derived_scores]


def shown_field(names: list[str], field: str | None) -> str | None:
    """The field the panel shows when asked for ``field``: itself when it is one of
    ``names``, else the first of them (None when there are none)."""
    return field if field in names else (names[0] if names else None)


def panel_summary(
    store: Store,
    project: str,
    field: str | None = None,
    reference: str = "majority",
    inputs: StudyInputs | None = None,
) -> dict[str, Any]:
    """The declared panel statistics with n, and each evaluator's correlations and bias
    counts, for ``field`` (default: the project's first human field); evaluators against
    ``reference`` (see ``study_inputs.references.REFERENCES``). With annotators excluded,
    ``exclusions`` says who and why and ``with_excluded`` gives the figures with them.
    ``inputs``: the project's inputs already loaded for ``reference`` (read-only)."""
    names = panel_fields(store, project)
    field = shown_field(names, field)
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
        inputs=inputs,
    ).to_dict()
    view = variable(doc, field)
    f = view.block if view else None
    evaluators = []
    for v in evaluator_views(doc, field):
        bias = v.bias or {}
        shown = [x for sec in EVALUATOR_SECTIONS for x in v.entries(sec)]
        shown = [x for x in shown if x.measure.view.panel]
        evaluators.append(
            {
                "evaluator": v.evaluator,
                "n": v.block["n"],
                "measures": [
                    {
                        "key": x.measure.key,
                        "label": x.measure.view.label,
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
            "key": e.measure.key,
            "label": f"{e.measure.view.label} {e.level}" if e.level else e.measure.view.label,
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
        everyone = variable(with_excluded(doc) or {}, field)
        g = everyone.block if everyone else None
        extra = {
            "exclusions": exclusion_line(doc["exclusions"]),
            "with_excluded": [
                {
                    "label": f"{e.measure.view.label} {e.level}"
                    if e.level
                    else e.measure.view.label,
                    "text": e.text,
                }
                for e in (_panel_entries(g) if g else [])
            ],
        }
    headline = choose_headline(statistics, f) if f else None
    return {
        **extra,
        "field": field,
        "fields": names,
        "statistics": statistics,
        "headline": headline,
        "n_pairable": f["n_pairable"] if f else 0,
        "n_items": f["n_items"] if f else 0,
        "n_ratings": f["n_ratings"] if f else 0,
        "items_note": _items_note(f) if f else None,
        "evaluators": evaluators,
    }


def _items_note(f: dict[str, Any]) -> dict[str, Any] | None:
    """The first declared note on which items a measure uses (Fleiss' kappa's modal-count
    items), with the measure's label and n; None when the field has none."""
    note = next(iter(field_details(f, NOTE)), None)
    if note is None:
        return None
    label = note.detail.label or note.measure.view.label
    return {"key": note.measure.key, "label": label, "n": note.n, "text": note.text}


#: Fewer pairable units than this, and a figure swings with every label.
FEW_UNITS = 10


def choose_headline(statistics: list[dict[str, Any]], f: dict[str, Any]) -> dict[str, Any]:
    """Which panel statistic leads, why, and whether it is stable enough to lead.

    The statistic declared with ``leads`` (Krippendorff's alpha, at the field's level of
    measurement) leads whenever it is defined: it takes any number of raters, missing
    ratings and the field's level. Fleiss' kappa
    over the modal-count items leaves items out whenever raters labelled different numbers
    of items, so one annotator's progress can swing it. Returns ``{"key", "label", "why",
    "unstable"}`` (``unstable``: a sentence, or None).
    """
    level = f.get("level") or "nominal"
    leader = next((m for m in statistics_declared() if m.view.leads), None)
    lead = next(
        (
            s
            for s in statistics
            if leader is not None and s["key"] == leader.key and s["value"] is not None
        ),
        None,
    )
    if lead is not None and leader is not None:
        pick = lead
        why = (
            f"{leader.view.name} ({level}) leads: it fits the field's level and uses every "
            "item with two or more ratings, whatever the number of raters."
        )
    else:
        pick = next((s for s in statistics if s["value"] is not None), None)
        if pick is None:
            return {
                "key": None,
                "label": None,
                "why": "No statistic is defined yet.",
                "unstable": None,
            }
        lost = leader.view.name if leader is not None else "no leading statistic"
        why = f"{pick['label']} leads: {lost} is not defined here."
    n_units = f.get("n_pairable") or 0
    unstable = None
    if n_units < FEW_UNITS:
        unstable = (
            f"Only {n_units} item(s) with two or more ratings: every new label can move this "
            "figure a lot."
        )
    else:
        items = f.get("n_items") or 0
        # a measure with a note on which items it uses leaves the others out
        note = next((d for d in field_details(f, NOTE) if d.measure.key == pick["key"]), None)
        if note is not None and note.n is not None and note.n < items / 2:
            unstable = (
                f"{note.measure.view.name} uses only {note.n} of {items} items: a lopsided design."
            )
    return {"key": pick["key"], "label": pick["label"], "why": why, "unstable": unstable}
