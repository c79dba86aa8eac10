"""Sign-in in three modes (``WORKBENCH_AUTH_MODE`` or secrets ``[auth] mode``).

- ``single`` (default): one local user, ``admin``, no password.
- ``local``: user name + password (accounts made on the Users page or with
  ``python cli.py user add``); a cookie naming a server-side session keeps you signed
  in across reloads (``accounts.sign_in_sessions``).
- ``oidc``: Streamlit's ``st.login`` with the ``[auth]`` provider settings in secrets;
  the signed-in e-mail must belong to a user an admin registered.
- ``crowd``: staff sign in as in ``local``; study links (``ui.study.entry``) let workers
  into any project with a study token. In ``local`` and ``oidc`` mode too, a project
  whose study has ``"crowd": true`` takes study links; in ``single`` mode no link works
  (everyone there is admin: a worker who drops the query string would be one).
"""

from __future__ import annotations

import time

import streamlit as st

from accounts import sign_in_sessions as auth_sessions
from accounts import users as accounts
from annotation_store import AnnotatorInfo, Store
from common.config import get_setting, secrets
from common.tickets import TICKETS
from common.warmup import warm_up
from ui import session_cookie
from ui.annotation.fast_lane import LANES
from ui.annotation.fast_lane import SESSION_KEY as LANE_SESSION_KEY
from ui.context import USER_KEY, get_store, remember_deep_link
from ui.study.entry import link_user

MODES = ("single", "local", "oidc", "crowd")
PASSWORD_MODES = ("local", "crowd")
SIGNED_OUT_KEY = "_signed_out"
SESSION_COOKIE_KEY = session_cookie.SESSION_TOKEN_KEY
COOKIE_SENT_KEY = "_session_cookie_sent"  # (token, ticket, when issued)
COOKIE_RENEW_S = 300  # a browser in use gets a fresh cookie (a new max-age) this often


def auth_mode() -> str:
    """The configured sign-in mode (unknown values fall back to ``single``)."""
    mode = (get_setting("auth", "mode") or "single").strip().lower()
    return mode if mode in MODES else "single"


def authenticate(store: Store) -> AnnotatorInfo:
    """Return the signed-in annotator, or draw a sign-in form and stop the run."""
    worker = link_user(store, auth_mode())
    if worker is not None:
        return worker
    user = st.session_state.get(USER_KEY)
    if user is not None:
        if auth_mode() == "oidc" and not st.user.is_logged_in:
            st.session_state.pop(USER_KEY, None)  # logged out at the provider meanwhile
        elif auth_mode() != "single" and not accounts.is_active(store, user.name):
            st.session_state.pop(USER_KEY, None)  # disabled while signed in
        elif auth_mode() in PASSWORD_MODES and not _session_live(store):
            st.session_state.pop(USER_KEY, None)  # signed out elsewhere, or expired
        else:
            user = store.annotator(user.name) or user  # pick up role changes
            st.session_state[USER_KEY] = user
            _sign_out_button()
            return user
    mode = auth_mode()
    if mode != "single":
        remember_deep_link()  # the sign-in form stops the run before navigation
        warm_up()  # the Agreement page's libraries load while the user signs in
    if mode in PASSWORD_MODES:
        user = _local_sign_in(store)
    elif mode == "oidc":
        user = _oidc_sign_in(store)
    else:
        user = _single_user(store)
    st.session_state[USER_KEY] = user
    _sign_out_button()
    return user


def _single_user(store: Store) -> AnnotatorInfo:
    """Single-user mode: you are ``admin`` (even if an import created it as annotator)."""
    # a read on every run; the write (a database lock) only the first time
    user = store.annotator("admin") or store.ensure_annotator("admin", role="admin")
    if user.external:  # imported labels by "admin": that rater is the one account
        return accounts.add_user(store, "admin", "admin")
    return user if user.role == "admin" else store.set_role("admin", "admin")


def _session_live(store: Store) -> bool:
    """Extend this browser's server session; False once it was revoked or ran out."""
    token = st.session_state.get(SESSION_COOKIE_KEY)
    if token is None:
        return True  # signed in before sessions were kept (or in a test): nothing to end
    if auth_sessions.touch(store, token) is not None:
        return True
    st.session_state.pop(SESSION_COOKIE_KEY, None)
    return False


