"""Bradley-Terry strengths from pairwise outcomes: the maximum-likelihood fit when one
exists, else a fit under a named prior, and why.

P(i beats j) = p_i / (p_i + p_j). With W_ij the score of i against j (a win 1, a tie half
a win each) and n_ij = W_ij + W_ji the comparisons of i and j, the MM update
p_i <- W_i / sum_j n_ij / (p_i + p_j) (Hunter 2004) climbs the likelihood to its maximum;
strengths are reported as theta_i = log p_i centred on mean 0.

The maximum is finite exactly when the "beats" graph (an edge i -> j when i scored
against j, a win or a tie) is strongly connected (Ford 1957; Hunter 2004, Assumption 1).
Otherwise some group of systems never loses to the systems outside it that it met
(separation), and the likelihood keeps rising as that group's strengths go to infinity:
an iteration only stops where its tolerance says. :func:`why_no_fit` names the groups;
:func:`fit_prior` then gives the posterior mode under a Gaussian N(0, PRIOR_SD^2) prior
on each log-strength (a ridge penalty), which is finite for every design and is to be
shown labelled as such, never as the maximum-likelihood ranking.
"""

from __future__ import annotations

import numpy as np

MAX_ITERATIONS = 10_000
TOLERANCE = 1e-10
#: Standard deviation of the Gaussian prior on each log-strength used when no
#: maximum-likelihood fit exists: odds of e^2 ~ 7.4 between systems 1 SD above and below.
PRIOR_SD = 1.0
PRIOR_NAME = f"Gaussian N(0, {PRIOR_SD:g}) prior on each log-strength (posterior mode)"


def _reach(adj: np.ndarray, start: int) -> np.ndarray:
    seen = np.zeros(len(adj), dtype=bool)
    seen[start] = True
    frontier = seen.copy()
    while frontier.any():
        new = adj[frontier].any(axis=0) & ~seen
        seen |= new
        frontier = new
    return seen


def components(beats: np.ndarray) -> list[list[int]]:
    """Strongly connected components of the graph ``beats[i, j] > 0`` (i scored against
    j), each sorted, in order of their first system."""
    adj = beats > 0
    out: list[list[int]] = []
    done = np.zeros(len(adj), dtype=bool)
    for i in range(len(adj)):
        if done[i]:
            continue
        group = _reach(adj, i) & _reach(adj.T, i)
        done |= group
        out.append([int(x) for x in np.flatnonzero(group)])
    return out


def _names(idx: list[int], names: list[str]) -> str:
    return ", ".join(sorted(names[i] for i in idx))


def why_no_fit(beats: np.ndarray, names: list[str] | None = None) -> str | None:
    """Why the strengths have no finite maximum-likelihood estimate (None when they
    have one), naming the groups; ``beats[i, j]`` is i's score against j."""
    k = len(beats)
    names = names or [str(i) for i in range(k)]
    if k < 2:
        return "fewer than two systems were compared"
    games = beats + beats.T
    never = [i for i in range(k) if games[i].sum() <= 0]
    if never:
        return f"never compared: {_names(never, names)}"
    met = _reach(games > 0, 0)
    if not met.all():
        a, b = list(np.flatnonzero(met)), list(np.flatnonzero(~met))
        return (
            f"the comparisons do not connect every system: {_names(a, names)} never met "
            f"{_names(b, names)}"
        )
    groups = components(beats)
    if len(groups) == 1:
        return None
    said = []
    for g in groups:  # the groups nobody outside them ever scored against
        inside = np.zeros(k, dtype=bool)
        inside[g] = True
        if beats[~inside][:, inside].any():
            continue
        met_out = (games[inside][:, ~inside] > 0).any(axis=0)
        others = [int(x) for x in np.flatnonzero(~inside)[met_out]]
        said.append(f"{_names(g, names)} never lost to {_names(others, names)}")
    return "no finite maximum-likelihood strengths (separation): " + "; ".join(said)


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


def _log_posterior(theta: np.ndarray, beats: np.ndarray, sd: float) -> float:
    d = theta[:, None] - theta[None, :]
    return float(-(beats * np.logaddexp(0.0, -d)).sum() - (theta**2).sum() / (2 * sd**2))


def fit_prior(beats: np.ndarray, sd: float = PRIOR_SD) -> np.ndarray:
    """Log-strengths maximising the likelihood times a N(0, sd^2) prior on each (finite
    for every design; centred, since the prior is symmetric and the wins sum to the
    games). Newton's method with step halving on the strictly concave log-posterior.

    Two systems, the first winning both games, sd 1: theta = (t, -t) with
    2 (1 - sigmoid(2 t)) = t, t = 0.521 (the likelihood alone has no maximum).

    >>> fit_prior(np.array([[0.0, 2.0], [0.0, 0.0]])).round(3).tolist()
    [0.521, -0.521]
    """
    k = len(beats)
    games = beats + beats.T
    wins = beats.sum(axis=1)
    theta = np.zeros(k)
    for _ in range(100):
        p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = wins - (games * p).sum(axis=1) - theta / sd**2
        w = games * p * (1 - p)
        hess = w - np.diag(w.sum(axis=1)) - np.eye(k) / sd**2
        step = np.linalg.solve(hess, -grad)
        now, t = _log_posterior(theta, beats, sd), 1.0
        while _log_posterior(theta + t * step, beats, sd) < now - 1e-12 and t > 1e-6:
            t /= 2
        theta = theta + t * step
        if np.abs(t * step).max() < 1e-12:
            break
    return theta - theta.mean()


def tallies(
    outcomes: list[tuple[int, int, float]], k: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Scores (k, k) from (i, j, score of i) outcomes (1, 0 or 0.5): entry [i, j] is what
    i scored against j, each outcome counted ``weights[t]`` times (a bootstrap draw) or
    once. Row sums are the wins; the matrix plus its transpose are the games."""
    arr = np.asarray(outcomes, dtype=float).reshape(-1, 3)
    i, j, s = arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2]
    w = np.ones(len(arr)) if weights is None else np.asarray(weights, dtype=float)
    won = np.bincount(i * k + j, w * s, minlength=k * k).reshape(k, k)
    lost = np.bincount(i * k + j, w * (1 - s), minlength=k * k).reshape(k, k)
    return won + lost.T
