"""The meta-evaluation against Google's mt-metrics-eval, on its own answers.

``scripts/metaeval_mtme_reference.py`` ran ``mt_metrics_eval.stats`` (fetched source, in a
side environment) on seeded synthetic data with ties, missing human scores, a constant
group and 3-20 systems, and wrote the data and the answers to
``tests/data/metaeval_mtme_reference.json``. Deterministic figures must match to 1e-9;
the permutation tests, drawn from other random streams, by distribution.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from agreement.metaeval import batched, compare, stats
from agreement.metaeval.levels import Paired, _group_rows

REF = json.loads((Path(__file__).parent / "data" / "metaeval_mtme_reference.json").read_text())
CASES = REF["cases"]
TOL = 1e-9


def _grid(case: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
    s, g = case["systems"], case["groups"]
    gold = np.array([math.nan if v is None else v for v in case["gold"]]).reshape(s, g)
    return gold, np.asarray(case[name], dtype=float).reshape(s, g)


def _close(mine: float, theirs: float) -> None:
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        assert mine is None or math.isnan(mine)
    else:
        assert mine == pytest.approx(theirs, abs=TOL)


def test_reference_covers_the_cases_the_issue_names() -> None:
    sizes = [c["systems"] for c in CASES]
    assert min(sizes) == 3 and max(sizes) == 20
    assert any(None in c["gold"] for c in CASES)  # missing items
    assert REF["source"]["repository"].endswith("mt-metrics-eval")


@pytest.mark.parametrize("k", range(len(CASES)))
@pytest.mark.parametrize("name", ["m1", "m2"])
def test_segment_level_is_average_by_none(k: int, name: str) -> None:
    case = CASES[k]
    ref = case[f"{name}_ref"]
    x, y, _ = Paired.of(*_grid(case, name), grouped=True).flat()
    _close(stats.pearson(x, y), ref["pearson_none"][0])
    _close(stats.spearman(x, y), ref["spearman_none"])
    _close(stats.kendall(x, y, "b"), ref["kendall_b_none"])
    _close(stats.kendall(x, y, "c"), ref["kendall_c_none"])
    cal = stats.acc_eq([(x, y)])
    _close(cal.value, ref["acc_eq_none"][0])
    assert cal.threshold == pytest.approx(ref["acc_eq_none"][1], abs=TOL)


@pytest.mark.parametrize("k", range(len(CASES)))
@pytest.mark.parametrize("name", ["m1", "m2"])
def test_group_level_is_average_by_item(k: int, name: str) -> None:
    case = CASES[k]
    ref = case[f"{name}_ref"]
    h, m = _group_rows(Paired.of(*_grid(case, name), grouped=True))
    for stat, key in [
        ("pearson", "pearson_item"),
        ("spearman", "spearman_item"),
        ("kendall_b", "kendall_b_item"),
        ("kendall_c", "kendall_c_item"),
    ]:
        per_group = batched.FUNCTIONS[stat](h, m)
        theirs = ref[key][0] if stat == "pearson" else ref[key]
        _close(float(np.nanmean(per_group)), theirs)
    # the constant group (every system the same human score) is left out of the mean
    per_group = batched.pearson(h, m)
    assert np.isnan(per_group[0]) and int(np.isfinite(per_group).sum()) == ref["pearson_item_n"]
    rows = [(hr[np.isfinite(hr)], mr[np.isfinite(hr)]) for hr, mr in zip(h, m, strict=True)]
    cal = stats.acc_eq(rows)
    _close(cal.value, ref["acc_eq_item"][0])
    assert cal.threshold == pytest.approx(ref["acc_eq_item"][1], abs=TOL)


@pytest.mark.parametrize("k", range(len(CASES)))
@pytest.mark.parametrize("name", ["m1", "m2"])
def test_kendall_variants_with_epsilon(k: int, name: str) -> None:
    case = CASES[k]
    x, y, _ = Paired.of(*_grid(case, name), grouped=True).flat()
    for eps, (tau_b, acc23) in case[f"{name}_ref"]["kendall_variants"].items():
        c = stats.pair_counts(x, y, float(eps))
        _close(stats.kendall_from_counts(c, "b", x, y), tau_b)
        _close((c.con + c.tie_both) / c.total, acc23)


@pytest.mark.parametrize("k", range(len(CASES)))
@pytest.mark.parametrize("name", ["m1", "m2"])
def test_system_level_and_agreement(k: int, name: str) -> None:
    case = CASES[k]
    ref = case[f"{name}_ref"]["system"]
    hs, ms = Paired.of(*_grid(case, name), grouped=True).system_means()
    np.testing.assert_allclose(hs, ref["gold"], atol=TOL)
    np.testing.assert_allclose(ms, ref["metric"], atol=TOL)
    for stat in ("pearson", "spearman", "kendall_b", "kendall_c"):
        _close(float(batched.FUNCTIONS[stat](hs[None], ms[None])[0]), ref[stat])
    assert list(stats.pairwise_accuracy(hs, ms)) == ref["agreement"]
    agree, pairs = ref["agreement"]
    _close(float(batched.pairwise_accuracy(hs[None], ms[None])[0]), agree / pairs)


@pytest.mark.parametrize("k", [i for i, c in enumerate(CASES) if None not in c["gold"]])
@pytest.mark.parametrize("name", ["m1", "m2"])
def test_soft_pairwise_accuracy(k: int, name: str) -> None:
    gold, m = _grid(CASES[k], name)
    _close(stats.soft_pairwise_accuracy(gold, m), CASES[k][f"{name}_ref"]["soft_pairwise_accuracy"])


@pytest.mark.parametrize("k", range(len(CASES)))
def test_williams(k: int) -> None:
    case = CASES[k]
    p1 = Paired.of(*_grid(case, "m1"), grouped=True)
    p2 = Paired.of(*_grid(case, "m2"), grouped=True)
    x, y1, _ = p1.flat()
    _, y2, _ = p2.flat()
    _close(compare.williams(x, y1, y2)[0], case["williams_segment"])
    h, a = p1.system_means()
    _, b = p2.system_means()
    if "williams_system" in case:
        one, two = case["williams_system"]
        _close(compare.williams(h, a, b)[0], one)
        r = [stats.pearson(h, a), stats.pearson(h, b), stats.pearson(a, b)]
        _close(stats.williams_p(r[0], r[1], r[2], len(h), one_sided=False), two)
    else:  # 3 systems: the test is undefined, and says so
        assert math.isnan(compare.williams(h, a, b)[0])


def _ks(a: np.ndarray, b: np.ndarray) -> float:
    grid = np.sort(np.r_[a, b])
    fa = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    fb = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return float(np.abs(fa - fb).max())


def _nulls(case: dict) -> dict[str, np.ndarray]:
    p1 = Paired.of(*_grid(case, "m1"), grouped=True)
    p2 = Paired.of(*_grid(case, "m2"), grouped=True)
    out = dict(compare.segment_pearson_spearman(p1, p2, ("pearson", "spearman"), 5000, 7))
    item = compare.group_permutation(p1, p2, ("pearson", "kendall_b"), 5000, 8)
    out["pearson_item"], out["kendall_b_item"] = item["pearson"], item["kendall_b"]
    x, y1, _ = p1.flat()
    _, y2, _ = p2.flat()
    e1 = stats.acc_eq([(x, y1)]).threshold
    e2 = stats.acc_eq([(x, y2)]).threshold
    pairs = compare.segment_pair_permutation(
        x, compare.pair_states(x, y1, e1), compare.pair_states(x, y2, e2), 5000, 9
    )
    out["acc_eq_none"] = pairs["acc_eq"]
    return {
        "pearson_none": out["pearson"],
        "spearman_none": out["spearman"],
        "pearson_item": out["pearson_item"],
        "kendall_b_item": out["kendall_b_item"],
        "acc_eq_none": out["acc_eq_none"],
    }


@pytest.mark.parametrize("k", [i for i, c in enumerate(CASES) if "permutation" in c])
def test_permutation_tests_match_by_distribution(k: int) -> None:
    """Same null hypothesis, other random draws: the null distributions agree (two-sample
    Kolmogorov-Smirnov distance below 0.1; theirs 1,000 draws, ours 5,000) and so do the
    p-values."""
    case = CASES[k]
    mine = _nulls(case)
    for label, ref in case["permutation"].items():
        theirs = np.asarray(ref["null"])
        assert _ks(mine[label], theirs) < 0.1, label
        p_mine = float(np.mean(mine[label] >= ref["delta"] - 1e-12))
        assert abs(p_mine - ref["p"]) < 0.05, (label, p_mine, ref["p"])


def test_significance_clusters_as_assign_ranks() -> None:
    sig = REF["assign_ranks"]["sig"]
    order = [f"m{i}" for i in range(len(sig))]
    p_of = {
        (order[i], order[j]): sig[i][j]
        for i in range(len(sig))
        for j in range(len(sig))
        if sig[i][j] is not None
    }
    assert compare.clusters(order, p_of) == REF["assign_ranks"]["ranks"]
