"""agreement.stats_lite returns what scipy.stats returns, to the last bit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from agreement import stats_lite
from agreement.correlation_tests import pearson


def _samples() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    out = [
        np.array([1.0, -1.0, 0.0, 1.0, 1.0]),
        np.array([0.0, 0.0, 1.0]),
        rng.choice([-1.0, 0.0, 1.0], 40),
        rng.choice([-1.0, 0.0, 1.0], 997, p=[0.1, 0.3, 0.6]),
        rng.normal(0.2, 1.0, 250),
        rng.normal(1e6, 1e-3, 30),  # a large mean: the centring matters
    ]
    return out


@pytest.mark.parametrize("popmean", [-0.1, 0.0, 0.35, -2.0])
def test_one_sided_t_test(popmean: float) -> None:
    for a in _samples():
        want = stats.ttest_1samp(a, popmean, alternative="greater").pvalue
        assert stats_lite.ttest_greater_p(a, popmean) == float(want)


def test_t_quantile() -> None:
    for df in (1, 2, 5, 29, 1000):
        for q in (0.5, 0.9, 0.975, 0.999):
            assert stats_lite.t_ppf(q, df) == float(stats.t.ppf(q, df))


def test_pearson_interval() -> None:
    rng = np.random.default_rng(2)
    for n in (4, 5, 12, 300, 5000):
        x = rng.normal(size=n)
        y = 0.4 * x + rng.normal(size=n)
        res = stats.pearsonr(x, y)
        ci = res.confidence_interval(0.95)
        r = pearson(x, y)[0]
        assert r == float(res.statistic)
        assert stats_lite.pearson_ci(r, n) == (float(ci.low), float(ci.high))
    assert stats_lite.pearson_ci(0.5, 3) == (-1.0, 1.0)


def test_kruskal_with_and_without_ties() -> None:
    rng = np.random.default_rng(4)
    cases = [
        [np.array([1.0, 3, 5, 7, 9]), np.array([2.0, 4, 6, 8, 10])],
        [np.array([1.0, 1, 1]), np.array([2.0, 2, 2]), np.array([2.0, 2])],
        [rng.normal(size=k) for k in (3, 40, 17, 1)],
        [rng.choice([0.25, 0.5, 1.0, -1.0], k) for k in (2500, 2400, 5100)],
        [np.round(rng.normal(size=k), 1) for k in (9000, 1000)],
    ]
    for groups in cases:
        h, p = stats.kruskal(*groups)
        assert stats_lite.kruskal(groups) == (float(h), float(p))


def test_binomial_tails_and_beta_quantile() -> None:
    for n in (1, 7, 29, 300, 2000):
        for k in (-1, 0, 1, n // 3, n - 1, n, n + 2):
            for p in (0.0, 0.01, 0.1, 0.37, 0.5, 1.0):
                assert stats_lite.binom_cdf(k, n, p) == float(stats.binom.cdf(k, n, p))
                assert stats_lite._binom_sf(k, n, p) == float(stats.binom.sf(k, n, p))
            if 0 <= k < n:
                for q in (0.0, 0.05, 0.9, 0.95, 1.0):
                    want = float(stats.beta.ppf(q, k + 1, n - k))
                    assert stats_lite.beta_ppf(q, k + 1, n - k) == want


def test_exact_binomial_interval() -> None:
    for n in (1, 2, 13, 250, 4000):
        for k in sorted({0, 1, n // 2, n - 1, n}):
            ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
            assert stats_lite.clopper_pearson(k, n) == (float(ci.low), float(ci.high))


def test_does_not_import_scipy_stats() -> None:
    code = (
        "import sys, numpy as np\n"
        "from agreement import stats_lite as s\n"
        "s.ttest_greater_p(np.array([0.0, 1, 1]), -0.1); s.t_ppf(0.9, 3)\n"
        "s.pearson_ci(0.3, 10); s.kruskal([np.array([1.0, 2]), np.array([3.0, 1])])\n"
        "s.binom_cdf(3, 10, 0.1); s.beta_ppf(0.95, 2, 9); s.clopper_pearson(3, 10)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
