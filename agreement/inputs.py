"""What the agreement engine reads: tidy frames for one project, and the human reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreement.derived import derived_frame
from kinds import FieldType, TaskKind

ITEM_COLUMNS = ["item_id", "split", "generator", "fields"]
ANNOTATION_COLUMNS = ["item_id", "annotator", "field", "value", "updated_at"]
SCORE_COLUMNS = ["item_id", "evaluator", "model", "signature", "run_id", "field", "score"]


@dataclass(frozen=True)
class AgreementInputs:
    """One project's data as tidy frames.

    ``items``: item_id, split, generator, fields (dict). ``annotations``: submitted labels,
    item_id, annotator, field, value (+ updated_at). ``scores``: item_id, evaluator, model
    (judge model), signature, run_id, field, score. ``reference`` (optional): item_id,
    field, value; for those items it replaces the human mean / majority that evaluators
    are compared with (e.g. adjudicated labels). Human-human agreement is unaffected.
    """

    project: str
    kind: TaskKind
    settings: dict[str, Any]
    items: pd.DataFrame
    annotations: pd.DataFrame
    scores: pd.DataFrame
    reference: pd.DataFrame | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def field_frame(annotations: pd.DataFrame, name: str) -> pd.DataFrame:
    """The labels of one field: item_id, annotator, value."""
    return annotations.loc[annotations["field"] == name, ["item_id", "annotator", "value"]]


def numeric_values(frame: pd.DataFrame) -> pd.DataFrame:
    """Labels with values as floats (rows that are not numbers dropped)."""
    out = frame.assign(value=pd.to_numeric(frame["value"], errors="coerce"))
    return out.dropna(subset=["value"])


def derived_labels(inputs: AgreementInputs) -> pd.DataFrame:
    """Per annotator and item, every derived score of the kind: item_id, annotator, field, value.

    Derived from one annotator's labels on one item (their own fields only); undefined
    derived values are left out. See :mod:`agreement.derived`.
    """
    return derived_frame(inputs.kind, inputs.annotations, inputs.items)


@dataclass(frozen=True)
class Reference:
    """Per-item human reference of one numeric variable: mean (and majority for binary)."""

    name: str
    mean: pd.Series
    majority: pd.Series | None
    n_ties: int = 0
    n_overridden: int = 0


def human_reference(
    labels: pd.DataFrame, name: str, binary: bool, override: pd.DataFrame | None = None
) -> Reference:
    """Mean of the numeric labels per item; for binary fields also the majority label
    (ties have none). ``override`` rows (item_id, field, value) replace both."""
    # Values in a fixed order per item: a float mean of three or more values depends on
    # the order they are added in, and a last-bit difference can break a rank tie.
    num = numeric_values(labels).sort_values(["item_id", "value"], kind="stable")
    mean = num.groupby("item_id", sort=False)["value"].mean()
    maj = None
    ties = 0
    if binary:
        # same rule as agreement.binary.majority, vectorised: ties have no majority
        grouped = (num["value"] >= 0.5).groupby(num["item_id"], sort=False)
        ones, n = grouped.sum(), grouped.size()
        maj_values = pd.Series(
            np.where(2 * ones > n, 1.0, np.where(2 * ones < n, 0.0, np.nan)), index=ones.index
        )
        ties = int(maj_values.isna().sum())
        maj = maj_values.dropna()
    n_over = 0
    if override is not None and not override.empty:
        ov = numeric_values(
            override.loc[override["field"] == name, ["item_id", "value"]].assign(
                annotator="reference"
            )
        )
        if not ov.empty:
            values = ov.groupby("item_id")["value"].last()
            n_over = len(values)
            mean = pd.concat([mean.drop(values.index, errors="ignore"), values])
            if maj is not None:
                maj = pd.concat(
                    [maj.drop(values.index, errors="ignore"), values.round().clip(0, 1)]
                )
    return Reference(name, mean, maj, ties, n_over)


def known_scale(kind: TaskKind, settings: dict[str, Any], name: str) -> tuple[float, float] | None:
    """The declared range of a human field or derived score, if it has one."""
    for d in kind.derived_scores:
        if d.name == name:
            return float(d.minimum), float(d.maximum)
    for f in kind.human_fields(settings):
        if f.name != name:
            continue
        if f.type is FieldType.BINARY:
            return 0.0, 1.0
        if f.type is FieldType.ORDINAL and f.values:
            vals = [float(v) for v in f.values]
            return min(vals), max(vals)
        if f.type is FieldType.INTERVAL and f.minimum is not None and f.maximum is not None:
            return float(f.minimum), float(f.maximum)
    return None


def is_binary_scores(scores: np.ndarray) -> bool:
    """True when every score is 0 or 1 (a decision, not a continuous score)."""
    return bool(np.isin(scores, (0.0, 1.0)).all())
