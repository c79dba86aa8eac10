"""The fast paths of the agreement engine equal the straightforward definitions.

Each vectorised routine is checked against the plain computation it replaces: scipy's
kendalltau / spearmanr on the expanded bootstrap resample, a brute-force pair count,
the kind's own ``derive``, statsmodels' Fleiss kappa, pandas groupby, and the previous
pandas implementation of the ego-centric bias.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

import agreement.correlation as correlation
from agreement.bias import EPS, GAP, ego_centric_bias
from agreement.bootstrap import clear_cache, draw_counts, draw_counts_t, group_sums
from agreement.concordance import ConcordancePlan
from agreement.derived import derived_by_kind, derived_frame
from agreement.document import _score_groups
from agreement.evaluator import ItemSpace
from agreement.kappa import fleiss_kappa
from agreement.ratings import MISSING, Ratings
from kinds import get_kind


def _resamples(n: int, b: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(b)]).astype(
        float
    )


def _pairs(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Paired data: few levels with ties, or continuous, or one of each."""
    if kind == "ties":
        x = rng.integers(0, 5, n) / 2
        y = np.clip(x + rng.integers(-1, 2, n), 0, 3) / 3
    elif kind == "continuous":
        x = rng.normal(size=n)
        y = x + rng.normal(size=n)
    else:
        x = rng.normal(size=n)
        y = np.round(np.clip(x + rng.normal(size=n), -2, 2) * 2) / 2
    return x, y


