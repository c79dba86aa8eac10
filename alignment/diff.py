"""Version diff: what changed between two versions of a judge, item by item.

For every item both versions scored (each version's few-shot items left out), the two
scores (means over runs), the human reference, whether the score moved toward the humans
(closer to the reference mean), away from them, or not at all, whether a binary decision
flipped (score >= 0.5 on a binary field), both reasonings, and for kinds with facts the
facts whose C/M label changed (from ``details["gold_facts"]`` / ``["predicted_facts"]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from alignment.diff_rows import COLUMNS, last_ok
from alignment.inputs import AlignmentError, FieldInputs, load_field
from alignment.scores import field_scores, per_item
from alignment.versions import Version

if TYPE_CHECKING:
    from annotation_store import Store

FACT_SIDES = ("gold_facts", "predicted_facts")
#: The diff's columns (a label judge's diff has the same, labels in score_a / score_b).
TOL = 1e-9


def find_version(fi: FieldInputs, label: str) -> Version:
    """The version with this label or signature text (AlignmentError for none)."""
    for v in fi.versions:
        if label in (v.label, v.signature):
            return v
    raise AlignmentError(f"no version {label!r} (choose from {[v.label for v in fi.versions]})")


def fact_changes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, str]]:
    """The facts whose C/M label differs between two results' details."""
    out = []
    for side in FACT_SIDES:
        rows_a, rows_b = a.get(side) or [], b.get(side) or []
        labels_b = {str(r.get("fact")): r.get("label") for r in rows_b if isinstance(r, dict)}
        for r in rows_a:
            if not isinstance(r, dict):
                continue
            fact = str(r.get("fact"))
            if fact in labels_b and labels_b[fact] != r.get("label"):
                out.append(
                    {"side": side, "fact": fact, "a": str(r.get("label")), "b": str(labels_b[fact])}
                )
    return out


def movement(a: float, b: float, human: float) -> str:
    """toward / away / unchanged / same distance / no human reference."""
    if np.isnan(human):
        return "no human reference"
    if abs(a - b) <= TOL:
        return "unchanged"
    da, db = abs(a - human), abs(b - human)
    if db < da - TOL:
        return "toward"
    if db > da + TOL:
        return "away"
    return "same distance"


