"""Platt and isotonic recalibration with cross-fitting, against hand computations and
scikit-learn (a test-only reference: ``IsotonicRegression`` and
``CalibratedClassifierCV(method="sigmoid")``)."""

from __future__ import annotations

import numpy as np
import pytest

from agreement.recalibration import cross_fit, fit_map, recalibrated


def test_isotonic_pools_adjacent_violators_and_holds_flat_outside() -> None:
    f = fit_map(np.array([1, 2, 3, 4]), np.array([1, 3, 2, 4]), "isotonic")
    # 3 then 2 violate the order: both become their mean 2.5
    assert f(np.array([1, 2, 3, 4])) == pytest.approx([1, 2.5, 2.5, 4])
    assert f(np.array([0, 1.5, 9])) == pytest.approx([1, 1.75, 4])


def test_isotonic_pools_tied_scores_before_fitting() -> None:
    # the two items scored 0 pool to 0.5 (weight 2), above the 0.4 of score 1: all three
    # pool to (0 + 1 + 0.4) / 3, for the tied rows and in any row order
    s, y = np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.4])
    for order in ([0, 1, 2], [1, 0, 2], [2, 1, 0]):
        f = fit_map(s[order], y[order], "isotonic")
        assert f(np.array([0.0, 1.0])) == pytest.approx([1.4 / 3, 1.4 / 3], abs=1e-15)


def _likert_study(seed: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.integers(1, 6, n).astype(float)
    return s, np.clip(np.round(0.6 * s + rng.normal(0, 1.2, n)), 1, 5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_isotonic_equals_scikit_learn_on_tied_scores_in_any_order(seed: int) -> None:
    from sklearn.isotonic import IsotonicRegression

    s, y = _likert_study(seed)
    grid = np.linspace(0, 6, 25)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(grid)
    got = fit_map(s, y, "isotonic")(grid)
    assert np.abs(got - ref).max() < 1e-12
    shuffled = np.random.default_rng(seed + 10).permutation(len(s))
    again = fit_map(s[shuffled], y[shuffled], "isotonic")(grid)
    assert np.abs(again - got).max() < 1e-12


def test_platt_fits_platts_smoothed_targets() -> None:
    s = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    f = fit_map(s, y, "platt")
    # N+ = N- = 4: a yes aims at 5/6, a no at 1/6. One binary predictor: the fitted
    # probabilities are the mean targets, (3/6 + 5/6) / 4 = 1/3 and (1/6 + 15/6) / 4 = 2/3
    # (plain logistic regression gives the shares 1/4 and 3/4)
    assert f(np.array([0, 1])) == pytest.approx([1 / 3, 2 / 3], abs=1e-9)
    assert f(np.array([0.5])) == pytest.approx([0.5], abs=1e-9)
    with pytest.raises(ValueError, match="0/1 human values"):
        fit_map(s, s * 2.0, "platt")
    with pytest.raises(ValueError, match="unknown recalibration"):
        fit_map(s, y, "beta")


@pytest.mark.parametrize("seed", [0, 1])
def test_platt_equals_scikit_learns_sigmoid_calibration(seed: int) -> None:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    class JudgeScore(ClassifierMixin, BaseEstimator):
        """The judge's score as the decision function of a fitted classifier."""

        def fit(self, x: np.ndarray, y: np.ndarray) -> JudgeScore:
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, x: np.ndarray) -> np.ndarray:
            return np.asarray(x, float)[:, 0]

        def predict(self, x: np.ndarray) -> np.ndarray:
            return (self.decision_function(x) > 3).astype(int)

    rng = np.random.default_rng(seed)
    s = rng.integers(1, 6, 200).astype(float)
    y = (rng.random(200) < (s - 0.5) / 5).astype(float)
    frozen = FrozenEstimator(JudgeScore().fit(s[:, None], y))
    ref = CalibratedClassifierCV(frozen, method="sigmoid").fit(s[:, None], y)
    grid = np.linspace(0, 6, 13)
    # scikit-learn stops L-BFGS at a gradient of 1e-6; Newton here goes to 1e-10
    assert fit_map(s, y, "platt")(grid) == pytest.approx(
        ref.predict_proba(grid[:, None])[:, 1], abs=1e-6
    )


def test_cross_fitting_never_uses_an_items_own_label() -> None:
    s, y = np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40])
    # four folds of one item: each item is mapped by the other three (leave one out):
    # 1 -> flat below 2 -> 20; 2 -> between 10 and 30 -> 20; 3 -> 30; 4 -> flat -> 30
    assert cross_fit(s, y, "isotonic", k=4) == pytest.approx([20, 20, 30, 30])


def test_recalibrated_figures_beside_the_raw_ones() -> None:
    s = np.tile([1.0, 2.0, 3.0, 4.0], 5)
    y = s * 10
    out = recalibrated(s, y, binary=False, k=5, seed=1)
    assert out["n"] == 20 and out["k"] == 5
    assert out["raw"]["mae"] == pytest.approx(np.mean(np.abs(s - y)))
    # every fold still holds each score level: the isotonic map is y = 10 s exactly
    assert out["isotonic"]["mae"] == pytest.approx(0.0)
    assert "platt" not in out
    assert recalibrated(s[:6], y[:6], binary=False)["reason"].startswith("recalibration needs")


def test_alignment_row_carries_the_recalibration_probe(store) -> None:
    from alignment.table import alignment_table
    from tests.alignment_fixtures import build_toy, human, v1_score

    build_toy(store)
    rows = {r["label"]: r for r in alignment_table(store, "toy", n_resamples=0)["versions"]}
    rec = rows["judge:toy v1"]["probes"]["recalibration"]
    majority = [int(sum(human(k, w) for w in range(3)) >= 2) for k in range(39)]
    wrong = sum(v1_score(k) != m for k, m in zip(range(39), majority, strict=True))
    assert rec["n"] == 39 and rec["input"] == "score"
    assert rec["raw"]["brier"] == pytest.approx(wrong / 39)
    assert rec["platt"]["brier"] < rec["raw"]["brier"]
    assert rows["judge:toy v2"]["probes"]["recalibration"]["input"] == "P(yes)"


def test_a_stored_versions_map_for_other_modules(store) -> None:
    from alignment.inputs import AlignmentError
    from alignment.recalibration_map import version_map
    from tests.alignment_fixtures import build_toy, human, v1_score

    build_toy(store)
    m = version_map(store, "toy", "judge:toy v1", method="isotonic")
    assert (m.field, m.n) == ("label", 39)
    majority = [int(sum(human(k, w) for w in range(3)) >= 2) for k in range(39)]
    # isotonic on 0/1 scores: each score maps to the share of majority-yes among its items
    for s in (0, 1):
        mine = [m_ for k, m_ in enumerate(majority) if v1_score(k) == s]
        assert m.apply(np.array([float(s)]))[0] == pytest.approx(sum(mine) / len(mine))
    with pytest.raises(AlignmentError, match="no version"):
        version_map(store, "toy", "judge:toy v7")
