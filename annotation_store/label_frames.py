"""Reading the store's tidy label frames: labels per item and annotator, and majorities.

Shared by the store's adjudication and the audit analysis; pure Python over a frame the
store returns (``Store.annotations_frame``), so it imports neither SQLAlchemy nor pandas.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def labels_by_annotator(annotations: pd.DataFrame) -> dict[str, dict[str, dict[str, Any]]]:
    """item_id -> annotator -> {field: value} from a tidy annotations frame."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    # whole columns as Python lists: row tuples over Arrow-backed columns cost 10x more
    columns = (annotations[c].tolist() for c in ("item_id", "annotator", "field", "value"))
    for item_id, annotator, field, value in zip(*columns, strict=True):
        out.setdefault(str(item_id), {}).setdefault(str(annotator), {})[field] = value
    return out


def majority(values: Sequence[Any]) -> tuple[Any, bool] | None:
    """(most common value, unanimous?) or None when there is no value or the top is tied."""
    keyed = [_hashable(v) for v in values if v is not None]
    if not keyed:
        return None
    originals = dict(reversed(keyed))  # key -> the first value given with it
    counts = Counter(k for k, _ in keyed).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return originals[counts[0][0]], len(counts) == 1


def _hashable(v: Any) -> tuple[Any, Any]:
    """(key to count by, value to report). Answers of declared questions are JSON-like:
    a pairwise answer counts by its choice and strength (not the order it was shown in),
    a list of spans by its content."""
    if isinstance(v, dict):
        answer = {k: x for k, x in v.items() if k != "shown"}
        return json.dumps(answer, sort_keys=True), answer
    if isinstance(v, list):
        if any(isinstance(x, dict | list) for x in v):
            return json.dumps(v, sort_keys=True), v
        return tuple(v), tuple(v)
    return v, v
