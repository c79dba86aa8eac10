"""The metric audit: where an evaluator and the people part ways, item by item and fact by fact.

Pure pandas over the store's frames (``items``, ``annotations_frame``, ``scores_frame``,
``results_frame``, ``item_results``); no database access and no streamlit here, so every
number on the Audit page is unit-tested.

Scales. Evaluator and human values are compared on a common 0-1 scale: each value is
mapped with ``(v - lo) / (hi - lo)`` where ``(lo, hi)`` is the field's range (the human
field's values or bounds, a derived score's declared range, or the evaluator's own
``scales`` entry when it differs). ``delta = evaluator - human`` on that scale, so +0.5
means the metric scores the item half the range higher than the people.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from annotation_store.label_frames import labels_by_annotator, majority
from audit.categories import (
    AGREE,
    EVAL_FAILED,
    HUMANS_DISAGREE,
    METRIC_DIFFERS,
    NO_LABELS,
    NO_SCORES,
)
from audit.categories import CATEGORIES as CATEGORIES  # re-exported
from common.evaluator_labels import config_labels, config_of
from kinds.base import FACT_IMPLIED, FACT_NOT_IMPLIED, FieldType, TaskKind

if TYPE_CHECKING:
    from annotation_store.records import RunInfo

TIE = "tie"
HUMAN = "human"  # the column the evaluators are compared against (mean, or the reference)
DISAGREEMENT = "disagreement"
CATEGORY = "category"


# -- scales and human values ---------------------------------------------------------------
def field_scales(
    kind: TaskKind, settings: Mapping[str, Any] | None = None
) -> dict[str, tuple[float, float]]:
    """(min, max) of every numeric human field and derived score of a kind."""
    out: dict[str, tuple[float, float]] = {}
    for f in kind.human_fields(settings):
        if f.type is FieldType.BINARY:
            out[f.name] = (0.0, 1.0)
        elif f.type is FieldType.ORDINAL and f.values:
            nums = [float(v) for v in f.values]
            out[f.name] = (min(nums), max(nums))
        elif f.type is FieldType.INTERVAL:
            out[f.name] = (float(f.minimum or 0.0), float(1.0 if f.maximum is None else f.maximum))
    for d in kind.derived_scores:
        out[d.name] = (float(d.minimum), float(d.maximum))
    return out


def normalise(value: float | None, scale: tuple[float, float]) -> float | None:
    """``value`` mapped to 0-1 on ``scale``; None stays None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    lo, hi = scale
    return (float(value) - lo) / (hi - lo) if hi > lo else float(value)


def human_scores(
    kind: TaskKind,
    settings: Mapping[str, Any] | None,
    items: Iterable[Any],
    annotations: pd.DataFrame,
    field: str | None = None,
) -> pd.DataFrame:
    """Numeric human values per annotator: item_id, annotator, field, value (``field``:
    that field's rows only, in the same order).

    Numeric human fields are taken as given; derived scores (F1, actionability ...) are
    computed from each annotator's own labels with ``kind.derive`` (not called when
    ``field`` is not a derived score: at 10,000 items that is 50,000 calls).
    """
    numeric = {f.name for f in kind.human_fields(settings) if f.numeric}
    derived = field is None or field in {d.name for d in kind.derived_scores}
    if field is not None:
        numeric &= {field}
    fields_of = {it.item_id: it.fields for it in items}
    rows: list[tuple[str, str, str, float]] = []
    for item_id, people in labels_by_annotator(annotations).items():
        for who, labels in people.items():
            for name, value in labels.items():
                if name in numeric and value is not None:
                    rows.append((item_id, who, name, float(value)))
            if not derived:
                continue
            for name, value in kind.derive(labels, fields_of.get(item_id, {})).items():
                if value is not None and field in (None, name):
                    rows.append((item_id, who, name, float(value)))
    return pd.DataFrame(rows, columns=["item_id", "annotator", "field", "value"])


