"""Judge-assisted estimates of one project field: loads the frame, calls ``estimates``.

The human reference is the one the evaluator-vs-people figures use
(:func:`alignment.inputs.load_field`: the mean of the people's values, the majority for
binary fields); the judge is one evaluator version, imported scores included.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agreement.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench_api.data import ApiError

if TYPE_CHECKING:
    from agreement.inputs import Reference
    from alignment.versions import Version
    from annotation_store import Store
    from estimates.planning import Plan
    from estimates.table import EstimateTable
    from study_inputs.load import StudyInputs

#: Differences are listed for every pair of the first this many systems.
MAX_SYSTEMS_COMPARED = 8


@dataclass
class FieldData:
    """One field of one project: items, human reference, judge versions and their scores."""

    project: str
    field: str
    field_type: str
    items: pd.DataFrame  # item_id, split, generator, fields
    reference: Reference
    versions: list[Version]
    scores: pd.DataFrame  # the field's stored scores: item_id, signature, score (few-shot out)

    @property
    def binary(self) -> bool:
        """True for a binary human field (the reference is the majority)."""
        return self.field_type == "binary"


def load_field_data(
    store: Store, project: str, field: str | None, inputs: StudyInputs | None = None
) -> FieldData:
    """Items, labels and scores, read once in bulk (no per-result objects); ``inputs``:
    the project's inputs already loaded (read-only)."""
    from alignment.inputs import AlignmentError, choose_field, field_reference, numeric_fields
    from alignment.versions import load_versions
    from study_inputs.load import load_inputs

    if inputs is None:
        inputs = load_inputs(store, project)
    candidates = numeric_fields(inputs)
    scores = inputs.scores
    # the distinct names first: a set of 100,000 Arrow strings costs seconds (and the
    # condition of a comprehension is evaluated for every field)
    present = set(scores["field"].unique())
    scored = [f for f in candidates if f in present]
    try:
        field = choose_field(project, candidates, scored, field)
    except AlignmentError as exc:
        raise ApiError(str(exc)) from None
    ftype = candidates[field]
    _, reference = field_reference(inputs, field, ftype)
    mine = scores.loc[scores["field"] == field, ["item_id", "signature", "score"]]
    return FieldData(
        project, field, ftype, inputs.items, reference, load_versions(store, project), mine
    )


def pick_version(fd: FieldData, evaluator: str) -> Version:
    """The version labelled ``evaluator`` (``"geval v2"``), else the newest version of the
    evaluator named so; position-swap probe runs are not judges of the field."""
    signatures = set(fd.scores["signature"].unique())
    usable = [v for v in fd.versions if not v.swapped and v.signature in signatures]
    exact = [v for v in usable if evaluator in (v.label, v.signature)]
    named = [v for v in usable if v.evaluator == evaluator]
    if exact or named:
        return (exact or named)[-1]
    choices = ", ".join(sorted({v.evaluator for v in usable} | {v.label for v in usable}))
    raise ApiError(
        f"no evaluator {evaluator!r} scored {fd.field!r} "
        f"(choose from {choices or 'nothing: no evaluator scored this field yet'})"
    )


