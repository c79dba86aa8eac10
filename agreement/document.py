"""The agreement document: every statistic for one project, as typed results and as JSON.

``build_document(inputs)`` is what ``cli.py agreement --json`` prints, what the side
panel and the agreement page draw and what reports render.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from agreement.alarms import alarm_block
from agreement.binary import THRESHOLDS, dev_test_split
from agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from agreement.evaluator import (
    DenseReference,
    EvaluatorAgreement,
    ItemSpace,
    ScoreRows,
    compare_evaluator,
)
from agreement.human import MIN_PAIR_OVERLAP, VariableAgreement, variable_agreement
from agreement.inputs import (
    AgreementInputs,
    Reference,
    derived_labels,
    field_frame,
    human_reference,
    known_scale,
)
from agreement.measures import EVALUATOR_SECTIONS, Measure
from agreement.metaeval.rows import meta_rows
from agreement.question_units import question_units
from agreement.ratings import Ratings
from agreement.timeline import alpha_over_time
from agreement.unit_context import with_context
from common.evaluator_labels import config_labels
from common.rows import MeasureRow
from kinds import FieldType, HumanField, Level


@dataclass
class AgreementDocument:
    """All agreement figures of one project."""

    project: str
    kind: str
    fields: dict[str, VariableAgreement]
    derived: dict[str, VariableAgreement]
    evaluators: dict[str, dict[str, EvaluatorAgreement]]
    calibrated: dict[str, list[dict[str, Any]]]
    timeline: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: who was left out and why, with the figures computed with everyone (only when
    #: someone is excluded; see reports.data)
    exclusions: dict[str, Any] | None = None
    #: data-quality alarms (agreement/alarms.py) as dicts; see reports.data.with_alarms
    alarms: list[dict[str, Any]] | None = None
    #: the meta-evaluation (agreement.metaeval.MetaEvaluation) when the project names its
    #: columns (setting ``metaeval``; see reports.metaeval_data)
    metaeval: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (see docs/agreement.md for every key)."""
        return {
            "project": self.project,
            "kind": self.kind,
            "fields": {k: v.to_dict() for k, v in self.fields.items()},
            "derived": {k: v.to_dict() for k, v in self.derived.items()},
            "evaluators": {
                e: {f: a.to_dict() for f, a in by_field.items()}
                for e, by_field in self.evaluators.items()
            },
            "calibrated": self.calibrated,
            "timeline": self.timeline,
            "meta": self.meta,
            "notes": self.notes,
            **({"exclusions": self.exclusions} if self.exclusions is not None else {}),
            **({"alarms": self.alarms} if self.alarms is not None else {}),
            **({"metaeval": self.metaeval.to_dict()} if self.metaeval is not None else {}),
            **(alarm_block(self.alarms) if self.alarms else {}),
        }

    def rows(self) -> tuple[MeasureRow, ...]:
        """Every declared measure of every variable as one frozen row (the long form)."""
        rows = [r for v in (*self.fields.values(), *self.derived.values()) for r in v.rows()]
        by_config = [
            res.rows(subject)
            for subject, by_field in self.evaluators.items()
            for res in by_field.values()
        ]
        for section in EVALUATOR_SECTIONS:
            rows += [r for config in by_config for r in config if r.section == section]
        return tuple(rows) + meta_rows(self.metaeval)


def _fact_units(
    labels: pd.DataFrame, items: pd.DataFrame, facts_field: str | None
) -> tuple[pd.DataFrame, int]:
    """One row per (item, fact) label; labels whose length differs from the item's current
    fact list are left out (they were given on another version of the list)."""
    lengths = {}
    if facts_field:
        for item_id, fields in zip(items["item_id"], items["fields"], strict=False):
            facts = (fields or {}).get(facts_field)
            if isinstance(facts, list):
                lengths[item_id] = len(facts)
    rows, stale = [], 0
    has_time = "updated_at" in labels
    for rec in labels.itertuples(index=False):
        value = rec.value if isinstance(rec.value, list) else []
        want = lengths.get(rec.item_id)
        if want is not None and len(value) != want:
            stale += 1
            continue
        for k, lab in enumerate(value):
            rows.append(
                (
                    f"{rec.item_id}#{k}",
                    rec.annotator,
                    str(lab),
                    rec.updated_at if has_time else None,
                )
            )
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value", "updated_at"]), stale


