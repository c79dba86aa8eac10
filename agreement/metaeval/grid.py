"""From a project's tidy frames to the systems x groups matrices the meta-evaluation reads.

One cell per (system, group): the value of the item that system gave for that input (the
mean when several items share a cell, counted). Without a group column every item is its
own group, so the segment and system levels still apply and the group level does not.
The people's value of an item is the reference the agreement document compares evaluators
with (their mean, or the chosen human reference); each annotator keeps a matrix too, for
the people's own ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from agreement.inputs import (
    AgreementInputs,
    derived_labels,
    field_frame,
    human_reference,
    numeric_values,
)
from common.evaluator_labels import config_labels, config_of
from kinds import FieldType


class MetaEvalError(ValueError):
    """A request the meta-evaluation cannot answer (a one-line message)."""


@dataclass
class Grid:
    """Matrices of one field: ``people`` and each evaluator's and annotator's values,
    systems x groups, NaN where no value."""

    field: str
    system_column: str
    group_column: str | None
    systems: tuple[str, ...]
    groups: tuple[str, ...]
    people: np.ndarray
    evaluators: dict[str, np.ndarray]
    annotators: dict[str, np.ndarray]
    notes: list[str] = field(default_factory=list)

    @property
    def grouped(self) -> bool:
        """Whether a group column was given (else every item is its own group)."""
        return self.group_column is not None


def _column(items: pd.DataFrame, name: str) -> pd.Series:
    """An item column (``generator``, ``split``) or a key of the items' fields."""
    if name in ("generator", "split", "item_id"):
        values = items[name]
    else:
        values = items["fields"].map(lambda f: (f or {}).get(name) if isinstance(f, dict) else None)
    return values.map(lambda v: None if v is None or v == "" or v != v else str(v))


def _cells(values: pd.Series, sys_codes: pd.Series, grp_codes: pd.Series, shape) -> np.ndarray:
    """Mean value per (system, group) cell of per-item ``values`` (indexed by item_id)."""
    at = sys_codes.index.get_indexer(values.index)  # -1: an item without system or group
    v = values.to_numpy(dtype=float, na_value=np.nan)
    keep = (at >= 0) & ~np.isnan(v)
    cell = (
        sys_codes.to_numpy()[at[keep]].astype(np.int64) * shape[1] + grp_codes.to_numpy()[at[keep]]
    )
    size = shape[0] * shape[1]
    count = np.bincount(cell, minlength=size)
    # sums by one bincount: a cell of one item holds its value exactly
    total = np.bincount(cell, weights=v[keep], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan).reshape(shape)


def build_grid(
    inputs: AgreementInputs,
    field_name: str,
    *,
    system: str = "generator",
    group: str | None = None,
    evaluators: Sequence[str] | None = None,
) -> Grid:
    """The matrices of ``field_name`` (a numeric human field or a derived score)."""
    kind, settings = inputs.kind, inputs.settings
    spec = {f.name: f for f in kind.human_fields(settings)}
    derived_names = {d.name for d in kind.derived_scores}
    if field_name in derived_names:
        labels = field_frame(derived_labels(inputs), field_name)
        binary = False
    elif field_name in spec and spec[field_name].numeric:
        labels = field_frame(inputs.annotations, field_name)
        binary = spec[field_name].type is FieldType.BINARY
    else:
        numeric = sorted([n for n, f in spec.items() if f.numeric] + sorted(derived_names))
        raise MetaEvalError(
            f"{field_name!r} is not a numeric human field or derived score of this project "
            f"(choose from {', '.join(numeric) or 'none'})"
        )
    items = inputs.items
    notes: list[str] = []
    sys_of = _column(items, system)
    if sys_of.isna().all():
        raise MetaEvalError(f"no item has a value in the system column {system!r}")
    ids = items["item_id"].astype(str)
    if group is not None:
        grp_of = _column(items, group)
        if grp_of.isna().all():
            raise MetaEvalError(f"no item has a value in the group column {group!r}")
    else:
        grp_of = ids.copy()
    missing = sys_of.isna() | grp_of.isna()
    if missing.any():
        what = "a system" if group is None else "a system or a group"
        notes.append(f"{int(missing.sum())} items without {what} left out")
    keep = ~missing
    ids, sys_of, grp_of = ids[keep], sys_of[keep], grp_of[keep]
    systems = tuple(sorted(set(sys_of)))
    groups = tuple(sorted(set(grp_of)))
    s_code = pd.Series(pd.Categorical(sys_of, categories=systems).codes, index=ids.to_numpy())
    g_code = pd.Series(pd.Categorical(grp_of, categories=groups).codes, index=ids.to_numpy())
    shape = (len(systems), len(groups))
    if group is not None and (sys_of + "\x00" + grp_of).duplicated().any():
        n = int((sys_of + "\x00" + grp_of).duplicated().sum())
        notes.append(f"{n} items share a (system, group) cell with another: cells hold their mean")

    ref = human_reference(labels, field_name, binary, inputs.reference)
    people = _cells(ref.mean.rename(None), s_code, g_code, shape)
    per_person = {}
    num = numeric_values(labels)
    for person, rows in num.groupby("annotator", sort=True):
        per_person[str(person)] = _cells(
            rows.groupby("item_id")["value"].mean(), s_code, g_code, shape
        )

    scores = inputs.scores
    scores = scores[scores["field"] == field_name]
    by_eval: dict[str, np.ndarray] = {}
    if not scores.empty:
        # one key per distinct (evaluator, model, signature), not per score row
        keys: dict[tuple, tuple] = {}
        configs = [
            keys.get(row) or keys.setdefault(row, config_of(*row))
            for row in zip(
                *(scores[c].tolist() for c in ("evaluator", "model", "signature")), strict=True
            )
        ]
        labels_of = config_labels(configs)
        named = pd.Series([labels_of[c] for c in configs], index=scores.index)
        for name, rows in scores.groupby(named, sort=True):
            item_means = rows.groupby(rows["item_id"].astype(str))["score"].mean()
            by_eval[str(name)] = _cells(item_means, s_code, g_code, shape)
    if evaluators:
        unknown = [e for e in evaluators if e not in by_eval]
        if unknown:
            raise MetaEvalError(
                f"no scores of {', '.join(map(repr, unknown))} on {field_name!r} "
                f"(evaluators: {', '.join(by_eval) or 'none'})"
            )
        by_eval = {e: by_eval[e] for e in evaluators}
    return Grid(field_name, system, group, systems, groups, people, by_eval, per_person, notes)