# -- evaluator columns ---------------------------------------------------------------------
def with_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """A scores or results frame with a ``label`` column naming each row's evaluator
    configuration (evaluator, judge model, signature), as the agreement tables do (see
    :mod:`common.evaluator_labels`): runs are pooled only within one label."""
    keys = ["evaluator", "model"] + (["signature"] if "signature" in frame else [])
    # Label each distinct configuration once, then join: a 10k-item project has ~100k score
    # rows but a handful of configurations.
    distinct = frame[keys].drop_duplicates()
    sigs = distinct["signature"] if "signature" in distinct else [None] * len(distinct)
    configs = [
        config_of(e, m, sig)
        for e, m, sig in zip(distinct["evaluator"], distinct["model"], sigs, strict=True)
    ]
    names = config_labels(configs)
    label_of = distinct.assign(label=[names[c] for c in configs])
    labels = frame[keys].merge(label_of, on=keys, how="left")["label"].to_numpy()
    return frame.assign(label=labels)


def comparable_fields(
    kind: TaskKind, settings: Mapping[str, Any] | None, scores: pd.DataFrame
) -> list[str]:
    """Fields both people and evaluators have values for; most-scored first."""
    scales = field_scales(kind, settings)
    if scores.empty:
        return list(scales)
    counts = scores[scores["field"].isin(list(scales))].groupby("field")["item_id"].count()
    ranked = list(counts.sort_values(ascending=False, kind="stable").index)
    return ranked + [f for f in scales if f not in ranked]


# -- the audit table -----------------------------------------------------------------------
@dataclass
class AuditTable:
    """The per-item audit table of one field, plus what the columns mean."""

    field: str
    scale: tuple[float, float]
    evaluators: list[str]
    frame: pd.DataFrame
    thresholds: dict[str, float] = field(default_factory=dict)

    def delta_column(self, label: str) -> str:
        """Name of the evaluator-minus-human column of ``label``."""
        return f"Δ {label}"