def _local_sign_in(store: Store) -> AnnotatorInfo:
    if st.session_state.get(SIGNED_OUT_KEY):
        st.html(session_cookie.sign_out_script(), unsafe_allow_javascript=True)
    else:
        # A reload: swap the cookie's token for a fresh one, so a copy taken earlier
        # stops working soon after.
        token = auth_sessions.rotate(store, _cookie_token())
        user = auth_sessions.touch(store, token) if token else None
        if user is not None:
            st.session_state[SESSION_COOKIE_KEY] = token
            return user
    _, middle, _ = st.columns([1, 1.2, 1])
    with middle:
        st.markdown("### Metric-audit workbench")
        with st.form("sign_in", border=True):
            name = st.text_input("User name", key="sign_in_name", autocomplete="username")
            password = st.text_input(
                "Password", type="password", key="sign_in_password", autocomplete="current-password"
            )
            ok = st.form_submit_button("Sign in", type="primary", width="stretch")
        if ok:
            result = accounts.sign_in(store, name or "", password or "", _client())
            user = result.user
            if user is None:
                st.error(result.message)
            else:
                st.session_state[USER_KEY] = user
                st.session_state.pop(SIGNED_OUT_KEY, None)
                # drawn from the next run on: an element drawn just before st.rerun() may
                # never reach the browser
                st.session_state[SESSION_COOKIE_KEY] = auth_sessions.start(store, user.name)
                st.rerun()
    st.stop()
    raise AssertionError("unreachable")


def _client() -> str:
    """The browser's address as the server sees it (behind a proxy: the proxy's)."""
    ip = st.context.ip_address
    return ip if isinstance(ip, str) and ip else "unknown"  # AppTest has no address


def _cookie_token() -> str | None:
    """The token in the cookie the browser sent when this session connected."""
    token = st.context.cookies.get(session_cookie.COOKIE)
    return token if isinstance(token, str) and token else None


def _send_cookie(token: str) -> None:
    """Have the browser fetch the HttpOnly cookie for ``token`` (via a one-time ticket)
    when it lacks it or it is due for renewal."""
    sent = st.session_state.get(COOKIE_SENT_KEY)
    now = time.monotonic()
    if sent and sent[0] == token:
        if TICKETS.redeemed(sent[1]) and now - sent[2] < COOKIE_RENEW_S:
            return
        if TICKETS.pending(sent[1]):
            # Drawn again until traded: a run cut short could drop it; an identical
            # element is not run twice by the browser.
            st.html(session_cookie.trade_script(sent[1]), unsafe_allow_javascript=True)
            return
    ticket = TICKETS.issue(token)
    st.session_state[COOKIE_SENT_KEY] = (token, ticket, now)
    st.html(session_cookie.trade_script(ticket), unsafe_allow_javascript=True)


def oidc_user(store: Store, claims: dict) -> AnnotatorInfo | None:
    """Map OIDC claims to a registered, active user by e-mail (None: not registered)."""
    if claims.get("email_verified") is False:
        return None
    return accounts.user_for_email(store, claims.get("email"))


def _oidc_providers() -> list[str]:
    section = secrets().get("auth", {})
    return [k for k, v in section.items() if isinstance(v, dict)]


def _oidc_sign_in(store: Store) -> AnnotatorInfo:
    providers = _oidc_providers()
    provider = get_setting("auth", "provider") or (providers[0] if providers else None)
    if not st.user.is_logged_in:
        _, middle, _ = st.columns([1, 1.2, 1])
        with middle:
            st.markdown("### Metric-audit workbench")
            st.write("Sign in with your organisation account.")
            if st.button("Sign in", type="primary", width="stretch"):
                st.login(provider) if provider else st.login()
        st.stop()
    user = oidc_user(store, dict(st.user.to_dict()))
    if user is None:
        st.warning(
            f"You are signed in as **{st.user.get('email', 'unknown')}**, but this "
            "address is not registered in the workbench. Ask an admin to add it on "
            "the Users & settings page, then reload."
        )
        st.button("Sign out", on_click=st.logout)
        st.stop()
    return user


def _sign_out() -> None:
    user = st.session_state.pop(USER_KEY, None)
    LANES.close(st.session_state.pop(LANE_SESSION_KEY, {}).values())  # the fast lane's too
    if user is not None:
        LANES.close_user(user.name)  # and those of the user's other tabs
    # Revoked on the server: a copy of the cookie no longer signs in anywhere.
    auth_sessions.revoke(
        get_store(),
        st.session_state.pop(SESSION_COOKIE_KEY, None),
        _cookie_token(),
    )
    st.session_state[SIGNED_OUT_KEY] = True  # ignore and clear the remember-me cookie
    if auth_mode() == "oidc":
        st.logout()


def _sign_out_button() -> None:
    if auth_mode() == "single":
        return
    token = st.session_state.get(SESSION_COOKIE_KEY)
    if token:
        with st.sidebar:
            _send_cookie(token)
    st.sidebar.button(
        "Sign out", key="sign_out", on_click=_sign_out, type="tertiary", icon=":material/logout:"
    )
