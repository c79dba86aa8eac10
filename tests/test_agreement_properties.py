"""Property tests: invariance, perfect agreement, bootstrap intervals, fast rank statistics."""

from __future__ import annotations

import numpy as np
import pandas as pd
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
from agreement.document import build_document
from agreement.human import VariableAgreement, variable_agreement
from agreement.inputs import AgreementInputs
from agreement.kappa import cohen_pairs, fleiss
from agreement.percent import gwet_ac1, percent_agreement
from agreement.ratings import Ratings
from kinds import get_kind

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


def _agreement(r: Ratings) -> VariableAgreement:
    """Every statistic of an ordinal field, with seeded bootstrap intervals."""
    return variable_agreement(
        "f",
        r,
        type_="ordinal",
        levels=LEVELS,
        level="ordinal",
        categorical=True,
        ordinal=True,
        n_resamples=100,
    )


def _intervals(va: VariableAgreement) -> dict:
    """The bootstrap intervals of a variable (alpha per level, Fleiss)."""
    out = {f"alpha_ci.{lv}": s.ci for lv, s in va.by_level("krippendorff_alpha").items()}
    out["fleiss_ci"] = va.stat("fleiss_kappa").ci
    return out


def _same_intervals(a: dict, b: dict, what: str = "") -> None:
    assert a.keys() == b.keys(), what
    for k in a:
        if a[k] is None or b[k] is None:
            assert a[k] is None and b[k] is None, (what, k, a[k], b[k])
        else:
            np.testing.assert_allclose(a[k], b[k], rtol=0, atol=1e-12, err_msg=f"{what} {k}")


def _cohen_by_people(va: VariableAgreement, names: dict[str, str]) -> dict:
    """Cohen's kappa per unordered annotator pair, annotators mapped through ``names``."""
    out = {}
    extra = va.stat("cohen_kappa_mean").extra
    for weights in ("plain", "linear", "quadratic"):
        suffix = "" if weights == "plain" else f"_{weights}"
        for key, value in extra.get(f"cohen_kappa_pairs{suffix}", {}).items():
            a, b = key.split("|")
            out[(weights, frozenset((names[a], names[b])))] = value
    return out


@FAST
@given(rating_matrices(), st.randoms())
def test_permuting_units_and_annotators_changes_nothing(matrix, rnd):
    r = Ratings.from_matrix(matrix)
    units = list(range(r.n_units))
    people = list(range(len(r.annotators)))
    rnd.shuffle(units)
    rnd.shuffle(people)
    p = r.permuted(units, people)
    _close(_all_stats(r), _all_stats(p))
    _same_intervals(_intervals(_agreement(r)), _intervals(_agreement(p)))


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
    for s in [*va.by_level("krippendorff_alpha").values(), va.stat("fleiss_kappa")]:
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


def _long(matrix, item_ids: list[str], people: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            (item_ids[u], people[a], v)
            for a, row in enumerate(matrix)
            for u, v in enumerate(row)
            if v is not None
        ],
        columns=["item_id", "annotator", "value"],
    )


@FAST
@given(rating_matrices(), st.randoms())
def test_shuffling_label_rows_and_renaming_annotators_keeps_every_interval(matrix, rnd):
    """Label rows in any order, annotators under other names: the same figures and the
    same seeded bootstrap intervals (units are resampled in item_id order)."""
    n_units = len(matrix[0])
    item_ids = [f"item-{k:02d}" for k in range(n_units)]
    rnd.shuffle(item_ids)  # first appearance differs from item_id order
    people = [f"c{a}" for a in range(len(matrix))]
    renamed = [f"r{k}" for k in range(len(people))]
    rnd.shuffle(renamed)  # the sorted order of annotators changes too
    frame = _long(matrix, item_ids, people)
    rows = list(range(len(frame)))
    rnd.shuffle(rows)
    other = frame.iloc[rows].replace({"annotator": dict(zip(people, renamed, strict=True))})
    a = _agreement(Ratings.from_long(frame, numeric=True))
    b = _agreement(Ratings.from_long(other, numeric=True))
    _close(_all_stats(a.ratings), _all_stats(b.ratings))
    _same_intervals(_intervals(a), _intervals(b))
    for lv in a.by_level("krippendorff_alpha"):
        assert (
            a.by_level("krippendorff_alpha")[lv].value == b.by_level("krippendorff_alpha")[lv].value
        ), lv
    fa, fb = a.stat("fleiss_kappa"), b.stat("fleiss_kappa")
    assert (fa.value is None and fb.value is None) or fa.value == pytest.approx(fb.value, abs=1e-12)
    back = dict(zip(renamed, people, strict=True))
    ca = _cohen_by_people(a, {p: p for p in people})
    cb = _cohen_by_people(b, back)
    assert ca.keys() == cb.keys()
    for k in ca:
        assert (ca[k] is None and cb[k] is None) or ca[k] == pytest.approx(cb[k], abs=1e-12), k


