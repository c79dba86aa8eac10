"""An independent Bradley-Terry fit for tests: the likelihood maximised by SciPy."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def bt_by_scipy(names: list[str], games: list[tuple[int, int, float]]) -> dict[str, float]:
    """Centred log-strengths maximising the likelihood of ``games`` ((i, j, score of i):
    1, 0, or 0.5 for a tie, half a win each)."""

    def nll(t: np.ndarray) -> float:
        theta = np.concatenate([[0.0], t])
        return -sum(
            s * (theta[i] - np.logaddexp(theta[i], theta[j]))
            + (1 - s) * (theta[j] - np.logaddexp(theta[i], theta[j]))
            for i, j, s in games
        )

    theta = np.concatenate([[0.0], minimize(nll, np.zeros(len(names) - 1), tol=1e-12).x])
    return dict(zip(names, theta - theta.mean(), strict=True))
