"""Sign-in modes: single (default), local accounts with a remember-me cookie, OIDC mapping."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from accounts import users as accounts
from annotation_store import Store
from tests.support.apptest import app_session
from ui.auth import auth_mode, oidc_user


def _app(monkeypatch: pytest.MonkeyPatch, store: Store, mode: str | None) -> AppTest:
    return app_session(monkeypatch, store.url, env={"WORKBENCH_AUTH_MODE": mode} if mode else None)


def test_mode_defaults_to_single(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WORKBENCH_AUTH_MODE", raising=False)
    assert auth_mode() == "single"
    monkeypatch.setenv("WORKBENCH_AUTH_MODE", "LOCAL")
    assert auth_mode() == "local"
    monkeypatch.setenv("WORKBENCH_AUTH_MODE", "nonsense")
    assert auth_mode() == "single"


def test_single_mode_signs_in_admin(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.ensure_annotator("admin", "annotator")  # e.g. created by an import
    at = _app(monkeypatch, store, None).run()
    assert at.session_state["user"].name == "admin"
    assert at.session_state["user"].role == "admin"


def test_local_mode_requires_password(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    at = _app(monkeypatch, store, "local").run()
    assert "user" not in at.session_state
    assert [t.label for t in at.text_input] == ["User name", "Password"]
    at.text_input[0].input("ana")
    at.text_input[1].input("wrong-password")
    at.button[0].click().run()
    assert any("Wrong user name or password" in e.value for e in at.error)
    assert "user" not in at.session_state
    at.text_input[1].input("ana-password")
    at.button[0].click().run()
    assert at.session_state["user"].name == "ana"
    assert at.session_state["user"].role == "annotator"


def test_oidc_claims_map_to_registered_users_only(store: Store) -> None:
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    assert oidc_user(store, {"email": "Ana@Lab.org", "email_verified": True}).name == "ana"
    assert oidc_user(store, {"email": "ana@lab.org", "email_verified": False}) is None
    assert oidc_user(store, {"email": "stranger@lab.org"}) is None
    accounts.set_active(store, "ana", False)
    assert oidc_user(store, {"email": "ana@lab.org"}) is None