def _brute_force_s(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """S = n_c - n_d over the pairs of the expanded sample (copies tie with each other)."""
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    return float(w @ (sx * sy) @ w / 2)


@pytest.mark.parametrize("kind", ["ties", "continuous", "mixed"])
@pytest.mark.parametrize("force_merge", [False, True])
def test_rank_bootstrap_equals_scipy_on_every_resample(kind, force_merge, monkeypatch):
    if force_merge:  # the merge-sort count for any number of levels
        monkeypatch.setattr(correlation, "TABLE_MAX_CELLS", 0)
    rng = np.random.default_rng(len(kind) + force_merge)
    for n in (3, 7, 40, 301):
        x, y = _pairs(kind, n, rng)
        w = _resamples(n, 12, n)
        if force_merge and len(np.unique(x)) * len(np.unique(y)) <= 2 * n:
            continue  # the table path would still be taken
        rho, tau = correlation.rank_bootstrap(x, y, w)
        for b, row in enumerate(w):
            take = np.repeat(np.arange(n), row.astype(int))
            xs, ys = x[take], y[take]
            if np.ptp(xs) == 0 or np.ptp(ys) == 0:
                assert np.isnan(rho[b]) and np.isnan(tau[b])
                continue
            assert tau[b] == pytest.approx(stats.kendalltau(xs, ys).statistic, abs=1e-12)
            assert rho[b] == pytest.approx(stats.spearmanr(xs, ys).statistic, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_merge_count_equals_brute_force_pairs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    x = rng.integers(0, int(rng.integers(1, 6)), n).astype(float)
    y = rng.normal(size=n) if seed % 2 else rng.integers(0, 4, n).astype(float)
    w = _resamples(n, 5, seed)
    s = ConcordancePlan.build(x, y).s(np.ascontiguousarray(w.T))
    assert list(s) == [_brute_force_s(x, y, row) for row in w]


def test_table_and_merge_paths_give_identical_values(monkeypatch):
    """Both are exact for integer weights, so the values are equal bit for bit."""
    rng = np.random.default_rng(3)
    for n in (25, 400):
        x = rng.integers(0, 40, n) / 7
        y = np.round(x + rng.normal(0, 1, n), 1)
        assert len(np.unique(x)) * len(np.unique(y)) > 2 * n  # else only tables apply
        w = draw_counts(n, 50, 11)
        table = correlation.rank_bootstrap(x, y, w)
        with monkeypatch.context() as m:
            m.setattr(correlation, "TABLE_MAX_CELLS", 0)
            merge = correlation.rank_bootstrap(x, y, w)
        np.testing.assert_array_equal(table[0], merge[0])
        np.testing.assert_array_equal(table[1], merge[1])


def test_fast_kendall_on_continuous_10k_items_matches_scipy():
    rng = np.random.default_rng(5)
    n = 10_000
    x = rng.normal(size=n)
    y = x + rng.normal(size=n) * 2
    w = _resamples(n, 2, 1)
    rho, tau = correlation.rank_bootstrap(x, y, w)
    for b, row in enumerate(w):
        take = np.repeat(np.arange(n), row.astype(int))
        assert tau[b] == pytest.approx(stats.kendalltau(x[take], y[take]).statistic, abs=1e-12)
        assert rho[b] == pytest.approx(stats.spearmanr(x[take], y[take]).statistic, abs=1e-12)


@pytest.mark.parametrize(
    ("n", "b", "seed"), [(1, 3, 0), (7, 5, 1), (333, 40, 20240611), (50, 150, 9)]
)
def test_draw_counts_equal_one_matrix_of_draws(n, b, seed):
    clear_cache()
    idx = np.random.default_rng(seed).integers(0, n, size=(b, n), dtype=np.int64)
    expected = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(float)
    np.testing.assert_array_equal(draw_counts(n, b, seed), expected)


def test_group_sums_and_transposed_counts():
    w = draw_counts(50, 20, 3)
    w_t = draw_counts_t(50, 20, 3)
    np.testing.assert_array_equal(w_t, w.T)
    codes = np.random.default_rng(0).integers(0, 7, 50)
    expected = np.stack([[row[codes == g].sum() for g in range(7)] for row in w])
    np.testing.assert_array_equal(group_sums(w_t, codes, 7), expected)


def test_the_draw_cache_keeps_a_bounded_number_of_bytes(monkeypatch: pytest.MonkeyPatch):
    import agreement.bootstrap as bootstrap

    clear_cache()
    # the latest 100 x 100 matrix as float64 (80,000 bytes) and one older one a byte a
    # count (10,000 bytes) fit, a third does not
    monkeypatch.setattr(bootstrap, "CACHE_BYTES", 95_000)
    first = draw_counts_t(100, 100, 1).copy()
    second = draw_counts_t(100, 100, 2).copy()
    # kept, the same counts, and now the most recently used
    np.testing.assert_array_equal(draw_counts_t(100, 100, 1), first)
    assert list(bootstrap._CACHE) == [(100, 100, 2), (100, 100, 1)]
    draw_counts_t(100, 100, 3)  # drops seed 2, the least recently used
    assert list(bootstrap._CACHE) == [(100, 100, 1), (100, 100, 3)]
    assert sum(d.nbytes for d in bootstrap._CACHE.values()) <= 95_000
    np.testing.assert_array_equal(draw_counts_t(100, 100, 2), second)  # drawn again
    # a matrix larger than the bound is still kept alone (the newest always is)
    big = draw_counts_t(300, 100, 4)
    assert list(bootstrap._CACHE) == [(300, 100, 4)] and draw_counts_t(300, 100, 4) is big
    clear_cache()


def test_ratings_counts_equal_add_at():
    rng = np.random.default_rng(2)
    codes = rng.integers(-1, 4, (30, 5))
    r = Ratings(tuple(map(str, range(30))), tuple("abcde"), codes, (0, 1, 2, 3), True)
    expected = np.zeros((30, 4), dtype=np.int64)
    rows, cols = np.nonzero(codes != MISSING)
    np.add.at(expected, (rows, codes[rows, cols]), 1)
    np.testing.assert_array_equal(r.counts, expected)


def test_fleiss_kappa_equals_statsmodels():
    rng = np.random.default_rng(4)
    for _ in range(300):
        n, k, m = int(rng.integers(1, 30)), int(rng.integers(1, 6)), int(rng.integers(2, 8))
        table = np.stack([np.bincount(rng.integers(0, k, m), minlength=k) for _ in range(n)])
        with np.errstate(invalid="ignore", divide="ignore"):  # one category: 0 / 0
            ours, theirs = fleiss_kappa(table), statsmodels_fleiss(table, method="fleiss")
        assert ours == theirs or (np.isnan(ours) and np.isnan(theirs))


def _labels(kind: str, rng: np.random.Generator, n_items: int = 60) -> pd.DataFrame:
    k = get_kind(kind)
    rows = []
    for i in range(n_items):
        for a in ("ann1", "ann0", "ann2"):
            for f in k.human_fields({}):
                if rng.random() < 0.2:
                    continue
                if f.type.value == "fact_labels":
                    v = list(rng.choice(["C", "M"], int(rng.integers(0, 4))))
                elif f.values:
                    v = f.values[int(rng.integers(0, len(f.values)))]
                else:
                    v = int(rng.integers(0, 2))
                rows.append((f"i{(i * 7919) % n_items:03d}", a, f.name, v))
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "field", "value"])
    frame["value"] = frame["value"].astype(object)
    return frame


@pytest.mark.parametrize("kind", ["actionability", "intent_match"])
@pytest.mark.parametrize("seed", range(4))
def test_vectorised_derived_scores_equal_kind_derive(kind, seed):
    rng = np.random.default_rng(seed)
    labels = _labels(kind, rng)
    items = pd.DataFrame({"item_id": sorted(set(labels["item_id"])), "fields": None})
    k = get_kind(kind)
    assert k.derive_columns_fn is not None
    fast = derived_frame(k, labels, items)
    slow = derived_by_kind(k, labels, items)
    assert len(fast) == len(slow)
    for name in {d.name for d in k.derived_scores}:
        a = fast[fast["field"] == name].reset_index(drop=True)
        b = slow[slow["field"] == name].reset_index(drop=True)
        assert list(a["item_id"]) == list(b["item_id"])
        assert list(a["annotator"]) == list(b["annotator"])
        assert a["value"].tolist() == b["value"].tolist()  # identical floats


