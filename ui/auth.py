"""Sign-in in three modes (``WORKBENCH_AUTH_MODE`` or secrets ``[auth] mode``).

- ``single`` (default): one local user, ``admin``, no password.
- ``local``: user name + password (accounts made on the Users page or with
  ``python cli.py user add``); a signed cookie keeps you signed in across reloads.
- ``oidc``: Streamlit's ``st.login`` with the ``[auth]`` provider settings in secrets;
  the signed-in e-mail must belong to a user an admin registered.
"""

from __future__ import annotations

import json

import streamlit as st

from annotation_store import AnnotatorInfo, Store, accounts
from common.config import get_setting, secrets
from ui import session_cookie
from ui.context import USER_KEY

MODES = ("single", "local", "oidc")
SIGNED_OUT_KEY = "_signed_out"
SESSION_COOKIE_KEY = "_session_cookie"


def auth_mode() -> str:
    """The configured sign-in mode (unknown values fall back to ``single``)."""
    mode = (get_setting("auth", "mode") or "single").strip().lower()
    return mode if mode in MODES else "single"


def authenticate(store: Store) -> AnnotatorInfo:
    """Return the signed-in annotator, or draw a sign-in form and stop the run."""
    user = st.session_state.get(USER_KEY)
    if user is not None:
        if auth_mode() == "oidc" and not st.user.is_logged_in:
            st.session_state.pop(USER_KEY, None)  # logged out at the provider meanwhile
        elif auth_mode() != "single" and not accounts.is_active(store, user.name):
            st.session_state.pop(USER_KEY, None)  # disabled while signed in
        else:
            user = store.annotator(user.name) or user  # pick up role changes
            st.session_state[USER_KEY] = user
            _sign_out_button()
            return user
    mode = auth_mode()
    if mode == "local":
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
    user = store.ensure_annotator("admin", role="admin")
    return user if user.role == "admin" else store.set_role("admin", "admin")


def _local_sign_in(store: Store) -> AnnotatorInfo:
    if st.session_state.get(SIGNED_OUT_KEY):
        _set_cookie("", max_age=0)
        remembered = None
    else:
        remembered = session_cookie.read_token(
            st.context.cookies.get(session_cookie.COOKIE),
            {n: accounts.password_hash(store, n) for n in _cookie_names()},
        )
    if remembered and accounts.is_active(store, remembered):
        user = store.annotator(remembered)
        if user is not None:
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
                st.session_state[SESSION_COOKIE_KEY] = session_cookie.make_token(
                    user.name, accounts.password_hash(store, user.name)
                )
                st.rerun()
    st.stop()
    raise AssertionError("unreachable")


def _client() -> str:
    """The browser's address as the server sees it (behind a proxy: the proxy's)."""
    ip = st.context.ip_address
    return ip if isinstance(ip, str) and ip else "unknown"  # AppTest has no address


def _cookie_names() -> list[str]:
    token = st.context.cookies.get(session_cookie.COOKIE) or ""
    return [token.split("|", 1)[0]] if "|" in token else []


def _set_cookie(value: str, max_age: int = session_cookie.MAX_AGE_S) -> None:
    """Set (or clear, with max_age=0) the session cookie in the browser."""
    cookie = f"{session_cookie.COOKIE}={value}; path=/; max-age={max_age}; SameSite=Strict"
    st.html(
        f"<script>document.cookie = {json.dumps(cookie)};</script>", unsafe_allow_javascript=True
    )


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
    st.session_state.pop(USER_KEY, None)
    st.session_state.pop(SESSION_COOKIE_KEY, None)
    st.session_state[SIGNED_OUT_KEY] = True  # ignore and clear the remember-me cookie
    if auth_mode() == "oidc":
        st.logout()


def _sign_out_button() -> None:
    if auth_mode() == "single":
        return
    # Re-sent on every run (a no-op once set): a run cut short by the user's next click
    # could otherwise drop the only copy, and a reload would then ask to sign in again.
    token = st.session_state.get(SESSION_COOKIE_KEY)
    if token:
        with st.sidebar:
            _set_cookie(token)
    st.sidebar.button(
        "Sign out", key="sign_out", on_click=_sign_out, type="tertiary", icon=":material/logout:"
    )
