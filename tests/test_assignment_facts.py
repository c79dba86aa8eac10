"""Fact-list edits by admins: versioned, refused once labelling started."""

from __future__ import annotations

import pytest

from annotating.fact_lists import FactListLocked, edit_fact_list, labelled_by
from annotation_store import Store
from tests.annotate_fixtures import make_project


def test_edit_is_versioned_and_refused_after_labels(store: Store) -> None:
    make_project(store, "intent_match")
    new = edit_fact_list(
        store,
        "intent_match",
        "im2",
        "gold_facts",
        ["An alarm is set.", " The time is 7am. ", ""],
        by="admin",
    )
    assert new == ["An alarm is set.", "The time is 7am."]
    versions = [v for v in store.fact_versions("intent_match", "im2") if v["field"] == "gold_facts"]
    assert [(v["version"], v["source"], v["created_by"]) for v in versions] == [
        (1, "import", None),
        (2, "edit", "admin"),
    ]
    store.save_label("intent_match", "im2", "ann", "gold_fact_labels", ["C", "?"])
    assert labelled_by(store, "intent_match", "im2", "gold_facts") == ["ann"]
    with pytest.raises(FactListLocked, match="already has labels by ann"):
        edit_fact_list(store, "intent_match", "im2", "gold_facts", ["x"], by="admin")
    # the other list of the same item is still free
    assert edit_fact_list(store, "intent_match", "im2", "predicted_facts", ["y"], by="admin") == [
        "y"
    ]