def _human_field(
    f: HumanField,
    labels: pd.DataFrame,
    items: pd.DataFrame,
    n_resamples: int,
    seed: int,
    min_pair_overlap: int = MIN_PAIR_OVERLAP,
    keep: Callable[[Measure], bool] | None = None,
    all_pairs: bool = False,
) -> tuple[VariableAgreement, pd.DataFrame, dict]:
    qt = f.question_type
    levels = tuple(lv.value for lv in qt.agreement_levels)
    spec: dict[str, Any] = {"numeric": qt.numeric, "domain": qt.domain(f) if qt.domain else None}
    unit = qt.unit
    notes = {}
    if f.type is FieldType.FACT_LABELS:
        labels, stale = _fact_units(labels, items, f.facts_field)
        spec = {"numeric": False, "domain": ("C", "M")}
        if stale:
            notes["stale_labels"] = (
                f"{stale} label lists left out: their length differs "
                f"from the item's current {f.facts_field!r}"
            )
    context: dict[str, Any] = {}
    if qt.structured:
        labels, spec, context = question_units(qt, f, labels, items)
    ratings = with_context(Ratings.from_long(labels, **spec), context)
    agreement = variable_agreement(
        f.name,
        ratings,
        type_=str(f.type),
        levels=levels,
        level=qt.level.value,
        categorical=qt.categories,
        ordinal=qt.categories and qt.level is Level.ORDINAL,
        structured=qt.structured,
        unit=unit,
        n_resamples=n_resamples,
        seed=seed,
        min_pair_overlap=min_pair_overlap,
        keep=keep,
        all_pairs=all_pairs,
    )
    agreement.notes.update(notes)
    return agreement, labels, spec


NO_MODEL = "<no judge model>"


def _codes_filled(column: pd.Series, fill: str) -> tuple[np.ndarray, list[Any]]:
    """Sorted codes of ``column`` with missing values read as ``fill``: what
    ``pd.factorize(column.astype(object).where(column.notna(), fill), sort=True)`` gives,
    without a Python object per row (1.8 million score rows: a few hundred MB)."""
    codes, distinct = pd.factorize(column)
    values = list(distinct) + ([fill] if (codes < 0).any() else [])
    value_codes, names = pd.factorize(pd.Series(values, dtype=object), sort=True)
    return value_codes[codes] if len(codes) else codes, list(names)


def _score_groups(
    scores: pd.DataFrame, space: ItemSpace
) -> Iterator[tuple[tuple[str, str | None, str, str], ScoreRows]]:
    """Scores split by configuration (evaluator, judge model, signature) and field, in
    sorted order, rows in file order; each group comes with its display label.

    Runs are pooled (averaged) only within one configuration: the same evaluator with
    another prompt, version or settings is another row of the tables, labelled by
    :func:`common.evaluator_labels.config_labels`. Grouping uses integer codes (a missing
    model sorts as ``NO_MODEL``, a missing signature as "").
    """
    ev_codes, evs = pd.factorize(scores["evaluator"], sort=True)
    model_codes, models = _codes_filled(scores["model"], NO_MODEL)
    sig_codes, sigs = _codes_filled(scores["signature"], "")
    field_codes, field_names = pd.factorize(scores["field"], sort=True)
    n_m, n_s, n_f = len(models), len(sigs), len(field_names)
    key = ((ev_codes.astype(np.int64) * n_m + model_codes) * n_s + sig_codes) * n_f + field_codes
    item_codes, item_ids = pd.factorize(scores["item_id"])
    item = space.codes(np.asarray(item_ids, dtype=object))[item_codes]
    # groupby leaves missing keys out (and every scored row has an item id)
    key[(ev_codes < 0) | (field_codes < 0) | (item_codes < 0)] = -1
    # this generator lives through every comparison: keep only what the groups need
    del ev_codes, model_codes, sig_codes, field_codes, item_codes, item_ids
    order = np.argsort(key, kind="stable")
    order = order[key[order] >= 0]
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    groups = np.split(order, bounds) if len(order) else []

    def config(k: int) -> tuple[str, str | None, str, str]:
        rest, f = divmod(k, n_f)
        rest, g = divmod(rest, n_s)
        e, m = divmod(rest, n_m)
        return evs[e], (None if models[m] == NO_MODEL else models[m]), sigs[g], field_names[f]

    keys = [config(int(key[rows[0]])) for rows in groups]
    del key
    labels = config_labels(c[:3] for c in keys)
    run = scores["run_id"].to_numpy()
    score = scores["score"].to_numpy(dtype=float)
    for (ev, model, sig, name), rows in zip(keys, groups, strict=True):
        yield (
            (labels[(ev, model, sig)], ev, model, name),
            ScoreRows(item[rows], run[rows], score[rows], (sig,) if sig else ()),
        )


