"""The estimates package against the authors' ppi_py, hand computations and simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from estimates.active import active_mean
from estimates.differences import difference
from estimates.groups import estimate_groups
from estimates.planning import plan_from_interval, plan_ppi
from estimates.ppi import classical_mean, judge_mean, ppi_mean
from estimates.rogan_gladen import corrected_rate

ppi_py = pytest.importorskip("ppi_py")


def _study(rng: np.random.Generator, n: int, big_n: int, noise: float, bias: float):
    y = rng.normal(0.5, 1.0, n)
    yhat = y + rng.normal(bias, noise, n)
    truth_u = rng.normal(0.5, 1.0, big_n)
    yhat_u = truth_u + rng.normal(bias, noise, big_n)
    return y, yhat, yhat_u


@pytest.mark.parametrize("seed", range(6))
def test_ppi_equals_ppi_py(seed: int) -> None:
    rng = np.random.default_rng(seed)
    y, yhat, yhat_u = _study(rng, 40 + 30 * seed, 500 + 200 * seed, 0.3 + 0.4 * seed, 0.2)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
    ours = ppi_mean(y, yhat, yhat_u)
    assert ours.ci[0] == pytest.approx(float(lo[0]), abs=1e-9)
    assert ours.ci[1] == pytest.approx(float(hi[0]), abs=1e-9)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)
    assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)
    lo0, hi0 = ppi_py.classical_mean_ci(y, alpha=0.05)
    assert classical_mean(y).ci == pytest.approx((float(lo0), float(hi0)), abs=1e-9)


def test_ppi_equals_ppi_py_with_weights_and_binary() -> None:
    rng = np.random.default_rng(7)
    y = (rng.random(120) < 0.3).astype(float)
    yhat = np.where(rng.random(120) < 0.85, y, 1 - y)
    yhat_u = (rng.random(3000) < 0.35).astype(float)
    w, wu = rng.uniform(0.5, 2, 120), rng.uniform(0.5, 2, 3000)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, w=w, w_unlabeled=wu)
    ours = ppi_mean(y, yhat, yhat_u, w=w, w_unlabelled=wu)
    assert ours.ci == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-9)
    lo1, hi1 = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=1)
    assert ppi_mean(y, yhat, yhat_u, lam=1.0).ci == pytest.approx(
        (float(lo1[0]), float(hi1[0])), abs=1e-9
    )


def test_constant_judge_falls_back_on_people() -> None:
    y = np.array([0.0, 1.0, 1.0, 0.0] * 3)
    est = ppi_mean(y, np.ones(12), np.ones(10))
    assert est.extra["lambda"] == 0.0
    assert est.estimate == pytest.approx(0.5)
    short = ppi_mean(y[:9], np.ones(9), np.ones(3))
    assert short.estimate is None and "at least 10" in short.reason


def test_rogan_gladen_hand_computation() -> None:
    # 10 positives, 9 found (se 0.9); 10 negatives, 8 rejected (sp 0.8)
    human = np.array([1.0] * 10 + [0.0] * 10)
    said = np.array([1.0] * 9 + [0.0] + [0.0] * 8 + [1.0] * 2)
    # the judge says 1 on 40 of 100 items: q = 0.4
    judge_all = np.array([1.0] * 40 + [0.0] * 60)
    est = corrected_rate(judge_all, human, said)
    j = 0.9 + 0.8 - 1
    p = (0.4 + 0.8 - 1) / j  # 0.285714...
    assert est.estimate == pytest.approx(p, abs=1e-12)
    var = (0.4 * 0.6 / 100 + p**2 * 0.9 * 0.1 / 10 + (1 - p) ** 2 * 0.8 * 0.2 / 10) / j**2
    assert est.se == pytest.approx(np.sqrt(var), abs=1e-12)
    assert est.ci[0] == pytest.approx(max(0.0, p - 1.959963984540054 * np.sqrt(var)), abs=1e-9)
    chance = corrected_rate(judge_all, human, np.ones(20))
    assert chance.estimate is None and "chance" in chance.reason


def _coverage(noise: float, bias: float, n: int = 100, big_n: int = 2000, studies: int = 1000):
    """Vectorised: PPI++ (as ppi_mean computes it) over many synthetic studies at once."""
    rng = np.random.default_rng(int(noise * 100 + bias * 10))
    truth = 0.5
    y = rng.normal(truth, 1.0, (studies, n))
    yhat = y + rng.normal(bias, noise, (studies, n))
    yhat_u = rng.normal(truth, 1.0, (studies, big_n)) + rng.normal(bias, noise, (studies, big_n))
    first = yhat_u.mean(1, keepdims=True) + (y - yhat).mean(1, keepdims=True)
    g, gh = y - first, yhat - first
    cov = 2 * ((g - g.mean(1, keepdims=True)) * (gh - gh.mean(1, keepdims=True))).sum(1) / n
    var_hat = np.concatenate([gh, yhat_u - first], axis=1).var(1, ddof=1)
    lam = np.clip(cov / (2 * (1 + n / big_n) * var_hat), 0, 1)[:, None]
    est = (lam * yhat_u).mean(1) + (y - lam * yhat).mean(1)
    se = np.sqrt((lam * yhat_u).var(1) / big_n + (y - lam * yhat).var(1) / n)
    se_h = y.std(1) / np.sqrt(n)
    covered = np.abs(est - truth) <= 1.959963984540054 * se
    # one study through the real function, so the vectorised copy cannot drift
    one = ppi_mean(y[0], yhat[0], yhat_u[0])
    assert one.estimate == pytest.approx(est[0], abs=1e-12)
    assert one.se == pytest.approx(se[0], abs=1e-12)
    return covered.mean(), se / se_h


@pytest.mark.parametrize(("noise", "bias"), [(0.2, 0.0), (3.0, 0.0), (0.4, 0.8)])
def test_simulation_coverage_and_width(noise: float, bias: float) -> None:
    coverage, ratio = _coverage(noise, bias)
    assert 0.93 <= coverage <= 0.97
    # never wider than people alone beyond noise (lambda is estimated)
    assert ratio.max() < 1.05
    if noise == 0.2:
        assert np.median(ratio) < 0.4


def test_active_mean_unbiased_and_planning() -> None:
    rng = np.random.default_rng(3)
    studies, big_n = 1000, 800
    f = rng.normal(0, 1, (studies, big_n))
    y_all = f + rng.normal(0.3, 0.5, (studies, big_n))  # biased judge
    pi = np.clip(0.05 + 0.2 * np.abs(f) / 2, 0.05, 1)  # more labels where |f| is large
    xi = rng.random((studies, big_n)) < pi
    y = np.where(xi, y_all, np.nan)
    ests = [active_mean(f[i], y[i], pi[i]) for i in range(200)]
    truth = y_all[:200].mean(1)
    hits = [abs(e.estimate - t) <= 1.96 * e.se for e, t in zip(ests, truth, strict=True)]
    assert 0.9 <= np.mean(hits) <= 0.99
    bias = np.mean([e.estimate for e in ests]) - truth.mean()
    assert abs(bias) < 0.01
    # planning: the PPI++ formula reproduces the current n at the current half-width
    rng2 = np.random.default_rng(5)
    yy, yh, yu = _study(rng2, 150, 2000, 0.5, 0.1)
    p = ppi_mean(yy, yh, yu)
    plan = plan_ppi(p, p.half_width)
    assert plan.n_needed == 150 and plan.more == 0
    assert plan_ppi(p, p.half_width / 2).more > 150 * 3 - 1
    assert plan_from_interval("alpha", 100, (0.5, 0.7), 0.05).n_needed == 400
    assert plan_ppi(p, 1e-6).n_needed is None


def test_groups_and_differences() -> None:
    rng = np.random.default_rng(11)
    rows = []
    for system, shift in (("a", 0.0), ("b", 0.5)):
        for i in range(300):
            judge = rng.normal(shift, 1)
            human = judge + rng.normal(0.2, 0.3) if i < 60 else np.nan
            rows.append((f"{system}{i}", system, judge, human, f"q{i}"))
    frame = pd.DataFrame(rows, columns=["item_id", "group", "judge", "human", "pair"])
    overall, a, b = estimate_groups(frame, binary=False, by_group=True)
    assert [g.group for g in (overall, a, b)] == ["overall", "a", "b"]
    assert (a.n_human, a.n_judge, a.n_both) == (60, 300, 60)
    assert a.judge.biased and not a.ppi.biased
    assert a.saved > 0.3 and a.effective_n > 60
    assert a.to_dict()["ppi"]["lambda"] == a.ppi.extra["lambda"]
    paired = difference(frame, a, b)
    assert paired.paired and paired.n_pairs == 300
    unpaired = difference(frame.drop(columns="pair"), a, b)
    assert not unpaired.paired
    assert unpaired.estimates["ppi"].estimate == pytest.approx(a.ppi.estimate - b.ppi.estimate)
    assert judge_mean(np.array([1.0])).estimate is None
    # pairs: only 6 inputs have both human values -> unpaired (no PPI++ over 6 pairs)
    few = frame.assign(human=np.where(frame["pair"].isin([f"q{i}" for i in range(6)]), 1.0, np.nan))
    _, fa, fb = estimate_groups(few, binary=False, by_group=True)
    assert not difference(few, fa, fb).paired
