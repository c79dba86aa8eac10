"""A stored version's recalibration map, for other modules (judge-assisted estimates).

``version_map(store, project, "judge:x v2", method="isotonic")`` fits the map from the
version's per-item scores (its P(yes) on a binary field when given) to the people's
reference (majority decision on a binary field, mean otherwise) on every item both have
(the version's leaked items left out), and returns it with the n it was fitted on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agreement.recalibration import Map, fit_map
from alignment.diff import find_version
from alignment.inputs import load_field
from alignment.scores import field_scores, per_item

if TYPE_CHECKING:
    from annotation_store import Store


@dataclass(frozen=True)
class VersionMap:
    """The fitted map of one version: call ``apply`` on judge scores."""

    label: str
    field: str
    method: str
    n: int
    apply: Map


def version_map(
    store: Store, project: str, label: str, *, field: str | None = None, method: str = "isotonic"
) -> VersionMap:
    """The map of version ``label`` on ``field`` (AlignmentError for an unknown version or
    field, ValueError when the method does not apply or too few items have both)."""
    fi = load_field(store, project, field)
    v = find_version(fi, label)
    scores = per_item(field_scores(fi.results[v.signature], fi.field, set(v.excluded)))
    ref = fi.dense.majority if fi.binary else fi.dense.mean
    y = ref[fi.space.codes(scores.index)]
    has = ~np.isnan(y)
    x = scores.to_numpy(float)[has]
    return VersionMap(v.label, fi.field, method, int(has.sum()), fit_map(x, y[has], method))
