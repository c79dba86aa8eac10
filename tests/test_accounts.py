"""Local accounts: scrypt hashes, sign-in, e-mail mapping, the ``user`` CLI."""

from __future__ import annotations

import io
import sys

import pytest

from accounts import users as accounts
from annotation_store import Store, StoreError
from commands import main


def test_hash_is_salted_versioned_and_verifies() -> None:
    h1, h2 = accounts.hash_password("correct horse"), accounts.hash_password("correct horse")
    assert h1 != h2  # per-user salt
    assert h1.startswith("scrypt$v1$n=16384,r=8,p=1$")
    assert accounts.verify_password("correct horse", h1)
    assert not accounts.verify_password("correct hors", h1)
    assert not accounts.verify_password("x", None)
    assert not accounts.verify_password("x", "garbage")


def test_add_user_and_authenticate(store: Store) -> None:
    accounts.add_user(store, "ana", "reviewer", password="s3cret-pass", email="Ana@Lab.org")
    assert accounts.authenticate_local(store, "ana", "s3cret-pass").role == "reviewer"
    assert accounts.authenticate_local(store, "ana", "wrong-pass") is None
    assert accounts.authenticate_local(store, "nobody", "s3cret-pass") is None
    accounts.set_active(store, "ana", False)
    assert accounts.authenticate_local(store, "ana", "s3cret-pass") is None
    with pytest.raises(StoreError, match="already exists"):
        accounts.add_user(store, "ana")
    with pytest.raises(StoreError, match="at least 8"):
        accounts.add_user(store, "bob", password="short")


def test_oidc_email_mapping_is_case_insensitive_and_refuses_unknown(store: Store) -> None:
    accounts.add_user(store, "ana", "admin", email="ana@lab.org")
    assert accounts.user_for_email(store, " ANA@lab.org ").name == "ana"
    assert accounts.user_for_email(store, "eve@evil.org") is None
    assert accounts.user_for_email(store, None) is None
    with pytest.raises(StoreError, match="already belongs"):
        accounts.add_user(store, "ana2", email="Ana@lab.org")


def test_cli_user_add_list_set_role(sqlite_url: str, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("pass-word-1\n"))
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "user",
                "add",
                "zoe",
                "--role",
                "annotator",
                "--password-stdin",
                "--email",
                "zoe@x.org",
            ]
        )
        == 0
    )
    assert main(["--db", sqlite_url, "user", "set-role", "zoe", "reviewer"]) == 0
    assert main(["--db", sqlite_url, "user", "list"]) == 0
    out = capsys.readouterr().out
    assert "zoe\treviewer\tzoe@x.org\tpassword" in out
    s = Store(sqlite_url)
    try:
        assert accounts.authenticate_local(s, "zoe", "pass-word-1").role == "reviewer"
    finally:
        s.close()
    assert main(["--db", sqlite_url, "user", "add", "zoe"]) == 2
