"""The "remember me" cookie: a random token naming a server-side session.

The token means nothing by itself: ``annotation_store.auth_sessions`` keeps the session
(user, expiry, revocation). The cookie is set by a script element, because a Streamlit
script cannot add headers to an HTTP response; so it cannot be ``HttpOnly`` (see
docs/annotating.md for what limits the damage instead).
"""

from __future__ import annotations

from annotation_store.auth_sessions import IDLE

COOKIE = "workbench_session"
MAX_AGE_S = int(IDLE.total_seconds())


def cookie_string(value: str, max_age: int = MAX_AGE_S, secure: bool = False) -> str:
    """The ``document.cookie`` assignment for the token (max_age=0 clears it)."""
    cookie = f"{COOKIE}={value}; path=/; max-age={max_age}; SameSite=Strict"
    return cookie + "; Secure" if secure else cookie


def is_https(url: str | None, headers: dict[str, str] | None = None) -> bool:
    """True when the browser talks HTTPS to us (directly or to a TLS-ending proxy)."""
    forwarded = {k.lower(): v for k, v in (headers or {}).items()}.get("x-forwarded-proto", "")
    return (url or "").lower().startswith("https:") or forwarded.lower().startswith("https")
