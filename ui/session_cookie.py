"""A signed "remember me" cookie so a page reload does not sign a local user out.

Token: ``name|expires|sig`` where sig = HMAC-SHA256(secret, name|expires|hash tag). The
hash tag is the tail of the user's password hash, so changing a password ends old
sessions. The secret comes from ``WORKBENCH_AUTH_COOKIE_SECRET`` / ``[auth]
cookie_secret``; without one, a random per-process secret is used (restart = sign in).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from common.config import get_setting

COOKIE = "workbench_session"
MAX_AGE_S = 12 * 3600
_PROCESS_SECRET = secrets.token_hex(32)


def _secret() -> bytes:
    return (get_setting("auth", "cookie_secret") or _PROCESS_SECRET).encode()


def _sig(name: str, expires: int, tag: str) -> str:
    msg = f"{name}|{expires}|{tag}".encode()
    return hmac.new(_secret(), msg, hashlib.sha256).hexdigest()


def make_token(name: str, password_hash: str | None, now: float | None = None) -> str:
    """A signed token for ``name`` valid for :data:`MAX_AGE_S`."""
    expires = int((now or time.time()) + MAX_AGE_S)
    return f"{name}|{expires}|{_sig(name, expires, (password_hash or '')[-16:])}"


def read_token(
    token: str | None, hash_of: dict[str, str | None] | None = None, now: float | None = None
) -> str | None:
    """The user name in a valid, unexpired token, else None.

    ``hash_of`` maps the name to its current password hash (to check the tag).
    """
    if not token or token.count("|") != 2:
        return None
    name, expires_s, sig = token.split("|")
    try:
        expires = int(expires_s)
    except ValueError:
        return None
    if expires < (now or time.time()):
        return None
    tag = ((hash_of or {}).get(name) or "")[-16:]
    return name if hmac.compare_digest(sig, _sig(name, expires, tag)) else None
