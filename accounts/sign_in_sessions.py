"""Server-side sign-in sessions behind the "remember me" cookie.

The browser holds only a random token; the database keeps its SHA-256, the user, and
when it expires. A session lives :data:`IDLE` after its last use (sliding renewal) and
never longer than :data:`ABSOLUTE` after sign-in. A reload (a new browser session)
swaps the cookie's token for a new one; the old token then opens no new browser session
after :data:`ROTATE_GRACE` (a tab that already holds it keeps working). Signing out
revokes every token of that sign-in; changing the password or disabling the user ends
all of the user's sessions.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from accounts.session_limits import ABSOLUTE, IDLE, RENEW_EVERY, ROTATE_GRACE
from annotation_store.models import Annotator, AuthSession, utcnow
from annotation_store.records import AnnotatorInfo
from annotation_store.store import Store
from annotation_store.store_projects import StoreError, annotator_info


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_row(
    who: int, family: str | None, created: datetime, now: datetime
) -> tuple[str, AuthSession]:
    token = secrets.token_urlsafe(32)
    digest = _digest(token)
    row = AuthSession(
        token_hash=digest,
        family=family or digest,
        annotator_id=who,
        created_at=created,
        last_seen_at=now,
        expires_at=min(created + ABSOLUTE, now + IDLE),
    )
    return token, row


def start(store: Store, name: str, now: datetime | None = None) -> str:
    """A new session for ``name``; returns the token for the cookie (shown only now)."""
    now = now or utcnow()
    with store.write() as s:
        who = s.scalar(select(Annotator.id).where(Annotator.name == name))
        if who is None:
            raise StoreError(f"no user called {name!r}")
        token, row = _new_row(who, None, now, now)
        s.add(row)
    return token


def _live(s: Session, token: str | None, now: datetime) -> tuple[AuthSession, Annotator] | None:
    if not token:
        return None
    found = s.execute(
        select(AuthSession, Annotator)
        .join(Annotator, Annotator.id == AuthSession.annotator_id)
        .where(AuthSession.token_hash == _digest(token))
    ).first()
    if found is None:
        return None
    row, who = found
    if row.revoked_at is not None or row.expires_at <= now or not who.active or who.external:
        return None
    return row, who


def touch(store: Store, token: str | None, now: datetime | None = None) -> AnnotatorInfo | None:
    """The user of a live session, its life extended; None when revoked or expired."""
    now = now or utcnow()
    with store.read() as s:
        live = _live(s, token, now)
        if live is None or now - live[0].last_seen_at < RENEW_EVERY:
            return None if live is None else annotator_info(live[1])
    with store.write() as s:
        live = _live(s, token, now)
        if live is None:
            return None
        row, who = live
        row.last_seen_at = now
        row.expires_at = max(row.expires_at, min(row.created_at + ABSOLUTE, now + IDLE))
        return annotator_info(who)


def rotate(store: Store, token: str | None, now: datetime | None = None) -> str | None:
    """A new token for a new browser session from the cookie's; None if that one may not."""
    now = now or utcnow()
    with store.write() as s:
        live = _live(s, token, now)
        if live is None:
            return None
        row, who = live
        if row.rotated_at is not None and now - row.rotated_at > ROTATE_GRACE:
            return None  # already swapped: an old copy of the cookie
        row.rotated_at = row.rotated_at or now
        fresh, new = _new_row(who.id, row.family, row.created_at, now)
        s.add(new)
    return fresh


def revoke(store: Store, *tokens: str | None, now: datetime | None = None) -> None:
    """Sign-out: end the sign-in behind these tokens, with every token rotated from it."""
    digests = [_digest(t) for t in tokens if t]
    if not digests:
        return
    with store.write() as s:
        families = select(AuthSession.family).where(AuthSession.token_hash.in_(digests))
        s.execute(
            update(AuthSession)
            .where(AuthSession.family.in_(families), AuthSession.revoked_at.is_(None))
            .values(revoked_at=now or utcnow())
        )


def revoke_all(store: Store, name: str, now: datetime | None = None) -> int:
    """End every session of ``name`` (password changed, user disabled); returns how many."""
    with store.write() as s:
        who = s.scalar(select(Annotator.id).where(Annotator.name == name))
        if who is None:
            return 0
        result = s.execute(
            update(AuthSession)
            .where(AuthSession.annotator_id == who, AuthSession.revoked_at.is_(None))
            .values(revoked_at=now or utcnow())
        )
        return int(result.rowcount or 0)
