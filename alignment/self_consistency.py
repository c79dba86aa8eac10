"""How often the judge disagrees with itself, next to how far people agree: the ceiling
for any judge-human figure.

- Flip rate: the share of items (with two or more samples) whose samples are not all
  the same, with its 95% Wilson interval.
- Self-alpha: Krippendorff's alpha with the judge's samples as raters.
- People's alpha: Krippendorff's alpha of the annotators on the same field.

Both alphas are nominal on a binary field, interval otherwise, and carry a 95% percentile
bootstrap interval over items (``n_resamples`` draws; none at 0). Each figure has its n
(items) and a reason when undefined.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agreement.alpha import alpha_from_coincidences, unit_coincidences
from agreement.bootstrap import draws
from agreement.judge_probes import wilson_interval

#: Above this many distinct values the bootstrap (a V x V matrix per draw) is skipped.
BOOTSTRAP_MAX_VALUES = 16


def alpha_with_ci(data: np.ndarray, level: str, n_resamples: int, seed: int) -> dict[str, Any]:
    """Alpha of a raters x items matrix (NaN missing) with its bootstrap interval over the
    pairable items (two or more values), drawn as weights on each item's coincidences: the
    product's shared seeded draws (``agreement.bootstrap.draws``), as every other interval."""
    values = data[~np.isnan(data)]
    domain = np.unique(values)
    counts = np.stack([(data == v).sum(axis=0) for v in domain], axis=1) if len(domain) else None
    pairable = counts is not None and counts.sum(axis=1) >= 2
    n = int(np.sum(pairable)) if counts is not None else 0
    out: dict[str, Any] = {"value": None, "ci": None, "n": n, "level": level}
    if n == 0 or len(domain) < 2:
        out["reason"] = "no item with two values" if n == 0 else "every value is the same"
        return out
    per_unit = unit_coincidences(counts[pairable])
    v = len(domain)
    value = float(alpha_from_coincidences(per_unit.sum(axis=0).reshape(v, v), domain, level))
    out["value"] = value if np.isfinite(value) else None
    if out["value"] is None:
        out["reason"] = "no variation in the pairable values"
    elif n_resamples and v <= BOOTSTRAP_MAX_VALUES:
        sums = draws(n, n_resamples, seed).product(per_unit)
        alphas = alpha_from_coincidences(sums.reshape(-1, v, v), domain, level)
        got = alphas[np.isfinite(alphas)]
        if len(got):
            out["ci"] = [float(np.percentile(got, 2.5)), float(np.percentile(got, 97.5))]
    elif n_resamples:
        out["ci_reason"] = f"no bootstrap above {BOOTSTRAP_MAX_VALUES} distinct values"
    return out


def sample_matrix(units: list[list[float]]) -> np.ndarray:
    """Samples x items (NaN where an item has fewer samples)."""
    width = max((len(u) for u in units), default=0)
    data = np.full((width, len(units)), np.nan)
    for j, u in enumerate(units):
        data[: len(u), j] = u
    return data


def people_matrix(labels: pd.DataFrame) -> np.ndarray:
    """Annotators x items of the people's numeric labels (NaN missing)."""
    if labels.empty:
        return np.empty((0, 0))
    table = labels.pivot_table(
        index="annotator", columns="item_id", values="value", aggfunc="first"
    )
    return table.to_numpy(float)


def self_consistency_figures(
    units: list[list[float]],
    labels: pd.DataFrame,
    *,
    discrete: bool,
    n_resamples: int,
    seed: int,
    people_alpha: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Flip rate, the judge's self-alpha and the people's alpha, each with CI and n
    (``people_alpha``: the people's, when the caller already has it for these labels)."""
    level = "nominal" if discrete else "interval"
    rows = [u for u in units if len(u) >= 2]
    people = people_alpha
    if people is None:
        people = alpha_with_ci(people_matrix(labels), level, n_resamples, seed)
    if not rows:
        why = "no item has two or more samples: run the judge with samples > 1"
        return {
            "flip_rate": {"value": None, "ci": None, "n": 0, "reason": why},
            "self_alpha": {"value": None, "ci": None, "n": 0, "level": level, "reason": why},
            "people_alpha": people,
        }
    flips = sum(len(set(u)) > 1 for u in rows)
    return {
        "flip_rate": {
            "value": flips / len(rows),
            "ci": list(wilson_interval(flips, len(rows))),
            "n": len(rows),
        },
        "self_alpha": alpha_with_ci(sample_matrix(rows), level, n_resamples, seed),
        "people_alpha": people,
    }
