"""Which items people should label next: inclusion probabilities for active selection.

Zrnic and Candès (2024): the variance of the weighted estimate is smallest when an item's
probability of being labelled grows with the judge's expected error on it,
pi_i ~ sqrt(E[(Y - f)^2 | item]). Two signals stand in for that error: the spread of the
scores of several judge versions on the item (their disagreement), else the judge's own
uncertainty for scores in [0, 1], sqrt(f (1 - f)) (a 0/1 decision carries none). A floor
mixes in uniform sampling, so every item keeps a probability well above 0 (the weights
1 / pi stay bounded). Items are drawn independently (Poisson sampling) with a recorded
seed; the expected number drawn is the budget.
"""

from __future__ import annotations

import numpy as np

#: Share of every item's weight that is uniform.
FLOOR = 0.2


def uncertainty(scores: np.ndarray) -> tuple[np.ndarray, str]:
    """Per item (rows), from the scores of one or more judge versions (columns, NaN where
    a version did not score the item): the error proxy and the rule used."""
    s = np.asarray(scores, float)
    if s.ndim == 1:
        s = s[:, None]
    seen = (~np.isnan(s)).sum(axis=1)
    if s.shape[1] >= 2 and np.any(seen >= 2):
        dev = s - np.nanmean(s, axis=1, keepdims=True)
        spread = np.sqrt(np.nansum(dev**2, axis=1) / np.maximum(seen, 1))
        return np.where(seen >= 2, spread, np.nanmean(spread[seen >= 2])), "disagreement"
    f = np.nanmean(s, axis=1)
    if np.all((f >= 0) & (f <= 1)):
        return np.sqrt(f * (1 - f)), "judge uncertainty"
    return np.ones(len(f)), "uniform"


def inclusion_probabilities(u: np.ndarray, budget: float, floor: float = FLOOR) -> np.ndarray:
    """Probabilities that sum to ``budget`` (at most 1 each), proportional to ``u`` mixed
    with a uniform share ``floor``."""
    u = np.nan_to_num(np.asarray(u, float), nan=0.0)
    n = len(u)
    if n == 0:
        return u
    if not 0 < budget:
        raise ValueError("the budget must be a number of items > 0")
    budget = min(float(budget), n)
    mean = u.mean()
    w = (1 - floor) * (u / mean if mean > 0 else np.ones(n)) + floor
    pi = np.zeros(n)
    free = np.ones(n, bool)
    # Capping at 1 frees budget for the rest; a few rounds settle it.
    for _ in range(n):
        left = budget - pi[~free].sum()
        pi[free] = left * w[free] / w[free].sum()
        over = free & (pi >= 1)
        if not over.any():
            break
        pi[over] = 1.0
        free &= ~over
    return np.clip(pi, 0.0, 1.0)


def draw(pi: np.ndarray, seed: int) -> np.ndarray:
    """Independent draws: item i is selected with probability pi_i."""
    return np.random.default_rng(seed).random(len(pi)) < pi
