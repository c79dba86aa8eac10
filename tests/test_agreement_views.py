"""Issue 43, point 2: the typed views renderers read the agreement document through
(:mod:`agreement.views`), on a golden demo document and on a computed variable."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agreement.views import (
    by_evaluator,
    evaluator_names,
    evaluator_view,
    evaluator_views,
    scored_fields,
    variable,
    variable_names,
    variables,
    with_excluded,
)
from tests.test_measure_rows import _ordinal

GOLDEN = Path(__file__).resolve().parent / "data" / "agreement_golden"
EMBEDDING = "embedding-similarity (demo)"


@pytest.fixture(scope="module")
def doc() -> dict:
    return json.loads((GOLDEN / "demo-intent-match.json").read_text())


def test_variables_are_the_human_fields_then_the_derived_scores(doc: dict) -> None:
    assert variable_names(doc) == [
        "match",
        "gold_fact_labels",
        "predicted_fact_labels",
        "recall",
        "precision",
        "f1",
    ]
    assert variable_names(doc, derived=False) == [
        "match",
        "gold_fact_labels",
        "predicted_fact_labels",
    ]
    assert [v.derived for v in variables(doc)] == [False] * 3 + [True] * 3
    match = variable(doc, "match")
    assert match is not None and match.block is doc["fields"]["match"]
    assert (match.level, match.n_items, match.n_pairable) == ("nominal", 6, 6)
    recall = variable(doc, "recall")
    assert recall is not None and recall.derived and recall.block is doc["derived"]["recall"]
    assert variable(doc, "recall", derived=False) is None
    assert variable(doc, "nope") is None and variable(doc, None) is None


def test_a_field_view_reads_its_measures_as_rows(doc: dict) -> None:
    match = variable(doc, "match")
    assert match is not None
    rows = {(r.measure, r.level): r for r in match.rows()}
    alpha = rows[("krippendorff_alpha", "nominal")]
    assert (alpha.subject, alpha.field, alpha.section) == ("people", "match", "among_people")
    assert alpha.value == pytest.approx(0.527777777778)
    assert alpha.ci == pytest.approx((-0.103896103896, 1.0))
    assert alpha.n == 6 and alpha.reason is None
    assert rows[("percent_agreement", None)].ci is None
    panel = [(e.measure.key, e.level) for e in match.entries(keep=lambda m: m.view.panel)]
    assert panel == [
        ("krippendorff_alpha", "nominal"),
        ("fleiss_kappa", None),
        ("fleiss_kappa_all_items", None),
    ]


def test_evaluator_views_follow_the_document_order(doc: dict) -> None:
    assert evaluator_names(doc) == ["bifact (demo)", EMBEDDING]
    assert [(v.evaluator, v.field) for v in evaluator_views(doc)] == [
        ("bifact (demo)", "f1"),
        ("bifact (demo)", "precision"),
        ("bifact (demo)", "recall"),
        (EMBEDDING, "match"),
    ]
    assert [v.evaluator for v in evaluator_views(doc, "match")] == [EMBEDDING]
    assert scored_fields(doc) == ["f1", "match", "precision", "recall"]
    assert by_evaluator(doc)[EMBEDDING] == {"match": doc["evaluators"][EMBEDDING]["match"]}


def test_an_evaluator_view_reads_its_blocks_and_rows(doc: dict) -> None:
    view = evaluator_view(doc, EMBEDDING, "match")
    assert view is not None and view.n == 6
    assert view.binary is doc["evaluators"][EMBEDDING]["match"]["binary"]
    assert view.bias is None
    rows = {r.measure: r for r in view.rows()}
    assert rows["pearson"].value == pytest.approx(0.913168232857)
    assert rows["pearson"].p == pytest.approx(0.0109822885185)
    assert rows["pearson"].subject == EMBEDDING and rows["pearson"].field == "match"
    assert rows["kendall"].ci == pytest.approx((-0.392232270276, 1.0))
    assert evaluator_view(doc, EMBEDDING, "f1") is None
    assert evaluator_view(doc, "nobody", "match") is None
    assert evaluator_view(doc, EMBEDDING, None) is None


def test_with_excluded_is_none_without_exclusions(doc: dict) -> None:
    assert with_excluded(doc) is None
    everyone = {"fields": {"match": {"level": "nominal"}}, "derived": {}}
    assert with_excluded({**doc, "exclusions": {"with_excluded": everyone}}) is everyone


def test_view_rows_are_the_typed_rows_the_json_was_written_from() -> None:
    """The rows read back from a variable's JSON block are the typed rows it was written
    from, for every measure that applies; Cohen's pair mean keeps no n in the JSON."""
    va = _ordinal()
    view = variables({"fields": {"x": va.to_dict()}})[0]
    typed = {(r.measure, r.level): r for r in va.rows()}
    read = view.rows()
    assert len(read) == 14
    for r in read:
        want = typed[(r.measure, r.level)]
        assert r == (replace(want, n=None) if r.measure == "cohen_kappa_mean" else want)
