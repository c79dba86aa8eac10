"""A jury version's members on the card: each member's figure against the people, and
its marginal gain (the jury's figure minus that of the jury without the member,
recombined from the stored juror scores by the same rule, :mod:`common.jury_rule`).

The figure: on a binary field, the share of items whose decision (score >= 0.5) equals
the people's majority; otherwise the mean absolute error to the people's mean (a gain is
then the error the member saves). Each figure has its n (items with a people's
reference and a value); a member that never scored has a reason instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from alignment.inputs import FieldInputs
from alignment.versions import Version
from common.jury_rule import aggregate

JURY = "jury"


def _units(kept: pd.DataFrame, field: str) -> dict[str, list[tuple[str, float]]]:
    """item -> (member, value) in the item's drawn order, from the stored jurors."""
    out: dict[str, list[tuple[str, float]]] = {}
    ok = kept[kept["status"] == "ok"]
    for item, details in zip(ok["item_id"], ok["details"], strict=True):
        for j in details.get("jurors") or []:
            value = (j.get("scores") or {}).get(field)
            if j.get("status") == "ok" and isinstance(value, int | float):
                out.setdefault(str(item), []).append((str(j["member"]), float(value)))
    return out


def _figure(values: dict[str, float], people: dict[str, float], binary: bool) -> dict[str, Any]:
    items = [i for i in values if i in people]
    if not items:
        return {"value": None, "n": 0, "reason": "no item with a value and a people's reference"}
    if binary:
        hits = [(values[i] >= 0.5) == (people[i] >= 0.5) for i in items]
        return {"value": float(np.mean(hits)), "n": len(items)}
    return {"value": float(np.mean([abs(values[i] - people[i]) for i in items])), "n": len(items)}


def jury_figures(fi: FieldInputs, v: Version, kept: pd.DataFrame) -> dict[str, Any] | None:
    """Each member's figure and marginal gain for a jury version (None for any other)."""
    if v.evaluator != JURY:
        return None
    how = str(v.settings.get("aggregate", "majority"))
    units = _units(kept, fi.field)
    ids = list(units)
    codes = fi.space.codes(pd.Index(ids))
    ref = fi.dense.majority if fi.binary and fi.dense.majority is not None else fi.dense.mean
    people = {i: float(x) for i, x in zip(ids, ref[codes], strict=True) if not np.isnan(x)}
    members = list(dict.fromkeys(m for u in units.values() for m, _ in u))
    jury = {i: aggregate([x for _, x in u], how)[0] for i, u in units.items()}
    whole = _figure(jury, people, fi.binary)
    rows = []
    for m in members:
        own = {i: x for i, u in units.items() for name, x in u if name == m}
        rest = {i: [x for name, x in u if name != m] for i, u in units.items()}
        without = {i: aggregate(xs, how)[0] for i, xs in rest.items() if xs}
        both = {i: jury[i] for i in without}
        full, less = _figure(both, people, fi.binary), _figure(without, people, fi.binary)
        gain = None
        if full["value"] is not None and less["value"] is not None:
            gain = full["value"] - less["value"] if fi.binary else less["value"] - full["value"]
        rows.append(
            {"member": m, **_figure(own, people, fi.binary), "gain": gain, "gain_n": full["n"]}
        )
    name = (
        "agreement with the people's majority decision"
        if fi.binary
        else "mean absolute error to the people's mean"
    )
    return {"aggregate": how, "figure": name, "jury": whole, "members": rows}
