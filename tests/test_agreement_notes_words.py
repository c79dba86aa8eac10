"""The Agreement page's and the report's notes name measures and annotator pairs in
words (not ``cohen_kappa_pairs.a|b``), and say once which pairs share too few items."""

from __future__ import annotations

import pytest

from annotation_store import Store
from reports.data import agreement_document
from reports.render import field_notes
from tests.support.apptest import open_app


def _project(store: Store) -> None:
    """ann and bob label 12 items; cat labels 3 of ann's items and none of bob's."""
    store.create_project("p", "binary")
    store.upsert_items("p", [{"item_id": f"i{k:02d}", "fields": {"text": "x"}} for k in range(15)])
    rows = [("ann", k, k % 2) for k in range(12)] + [("bob", k, int(k % 3 == 0)) for k in range(12)]
    rows += [("cat", k, 1) for k in range(12, 15)] + [("ann", k, 0) for k in range(12, 15)]
    store.import_labels(
        "p",
        [
            {
                "item_id": f"i{k:02d}",
                "annotator": who,
                "field": "label",
                "value": v,
                "status": "submitted",
            }
            for who, k, v in rows
        ],
    )


def test_report_notes_name_the_pairs_in_words_and_state_the_left_out_pairs_once(
    store: Store,
) -> None:
    _project(store)
    notes = field_notes(agreement_document(store, "p", n_resamples=0).to_dict())
    text = "\n".join(notes)
    assert "cohen_kappa" not in text and "|" not in text, text
    few = [n for n in notes if "share fewer than" in n]
    assert few == [
        "label / Cohen's kappa per annotator pair: 2 pair(s) share fewer than 5 items "
        "(min_pair_overlap) and are left out of the pair mean: ann & cat (n=3), "
        "bob & cat (n=0)"
    ]
    # bob & cat share no item: that pair is among those left out, not a note of its own
    assert not any("no shared items" in n for n in notes), notes


def test_agreement_page_says_which_pairs_are_left_out_once_and_in_words(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    _project(store)
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/agreement.py", project="p", timeout=120)
    captions = [str(c.value) for c in at.caption]
    assert not [c for c in captions if "cohen_kappa" in c or "no shared items" in c], captions
    left_out = [c for c in captions if "ann & cat (n=3)" in c]
    assert len(left_out) == 1 and left_out[0].startswith("Greyed out"), left_out


def test_the_cohen_mean_says_how_many_pairs_it_averages(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, store: Store
) -> None:
    """It had no n at all ("—"): it averages the pairs sharing enough items."""
    from reports.render import statistic_rows

    _project(store)
    rows = statistic_rows(agreement_document(store, "p", n_resamples=0).to_dict())
    (cohen,) = [r for r in rows if r[1] == "Cohen mean"]
    assert cohen[4] == "1 pair"  # ann & bob; ann & cat (3 items) and bob & cat (0) left out
    store.ensure_annotator("admin", role="admin")
    at = open_app(monkeypatch, sqlite_url, page="pages/agreement.py", project="p", timeout=120)
    table = next(d.value for d in at.dataframe if "n / units" in d.value.columns)
    assert table.set_index("statistic").loc["Cohen mean", "n / units"] == "1 pair"