def _bias_by_pandas(frame: pd.DataFrame, judge_model: str | None) -> dict:
    """The previous implementation (pandas groupby), as the definition."""
    runs = sorted(frame["run"].unique())
    diff = frame["score"] - frame["human"]
    own = frame["generator"].notna() & (frame["generator"] == judge_model) if judge_model else False
    f = frame.assign(over=diff >= GAP - EPS, under=diff <= -GAP + EPS, own=own)
    per_run = f.groupby("run").agg(over=("over", "sum"), under=("under", "sum"))
    own_runs = f[f["own"]].groupby("run").agg(o=("over", "sum"), u=("under", "sum"))
    other_runs = f[~f["own"]].groupby("run").agg(o=("over", "sum"), u=("under", "sum"))

    def mean_over_runs(table: pd.DataFrame, col: str) -> float:
        return float(table[col].reindex(runs, fill_value=0).mean())

    items = f.groupby("item_id").agg(
        score=("score", "mean"),
        human=("human", "first"),
        own=("own", "first"),
        generator=("generator", "first"),
    )
    items["over"] = items["score"] - items["human"] >= GAP - EPS
    n_own, n_other = int(items["own"].sum()), int((~items["own"]).sum())
    by_gen = {}
    for gen, g in items.groupby(items["generator"].fillna("(unknown)")):
        by_gen[str(gen)] = {
            "n": int(len(g)),
            "over": int(g["over"].sum()),
            "under": int((g["score"] - g["human"] <= -GAP + EPS).sum()),
            "mean_gap": float((g["score"] - g["human"]).mean()),
        }
    return {
        "over": float(per_run["over"].mean()),
        "under": float(per_run["under"].mean()),
        "over_own": mean_over_runs(own_runs, "o") if n_own else None,
        "over_other": mean_over_runs(other_runs, "o") if n_other else None,
        "under_own": mean_over_runs(own_runs, "u") if n_own else None,
        "under_other": mean_over_runs(other_runs, "u") if n_other else None,
        "n_own": n_own,
        "n_other": n_other,
        "n": len(items),
        "n_runs": len(runs),
        "over_by_run": [int(v) for v in per_run["over"].reindex(runs, fill_value=0)],
        "by_generator": by_gen,
    }


@pytest.mark.parametrize("seed", range(8))
def test_bias_equals_the_pandas_definition(seed):
    rng = np.random.default_rng(seed)
    n, runs = int(rng.integers(1, 50)), int(rng.integers(1, 4))
    ids = [f"i{j:03d}" for j in rng.permutation(n)]
    gens = rng.choice(np.array(["gpt-4", "mistral", None], dtype=object), n)
    human = rng.random(n) * 5
    rows = [
        (ids[j], int(r) * 3, float(rng.random() * 5), human[j], gens[j])
        for r in rng.permutation(runs)
        for j in range(n)
        if rng.random() < 0.9
    ]
    if not rows:
        return
    frame = pd.DataFrame(rows, columns=["item_id", "run", "score", "human", "generator"])
    for judge in ("gpt-4", None):
        ours = ego_centric_bias(frame, judge).to_dict()
        theirs = _bias_by_pandas(frame, judge)
        assert {k: ours[k] for k in theirs} == theirs


def test_score_groups_equal_pandas_groupby():
    rng = np.random.default_rng(8)
    n = 400
    scores = pd.DataFrame(
        {
            "item_id": rng.choice([f"i{j}" for j in range(50)], n),
            "evaluator": rng.choice(["b", "a", "c"], n),
            "model": rng.choice(np.array(["m2", "m1", None], dtype=object), n),
            "signature": rng.choice(np.array(["s1", "s2", None], dtype=object), n),
            "run_id": rng.integers(0, 3, n),
            "field": rng.choice(["x", "y"], n),
            "score": rng.random(n),
        }
    )
    items = pd.DataFrame({"item_id": [f"i{j}" for j in range(50)], "generator": None})
    space = ItemSpace.build(items, scores["item_id"], np.zeros(50, bool), np.ones(50, bool))
    ours = list(_score_groups(scores, space))
    model_key = scores["model"].astype(object).where(scores["model"].notna(), "<no judge model>")
    sig_key = scores["signature"].astype(object).where(scores["signature"].notna(), "")
    theirs = []
    for (ev, model, sig), group in scores.groupby(
        [scores["evaluator"], model_key, sig_key], sort=True
    ):
        for field, sub in group.groupby("field", sort=True):
            model = None if model == "<no judge model>" else model
            theirs.append(((ev, model, field), sig, sub))
    assert [k[1:] for k, _ in ours] == [k for k, _, _ in theirs]
    for (_, rows), (_, sig, sub) in zip(ours, theirs, strict=True):
        assert list(space.ids[rows.item]) == list(sub["item_id"])
        assert list(rows.score) == list(sub["score"])
        assert list(rows.run) == list(sub["run_id"])
        assert rows.signatures == ((sig,) if sig else ())
    labels = {k[0] for k, _ in ours}
    # every evaluator ran with 3 models (m1, m2, none) and 3 signatures each: 27 labels
    assert len(labels) == 27 and "a@m1 [s1]" in labels and "c@unknown [no signature]" in labels


