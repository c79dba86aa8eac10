"""Local accounts: scrypt password hashes, users and roles, OIDC e-mail mapping.

Hash format (versioned so parameters can change without breaking old hashes)::

    scrypt$v1$n=16384,r=8,p=1$<salt b64>$<hash b64>
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from accounts import lockout
from accounts import sign_in_sessions as auth_sessions
from annotation_store.models import Annotator
from annotation_store.records import ROLES, AnnotatorInfo
from annotation_store.store import Store
from annotation_store.store_projects import StoreError, annotator_info

SCHEME = "scrypt"
VERSION = "v1"
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
KEY_BYTES = 32
MIN_PASSWORD = 8


def hash_password(password: str) -> str:
    """A salted scrypt hash of ``password`` in the versioned text format."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(password, salt, N, R, P)
    return f"{SCHEME}${VERSION}$n={N},r={R},p={P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches ``stored`` (constant-time compare)."""
    if not stored:
        return False
    try:
        scheme, version, params, salt_b64, hash_b64 = stored.split("$")
        if scheme != SCHEME or version != VERSION:
            return False
        p = dict(kv.split("=") for kv in params.split(","))
        expected = base64.b64decode(hash_b64)
        digest = _scrypt(
            password,
            base64.b64decode(salt_b64),
            int(p["n"]),
            int(p["r"]),
            int(p["p"]),
            len(expected),
        )
    except (ValueError, KeyError):
        return False
    return hmac.compare_digest(digest, expected)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, dklen: int = KEY_BYTES) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=dklen
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _normalise_email(email: str | None) -> str | None:
    email = (email or "").strip().lower()
    return email or None


def add_user(
    store: Store,
    name: str,
    role: str = "annotator",
    password: str | None = None,
    email: str | None = None,
) -> AnnotatorInfo:
    """Create a user, or make an external rater of that name one; refuses an existing
    account's name or e-mail. The password is optional (OIDC users)."""
    name = name.strip()
    if not name:
        raise StoreError("a user needs a name")
    if role not in ROLES:
        raise StoreError(f"role must be one of {ROLES}, got {role!r}")
    if password is not None and len(password) < MIN_PASSWORD:
        raise StoreError(f"passwords need at least {MIN_PASSWORD} characters")
    email = _normalise_email(email)
    with store.write() as s:
        row = s.scalar(select(Annotator).where(Annotator.name == name))
        if row is not None and not row.external:
            raise StoreError(f"user {name!r} already exists")
        if (
            email
            and s.scalar(
                select(Annotator.id).where(
                    func.lower(Annotator.email) == email,
                    Annotator.id != (row.id if row is not None else -1),
                )
            )
            is not None
        ):
            raise StoreError(f"e-mail {email!r} already belongs to another user")
        if row is None:
            row = Annotator(name=name)
            s.add(row)
        # An external rater (from an import) keeps their labels and becomes an account.
        row.role, row.email, row.active, row.external = role, email, True, False
        row.password_hash = hash_password(password) if password else None
        s.flush()
        return annotator_info(row)


def set_password(store: Store, name: str, password: str) -> None:
    """Replace a user's password."""
    if len(password) < MIN_PASSWORD:
        raise StoreError(f"passwords need at least {MIN_PASSWORD} characters")
    with store.write() as s:
        _row(s, name).password_hash = hash_password(password)
    auth_sessions.revoke_all(store, name)  # old sign-ins end with the old password


def set_email(store: Store, name: str, email: str | None) -> AnnotatorInfo:
    """Set (or clear) the e-mail an OIDC sign-in maps to this user."""
    email = _normalise_email(email)
    with store.write() as s:
        row = _row(s, name)
        if (
            email
            and s.scalar(
                select(Annotator.id).where(
                    func.lower(Annotator.email) == email, Annotator.id != row.id
                )
            )
            is not None
        ):
            raise StoreError(f"e-mail {email!r} already belongs to another user")
        row.email = email
        return annotator_info(row)


def set_active(store: Store, name: str, active: bool) -> None:
    """Enable or disable sign-in for a user (their labels stay)."""
    with store.write() as s:
        _row(s, name).active = active
    if not active:
        auth_sessions.revoke_all(store, name)


def is_active(store: Store, name: str) -> bool:
    """True when the user exists and may sign in."""
    with store.read() as s:
        row = s.scalar(select(Annotator).where(Annotator.name == name))
        return bool(row and row.active)


@dataclass(frozen=True)
class SignIn:
    """The outcome of a sign-in attempt: the user, or why not."""

    user: AnnotatorInfo | None
    message: str = ""


WRONG = "Wrong user name or password (or the account is disabled)."


def sign_in(
    store: Store, name: str, password: str, client: str = "unknown", now: datetime | None = None
) -> SignIn:
    """Check a password under the guessing limits of :mod:`accounts.lockout`.

    Every attempt is recorded; while the account or the client must wait, the password
    is not even checked.
    """
    name = name.strip()
    gate = lockout.check(store, name, client, now)
    if not gate.allowed:
        lockout.record(store, name, client, "refused", now)
        return SignIn(None, gate.message(now))
    user = _check_password(store, name, password)
    lockout.record(store, name, client, "ok" if user else "wrong", now)
    return SignIn(user, "" if user else WRONG)


def authenticate_local(
    store: Store, name: str, password: str, client: str = "unknown"
) -> AnnotatorInfo | None:
    """The user when name and password match an active account, else None (rate-limited)."""
    return sign_in(store, name, password, client).user


def _check_password(store: Store, name: str, password: str) -> AnnotatorInfo | None:
    with store.read() as s:
        row = s.scalar(select(Annotator).where(Annotator.name == name))
        stored = row.password_hash if row is not None else None
        ok = verify_password(password, stored)
        if row is None or not row.active or not ok:
            if row is None:  # spend the same time so names cannot be probed by timing
                verify_password(password, _dummy_hash())
            return None
        return annotator_info(row)


def password_hash(store: Store, name: str) -> str | None:
    """The stored hash of a user's password (None: no user or no password)."""
    with store.read() as s:
        return s.scalar(select(Annotator.password_hash).where(Annotator.name == name))


def user_for_email(store: Store, email: str | None) -> AnnotatorInfo | None:
    """The active user pre-registered with this e-mail (case-insensitive), or None."""
    email = _normalise_email(email)
    if not email:
        return None
    with store.read() as s:
        row = s.scalar(select(Annotator).where(func.lower(Annotator.email) == email))
        return annotator_info(row) if row is not None and row.active else None


def _row(s: Session, name: str) -> Annotator:
    row = s.scalar(select(Annotator).where(Annotator.name == name))
    if row is None:
        raise StoreError(f"no user called {name!r}")
    return row


@functools.cache
def _dummy_hash() -> str:
    """A hash to check unknown names against, so they take as long as known ones (made
    on first use: scrypt costs ~40 ms, too much for every command's start-up)."""
    return hash_password(secrets.token_hex(8))
