"""The pure statistics behind the alignment view, on numbers worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agreement.alt_test import alignment_score, alt_test
from agreement.decision_kappa import decision_kappa
from agreement.judge_probes import calibration, position_swap, self_consistency


def t3_cdf(t: float) -> float:
    """Student's t CDF with 3 degrees of freedom, closed form (independent of scipy)."""
    u = t / math.sqrt(3)
    return 0.5 + (u / (1 + t * t / 3) + math.atan(u)) / math.pi


def _labels(rows: dict[str, tuple[int, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item_id": item, "annotator": who, "value": float(v)}
            for item, values in rows.items()
            for who, v in zip(("ann", "bob", "cat"), values, strict=True)
        ]
    )


# Four items, three people, a judge. Leaving out ann: d = W_f - W_h = [0, 1, 0, 0]
# (t = (0.25 + 0.2) / (0.5 / 2) = 1.8); bob: d = 0 everywhere (p = 0); cat: d = [0, 0, 1, 1]
# (t = 0.7 / (sqrt(1/3) / 2) = 2.42487). Benjamini-Yekutieli with m = 3, c(m) = 11/6.
LABELS = _labels({"i1": (1, 1, 1), "i2": (1, 0, 0), "i3": (0, 0, 1), "i4": (1, 1, 0)})
JUDGE = pd.Series({"i1": 1.0, "i2": 0.0, "i3": 0.0, "i4": 1.0})


def test_alt_test_worked_example() -> None:
    res = alt_test(JUDGE, LABELS, discrete=True, min_items=4)
    by = {a.annotator: a for a in res.annotators}
    assert (by["ann"].rho_f, by["ann"].rho_h) == (1.0, 0.75)
    assert (by["bob"].rho_f, by["bob"].rho_h) == (1.0, 1.0)
    assert (by["cat"].rho_f, by["cat"].rho_h) == (1.0, 0.5)
    p_ann, p_cat = 1 - t3_cdf(1.8), 1 - t3_cdf(0.7 / (math.sqrt(1 / 3) / 2))
    assert by["ann"].p == pytest.approx(p_ann, abs=1e-9)
    assert by["cat"].p == pytest.approx(p_cat, abs=1e-9)
    assert by["bob"].p == 0.0
    c = 1 + 1 / 2 + 1 / 3
    assert by["ann"].p_adjusted == pytest.approx(p_ann * 3 * c / 3)
    assert by["cat"].p_adjusted == pytest.approx(p_cat * 3 * c / 2)
    assert [by[w].rejected for w in ("ann", "bob", "cat")] == [False, True, False]
    assert res.winning_rate == pytest.approx(1 / 3)
    assert res.advantage == 1.0
    assert res.passed is False
    # at q = 0.2 both adjusted p-values (0.155, 0.129) pass too
    loose = alt_test(JUDGE, LABELS, discrete=True, min_items=4, q=0.2)
    assert loose.winning_rate == 1.0 and loose.passed is True


def test_alt_test_needs_three_annotators_with_enough_items() -> None:
    res = alt_test(JUDGE, LABELS, discrete=True)  # default: 30 items each
    assert res.winning_rate is None and res.passed is None
    assert res.reason.startswith("not enough data")
    assert res.left_out == {"ann": 4, "bob": 4, "cat": 4}
    two = alt_test(JUDGE, LABELS[LABELS["annotator"] != "cat"], discrete=True, min_items=4)
    assert two.winning_rate is None and "needs 3" in two.reason


def test_alignment_score_numeric_is_minus_rmse() -> None:
    assert alignment_score(3.0, np.array([1.0, 5.0]), discrete=False) == -2.0
    assert alignment_score(1.0, np.array([1.0, 0.0, 1.0]), discrete=True) == pytest.approx(2 / 3)


def test_calibration_brier_ece_and_bins() -> None:
    out = calibration(np.array([0.1, 0.4, 0.8, 0.9]), np.array([0, 1, 1, 1]))
    assert out["brier"] == pytest.approx((0.01 + 0.36 + 0.04 + 0.01) / 4)
    assert out["ece"] == pytest.approx((0.1 + 0.6 + 0.2 + 0.1) / 4)
    assert [b["n"] for b in out["bins"]] == [1, 1, 1, 1]
    assert [round(b["lo"], 1) for b in out["bins"]] == [0.1, 0.4, 0.8, 0.9]


def test_self_consistency_alpha_by_hand() -> None:
    # coincidences o00 = 3, o11 = 4, o01 = o10 = 1: alpha = 1 - (2/9) / (2*4*5/72) = 0.6
    out = self_consistency([[1, 1, 1], [0, 0, 0], [1, 0, 1], [1]], discrete=True)
    assert out["n"] == 3 and out["samples"] == 3
    assert out["unanimous"] == pytest.approx(2 / 3)
    assert out["alpha"] == pytest.approx(0.6)
    assert self_consistency([[1], [0]], discrete=True)["n"] == 0


def test_position_swap_share_changed() -> None:
    out = position_swap({"a": 1, "b": 0, "c": 1}, {"a": 1, "b": 1, "c": 1, "d": 0}, True)
    assert out["n"] == 3 and out["changed"] == pytest.approx(1 / 3)
    assert position_swap({"a": 1}, {"b": 1}, True)["n"] == 0


def test_decision_kappa_and_its_interval() -> None:
    # tp 1, fp 1, fn 0, tn 2: p_o = 0.75, p_e = (2*1 + 2*3) / 16 = 0.5, kappa = 0.5
    value, ci, reason = decision_kappa(np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0]))
    assert value == pytest.approx(0.5) and reason is None
    assert ci is not None and ci[0] <= 0.5 <= ci[1]
    assert decision_kappa(np.array([1, 1]), np.array([1, 1]))[0] is None


