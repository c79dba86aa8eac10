"""The users table: kind (internal / external rater / crowd), labels given, last active."""

from __future__ import annotations

import re

import pytest

from accounts import users as accounts
from accounts.people import people_rows
from annotation_store import Store
from crowd import workers as crowd
from interop.importing import import_annotations, import_items
from studies import assignments as asg
from studies.flow_settings import set_study
from tests.support.apptest import open_app


def _people(store: Store, tmp_path) -> None:
    store.create_project("p", "score")
    items = tmp_path / "items.csv"
    items.write_text("item_id,text\na,hello\nb,bye\nc,later\n")
    import_items(store, "p", items)
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,annotator,field,value\na,rita,label,1\nb,rita,label,0\n")
    import_annotations(store, "p", labels)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    store.save_label("p", "a", "ana", "label", 1)
    asg.submit(store, "p", "a", "ana", seconds=4.0)
    store.save_label("p", "b", "ana", "label", 0)  # a draft: not a label given yet
    accounts.add_user(store, "boss", "admin", password="boss-password")
    set_study(store, "p", {"crowd": True, "token": "s3cret"})
    link = crowd.parse_link({"study": "p", "token": "s3cret", "PROLIFIC_PID": "W1"})
    assert link is not None
    crowd.enter(store, link)


def test_people_rows_name_kind_labels_and_last_activity(store: Store, tmp_path) -> None:
    _people(store, tmp_path)
    rows = {r.name: r for r in people_rows(store)}
    assert {n: (r.role, r.kind, r.labels) for n, r in rows.items()} == {
        "ana": ("annotator", "internal", 1),
        "boss": ("admin", "internal", 0),
        "prolific:W1": ("annotator", "crowd", 0),
        "rita": ("annotator", "external", 2),
    }
    # last active: the latest label change (ana's draft counts as activity)
    assert rows["ana"].last_active is not None and rows["rita"].last_active is not None
    assert rows["ana"].last_active >= rows["rita"].last_active
    assert rows["boss"].last_active is None


def test_admin_page_shows_the_users_table(
    store: Store, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _people(store, tmp_path)
    at = open_app(monkeypatch, store.url, page="pages/admin.py", project="p")
    table = at.dataframe[0].value
    assert list(table.columns[:5]) == ["name", "role", "kind", "labels given", "last active (UTC)"]
    assert dict(zip(table["name"], table["kind"], strict=True)) == {
        "admin": "internal",  # the single-mode user the page signs in as
        "ana": "internal",
        "boss": "internal",
        "prolific:W1": "crowd",
        "rita": "external rater",
    }
    assert dict(zip(table["name"], table["labels given"], strict=True))["rita"] == 2
    last = dict(zip(table["name"], table["last active (UTC)"], strict=True))
    assert last["boss"] == "—"  # no label, no sign-in
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", last["ana"])  # to the minute
