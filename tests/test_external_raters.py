"""Imported raters stay external (no login) until ``user add`` makes one an account (#16 p12)."""

from __future__ import annotations

import pytest

from accounts import users as accounts
from annotation_store import Store
from commands import main
from interop.importing import import_annotations, import_items


def _import(store: Store, tmp_path) -> None:
    store.create_project("p", "score")
    items = tmp_path / "items.csv"
    items.write_text("item_id,text\na,hello\nb,bye\n")
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "item_id,annotator,field,value\na,admin,label,1\nb,admin,label,0\na,rita,label,1\n"
    )
    import_items(store, "p", items)
    import_annotations(store, "p", labels)


def test_imported_raters_are_external_without_a_login(store: Store, tmp_path) -> None:
    accounts.add_user(store, "ana", "reviewer", password="ana-password")
    _import(store, tmp_path)
    people = {u.name: u for u in store.annotators()}
    assert {n: (u.external, u.has_password) for n, u in people.items()} == {
        "admin": (True, False),
        "ana": (False, True),
        "rita": (True, False),
    }
    assert accounts.authenticate_local(store, "rita", "") is None


def test_user_add_turns_an_external_rater_into_an_account(
    sqlite_url: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(sqlite_url)
    _import(store, tmp_path)
    code = main(
        ["--db", sqlite_url, "user", "add", "admin", "--role", "admin", "--password", "admin-pass"]
    )
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out.strip() == "turned external rater 'admin' into a user (admin) with a password"
    admin = store.annotator("admin")
    assert (admin.role, admin.external, admin.has_password) == ("admin", False, True)
    assert accounts.authenticate_local(store, "admin", "admin-pass").name == "admin"
    labels = store.annotations_frame("p")
    assert sorted(labels.loc[labels["annotator"] == "admin", "item_id"]) == ["a", "b"]
    # Now it is an account: adding it again is refused as before.
    code = main(["--db", sqlite_url, "user", "add", "admin"])
    assert code != 0 and "already exists" in capsys.readouterr().err
    # A re-import of the same labels does not make the account external again.
    _labels = tmp_path / "labels.csv"
    import_annotations(store, "p", _labels)
    assert store.annotator("admin").external is False
    store.close()