def test_alt_test_numeric_matches_a_paired_t_test_and_hand_made_by_correction() -> None:
    """Independent route: scipy's paired t-test of W_f + epsilon against W_h, and the
    Benjamini-Yekutieli step-up written out, on random 1..5 ratings of 4 people."""
    from scipy import stats

    rng = np.random.default_rng(7)
    people = ["p1", "p2", "p3", "p4"]
    truth = rng.integers(1, 6, size=40)
    rows = [
        {
            "item_id": f"i{k}",
            "annotator": who,
            "value": float(np.clip(t + rng.integers(-1, 2), 1, 5)),
        }
        for k, t in enumerate(truth)
        for who in people
    ]
    labels = pd.DataFrame(rows)
    judge = pd.Series({f"i{k}": float(t) + rng.normal(0, 0.7) for k, t in enumerate(truth)})
    res = alt_test(judge, labels, discrete=False, epsilon=0.1)
    expected_p = []
    for who in people:
        wf, wh = [], []
        for k in range(40):
            item = labels[labels["item_id"] == f"i{k}"]
            others = item.loc[item["annotator"] != who, "value"].to_numpy()
            mine = float(item.loc[item["annotator"] == who, "value"].iloc[0])
            s_f = -math.sqrt(np.mean((others - judge[f"i{k}"]) ** 2))
            s_h = -math.sqrt(np.mean((others - mine) ** 2))
            wf.append(float(s_f >= s_h))
            wh.append(float(s_h >= s_f))
        paired = stats.ttest_rel(np.array(wf) + 0.1, np.array(wh), alternative="greater")
        expected_p.append(float(paired.pvalue))
    got = {a.annotator: a for a in res.annotators}
    assert [got[w].p for w in people] == pytest.approx(expected_p, rel=1e-9)
    m, c = len(people), sum(1 / i for i in range(1, len(people) + 1))
    order = np.argsort(expected_p)
    adjusted = np.empty(m)
    running = 1.0
    for rank in range(m, 0, -1):
        at = order[rank - 1]
        running = min(running, expected_p[at] * m * c / rank)
        adjusted[at] = running
    assert [got[w].p_adjusted for w in people] == pytest.approx(list(adjusted), rel=1e-9)
    assert res.winning_rate == pytest.approx(np.mean(adjusted <= 0.05))
    assert res.advantage == pytest.approx(np.mean([got[w].rho_f for w in people]))