def build_audit_table(
    kind: TaskKind,
    settings: Mapping[str, Any] | None,
    items: Sequence[Any],
    annotations: pd.DataFrame,
    scores: pd.DataFrame,
    results: pd.DataFrame | None,
    field_name: str,
    *,
    evaluators: Sequence[str] | None = None,
    evaluator_scales: Mapping[str, tuple[float, float]] | None = None,
    reference: pd.DataFrame | None = None,
    agree_threshold: float = 0.25,
    differ_threshold: float = 0.25,
) -> AuditTable:
    """One row per item: people, evaluators, deltas, disagreement and its kind.

    Args:
        items: the project's ItemRecords (item_id, fields, split, generator).
        annotations: submitted labels (``store.annotations_frame``).
        scores: tidy evaluator scores (``store.scores_frame``).
        results: every result incl. failed ones (``store.result_status_frame``, or
            ``store.results_frame(include_failed=True)``: item, configuration and status).
        field_name: the human field or derived score to audit.
        evaluators: labels to include (default: every evaluator that scored the field).
        evaluator_scales: label -> (min, max) when an evaluator scores on its own scale.
        reference: (item_id, field, value, source) final labels; where an item has one,
            evaluators are compared with it instead of the human mean.
        agree_threshold: human spread (0-1) above which the people disagree.
        differ_threshold: |delta| (0-1) from which a metric differs from the people.

    Returns the table sorted by disagreement, largest first (rows without a score last).
    """
    scale = field_scales(kind, settings).get(field_name, (0.0, 1.0))
    humans = human_scores(kind, settings, items, annotations, field_name)
    sc = with_labels(scores) if not scores.empty else scores.assign(label=pd.Series(dtype=str))
    sc = sc[sc["field"] == field_name]
    labels = list(evaluators) if evaluators is not None else sorted(sc["label"].unique())
    ev_mean = sc[sc["label"].isin(labels)].groupby(["item_id", "label"])["score"].mean()
    # a dict, not a MultiIndex lookup per item and evaluator (10x faster at 10k items)
    score_of = dict(zip(ev_mean.index, ev_mean.to_numpy(float), strict=True))
    failed = _failed_labels(results, labels)
    ref = _reference_values(reference, field_name)
    scales = {lab: (evaluator_scales or {}).get(lab, scale) for lab in labels}

    values_of: dict[str, list[float]] = {}
    for item_id, value in zip(humans["item_id"], humans["value"], strict=True):
        values_of.setdefault(item_id, []).append(value)
    rows = []
    for it in items:
        vals = values_of.get(it.item_id, [])
        row: dict[str, Any] = {
            "item_id": it.item_id,
            "generator": it.generator,
            "split": it.split,
            "annotators": len(vals),
        }
        mean = sum(vals) / len(vals) if vals else None
        maj = majority(vals)
        row["human_mean"] = mean
        row["human_majority"] = maj[0] if maj else (TIE if vals else None)
        normed = [normalise(v, scale) for v in vals]
        row["human_spread"] = (max(normed) - min(normed)) if normed else None  # type: ignore[type-var]
        target, target_source = mean, "mean"
        if it.item_id in ref:
            target, target_source = ref[it.item_id]
        row[HUMAN] = target
        row["human_source"] = target_source if target is not None else None
        deltas = []
        for lab in labels:
            score = score_of.get((it.item_id, lab))
            row[lab] = None if score is None else float(score)
            delta = None
            if score is not None and target is not None:
                delta = normalise(float(score), scales[lab]) - normalise(target, scale)  # type: ignore[operator]
                deltas.append(abs(delta))
            row[f"Δ {lab}"] = delta
        row[DISAGREEMENT] = max(deltas) if deltas else None
        row["failed"] = ", ".join(sorted(failed.get(it.item_id, set()) - _scored(row, labels)))
        row[CATEGORY] = _category(row, agree_threshold, differ_threshold)
        rows.append(row)
    columns = [
        "item_id",
        "generator",
        "split",
        "annotators",
        "human_mean",
        "human_majority",
        "human_spread",
        HUMAN,
        "human_source",
        *labels,
        *[f"Δ {lab}" for lab in labels],
        DISAGREEMENT,
        CATEGORY,
        "failed",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    frame = frame.sort_values(DISAGREEMENT, ascending=False, na_position="last", kind="stable")
    return AuditTable(
        field_name,
        scale,
        labels,
        frame.reset_index(drop=True),
        {"agree": agree_threshold, "differ": differ_threshold},
    )


def _scored(row: Mapping[str, Any], labels: Sequence[str]) -> set[str]:
    return {lab for lab in labels if row.get(lab) is not None}


def _failed_labels(results: pd.DataFrame | None, labels: Sequence[str]) -> dict[str, set[str]]:
    """item_id -> labels with a failed result (the caller drops those that also have a score)."""
    if results is None or results.empty:
        return {}
    res = with_labels(results)
    res = res[(res["status"] == "failed") & res["label"].isin(list(labels))]
    out: dict[str, set[str]] = {}
    for item_id, lab in zip(res["item_id"], res["label"], strict=True):
        out.setdefault(str(item_id), set()).add(lab)
    return out


def _reference_values(
    reference: pd.DataFrame | None, field_name: str
) -> dict[str, tuple[float, str]]:
    if reference is None or reference.empty:
        return {}
    ref = reference[reference["field"] == field_name]
    out = {}
    for rec in ref.itertuples(index=False):
        try:
            out[str(rec.item_id)] = (float(rec.value), str(getattr(rec, "source", "reference")))
        except (TypeError, ValueError):
            continue
    return out


def _category(row: Mapping[str, Any], agree_threshold: float, differ_threshold: float) -> str:
    if row["failed"]:
        return EVAL_FAILED
    if not row["annotators"] and row["human_source"] in (None, "mean"):
        return NO_LABELS
    if row["human_source"] == "mean" and (row["human_spread"] or 0.0) > agree_threshold + 1e-9:
        return HUMANS_DISAGREE
    if row[DISAGREEMENT] is None:
        return NO_SCORES
    if row[DISAGREEMENT] >= differ_threshold - 1e-9:
        return METRIC_DIFFERS
    return AGREE


def filter_audit(
    frame: pd.DataFrame,
    *,
    categories: Iterable[str] | None = None,
    generators: Iterable[str] | None = None,
    splits: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Rows of an audit frame in the given categories / generators / splits (None: all)."""
    mask = pd.Series(True, index=frame.index)
    if categories is not None:
        mask &= frame[CATEGORY].isin(list(categories))
    if generators is not None:
        mask &= frame["generator"].fillna("(none)").isin(list(generators))
    if splits is not None:
        mask &= frame["split"].fillna("(none)").isin(list(splits))
    return frame[mask]


# -- per item: latest results and the fact grid ---------------------------------------------
def _run_config(run: Mapping[str, Any]) -> tuple[str, str | None, str]:
    """The configuration of a result row (it carries its run's fields)."""
    return config_of(run["evaluator"], run.get("model"), run.get("signature_text"))


def latest_results(
    results: Sequence[Mapping[str, Any]], runs: Iterable[RunInfo] = ()
) -> dict[str, dict[str, Any]]:
    """The newest stored result per evaluator configuration, with the mean scores over the
    runs of that configuration.

    ``results`` is ``store.item_results(project, item_id)`` (oldest run first). Labels are
    those of :func:`with_labels`; pass the project's ``store.runs(project)`` as ``runs``
    so they match the project-wide tables (an item may lack some configurations). The
    returned dict holds the newest result's fields plus ``mean_scores`` (over every ok
    result of the configuration) and ``n_runs``.
    """
    if not results:
        return {}
    configs = [_run_config(r) for r in results]
    names = config_labels(
        [*configs, *(config_of(r.evaluator, r.model, r.signature_text) for r in runs)]
    )
    out: dict[str, dict[str, Any]] = {}
    by_label: dict[str, list[Mapping[str, Any]]] = {}
    for r, config in zip(results, configs, strict=True):
        lab = names[config]
        by_label.setdefault(lab, []).append(r)
        if lab not in out or r["run_id"] >= out[lab]["run_id"]:
            out[lab] = dict(r, label=lab)
    for lab, newest in out.items():
        same = [r for r in by_label[lab] if r.get("result_status") == "ok"]
        sums: dict[str, list[float]] = {}
        for r in same:
            for name, v in (r.get("scores") or {}).items():
                if v is not None:
                    sums.setdefault(name, []).append(float(v))
        newest["mean_scores"] = {k: sum(v) / len(v) for k, v in sums.items()}
        newest["n_runs"] = len(same)
    return out


def fact_fields(kind: TaskKind, settings: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """(human field, item facts field) of every fact-label field of a kind."""
    return [
        (f.name, f.facts_field)
        for f in kind.human_fields(settings)
        if f.type is FieldType.FACT_LABELS and f.facts_field
    ]


def fact_grid(
    kind: TaskKind,
    settings: Mapping[str, Any] | None,
    item_fields: Mapping[str, Any],
    people: Mapping[str, Mapping[str, Any]],
    evaluator_details: Mapping[str, Mapping[str, Any]],
) -> pd.DataFrame:
    """Fact x {each annotator, majority, each evaluator}, with the disagreeing facts flagged.

    Args:
        item_fields: the item's fields (holding the fact lists).
        people: annotator -> their labels on this item ({field: ["C", "M", ...]}).
        evaluator_details: evaluator label -> result details; an evaluator's per-fact
            labels are read from ``details[<facts field>]`` (a list of {"fact", "label",
            "reasoning"}), as Bi-Fact stores them.

    Returns one row per fact: ``side`` (the facts field), ``index``, ``fact``, one column
    per annotator and per evaluator ("C" / "M" / None), ``majority`` ("C" / "M" / "tie"),
    ``flagged`` (an evaluator differs from a clear human majority) and ``flagged_by``.
    """
    annotators = sorted(people)
    evaluators = sorted(evaluator_details)
    rows = []
    for human_field, facts_field in fact_fields(kind, settings):
        facts = list(item_fields.get(facts_field) or [])
        ev_facts = {
            ev: list((evaluator_details[ev] or {}).get(facts_field) or []) for ev in evaluators
        }
        n = max([len(facts), *[len(v) for v in ev_facts.values()]] or [0])
        for i in range(n):
            row: dict[str, Any] = {"side": facts_field, "index": i}
            text = facts[i] if i < len(facts) else _fact_text(ev_facts, i)
            row["fact"] = text
            human = []
            for who in annotators:
                labels = people[who].get(human_field) or []
                value = labels[i] if i < len(labels) else None
                row[who] = value
                human.append(value)
            maj = majority(human)
            row["majority"] = maj[0] if maj else (TIE if any(human) else None)
            flagged_by = []
            for ev in evaluators:
                entry = ev_facts[ev][i] if i < len(ev_facts[ev]) else None
                label = _fact_label(entry)
                row[ev] = label
                if (
                    label is not None
                    and row["majority"] in (FACT_IMPLIED, FACT_NOT_IMPLIED)
                    and label != row["majority"]
                ):
                    flagged_by.append(ev)
            row["flagged"] = bool(flagged_by)
            row["flagged_by"] = ", ".join(flagged_by)
            rows.append(row)
    columns = [
        "side",
        "index",
        "fact",
        *annotators,
        "majority",
        *evaluators,
        "flagged",
        "flagged_by",
    ]
    return pd.DataFrame(rows, columns=columns)


def _fact_label(entry: Any) -> str | None:
    if isinstance(entry, Mapping):
        label = entry.get("label")
    else:
        label = entry
    if label is None:
        return None
    label = str(label).strip().upper()
    return label if label in (FACT_IMPLIED, FACT_NOT_IMPLIED) else None


def _fact_text(ev_facts: Mapping[str, list[Any]], i: int) -> str:
    for entries in ev_facts.values():
        if i < len(entries) and isinstance(entries[i], Mapping) and entries[i].get("fact"):
            return str(entries[i]["fact"])
    return ""


def rubric_grid(
    kind: TaskKind,
    settings: Mapping[str, Any] | None,
    people: Mapping[str, Mapping[str, Any]],
    item_fields: Mapping[str, Any],
    evaluator_scores: Mapping[str, Mapping[str, Any]],
) -> pd.DataFrame:
    """Per-dimension view of one item: field x {each annotator, human mean, each evaluator}.

    Rows are the kind's numeric human fields then its derived scores (for actionability:
    errors_detected, errors_corrected, sources, actionability); ``evaluator_scores`` maps an
    evaluator label to its (mean) scores on this item.
    """
    numeric = [f.name for f in kind.human_fields(settings) if f.numeric]
    derived = {who: kind.derive(labels, item_fields) for who, labels in people.items()}
    scales = field_scales(kind, settings)
    rows = []
    for name in [*numeric, *[d.name for d in kind.derived_scores]]:
        row: dict[str, Any] = {
            "dimension": name,
            "scale": "{:g}-{:g}".format(*scales.get(name, (0, 1))),
        }
        vals = []
        for who in sorted(people):
            value = people[who].get(name) if name in numeric else derived[who].get(name)
            row[who] = None if value is None else float(value)
            if value is not None:
                vals.append(float(value))
        row["human mean"] = sum(vals) / len(vals) if vals else None
        for ev in sorted(evaluator_scores):
            value = (evaluator_scores[ev] or {}).get(name)
            row[ev] = None if value is None else float(value)
        rows.append(row)
    return pd.DataFrame(rows)


def uncompared_text(counts: Mapping[str, int]) -> str | None:
    """The rows the four counts (failed, people disagree, metric differs, agree) leave out,
    in words: items with no human label or no evaluator score yet; None when none."""
    parts = [
        f"{n} without {what}"
        for key, what in ((NO_LABELS, "human labels"), (NO_SCORES, "an evaluator score"))
        if (n := int(counts.get(key, 0)))
    ]
    if not parts:
        return None
    return f"Not compared yet, so in none of these counts: {' and '.join(parts)}."