def build_document(
    inputs: AgreementInputs,
    *,
    fields: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    timeline: bool = True,
    evaluators: bool = True,
    keep: Callable[[Measure], bool] | None = None,
    pairs: bool = False,
) -> AgreementDocument:
    """Compute the agreement document. ``fields`` restricts the human fields (and the
    evaluator variables) to those names; ``n_resamples=0`` skips every bootstrap;
    ``keep`` limits the declared statistics computed (their keys are then left out);
    ``pairs`` lists every annotator pair of a crowd (else summarised)."""
    kind, settings = inputs.kind, inputs.settings
    human_fields = [f for f in kind.human_fields(settings) if fields is None or f.name in fields]
    ann = inputs.annotations
    overlap = int(settings.get("min_pair_overlap", MIN_PAIR_OVERLAP))
    doc = AgreementDocument(
        inputs.project,
        kind.name,
        {},
        {},
        {},
        {},
        meta={
            "n_resamples": n_resamples,
            "seed": seed,
            "ci": "95% percentile bootstrap over items",
            "thresholds": [round(float(t), 6) for t in THRESHOLDS],
            "bias_gap": 2.0,
            "majority_rule": "binary reference = majority of human labels; ties are left out",
            "min_pair_overlap": overlap,
            **inputs.meta,
        },
    )
    for f in human_fields:
        labels = field_frame(ann, f.name).assign(
            updated_at=ann.loc[ann["field"] == f.name, "updated_at"]
            if "updated_at" in ann
            else None
        )
        agreement, unit_labels, spec = _human_field(
            f, labels, inputs.items, n_resamples, seed, overlap, keep, pairs
        )
        doc.fields[f.name] = agreement
        if (
            timeline
            and f.agreement_levels
            and "updated_at" in unit_labels
            and unit_labels["updated_at"].notna().any()
        ):
            doc.timeline[f.name] = alpha_over_time(unit_labels, f.level.value, **spec)
    derived = derived_labels(inputs)
    for d in kind.derived_scores:
        if fields is not None and d.name not in fields:
            continue
        ratings = Ratings.from_long(field_frame(derived, d.name), numeric=True)
        levels = tuple(dict.fromkeys((d.level.value, "interval")))
        doc.derived[d.name] = variable_agreement(
            d.name,
            ratings,
            type_="derived",
            levels=levels,
            level=d.level.value,
            categorical=False,
            n_resamples=n_resamples,
            seed=seed,
            keep=keep,
        )
    if evaluators:
        _evaluators(doc, inputs, derived, fields, n_resamples, seed)
    return doc


def _evaluators(
    doc: AgreementDocument,
    inputs: AgreementInputs,
    derived: pd.DataFrame,
    fields: Sequence[str] | None,
    n_resamples: int,
    seed: int,
) -> None:
    kind, settings = inputs.kind, inputs.settings
    scores = inputs.scores
    if scores.empty:
        return
    spec = {f.name: f for f in kind.human_fields(settings)}
    derived_names = {d.name for d in kind.derived_scores}
    binary_fields = [f.name for f in spec.values() if f.type is FieldType.BINARY]
    refs: dict[str, Reference] = {}

    def reference(name: str) -> Reference:
        if name not in refs:
            if name in derived_names:
                refs[name] = human_reference(
                    field_frame(derived, name), name, False, inputs.reference
                )
            else:
                refs[name] = human_reference(
                    field_frame(inputs.annotations, name),
                    name,
                    spec[name].type is FieldType.BINARY,
                    inputs.reference,
                )
        return refs[name]

    items = inputs.items
    dev_mask, test_mask, split_rule = dev_test_split(list(items["item_id"]), list(items["split"]))
    doc.meta["split"] = {
        "rule": split_rule,
        "n_dev": int(dev_mask.sum()),
        "n_test": int(test_mask.sum()),
    }
    space = ItemSpace.build(items, scores["item_id"], dev_mask, test_mask)
    dense: dict[str, DenseReference] = {}

    def dense_reference(name: str) -> DenseReference:
        if name not in dense:
            dense[name] = DenseReference.of(reference(name), space)
        return dense[name]

    unmatched: set[str] = set()
    for (name, ev, model, score_field), rows in _score_groups(scores, space):
        if fields is not None and score_field not in fields:
            continue
        numeric_human = score_field in spec and spec[score_field].numeric
        if not numeric_human and score_field not in derived_names:
            unmatched.add(f"{ev}:{score_field}")
            continue
        is_binary = numeric_human and spec[score_field].type is FieldType.BINARY
        against = (
            score_field if is_binary else (binary_fields[0] if len(binary_fields) == 1 else None)
        )
        res = compare_evaluator(
            ev,
            name,
            model,
            score_field,
            rows,
            dense_reference(score_field),
            space=space,
            scale=known_scale(kind, settings, score_field),
            binary_against=dense_reference(against) if against else None,
            binary_is_field=is_binary,
            graded=not is_binary,
            split_rule=split_rule,
            n_resamples=n_resamples,
            seed=seed,
            field_type=str(spec[score_field].type) if score_field in spec else "derived",
            model_families=settings.get("model_families"),
            round_item_means=any(
                inputs.meta.get("run_averages", {}).get(g) == "rounded" for g in rows.signatures
            ),
        )
        maps = inputs.meta.get("scale_mappings", {})
        mapping = next((maps[g] for g in rows.signatures if g in maps), None)
        if mapping and res.bias is not None:
            res.bias = replace(res.bias, scale_mapping=mapping)
        if against and against != score_field:
            res.notes.setdefault(
                "binary_against", f"decisions checked against the human {against!r} field"
            )
        doc.evaluators.setdefault(name, {})[score_field] = res
        if res.binary is not None and res.binary.against:
            row = {"evaluator": name, "model": model, **(res.binary_dict() or {})}
            doc.calibrated.setdefault(res.binary.against, []).append(row)
    for rows in doc.calibrated.values():
        rows.sort(
            key=lambda r: (
                -(r["f1"] if r["f1"] is not None else -np.inf),
                r["evaluator"],
                r["score_field"],
            )
        )
    if unmatched:
        doc.notes.append(
            "scores for fields that are neither a numeric human field nor a "
            f"derived score were not compared: {sorted(unmatched)}"
        )
