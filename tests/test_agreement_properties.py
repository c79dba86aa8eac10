"""Property tests: invariance, perfect agreement, bootstrap intervals, fast rank statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from agreement.alpha import (
    LEVELS,
    alpha_from_coincidences,
    coincidences,
    krippendorff_alpha,
)
from agreement.correlation import correlations, rank_bootstrap, weighted_pearson
from agreement.human import variable_agreement
from agreement.kappa import cohen_pairs, fleiss
from agreement.percent import gwet_ac1, percent_agreement
from agreement.ratings import Ratings

FAST = settings(max_examples=40, deadline=None)


@st.composite
def rating_matrices(draw, max_value: int = 4):
    """Annotators x units matrices of small integers with missing values."""
    n_ann = draw(st.integers(2, 5))
    n_units = draw(st.integers(2, 12))
    cells = st.one_of(st.none(), st.integers(0, max_value))
    return [[draw(cells) for _ in range(n_units)] for _ in range(n_ann)]


def _all_stats(r: Ratings) -> dict:
    out = {f"alpha.{lv}": krippendorff_alpha(r, lv).value for lv in LEVELS}
    out["fleiss"] = fleiss(r).value
    out["percent"] = percent_agreement(r).value
    out["ac1"] = gwet_ac1(r).value
    out["cohen"] = sorted(s.value if s.value is not None else -9 for s in cohen_pairs(r).values())
    return out


def _close(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if a[k] is None or b[k] is None:
            assert a[k] is None and b[k] is None, k
        else:
            assert np.allclose(a[k], b[k]), k


@FAST
@given(rating_matrices(), st.randoms())
def test_permuting_units_and_annotators_changes_nothing(matrix, rnd):
    r = Ratings.from_matrix(matrix)
    units = list(range(r.n_units))
    people = list(range(len(r.annotators)))
    rnd.shuffle(units)
    rnd.shuffle(people)
    _close(_all_stats(r), _all_stats(r.permuted(units, people)))


@FAST
@given(rating_matrices())
def test_own_alpha_routine_equals_the_package(matrix):
    r = Ratings.from_matrix(matrix)
    for level in LEVELS:
        pkg = krippendorff_alpha(r, level)
        if pkg.value is None:
            continue
        used = r.counts[r.pairable].sum(axis=0) > 0
        own = alpha_from_coincidences(
            coincidences(r.counts[:, used]), r.numeric_domain()[used], level
        )
        assert own == pytest.approx(pkg.value)


@FAST
@given(st.integers(2, 6), st.integers(2, 15), st.data())
def test_perfect_agreement_gives_one(n_ann, n_units, data):
    values = data.draw(
        st.lists(st.integers(0, 3), min_size=n_units, max_size=n_units).filter(
            lambda v: len(set(v)) >= 2
        )
    )
    r = Ratings.from_matrix([values] * n_ann)
    for level in LEVELS:
        assert krippendorff_alpha(r, level).value == pytest.approx(1.0)
    assert fleiss(r).value == pytest.approx(1.0)
    assert percent_agreement(r).value == 1.0
    assert gwet_ac1(r).value == pytest.approx(1.0)
    assert all(s.value == pytest.approx(1.0) for s in cohen_pairs(r).values())


@settings(max_examples=25, deadline=None)
@given(st.integers(12, 60), st.integers(0, 10_000))
def test_bootstrap_interval_contains_the_point_estimate(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, n).astype(float)
    y = np.clip(x + rng.integers(-2, 3, n), 0, 4) + rng.integers(0, 2, n) * 0.5
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return
    for name, c in correlations(x, y, n_resamples=300, seed=seed).items():
        if c.ci is not None:
            assert c.ci[0] <= c.r <= c.ci[1], name
    matrix = [list(rng.integers(0, 4, n)), list(rng.integers(0, 4, n)), list(x.astype(int))]
    va = variable_agreement(
        "f",
        Ratings.from_matrix(matrix),
        type_="ordinal",
        levels=("nominal", "ordinal", "interval"),
        level="ordinal",
        categorical=True,
        n_resamples=300,
        seed=seed,
    )
    for s in [*va.alpha.values(), va.fleiss]:
        if s.value is not None and s.ci is not None:
            assert s.ci[0] <= s.value <= s.ci[1]


@settings(max_examples=30, deadline=None)
@given(arrays(np.int64, st.integers(3, 40), elements=st.integers(0, 4)), st.data())
def test_fast_rank_statistics_equal_scipy_on_resamples_with_ties(x, data):
    n = len(x)
    y = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    y = y / 2 + x * data.draw(st.sampled_from([0.0, 0.5, -1.0]))
    x = x.astype(float)
    rng = np.random.default_rng(n)
    w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(5)]).astype(float)
    rho, tau = rank_bootstrap(x, y, w)
    pear = weighted_pearson(x, y, w)
    for b, row in enumerate(w):
        take = np.repeat(np.arange(n), row.astype(int))
        xs, ys = x[take], y[take]
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            assert np.isnan(rho[b]) and np.isnan(tau[b])
            continue
        assert tau[b] == pytest.approx(stats.kendalltau(xs, ys).statistic, abs=1e-12)
        assert rho[b] == pytest.approx(stats.spearmanr(xs, ys).statistic, abs=1e-12)
        assert pear[b] == pytest.approx(stats.pearsonr(xs, ys).statistic, abs=1e-9)


def test_fast_kendall_on_10k_items_matches_scipy():
    rng = np.random.default_rng(7)
    n = 10_000
    x = rng.integers(0, 6, n) / 5
    y = np.round(np.clip(x + rng.normal(0, 0.25, (5, n)), 0, 1) * 5).mean(axis=0)
    w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(3)]).astype(float)
    _, tau = rank_bootstrap(x, y, w)
    for b, row in enumerate(w):
        take = np.repeat(np.arange(n), row.astype(int))
        assert tau[b] == pytest.approx(stats.kendalltau(x[take], y[take]).statistic, abs=1e-12)


def test_bootstrap_is_seeded():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=30), rng.normal(size=30)
    a = correlations(x, y, n_resamples=200, seed=5)
    b = correlations(x, y, n_resamples=200, seed=5)
    c = correlations(x, y, n_resamples=200, seed=6)
    assert a["kendall"].ci == b["kendall"].ci != c["kendall"].ci