def estimate_frame(
    fd: FieldData,
    version: Version,
    *,
    pair_by: str | None = None,
    draws: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per item: item_id, group, judge, human (and pair, probability).

    With an active-selection sample (``draws``: item_id, probability, selected), only the
    drawn items' labels count, and each drawn item's probability is scaled by the share
    of the sample labelled so far: the strategy hands drawn items out in random order, so
    a part of the sample labelled is a random part of it."""
    items = fd.items
    mine = fd.scores[fd.scores["signature"] == version.signature]
    judge = pd.to_numeric(mine["score"], errors="coerce").groupby(mine["item_id"]).mean()
    ref = fd.reference.majority if fd.binary else fd.reference.mean
    ids = items["item_id"].astype(str)
    frame = pd.DataFrame(
        {
            "item_id": ids.to_numpy(),
            "group": items["generator"].astype(object).to_numpy(),
            "judge": ids.map(judge).to_numpy(float),
            "human": ids.map(ref if ref is not None else pd.Series(dtype=float)).to_numpy(float),
        }
    )
    if pair_by is not None:
        values = [f.get(pair_by) for f in items["fields"]]
        if all(v is None for v in values):
            raise ApiError(f"no item has the field {pair_by!r} to pair systems by")
        frame["pair"] = [None if v is None else str(v) for v in values]
    if draws is not None and not draws.empty:
        d = draws.set_index("item_id")
        chosen = ids.map(d["selected"]).fillna(False).astype(bool).to_numpy()
        # Labels outside the drawn sample would bias the weighted estimate: not used.
        frame.loc[~chosen, "human"] = np.nan
        done = (chosen & frame["human"].notna().to_numpy()).sum() / max(chosen.sum(), 1)
        frame["probability"] = ids.map(d["probability"]).to_numpy(float) * done
    return frame


def estimate(
    store: Store,
    project: str,
    field: str | None,
    evaluator: str,
    *,
    by_generator: bool = False,
    pair_by: str | None = None,
    target: float | None = None,
    agreement_data: dict[str, Any] | None = None,
    inputs: StudyInputs | None = None,
) -> EstimateTable:
    """Human-only, judge-only, PPI++ (and for binary fields Rogan-Gladen) estimates of the
    field's mean overall and, with ``by_generator``, per system, with differences; with
    ``target`` also the labels each needs for that interval half-width (:func:`add_plans`;
    ``agreement_data``: an agreement document already computed, for alpha's interval;
    ``inputs``: the project's inputs already loaded, read-only)."""
    from estimates.differences import difference
    from estimates.groups import estimate_groups
    from estimates.table import EstimateTable

    fd = load_field_data(store, project, field, inputs)
    version = pick_version(fd, evaluator)
    from studies.selection import draws_frame

    frame = estimate_frame(fd, version, pair_by=pair_by, draws=draws_frame(store, project))
    groups = estimate_groups(frame, fd.binary, by_generator)
    systems = groups[1 : 1 + MAX_SYSTEMS_COMPARED]
    diffs = [difference(frame, a, b) for a, b in combinations(systems, 2)]
    meta = {
        "signature": version.signature,
        "reference": "human majority" if fd.binary else "mean of the human values",
        "n_items": len(frame),
        "pair_by": pair_by,
        "weighted": bool(groups[0].weighted),
        "few_shot_excluded": len(version.few_shot_ids),
    }
    table = EstimateTable(project, fd.field, fd.field_type, version.label, groups, diffs, {}, meta)
    if target is None:
        return table
    return add_plans(store, table, frame, target, agreement_data=agreement_data, inputs=inputs)


def add_plans(
    store: Store,
    table: EstimateTable,
    frame: pd.DataFrame,
    target: float,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    agreement_data: dict[str, Any] | None = None,
    inputs: StudyInputs | None = None,
) -> EstimateTable:
    """Human labels needed for a 95 % half-width of ``target``: per group for the PPI++
    mean and the judge-human Pearson correlation (bootstrap CI), and overall for
    Krippendorff's alpha among the people (the agreement document's bootstrap CI)."""
    from agreement.correlation import correlations
    from estimates.planning import check_target, plan_from_interval, plan_ppi

    try:
        check_target(target)
    except ValueError as exc:
        raise ApiError(str(exc)) from None
    groups = frame["group"].fillna("(none)").astype(str)
    for g in table.groups:
        rows = frame if g.group == "overall" else frame[groups == g.group]
        both = rows["judge"].notna() & rows["human"].notna()
        r = correlations(
            rows.loc[both, "judge"].to_numpy(float),
            rows.loc[both, "human"].to_numpy(float),
            n_resamples=resamples,
            seed=seed,
        )["pearson"]
        table.plans[g.group] = [
            plan_ppi(g.ppi, target),
            plan_from_interval("judge-human Pearson r", r.n, r.ci, target),
        ]
    if agreement_data is None:
        agreement_data = _agreement_data(store, table, resamples, seed, inputs)
    table.plans["overall"].append(_alpha_plan(table, target, agreement_data))
    return table


def _agreement_data(
    store: Store,
    table: EstimateTable,
    resamples: int,
    seed: int,
    inputs: StudyInputs | None = None,
) -> dict[str, Any]:
    """The agreement document of the field alone (for alpha's bootstrap interval)."""
    from workbench_api.analysis import agreement

    if table.field_type == "derived":
        return {"fields": {}}
    doc = agreement(
        store, table.project, fields=[table.field], resamples=resamples, seed=seed, inputs=inputs
    )
    return doc.to_dict()


def _alpha_plan(table: EstimateTable, target: float, agreement_data: dict[str, Any]) -> Plan:
    """Krippendorff's alpha among the people on the field (items with two or more labels)."""
    from agreement.views import variable
    from estimates.planning import Plan, plan_from_interval

    figure = "Krippendorff's alpha (people)"
    view = variable(agreement_data, table.field, derived=False)
    entry = view.block if view else None
    if not entry:
        return Plan(figure, 0, None, target, None, None, "no alpha for this field")
    cis = entry.get("krippendorff_alpha_ci") or {}
    level = next(iter(cis), None)
    ci = cis.get(level) if level else None
    return plan_from_interval(figure, int(entry.get("n_pairable") or 0), ci, target)


def select_items(
    store: Store,
    project: str,
    field: str | None,
    evaluators: list[str],
    budget: int,
    *,
    seed: int = 0,
) -> dict[str, object]:
    """Draw the active-selection sample over the judged items and switch the project's
    assignment to ``active``: items where the judge versions disagree (two or more
    ``evaluators``) or the judge is unsure (one) are likelier to be drawn."""
    from estimates.selection import draw, inclusion_probabilities, uncertainty
    from studies.assignments import validate_annotation_settings
    from studies.selection import record_draws

    if not isinstance(budget, int) or budget < 1:
        raise ApiError("the budget must be a whole number of items >= 1")
    fd = load_field_data(store, project, field)
    versions = [pick_version(fd, e) for e in dict.fromkeys(evaluators)]
    wide = (
        fd.scores[fd.scores["signature"].isin([v.signature for v in versions])]
        .assign(score=lambda f: pd.to_numeric(f["score"], errors="coerce"))
        .pivot_table(index="item_id", columns="signature", values="score", aggfunc="mean")
    )
    wide = wide.reindex(columns=[v.signature for v in versions])
    if wide.empty:
        raise ApiError(f"no judged item of {project!r} to draw from")
    u, rule = uncertainty(wide.to_numpy(float))
    pi = inclusion_probabilities(u, budget)
    chosen = draw(pi, seed)
    basis = f"{rule}; seed {seed}; " + ", ".join(v.label for v in versions)
    n = record_draws(
        store,
        project,
        {str(i): (float(p), bool(c)) for i, p, c in zip(wide.index, pi, chosen, strict=True)},
        basis,
    )
    settings = dict(store.project(project).settings)
    settings.update(validate_annotation_settings({"assignment": "active"}))
    store.update_settings(project, settings)
    return {"drawn": n, "items": len(wide), "budget": budget, "rule": rule, "basis": basis}


def estimate_choices(
    store: Store, project: str, inputs: StudyInputs | None = None
) -> dict[str, list[str]]:
    """Numeric or binary fields some evaluator scored -> the version labels that did
    (newest run last), for the page's and the side panel's pickers (``inputs``: the
    project's inputs already loaded, read-only)."""
    from alignment.inputs import numeric_fields
    from alignment.versions import load_versions
    from study_inputs.load import load_inputs

    if inputs is None:
        inputs = load_inputs(store, project)
    scores = inputs.scores
    # load_versions sorts by evaluator name: order by the newest run instead, so that the
    # default (the last) is the judge run most recently, not the last name in the alphabet
    versions = sorted(
        (v for v in load_versions(store, project) if not v.swapped),
        key=lambda v: max(v.run_ids, default=0),
    )
    out: dict[str, list[str]] = {}
    for name in numeric_fields(inputs):
        signatures = set(scores.loc[scores["field"] == name, "signature"].unique())
        labels = [v.label for v in versions if v.signature in signatures]
        if labels:
            out[name] = labels
    return out


#: The half-width the report plans for.
REPORT_TARGET = 0.05


def report_estimates(
    store: Store, project: str, agreement_data: dict[str, Any], target: float = REPORT_TARGET
) -> list[dict[str, Any]]:
    """Per scored field, with its newest judge: the estimates per system and the plans
    (the JSON the report's estimates section renders)."""
    out = []
    for field, judges in estimate_choices(store, project).items():
        try:
            table = estimate(
                store,
                project,
                field,
                judges[-1],
                by_generator=True,
                target=target,
                agreement_data=agreement_data,
            )
        except ApiError:
            continue
        out.append(table.to_dict())
    return out
