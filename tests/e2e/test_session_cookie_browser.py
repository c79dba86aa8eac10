"""Real browser: the sign-in cookie is HttpOnly and dies with sign-out (#16, point 11)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts import users as accounts
from annotation_store import Store
from tests.e2e.harness import (
    LOCAL_AUTH,
    browser_page,
    open_page,
    running_app,
    sign_in,
    wait_for_streamlit,
    wait_until,
)

pytestmark = pytest.mark.e2e

COOKIE = "workbench_session"
SIGN_IN_FORM = 'input[aria-label="User name"]'
SIGNED_IN = '[data-testid="stSidebar"] >> text=Signed in as'


def _token(page: Any) -> str | None:
    """The session token in the browser's cookie jar (None: no cookie)."""
    return next((c["value"] for c in page.context.cookies() if c["name"] == COOKIE), None)


def test_the_cookie_is_hidden_from_scripts_and_a_copy_dies_with_sign_out(
    sqlite_url: str,
) -> None:
    store = Store(sqlite_url)
    accounts.add_user(store, "ana", "annotator", password="ana-password")
    store.close()
    with running_app(sqlite_url, env=LOCAL_AUTH) as app:
        with browser_page() as page:
            open_page(page, app)
            sign_in(page, "ana", "ana-password")
            (cookie,) = [c for c in page.context.cookies() if c["name"] == COOKIE]
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert not cookie["secure"]  # plain HTTP on localhost
            assert 0 < cookie["expires"]  # a max-age, not a cookie for ever
            assert COOKIE not in page.evaluate("document.cookie")

            first = cookie["value"]
            page.reload()  # a reload signs in from the cookie, and swaps its token
            wait_for_streamlit(page)
            page.wait_for_selector(SIGNED_IN)
            assert page.locator(SIGN_IN_FORM).count() == 0
            copied = wait_until(
                page,
                lambda: (t := _token(page)) not in (None, first) and t,
                "the reload never set the rotated token's cookie",
            )
            assert COOKIE not in page.evaluate("document.cookie")

            page.get_by_role("button", name="Sign out").click()
            page.wait_for_selector(SIGN_IN_FORM)
            wait_until(page, lambda: _token(page) is None, "sign-out left the cookie")

        with browser_page() as fresh:  # another browser holding the copied token
            fresh.context.add_cookies(
                [{"name": COOKIE, "value": copied, "url": app.url, "httpOnly": True}]
            )
            open_page(fresh, app)
            fresh.wait_for_selector(SIGN_IN_FORM)
            assert fresh.locator(SIGNED_IN).count() == 0
