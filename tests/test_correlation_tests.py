"""The correlations' p-values and Fisher's test without scipy.stats are scipy.stats' own
floats: compared with ``==`` (not approx) on data with and without ties, small and large,
so the agreement document stays byte for byte the same."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from agreement.correlation_tests import average_ranks, kendall, pearson, spearman
from agreement.fisher import fisher_exact_p


def _pairs(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Paired samples of many shapes: ordinal codes (heavy ties), continuous, half points,
    rounded noisy scores; n from 3 to 5,000 (both sides of Kendall's exact cut-off)."""
    rng = np.random.default_rng(seed)
    out = []
    for n in (3, 4, 7, 20, 33, 34, 60, 500, 5000):
        q = rng.random(n)
        out += [
            (rng.integers(0, 3, n).astype(float), rng.integers(0, 4, n).astype(float)),
            (q + rng.normal(0, 0.3, n), q + rng.normal(0, 0.3, n)),
            (rng.integers(0, 6, n) / 2.0, rng.normal(size=n).round(1)),
            (np.round(q * 5 + rng.normal(0, 0.3, n)), np.round(q * 4 + rng.normal(0, 0.5, n), 1)),
            (q, -q + rng.normal(0, 1e-3, n)),
        ]
    return [(x, y) for x, y in out if np.ptp(x) > 0 and np.ptp(y) > 0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_floats_as_scipy_stats(seed: int) -> None:
    pairs = _pairs(seed)
    assert len(pairs) > 35
    for x, y in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = {
                "pearson": stats.pearsonr(x, y),
                "spearman": stats.spearmanr(x, y),
                "kendall": stats.kendalltau(x, y),
            }
        got = {"pearson": pearson(x, y), "spearman": spearman(x, y), "kendall": kendall(x, y)}
        for name, res in expected.items():
            assert got[name] == (float(res.statistic), float(res.pvalue)), (name, len(x))


def test_known_values() -> None:
    # scipy.stats.kendalltau's docstring example: tau = -0.47140, p = 0.2827 (ties, so
    # the normal approximation, computed here without scipy.stats)
    x = np.array([12, 2, 1, 12, 2], dtype=float)
    y = np.array([1, 4, 7, 1, 0], dtype=float)
    tau, p = kendall(x, y)
    assert round(tau, 5) == -0.4714
    assert round(p, 4) == 0.2827
    # Anscombe's first data set: r = 0.816 (p = 0.00217)
    ax = np.array([10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5], dtype=float)
    ay = np.array([8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68])
    r, p = pearson(ax, ay)
    assert (round(r, 3), round(p, 5)) == (0.816, 0.00217)
    rho, _ = spearman(ax, ay)
    assert round(rho, 3) == 0.818


def test_average_ranks_share_ties() -> None:
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0, 3.0])).tolist() == [4, 1, 4, 2, 4]


def test_constant_input_is_undefined() -> None:
    x, y = np.ones(5), np.arange(5.0)
    for f in (pearson, spearman, kendall):
        r, p = f(x, y)
        assert np.isnan(r) and np.isnan(p)


def test_fisher_same_floats_as_scipy_stats() -> None:
    rng = np.random.default_rng(3)
    tables = [((8, 2), (1, 5)), ((0, 0), (1, 2)), ((3, 0), (0, 3)), ((5, 5), (5, 5))]
    tables += [((1, 999), (40, 960)), ((0, 2500), (30, 7470)), ((12, 2488), (9, 7491))]
    for top in (3, 10, 60, 3000):
        tables += [tuple(map(tuple, rng.integers(0, top, (2, 2)).tolist())) for _ in range(60)]
    for table in tables:
        assert fisher_exact_p(table) == float(stats.fisher_exact(table).pvalue), table
    assert fisher_exact_p(((8, 2), (1, 5))) == pytest.approx(0.034965, abs=1e-6)


def test_table_concordance_matches_the_merge_count() -> None:
    from agreement.concordance import ConcordancePlan
    from agreement.correlation_tests import _contingency, _table_s

    rng = np.random.default_rng(5)
    for n, kx, ky in ((5, 2, 2), (40, 3, 4), (300, 5, 3), (1000, 11, 7)):
        x = rng.integers(0, kx, n).astype(float)
        y = np.minimum(x + rng.integers(-1, 2, n), ky).astype(float)
        table = _contingency(x, y)
        assert table is not None and table.sum() == n
        expected = int(ConcordancePlan.build(x, y).s(np.ones((n, 1)))[0])
        assert _table_s(table) == expected
    # perfectly concordant and discordant levels: S = +- the pairs untied in both
    x = np.array([0.0, 0.0, 1.0, 2.0])
    assert _table_s(_contingency(x, x)) == 5
    assert _table_s(_contingency(x, -x)) == -5
    # NaN or many distinct values: no table (the merge-sort count is used)
    assert _contingency(np.array([0.0, np.nan, 1.0]), np.array([1.0, 2.0, 3.0])) is None
    assert _contingency(rng.random(100), rng.random(100)) is None
