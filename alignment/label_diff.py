"""Version diff on a categorical field: two label judges' versions, item by item.

For every item both versions labelled (each version's leaked items left out): both
labels, the people's majority label, ``movement`` (``toward``: the second version now
gives the people's label, ``away``: it no longer does, ``unchanged``, ``same distance``:
another label but still not the people's) and ``flipped`` (the label changed). The
columns match :func:`alignment.diff.version_diff` (``score_a`` / ``score_b`` hold labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from agreement.inputs import field_frame
from alignment.categorical import human_majority, judge_labels, load_categorical
from alignment.diff_rows import COLUMNS, last_ok
from alignment.inputs import AlignmentError

if TYPE_CHECKING:
    from annotation_store import Store


def label_movement(a: str, b: str, human: str | None) -> str:
    """toward / away / unchanged / same distance / no human reference."""
    if human is None:
        return "no human reference"
    if a == b:
        return "unchanged"
    if b == human:
        return "toward"
    if a == human:
        return "away"
    return "same distance"


def label_diff(store: Store, project: str, field: str, label_a: str, label_b: str) -> pd.DataFrame:
    """One row per item both versions labelled (see the module docstring)."""
    inputs, versions, results = load_categorical(store, project)
    by = {v.label: v for v in versions} | {v.signature: v for v in versions}
    missing = [x for x in (label_a, label_b) if x not in by]
    if missing:
        raise AlignmentError(
            f"no version {missing[0]!r} (choose from {[v.label for v in versions]})"
        )
    va, vb = by[label_a], by[label_b]
    excluded = set(va.excluded) | set(vb.excluded)
    la = judge_labels(results[va.signature], field, excluded)["labels"]
    lb = judge_labels(results[vb.signature], field, excluded)["labels"]
    people = human_majority(field_frame(inputs.annotations, field))
    ra, rb = last_ok(results[va.signature]), last_ok(results[vb.signature])
    rows = [
        {
            "item_id": item,
            "score_a": la[item],
            "score_b": lb[item],
            "human": people.get(item),
            "movement": label_movement(la[item], lb[item], people.get(item)),
            "flipped": la[item] != lb[item],
            "reasoning_a": (ra.get(item) or {}).get("reasoning") or "",
            "reasoning_b": (rb.get(item) or {}).get("reasoning") or "",
            "fact_changes": [],
        }
        for item in sorted(set(la) & set(lb))
    ]
    return pd.DataFrame(rows, columns=COLUMNS)