def _actionability_inputs(seed: int) -> AgreementInputs:
    """An actionability project: 3 ordinal rubric fields (and the derived score) from four
    annotators, and a judge scoring the derived score and one rubric field in three runs
    (scores with one decimal, item ids whose file order is not their sorted order)."""
    rng = np.random.default_rng(seed)
    n = 18
    item_ids = [f"x{k:03d}" for k in rng.permutation(n)]
    truth = rng.integers(0, 3, n)
    labels = []
    for a, who in enumerate(["ann", "bob", "cy", "dee"]):
        for k, item in enumerate(item_ids):
            if rng.random() < 0.15:
                continue
            for name, top in (("errors_detected", 2), ("errors_corrected", 2), ("sources", 3)):
                if rng.random() < 0.1:
                    continue
                v = int(np.clip(truth[k] + rng.integers(-1, 2) * (rng.random() < 0.4), 0, top))
                labels.append((item, who, name, v, f"2024-01-{1 + a:02d}T{k % 24:02d}:00Z"))
    scores = []
    for run in (1, 2, 3):  # three runs: the mean over runs depends on the order of adding
        for k, item in enumerate(item_ids):
            if rng.random() < 0.1:
                continue
            act = float(np.clip(truth[k] * 5 / 3 + rng.normal(0, 0.8), 0, 5))
            scores.append((item, "judge", "m1", "sig", run, "actionability", round(act, 1)))
            src = float(np.clip(truth[k] + rng.normal(0, 0.6), 0, 3))
            scores.append((item, "judge", "m1", "sig", run, "sources", round(src, 1)))
    gens = rng.choice(["m1", "m2"], n)
    items = pd.DataFrame(
        {
            "item_id": item_ids,
            "split": ["dev" if k % 3 == 0 else "test" for k in range(n)],
            "generator": gens,
            "fields": [{} for _ in range(n)],
        }
    )
    return AgreementInputs(
        "p",
        get_kind("actionability"),
        {},
        items,
        pd.DataFrame(labels, columns=["item_id", "annotator", "field", "value", "updated_at"]),
        pd.DataFrame(
            scores,
            columns=["item_id", "evaluator", "model", "signature", "run_id", "field", "score"],
        ),
    )


def _shuffled(inputs: AgreementInputs, seed: int) -> AgreementInputs:
    """The same project with every frame's rows shuffled and the annotators renamed
    (so their sorted order changes too)."""
    rng = np.random.default_rng(seed)
    names = {"ann": "zed", "bob": "ava", "cy": "max", "dee": "bea"}

    def shuffle(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)

    return AgreementInputs(
        inputs.project,
        inputs.kind,
        inputs.settings,
        shuffle(inputs.items),
        shuffle(inputs.annotations).replace({"annotator": names}),
        shuffle(inputs.scores),
    )


@pytest.mark.parametrize("seed", range(4))
def test_shuffled_rows_give_the_same_document_and_intervals(seed):
    """Human fields, the derived score and an evaluator comparison (Pearson, Spearman,
    Kendall with their bootstrap intervals, decisions, bias) do not depend on row order."""
    inputs = _actionability_inputs(seed)
    a = build_document(inputs, n_resamples=200, timeline=False)
    b = build_document(_shuffled(inputs, seed + 100), n_resamples=200, timeline=False)
    for section in ("fields", "derived"):
        va, vb = getattr(a, section), getattr(b, section)
        assert va.keys() == vb.keys() and va
        for name in va:
            _same_intervals(_intervals(va[name]), _intervals(vb[name]), name)
            assert va[name].by_level("krippendorff_alpha")["interval"].ci is not None, name
            for lv, s in va[name].by_level("krippendorff_alpha").items():
                assert s.value == pytest.approx(
                    vb[name].by_level("krippendorff_alpha")[lv].value, abs=1e-12
                )
    assert a.evaluators.keys() == b.evaluators.keys() == {"judge"}
    assert set(a.evaluators["judge"]) == {"actionability", "sources"}
    # "sources" is a human field with whole-number labels: its per-item human mean is exact
    # in any order, so the comparison must come out identical.
    ea, eb = a.evaluators["judge"]["sources"], b.evaluators["judge"]["sources"]
    assert ea.n == eb.n > 10 and ea.n_runs == 3
    for stat, ca in ea.correlations.items():
        assert ca.ci is not None, stat
        assert ca.r == pytest.approx(eb.correlations[stat].r, abs=1e-12), stat
        _same_intervals({stat: ca.ci}, {stat: eb.correlations[stat].ci}, "sources")
    da, db = ea.to_dict(), eb.to_dict()
    assert da["binary"] == db["binary"] and da["bias"] == db["bias"]


def test_derived_reference_does_not_depend_on_label_order():
    """Seed 5: two items' mean derived actionability is the same number added up in another
    order; shuffled label rows and renamed annotators make it two numbers (Spearman and
    Kendall change, point estimates and intervals)."""
    inputs = _actionability_inputs(5)
    a = build_document(inputs, n_resamples=200, timeline=False)
    b = build_document(_shuffled(inputs, 105), n_resamples=200, timeline=False)
    ea, eb = a.evaluators["judge"]["actionability"], b.evaluators["judge"]["actionability"]
    for stat, ca in ea.correlations.items():
        assert ca.r == pytest.approx(eb.correlations[stat].r, abs=1e-12), stat
        _same_intervals({stat: ca.ci}, {stat: eb.correlations[stat].ci}, "actionability")
