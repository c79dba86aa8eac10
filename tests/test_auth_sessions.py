"""Server-side sign-in sessions: sliding life, rotation, revocation (issue #16, point 11)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from streamlit.testing.v1 import AppTest

from accounts import sign_in_sessions as auth_sessions
from accounts import users as accounts
from annotation_store import Store
from annotation_store.models import AuthSession, utcnow
from common.tickets import TICKETS
from tests.support.apptest import app_session
from ui import session_cookie


def test_a_session_slides_while_used_and_ends_when_idle_or_too_old(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    t0 = utcnow()
    token = auth_sessions.start(store, "ana", now=t0)
    assert auth_sessions.touch(store, token, now=t0 + timedelta(minutes=50)).name == "ana"
    # used at 50 min: alive at 1 h 40 min, although the first hour is long gone
    assert auth_sessions.touch(store, token, now=t0 + timedelta(minutes=100)) is not None
    assert auth_sessions.touch(store, token, now=t0 + timedelta(minutes=161)) is None  # idle
    busy = auth_sessions.start(store, "ana", now=t0)
    t = t0
    while t < t0 + auth_sessions.ABSOLUTE - timedelta(minutes=30):
        t += timedelta(minutes=30)
        assert auth_sessions.touch(store, busy, now=t) is not None
    assert auth_sessions.touch(store, busy, now=t0 + auth_sessions.ABSOLUTE) is None
    assert auth_sessions.touch(store, "made-up-token", now=t0) is None


def test_the_database_holds_only_a_hash_of_the_token(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    token = auth_sessions.start(store, "ana")
    with store.read() as s:
        stored = [r.token_hash for r in s.query(AuthSession)]
    assert len(stored) == 1 and token not in stored[0] and len(stored[0]) == 64


def test_rotation_retires_an_old_cookie_and_sign_out_revokes_the_whole_chain(
    store: Store,
) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    t0 = utcnow()
    first = auth_sessions.start(store, "ana", now=t0)
    second = auth_sessions.rotate(store, first, now=t0 + timedelta(minutes=1))
    assert second and second != first
    late = t0 + timedelta(minutes=1) + auth_sessions.ROTATE_GRACE + timedelta(seconds=1)
    assert auth_sessions.rotate(store, first, now=late) is None  # an old copy opens nothing
    assert auth_sessions.touch(store, first, now=late) is not None  # its own tab goes on
    auth_sessions.revoke(store, second, now=late)
    assert auth_sessions.touch(store, first, now=late) is None
    assert auth_sessions.touch(store, second, now=late) is None


def test_a_new_password_or_disabling_ends_every_session(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    a, b = auth_sessions.start(store, "ana"), auth_sessions.start(store, "ana")
    accounts.set_password(store, "ana", "new-password-1")
    assert auth_sessions.touch(store, a) is None and auth_sessions.touch(store, b) is None
    c = auth_sessions.start(store, "ana")
    accounts.set_active(store, "ana", False)
    accounts.set_active(store, "ana", True)
    assert auth_sessions.touch(store, c) is None


def test_cookie_is_secure_behind_https_or_when_the_setting_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("WORKBENCH_AUTH_COOKIE_SECURE", raising=False)
    assert session_cookie.is_https("https://lab.org/")
    assert session_cookie.is_https("http://10.0.0.1:8501/", {"X-Forwarded-Proto": "https"})
    assert not session_cookie.is_https("http://localhost:8501/")
    monkeypatch.setenv("WORKBENCH_AUTH_COOKIE_SECURE", "always")
    assert session_cookie.is_https("http://localhost:8501/")


def _browser(
    monkeypatch: pytest.MonkeyPatch, store: Store, cookie: str | None, url: str | None = None
) -> AppTest:
    """A new browser session that sends ``cookie`` as the remember-me token."""
    monkeypatch.setattr("ui.auth._cookie_token", lambda: cookie)
    at = app_session(monkeypatch, store.url, env={"WORKBENCH_AUTH_MODE": "local"})
    if url:
        at.context["url"] = url
    return at.run()


def _cookie_scripts(at: AppTest) -> list[str]:
    return [e.proto.body for e in at.get("html") if "/auth/session" in e.proto.body]


def _ticket(script: str) -> str:
    return json.loads(json.loads(script.split("body: ")[1].split("});")[0]))["ticket"]


def test_a_token_copied_before_sign_out_no_longer_signs_in(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    at = _browser(monkeypatch, store, None, url="https://lab.example/")
    at.text_input[0].input("ana")
    at.text_input[1].input("ana-password")
    at.button[0].click().run()
    copied = at.session_state["_session_cookie"]
    assert at.session_state["user"].name == "ana"
    scripts = _cookie_scripts(at)
    # the page gets a one-time ticket for the server's cookie route, never the token
    assert scripts and not any(copied in b or "document.cookie" in b for b in scripts)
    assert TICKETS.redeem(_ticket(scripts[-1])) == copied
    assert TICKETS.redeem(_ticket(scripts[-1])) is None  # used up

    reload = _browser(monkeypatch, store, copied)  # a reload with the cookie signs in
    assert reload.session_state["user"].name == "ana"
    assert reload.session_state["_session_cookie"] != copied  # rotated
    reload.button(key="sign_out").click().run()
    assert "user" not in reload.session_state
    # (AppTest reruns only the page; a browser's rerun goes through app.py's sign-in)
    signed_out = reload.switch_page("app.py").run()
    assert any("/auth/signout" in e.proto.body for e in signed_out.get("html"))  # cleared

    stranger = _browser(monkeypatch, store, copied)
    assert "user" not in stranger.session_state
    assert [t.label for t in stranger.text_input] == ["User name", "Password"]
    assert auth_sessions.touch(store, copied) is None  # the first tab's token ended too
