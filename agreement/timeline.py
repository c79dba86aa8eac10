"""Agreement as labels accumulate: alpha on the labels submitted up to each point in time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agreement.alpha import krippendorff_alpha
from agreement.ratings import MISSING, Ratings


def alpha_over_time(
    labels: pd.DataFrame, level: str, *, domain: Any = None, numeric: bool = False, points: int = 12
) -> list[dict[str, Any]]:
    """Alpha at ``level`` on the labels with ``updated_at`` up to each of ``points`` cut-offs
    (evenly spaced quantiles of the label times)."""
    if labels.empty or "updated_at" not in labels:
        return []
    labels = labels.dropna(subset=["value"])
    times = pd.to_datetime(labels["updated_at"], utc=True)
    full, u, a = Ratings.from_long_coded(labels, domain=domain, numeric=numeric)
    # the time of every cell of the reliability matrix, to mask instead of rebuilding
    when = np.full(full.codes.shape, np.iinfo(np.int64).max, dtype=np.int64)
    when[u, a] = times.to_numpy(dtype="datetime64[ns]").astype(np.int64)
    cuts = sorted(set(times.quantile(np.linspace(0, 1, points + 1)[1:], interpolation="higher")))
    out = []
    for cut in cuts:
        mask = when <= pd.Timestamp(cut).value
        codes = np.where(mask, full.codes, MISSING)
        part = Ratings(full.units, full.annotators, codes, full.domain, full.numeric)
        stat = krippendorff_alpha(part, level)
        out.append(
            {
                "at": cut.isoformat(),
                "n_ratings": int(mask.sum()),
                "alpha": stat.value,
                "n_pairable": stat.n,
                "reason": stat.reason,
            }
        )
    return out
