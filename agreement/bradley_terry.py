"""Bradley-Terry strengths from pairwise outcomes, fitted by Hunter's MM algorithm.

P(i beats j) = p_i / (p_i + p_j). With W_i the wins of i (a tie is half a win each) and
n_ij the comparisons of i and j, the MM update p_i <- W_i / sum_j n_ij / (p_i + p_j)
(Hunter 2004) climbs the likelihood to its maximum; strengths are reported as
theta_i = log p_i centred on mean 0. The maximum is finite only when every system both
wins and loses something and the comparisons connect everyone; otherwise the fit says so.
"""

from __future__ import annotations

import numpy as np

MAX_ITERATIONS = 10_000
TOLERANCE = 1e-10


def why_no_fit(wins: np.ndarray, games: np.ndarray) -> str | None:
    """Why the strengths have no finite estimate (None when they have one)."""
    k = len(wins)
    if k < 2:
        return "fewer than two systems were compared"
    played = games.sum(axis=1)
    if (played == 0).any():
        return "a system was never compared"
    losses = played - wins
    if (wins <= 0).any() or (losses <= 0).any():
        return "a system won or lost every comparison: no finite Bradley-Terry strength"
    reach = np.zeros(k, dtype=bool)
    reach[0] = True
    for _ in range(k):
        reach = reach | (games[reach].sum(axis=0) > 0)
    if not reach.all():
        return "the comparisons do not connect every system"
    return None


def fit(wins: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Centred log-strengths theta (k,) from total wins (k,) and games (k, k), symmetric
    with a zero diagonal (Zermelo's iteration). Call :func:`why_no_fit` first.

    Two systems, the first winning 3 of 4 games: the maximum-likelihood odds are 3:1, so
    theta_0 - theta_1 = log 3, centred +-0.549.

    >>> fit(np.array([3.0, 1.0]), np.array([[0.0, 4.0], [4.0, 0.0]])).round(3).tolist()
    [0.549, -0.549]
    """
    p = np.ones(len(wins))
    for _ in range(MAX_ITERATIONS):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = wins / denom
        new /= np.exp(np.log(new).mean())
        done = np.abs(new - p).max() < TOLERANCE
        p = new
        if done:
            break
    theta = np.log(p)
    return theta - theta.mean()


def tallies(
    outcomes: list[tuple[int, int, float]], k: int, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Wins (k,) and games (k, k) from (i, j, score of i) outcomes (1, 0 or 0.5), each
    counted ``weights[t]`` times (a bootstrap draw) or once."""
    arr = np.asarray(outcomes, dtype=float).reshape(-1, 3)
    i, j, s = arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2]
    w = np.ones(len(arr)) if weights is None else np.asarray(weights, dtype=float)
    wins = np.bincount(i, w * s, minlength=k) + np.bincount(j, w * (1 - s), minlength=k)
    pairs = np.bincount(i * k + j, w, minlength=k * k).reshape(k, k)
    return wins, pairs + pairs.T
