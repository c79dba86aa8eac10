"""The classical and the prediction-powered (PPI++) mean with power tuning.

Follows Angelopoulos, Duchi and Zrnic (2023), "PPI++: Efficient Prediction-Powered
Inference", exactly as the authors' ``ppi_py.ppi_mean_ci`` computes it (a test holds the
two equal to 1e-9): the point estimate with lambda = 1 gives the gradients, lambda is
their covariance over twice (1 + n/N) times the judge's variance on all items, clipped to
[0, 1]; the interval is normal with the imputed and the rectifier standard errors
(population standard deviations, as ``ppi_py``). ``lambda = 0`` is the human-only mean.
"""

from __future__ import annotations

import numpy as np

from estimates.intervals import Estimate, missing, normal

#: Fewer labelled items than this give no interval (a normal interval needs some n).
MIN_LABELLED = 10


def _weights(n: int, w: np.ndarray | None) -> np.ndarray:
    """Weights scaled to sum to n (ones without weights), as ``ppi_py`` does."""
    return np.ones(n) if w is None else np.asarray(w, float) / np.sum(w) * n


def classical_mean(y: np.ndarray, w: np.ndarray | None = None) -> Estimate:
    """The (weighted) mean of the human values with its normal interval."""
    y = np.asarray(y, float)
    n = len(y)
    if n < MIN_LABELLED:
        return missing("human", f"needs at least {MIN_LABELLED} human-labelled items", n=n)
    wy = _weights(n, w) * y
    return normal("human", wy.mean(), wy.std() / np.sqrt(n), extra={"n": n})


def judge_mean(yhat_all: np.ndarray) -> Estimate:
    """The judge's mean over every judged item: precise, but biased by the judge's errors."""
    f = np.asarray(yhat_all, float)
    if len(f) < MIN_LABELLED:
        return missing(
            "judge", f"needs at least {MIN_LABELLED} judged items", biased=True, n=len(f)
        )
    return normal(
        "judge",
        f.mean(),
        f.std() / np.sqrt(len(f)),
        biased=True,
        reason="the judge's own mean: its interval ignores the judge's errors",
        extra={"n": len(f)},
    )


def tuned_lambda(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    w: np.ndarray | None = None,
    w_unlabelled: np.ndarray | None = None,
) -> float:
    """The power-tuning lambda of PPI++ for a mean, clipped to [0, 1]."""
    n, big_n = len(y), len(yhat_unlabelled)
    w, wu = _weights(n, w), _weights(big_n, w_unlabelled)
    first = (wu * yhat_unlabelled).mean() + (w * (y - yhat)).mean()
    grads = w * (y - first)
    grads_hat = w * (yhat - first)
    grads_hat_u = wu * (yhat_unlabelled - first)
    cov = 2 * np.sum((grads - grads.mean()) * (grads_hat - grads_hat.mean())) / n
    var_hat = np.var(np.concatenate([grads_hat, grads_hat_u]), ddof=1)
    denom = 2 * (1 + n / big_n) * var_hat
    # A constant judge carries no information: fall back on the human-only mean.
    return float(np.clip(cov / denom, 0.0, 1.0)) if denom > 0 else 0.0


def ppi_mean(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    *,
    lam: float | None = None,
    w: np.ndarray | None = None,
    w_unlabelled: np.ndarray | None = None,
) -> Estimate:
    """PPI++ mean of the human values ``y`` from the judge on the same items (``yhat``)
    and on the items people did not label (``yhat_unlabelled``). ``lam=None`` tunes it."""
    y, yhat = np.asarray(y, float), np.asarray(yhat, float)
    yhat_u = np.asarray(yhat_unlabelled, float)
    n, big_n = len(y), len(yhat_u)
    if n < MIN_LABELLED:
        return missing(
            "ppi",
            f"needs at least {MIN_LABELLED} items with both a human label and a judge score",
            n=n,
            n_unlabelled=big_n,
        )
    if big_n < 1:
        return missing("ppi", "no judged item without a human label", n=n, n_unlabelled=0)
    if lam is None:
        lam = tuned_lambda(y, yhat, yhat_u, w, w_unlabelled)
    w_, wu = _weights(n, w), _weights(big_n, w_unlabelled)
    imputed = wu * lam * yhat_u
    rectifier = w_ * (y - lam * yhat)
    value = imputed.mean() + rectifier.mean()
    se = np.sqrt(imputed.var() / big_n + rectifier.var() / n)
    extra = {
        "lambda": float(lam),
        "n": n,
        "n_unlabelled": big_n,
        # the two variance terms, for planning how many more labels a target needs
        "var_rectifier": float(rectifier.var()),
        "var_imputed_term": float(imputed.var() / big_n),
    }
    return normal("ppi", value, se, extra=extra)
