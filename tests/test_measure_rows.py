"""Issue 26, points 1-2: every statistic among people is a declared measure computed
through the registry, and a variable's JSON block is written from its rows in the layout
its measures declare."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from agreement.human import variable_agreement
from agreement.measures import Measure, MeasureView
from agreement.ratings import Ratings
from agreement.results import Stat
from agreement.stat_context import StatContext
from agreement.statistics import ALL, declared, statistics

# Krippendorff (2011), the reliability data with missing values: 4 observers, 12 units;
# nominal alpha 0.743, interval alpha 0.849 (published), 11 pairable units.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def _ordinal(min_pair_overlap: int = 5, keep=None):
    return variable_agreement(
        "x",
        Ratings.from_matrix(K2011),
        type_="ordinal",
        levels=("nominal", "interval"),
        level="ordinal",
        categorical=True,
        ordinal=True,
        n_resamples=0,
        min_pair_overlap=min_pair_overlap,
        keep=keep,
    )


def test_every_statistic_among_people_is_computed_by_its_declaration() -> None:
    keys = [s.key for s in statistics()]
    for key in ("krippendorff_alpha", "fleiss_kappa", "percent_agreement", "gwet_ac1"):
        assert key in keys
    assert "cohen_kappa_mean" in keys
    assert all(s.compute is not None for s in statistics())


def test_the_five_classic_statistics_reach_the_rows_with_published_values() -> None:
    rows = {(r.measure, r.level): r for r in _ordinal().rows()}
    assert round(rows["krippendorff_alpha", "nominal"].value, 3) == 0.743
    assert round(rows["krippendorff_alpha", "interval"].value, 3) == 0.849
    assert rows["krippendorff_alpha", "nominal"].n == 11
    # AC1 is declared for nominal fields: on an ordinal one it is a null with the reason
    ac1 = rows["gwet_ac1", None]
    assert ac1.value is None and ac1.reason == (
        "Gwet's AC1 is reported for binary and categorical fields"
    )
    # observers 1-2 share 9 units, 1-3 and 2-3 share 8 or more: six pairs, all kept
    cohen = rows["cohen_kappa_mean", None]
    assert cohen.n == 6 and cohen.value is not None


def test_the_json_block_is_written_from_the_rows() -> None:
    va = _ordinal()
    block = va.to_dict()
    for row in va.rows():
        m = next(s for s in statistics() if s.key == row.measure)
        slots = dict(m.json_slots())
        if m.view.ranking:
            # a per-system measure writes its entries only when it has figures; an
            # undefined one lives in the rows and the bundle, not in the block
            assert row.value is None and m.key not in block, row.measure
            continue
        if row.level is not None:
            assert block[row.measure][row.level] == row.value
            continue
        assert block[row.measure] == row.value, row.measure
        if "n" in slots:
            assert block[slots["n"]] == row.n, row.measure
        if "ci" in slots:
            assert block[slots["ci"]] == (list(row.ci) if row.ci else None), row.measure
        if row.value is None:
            assert block["reasons"][row.measure] == row.reason


def test_cohen_pairs_travel_with_the_mean_and_few_pairs_leave_it() -> None:
    block = _ordinal(min_pair_overlap=10).to_dict()
    keys = list(block)
    at = keys.index("cohen_kappa_mean")
    assert keys[at - 4 : at + 3] == [
        "cohen_kappa_pairs",
        "cohen_kappa_pairs_n",
        "cohen_kappa_min_overlap",
        "cohen_kappa_pairs_few",
        "cohen_kappa_mean",
        "cohen_kappa_pairs_linear",
        "cohen_kappa_pairs_quadratic",
    ]
    n = block["cohen_kappa_pairs_n"]
    assert block["cohen_kappa_pairs_few"] == sorted(k for k, v in n.items() if v < 10)
    kept = [block["cohen_kappa_pairs"][k] for k in n if n[k] >= 10]
    assert block["cohen_kappa_mean"] == pytest.approx(sum(kept) / len(kept))
    assert "(min_pair_overlap)" in block["reasons"]["cohen_kappa_pairs_few"]


def test_keep_leaves_a_classic_statistic_out_of_rows_and_json() -> None:
    va = _ordinal(keep=lambda s: s.view.panel)
    assert "percent_agreement" not in va.to_dict()
    listed = {s.key for s in statistics() if s.view.panel and (s.listed or s.applies("ordinal"))}
    assert {r.measure for r in va.rows()} == listed


def _detailed(ctx: StatContext) -> Stat:
    return Stat(
        None,
        3,
        "made up",
        extra={"toy_detail": [1, 2], "toy_after": "x"},
        notes={"toy_detail.a": "first", "toy_other": "last"},
    )


TOY = Measure(
    "toy_layout",
    MeasureView(
        "Toy",
        "A measure laid out by its declaration",
    ),
    ALL,
    compute=_detailed,
    layout=("n", "toy_detail", "value"),
    reason_layout=("toy_detail", "value"),
)


def test_a_declared_layout_places_keys_and_reasons() -> None:
    with declared(TOY):
        block = _ordinal().to_dict()
    keys = list(block)
    at = keys.index("toy_layout_n_items")
    assert keys[at : at + 4] == ["toy_layout_n_items", "toy_detail", "toy_layout", "toy_after"]
    assert "toy_layout_ci" not in block  # not in the layout
    reasons = list(block["reasons"])
    at = reasons.index("toy_detail.a")
    assert reasons[at : at + 3] == ["toy_detail.a", "toy_layout", "toy_other"]
    assert block["reasons"]["toy_layout"] == "made up"


def test_a_document_of_results_pickles_and_keeps_its_json() -> None:
    import pickle

    va = _ordinal()
    again = pickle.loads(pickle.dumps(va))
    assert json.dumps(again.to_dict()) == json.dumps(va.to_dict())
    assert replace(va).rows() == va.rows()


def test_evaluator_rows_are_what_the_json_shows(demo: str) -> None:
    from agreement.measures import EVALUATOR_SECTIONS
    from agreement.rows import evaluator_entries
    from annotation_store import Store
    from reports.data import agreement_document

    store = Store(demo)
    try:
        doc = agreement_document(store, "demo-intent-resolution", n_resamples=20)
    finally:
        store.close()
    data = doc.to_dict()
    rows = [r for r in doc.rows() if r.section in EVALUATOR_SECTIONS]
    read_back = [
        (sec, ev, name, x.measure.key, x.value, x.n, x.p, x.reason)
        for sec in EVALUATOR_SECTIONS
        for ev, by_field in data["evaluators"].items()
        for name, e in by_field.items()
        for x in evaluator_entries(e, sec)
    ]
    assert (
        rows
        and [(r.section, r.subject, r.field, r.measure, r.value, r.n, r.p, r.reason) for r in rows]
        == read_back
    )
    pearson = next(r for r in rows if r.measure == "pearson" and r.value is not None)
    block = data["evaluators"][pearson.subject][pearson.field]["pearson"]
    assert block["ci"] == list(pearson.ci) and block["r"] == pearson.value
