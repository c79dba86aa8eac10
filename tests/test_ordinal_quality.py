"""Annotator quality and references on an ordinal (Likert) field, worked by hand.

Three raters on four items, 1-5: A = 1 2 3 4, B = 2 2 4 5, C = 1 3 3 5. A against the
mean of the others: 1.5 2.5 3.5 5.0, so A's differences are -0.5 -0.5 -0.5 -1.0 (bias
-0.625, mean |diff| 0.625) and r is Pearson's r of the two columns (scipy's).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from scipy.stats import pearsonr

from agreement.ordinal_quality import ordinal_quality, ordinal_reference
from annotation_store import Store
from commands import main

RATINGS = {"A": [1, 2, 3, 4], "B": [2, 2, 4, 5], "C": [1, 3, 3, 5]}


def _labels() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item_id": f"i{i}", "annotator": who, "value": v}
            for who, values in RATINGS.items()
            for i, v in enumerate(values)
        ]
    )


def test_each_rater_against_the_mean_of_the_others() -> None:
    by_name = {q.annotator: q for q in ordinal_quality(_labels())}
    a = by_name["A"]
    assert (a.n_labels, a.n_with_others) == (4, 4)
    assert a.bias == pytest.approx(-0.625) and a.mad_others == pytest.approx(0.625)
    assert a.r_others == pytest.approx(pearsonr([1, 2, 3, 4], [1.5, 2.5, 3.5, 5.0])[0])
    c = by_name["C"]  # others: 1.5 2.0 3.5 4.5
    assert c.bias == pytest.approx((-0.5 + 1.0 - 0.5 + 0.5) / 4)


def test_reference_by_mean_or_median_with_n() -> None:
    mean = ordinal_reference(_labels(), "mean").set_index("item_id")
    median = ordinal_reference(_labels(), "median").set_index("item_id")
    assert mean.loc["i0", "value"] == pytest.approx(4 / 3) and mean.loc["i0", "n"] == 3
    assert median.loc["i0", "value"] == 1 and median.loc["i3", "value"] == 5
    with pytest.raises(ValueError, match="mean or median"):
        ordinal_reference(_labels(), "majority")


def test_the_commands_cover_likert_fields(store: Store, capsys: pytest.CaptureFixture) -> None:
    store.create_project("lik", "likert")
    store.upsert_items("lik", [{"item_id": f"i{i}", "fields": {"text": "t"}} for i in range(4)])
    store.import_labels(
        "lik",
        [
            {
                "item_id": r.item_id,
                "annotator": r.annotator,
                "field": "label",
                "value": r.value,
                "status": "submitted",
            }
            for r in _labels().itertuples()
        ],
    )
    assert main(["--db", store.url, "annotators", "lik", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    (row,) = [r for r in table["ordinal"]["label"]["annotators"] if r["annotator"] == "A"]
    assert row["bias"] == -0.625 and row["n_with_others"] == 4
    assert main(["--db", store.url, "aggregate", "lik", "--method", "median", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "median"
    assert [(r["item_id"], r["value"], r["n"]) for r in doc["items"]][:2] == [
        ("i0", 1.0, 3),
        ("i1", 2.0, 3),
    ]
    assert main(["--db", store.url, "aggregate", "lik"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "i0\t1.33\t3"