def default_pair(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """Row indices to diff first: the last two versions of the evaluator listed last
    among those with two or more versions (the judge just edited); else the first two."""
    for i in range(len(rows) - 1, 0, -1):
        for j in range(i - 1, -1, -1):
            if rows[j]["evaluator"] == rows[i]["evaluator"]:
                return j, i
    return 0, 1


def default_card(rows: list[dict[str, Any]]) -> int:
    """Row index of the version whose card shows first: the newer of the default diff's
    pair (the judge being edited), else the last row. Rows are sorted by evaluator name,
    so "the last row" alone would pick whichever evaluator sorts last (an old metric)."""
    if len(rows) > 1:
        a, b = default_pair(rows)
        if rows[a]["evaluator"] == rows[b]["evaluator"]:
            return b
    return max(len(rows) - 1, 0)


#: Where the page compares two evaluators instead (the default hint of a refusal).
PAGE_HINT = "Their agreement with the people is compared under Judge vs judge above."


class DiffRefused(AlignmentError):
    """Two versions that are not diffed item by item (see :func:`diff_refusal`)."""


def diff_refusal(
    rows: list[dict[str, Any]], label_a: str, label_b: str, hint: str = PAGE_HINT
) -> str | None:
    """Why two versions are not diffed item by item (None when they may be): the same
    version twice, or versions of two different evaluators (then ``hint`` says where
    the two are compared instead)."""
    by_label = {r["label"]: r for r in rows}
    a, b = by_label.get(label_a), by_label.get(label_b)
    if label_a == label_b:
        return "Pick two different versions: a version compared with itself changes nothing."
    if a and b and a["evaluator"] != b["evaluator"]:
        return (
            f"A version diff compares two versions of one evaluator; {label_a} and {label_b} "
            f"belong to different evaluators ({a['evaluator']}, {b['evaluator']}). {hint}"
        )
    return None


def refuse_diff(versions: list[Version], label_a: str, label_b: str, hint: str) -> None:
    """Raise :class:`DiffRefused` when :func:`diff_refusal` refuses these two versions
    (each named by its label or its signature text)."""
    by_name = {v.signature: v for v in versions} | {v.label: v for v in versions}
    va, vb = by_name.get(label_a), by_name.get(label_b)
    rows = [{"label": x, "evaluator": v.evaluator} for x, v in ((label_a, va), (label_b, vb)) if v]
    same = va is not None and va is vb  # one version by its label and by its signature
    if reason := diff_refusal(rows, label_a, label_a if same else label_b, hint):
        raise DiffRefused(reason)


def version_diff(fi: FieldInputs, label_a: str, label_b: str) -> pd.DataFrame:
    """One row per item scored by both versions: item_id, score_a, score_b, human,
    movement, flipped, reasoning_a, reasoning_b, fact_changes."""
    va, vb = find_version(fi, label_a), find_version(fi, label_b)
    excluded = set(va.excluded) | set(vb.excluded)
    ra, rb = fi.results[va.signature], fi.results[vb.signature]
    sa = per_item(field_scores(ra, fi.field, excluded))
    sb = per_item(field_scores(rb, fi.field, excluded))
    common = sa.index.intersection(sb.index).sort_values()
    human = fi.dense.mean[fi.space.codes(common)]
    da, db = last_ok(ra), last_ok(rb)
    rows = []
    # the scores in ``common``'s order, not a Series lookup per item (20,000 at 10k items)
    scores_a, scores_b = sa.reindex(common).to_numpy(float), sb.reindex(common).to_numpy(float)
    for item, h, a, b in zip(common, human, scores_a.tolist(), scores_b.tolist(), strict=True):
        ea, eb = da.get(item, {}), db.get(item, {})
        rows.append(
            {
                "item_id": item,
                "score_a": a,
                "score_b": b,
                "human": None if np.isnan(h) else float(h),
                "movement": movement(a, b, h),
                "flipped": bool(fi.binary and (a >= 0.5) != (b >= 0.5)),
                "reasoning_a": ea.get("reasoning") or "",
                "reasoning_b": eb.get("reasoning") or "",
                "fact_changes": fact_changes(ea.get("details") or {}, eb.get("details") or {}),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def diff_summary(diff: pd.DataFrame) -> dict[str, int]:
    """How many items moved toward / away, flipped, and had fact labels change."""
    counts = diff["movement"].value_counts()
    return {
        "n": len(diff),
        "toward": int(counts.get("toward", 0)),
        "away": int(counts.get("away", 0)),
        "flipped": int(diff["flipped"].sum()),
        "fact_changes": int(sum(len(x) for x in diff["fact_changes"])),
    }


#: Where a refused diff's two evaluators are compared, for callers off the page.
TABLE_HINT = "Their agreement with the people is compared side by side in the alignment table."


def diff_versions(
    store: Store,
    project: str,
    a: str,
    b: str,
    field: str | None = None,
    hint: str = TABLE_HINT,
) -> dict[str, Any]:
    """The diff of versions ``a`` and ``b`` (labels or signature texts) as JSON-ready data:
    the field, a summary and one record per item (what ``alignment --diff --json`` prints).
    :class:`DiffRefused` for the same version twice or versions of two evaluators, as on
    the page (``hint`` says where two evaluators are compared instead)."""
    try:
        fi = load_field(store, project, field)
        refuse_diff(fi.versions, a, b, hint)
        field, frame = fi.field, version_diff(fi, a, b)
    except DiffRefused:
        raise
    except AlignmentError:
        found = _label_diff(store, project, field, a, b, hint)
        if found is None:
            raise
        field, frame = found
    return {
        "project": project,
        "field": field,
        "a": a,
        "b": b,
        "summary": diff_summary(frame),
        "items": frame.to_dict(orient="records"),
    }


def _label_diff(
    store: Store, project: str, field: str | None, a: str, b: str, hint: str
) -> tuple[str, pd.DataFrame] | None:
    """The diff on a categorical field (None when the project has no such field)."""
    from alignment.categorical import categorical_fields, load_categorical
    from alignment.label_diff import label_diff

    inputs, versions, _ = load_categorical(store, project)
    names = categorical_fields(inputs)
    if not names or (field is not None and field not in names):
        return None
    refuse_diff(versions, a, b, hint)
    field = field or names[0]
    return field, label_diff(store, project, field, a, b)