def _alt_test_item_by_item(judge, labels, discrete):
    """The alt-test's per-annotator winning rates as first written: a loop over items."""
    labels = labels.dropna(subset=["value"])
    labels = labels[labels["item_id"].isin(judge.index)]
    by_item = {
        item: (g["annotator"].to_numpy(object), g["value"].to_numpy(float))
        for item, g in labels.groupby("item_id", sort=True)
    }
    out = {}
    for who in sorted(labels["annotator"].unique()):
        wf, wh = [], []
        for item, (names, values) in by_item.items():
            mine, others = values[names == who], values[names != who]
            if len(mine) == 0 or len(others) == 0:
                continue
            s_f = alignment_score(float(judge[item]), others, discrete)
            s_h = alignment_score(float(mine[0]), others, discrete)
            wf.append(float(s_f >= s_h))
            wh.append(float(s_h >= s_f))
        out[who] = (len(wf), float(np.mean(wf)) if wf else None, float(np.mean(wh)) if wh else None)
    return out


@pytest.mark.parametrize("discrete", [True, False])
def test_alt_test_equals_the_item_by_item_computation(discrete: bool) -> None:
    rng = np.random.default_rng(7)
    rows = []
    for i in range(400):
        who = rng.choice([f"a{k}" for k in range(9)], size=rng.integers(1, 7), replace=False)
        for name in who:
            value = rng.integers(0, 3) if discrete else round(float(rng.normal(3, 1)), 1)
            rows.append((f"i{i:03d}", str(name), float(value)))
    labels = pd.DataFrame(rows, columns=["item_id", "annotator", "value"]).sample(
        frac=1.0, random_state=3
    )  # labels in no particular order: each item's order is kept as given
    items = sorted(labels["item_id"].unique())
    judge = pd.Series(
        rng.integers(0, 3, len(items)).astype(float) if discrete else rng.normal(3, 1, len(items)),
        index=items,
    )
    expected = _alt_test_item_by_item(judge, labels, discrete)
    result = alt_test(judge, labels, discrete=discrete, min_items=1, min_annotators=1)
    got = {a.annotator: (a.n, a.rho_f, a.rho_h) for a in result.annotators}
    assert got == {k: v for k, v in expected.items() if v[0] >= 1}


def test_by_adjust_equals_statsmodels_fdr_by() -> None:
    """The written-out Benjamini-Yekutieli (statsmodels is a dev requirement only)."""
    from statsmodels.stats.multitest import multipletests

    from agreement.alt_test import by_adjust

    rng = np.random.default_rng(7)
    cases = [
        rng.uniform(0, 0.05, 12),
        np.array([0.001, 0.001, 0.04, 0.04, 0.2, 0.9, 0.001]),  # ties
        np.array([0.5]),
        np.concatenate([rng.uniform(0, 0.001, 5), rng.uniform(0.3, 1, 20)]),
    ]
    for p in cases:
        for q in (0.05, 0.2):
            rejected, adjusted = by_adjust(p, q)
            want_rejected, want_adjusted, _, _ = multipletests(p, alpha=q, method="fdr_by")
            assert rejected.tolist() == want_rejected.tolist()
            np.testing.assert_allclose(adjusted, want_adjusted, rtol=1e-12)
    assert any(by_adjust(cases[3], 0.05)[0])  # the cases test rejections, not only none
    assert by_adjust(np.array([]), 0.05)[0].size == 0