def test_config_labels_name_only_what_differs() -> None:
    from common.evaluator_labels import config_labels, evaluator_of

    one = "geval:1|model:gpt|prompt:p1|settings:aaaa"
    other = "geval:1|model:gpt|prompt:p1|settings:bbbb"
    labels = config_labels(
        [
            ("geval", "gpt", one),
            ("geval", "gpt", other),
            ("bleu", None, "bleu:2|settings:cccc"),
            ("nli", "a", "x"),
            ("nli", "b", "y"),
        ]
    )
    assert labels == {
        ("geval", "gpt", one): "geval [settings:aaaa]",
        ("geval", "gpt", other): "geval [settings:bbbb]",
        ("bleu", None, "bleu:2|settings:cccc"): "bleu",
        ("nli", "a", "x"): "nli@a",
        ("nli", "b", "y"): "nli@b",
    }
    assert {evaluator_of(label) for label in labels.values()} == {"geval", "bleu", "nli"}
    # versions of one judge: "v1" / "v2" (the prompt hash follows from the version)
    v1 = "judge:same-task:1|prompt:ceda6499"
    v2 = "judge:same-task:2|prompt:28a80ce4"
    v2_hot = "judge:same-task:2|prompt:28a80ce4|settings:t=1"
    labels = config_labels([("judge:same-task", "m", s) for s in (v1, v2, v2_hot)])
    assert list(labels.values()) == [
        "judge:same-task v1",
        "judge:same-task v2",
        "judge:same-task v2 [settings:t=1]",
    ]
    assert {evaluator_of(label) for label in labels.values()} == {"judge:same-task"}


def test_dev_test_split_treats_missing_splits_as_unsplit() -> None:
    from agreement.binary import dev_test_split

    ids = [f"i{i}" for i in range(20)]
    dev, test, how = dev_test_split(ids, [float("nan")] * 10 + [None] * 10)
    assert how.startswith("seeded 10%") and dev.sum() == 2 and (dev ^ test).all()
    dev, test, how = dev_test_split(ids, ["dev"] * 5 + [float("nan")] * 5 + ["test"] * 10)
    assert how == "item split" and dev.sum() == 5 and test.sum() == 10


def test_the_seeded_dev_split_does_not_depend_on_item_order() -> None:
    from agreement.binary import dev_test_split

    ids = [f"item-{i:03d}" for i in range(57)]
    dev, _, _ = dev_test_split(ids, [None] * 57)
    chosen = {i for i, d in zip(ids, dev, strict=True) if d}
    assert len(chosen) == 6
    shuffled = list(reversed(ids))
    shuffled[10], shuffled[40] = shuffled[40], shuffled[10]
    dev2, _, _ = dev_test_split(shuffled, [None] * 57)
    assert {i for i, d in zip(shuffled, dev2, strict=True) if d} == chosen


@pytest.mark.parametrize("kind", ["ties", "continuous", "mixed"])
@pytest.mark.parametrize("force_merge", [False, True])
def test_resampled_pearson_equals_numpy_on_every_resample(kind, force_merge, monkeypatch):
    """Pearson from the level tables (or the one product with the draws) is numpy's
    corrcoef of the expanded resample."""
    if force_merge:
        monkeypatch.setattr(correlation, "TABLE_MAX_CELLS", 0)
    rng = np.random.default_rng(11)
    x, y = _pairs(kind, 40, rng)
    w = _resamples(40, 30, 5)
    r, _, _ = correlation.resampled_correlations(x, y, w)
    for b in range(len(w)):
        rep = w[b].astype(int)
        expected = np.corrcoef(np.repeat(x, rep), np.repeat(y, rep))[0, 1]
        assert r[b] == pytest.approx(expected, abs=1e-12)
    assert np.allclose(r, correlation.weighted_pearson(x, y, w), rtol=0, atol=1e-13)
