"""The "remember me" cookie: a random token naming a server-side session.

The token means nothing by itself: ``accounts.sign_in_sessions`` keeps the session
(user, expiry, revocation). A Streamlit script cannot add headers to a response, so the
cookie is set by the server: the page trades a single-use ticket (``common.tickets``) at
``/auth/session`` (``ui.session_routes``, served when the app starts with
``streamlit run serve.py``), which answers with an ``HttpOnly`` cookie that page scripts
cannot read. See docs/annotating.md.
"""

from __future__ import annotations

import json

from accounts.session_limits import IDLE
from common.config import get_setting

COOKIE = "workbench_session"
MAX_AGE_S = int(IDLE.total_seconds())
SESSION_ROUTE = "/auth/session"
SIGN_OUT_ROUTE = "/auth/signout"
#: Session-state key of this browser session's sign-in token (``ui.auth``; the fast
#: lane ties its lanes to it).
SESSION_TOKEN_KEY = "_session_cookie"
#: Header the page's requests carry; a cross-site form cannot send it.
GUARD_HEADER = "X-Workbench-Session"


def is_https(url: str | None, headers: dict[str, str] | None = None) -> bool:
    """True when the browser talks HTTPS to us (directly or to a TLS-ending proxy),
    or the ``[auth] cookie_secure`` setting says to always mark the cookie Secure."""
    if (get_setting("auth", "cookie_secure") or "").strip().lower() in ("1", "true", "always"):
        return True
    forwarded = {k.lower(): v for k, v in (headers or {}).items()}.get("x-forwarded-proto", "")
    return (url or "").lower().startswith("https:") or forwarded.lower().startswith("https")


def _post(route: str, body: dict[str, str]) -> str:
    """A script posting ``body`` (JSON) to ``route`` of this server, cookies included."""
    return (
        f"<script>fetch({json.dumps(route)}, {{method: 'POST', credentials: 'same-origin', "
        f"headers: {{'Content-Type': 'application/json', '{GUARD_HEADER}': '1'}}, "
        f"body: {json.dumps(json.dumps(body))}}});</script>"
    )


def trade_script(ticket: str) -> str:
    """The page script that trades ``ticket`` for the HttpOnly cookie."""
    return _post(SESSION_ROUTE, {"ticket": ticket})


def sign_out_script() -> str:
    """The page script that asks the server to clear the cookie."""
    return _post(SIGN_OUT_ROUTE, {})
