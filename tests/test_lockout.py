"""Password guessing: backoff, lockout after ten wrong passwords, visible to admins (#16 p10)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts import lockout
from accounts import users as accounts
from annotation_store import Store
from annotation_store.models import utcnow
from tests.support.apptest import open_app

STEP = timedelta(seconds=61)  # longer than any backoff wait


def _wrong_times(store: Store, n: int, name: str = "ana", client: str = "10.0.0.1"):
    t = utcnow() - timedelta(minutes=30)
    for _ in range(n):
        result = accounts.sign_in(store, name, "not-her-password", client, now=t)
        assert result.user is None and result.message == accounts.WRONG
        t += STEP
    return t - STEP  # the time of the last wrong attempt


def test_backoff_refuses_an_attempt_that_comes_too_soon(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    last = _wrong_times(store, 3)
    too_soon = accounts.sign_in(store, "ana", "ana-password", "10.0.0.1", now=last)
    assert too_soon.user is None
    assert too_soon.message == "Too many wrong passwords: wait 2 s before trying again."
    later = accounts.sign_in(
        store, "ana", "ana-password", "10.0.0.1", now=last + timedelta(seconds=2)
    )
    assert later.user is not None and later.user.name == "ana"


def test_ten_wrong_passwords_lock_the_account_for_a_period(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    last = _wrong_times(store, 10)
    # The right password from another client is refused while the lock lasts.
    locked = accounts.sign_in(store, "ana", "ana-password", "10.9.9.9", now=last + STEP)
    assert locked.user is None
    assert locked.message == "Too many wrong passwords: sign-in is locked for 14 min."
    assert lockout.locked_accounts(store, now=last + STEP) == {"ana": last + lockout.LOCK_FOR}
    outcomes = [a["outcome"] for a in lockout.recent_attempts(store)]
    assert outcomes == ["refused"] + ["wrong"] * 10
    after = last + lockout.LOCK_FOR + timedelta(seconds=1)
    assert accounts.sign_in(store, "ana", "ana-password", "10.9.9.9", now=after).user is not None
    assert lockout.locked_accounts(store, now=after) == {}


def test_an_admin_unlock_opens_the_account_at_once(store: Store) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    last = _wrong_times(store, 10)
    lockout.unlock(store, "ana", by="root")
    assert accounts.sign_in(store, "ana", "ana-password", "10.0.0.2", now=last + STEP).user


def test_one_client_guessing_many_accounts_is_locked_too(store: Store) -> None:
    accounts.add_user(store, "bob", "annotator", password="bob-password")
    t = utcnow() - timedelta(minutes=50)
    for i in range(lockout.CLIENT_LOCK_AFTER):
        accounts.sign_in(store, f"user{i}", "guess-guess", "10.6.6.6", now=t)
        t += STEP
    refused = accounts.sign_in(store, "bob", "bob-password", "10.6.6.6", now=t)
    assert refused.user is None and "locked" in refused.message
    assert accounts.sign_in(store, "bob", "bob-password", "10.0.0.7", now=t).user is not None


def test_admin_page_lists_locked_accounts_and_attempts(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    t = utcnow() - timedelta(minutes=11)
    for _ in range(10):
        accounts.sign_in(store, "ana", "wrong-password", "10.0.0.1", now=t)
        t += STEP
    at = open_app(monkeypatch, store.url, page="pages/admin.py")
    assert not at.exception
    frames = {tuple(df.value.columns): df.value for df in at.dataframe}
    locked = frames[("account", "locked until (UTC)", "wrong passwords")]
    assert locked["account"].tolist() == ["ana"] and locked["wrong passwords"].tolist() == [10]
    attempts = frames[("at", "account", "client", "outcome")]
    assert attempts["outcome"].tolist()[:10] == ["wrong"] * 10
    at.button(key="unlock_account").click().run()
    assert lockout.locked_accounts(store) == {}
