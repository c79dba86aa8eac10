"""Password-guessing limits: per-account and per-client backoff, then a lockout.

Every local sign-in attempt is a row in ``sign_in_attempts``. Failures are counted per
account (since its last success or an admin's unlock) and per client address, over the
last :data:`WINDOW`. From :data:`BACKOFF_AFTER` failures on, the next attempt must wait
2, 4, 8 ... s (at most :data:`MAX_WAIT`) after the last failure; from
:data:`LOCK_AFTER` failures on an account (:data:`CLIENT_LOCK_AFTER` from one client,
several people may share an address) attempts are refused for :data:`LOCK_FOR` after the
last failure. Refused attempts are recorded but do not count, so a locked account opens
again on time even while someone keeps trying.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotation_store.models import SignInAttempt, utcnow
from annotation_store.store import Store

BACKOFF_AFTER = 3
LOCK_AFTER = 10
CLIENT_LOCK_AFTER = 30
MAX_WAIT = timedelta(seconds=60)
LOCK_FOR = timedelta(minutes=15)
WINDOW = timedelta(hours=1)
OUTCOMES = ("ok", "wrong", "refused", "unlocked")
_RESETS = ("ok", "unlocked")


@dataclass(frozen=True)
class Gate:
    """Whether an attempt may be checked now; if not, until when and why."""

    allowed: bool
    retry_at: datetime | None = None
    locked: bool = False

    def message(self, now: datetime | None = None) -> str:
        """A one-line explanation for the sign-in form."""
        if self.allowed or self.retry_at is None:
            return ""
        seconds = max(1, int((self.retry_at - (now or utcnow())).total_seconds() + 0.999))
        wait = f"{seconds} s" if seconds < 120 else f"{(seconds + 59) // 60} min"
        if self.locked:
            return f"Too many wrong passwords: sign-in is locked for {wait}."
        return f"Too many wrong passwords: wait {wait} before trying again."


def _failures(s: Session, column: object, value: str, since: datetime) -> tuple[int, datetime]:
    """Failures of one account or client after ``since``, and the time of the last one."""
    row = s.execute(
        select(func.count(), func.max(SignInAttempt.at)).where(
            column == value, SignInAttempt.outcome == "wrong", SignInAttempt.at > since
        )
    ).one()
    return int(row[0] or 0), row[1]


def _gate(count: int, last: datetime | None, lock_after: int, now: datetime) -> Gate:
    if last is None or count < BACKOFF_AFTER:
        return Gate(True)
    if count >= lock_after:
        until = last + LOCK_FOR
        return Gate(now >= until, until, locked=True)
    until = last + min(MAX_WAIT, timedelta(seconds=2 ** (count - BACKOFF_AFTER + 1)))
    return Gate(now >= until, until)


def _account_gate(s: Session, name: str, now: datetime) -> Gate:
    reset = s.scalar(
        select(func.max(SignInAttempt.at)).where(
            SignInAttempt.name == name, SignInAttempt.outcome.in_(_RESETS)
        )
    )
    since = max(now - WINDOW, reset) if reset else now - WINDOW
    return _gate(*_failures(s, SignInAttempt.name, name, since), LOCK_AFTER, now)


def check(store: Store, name: str, client: str, now: datetime | None = None) -> Gate:
    """May an attempt for ``name`` from ``client`` be checked now?"""
    now = now or utcnow()
    with store.read() as s:
        by_name = _account_gate(s, name, now)
        by_client = _gate(
            *_failures(s, SignInAttempt.client, client, now - WINDOW), CLIENT_LOCK_AFTER, now
        )
    closed = [g for g in (by_name, by_client) if not g.allowed]
    return max(closed, key=lambda g: g.retry_at or now) if closed else Gate(True)


def record(store: Store, name: str, client: str, outcome: str, now: datetime | None = None) -> None:
    """Store one attempt (``outcome`` one of :data:`OUTCOMES`)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}")
    with store.write() as s:
        s.add(
            SignInAttempt(at=now or utcnow(), name=name[:200], client=client[:100], outcome=outcome)
        )


def unlock(store: Store, name: str, by: str) -> None:
    """Let ``name`` try again at once (an admin's decision, recorded)."""
    record(store, name, f"unlocked by {by}", "unlocked")


def locked_accounts(store: Store, now: datetime | None = None) -> dict[str, datetime]:
    """Accounts whose sign-in is locked now, with the time the lock ends."""
    now = now or utcnow()
    with store.read() as s:
        names = s.scalars(
            select(SignInAttempt.name)
            .where(SignInAttempt.outcome == "wrong", SignInAttempt.at > now - WINDOW)
            .group_by(SignInAttempt.name)
            .having(func.count() >= LOCK_AFTER)
        ).all()
        gates = {name: _account_gate(s, name, now) for name in names}
    return {
        name: g.retry_at
        for name, g in gates.items()
        if g.locked and not g.allowed and g.retry_at is not None
    }


def recent_attempts(store: Store, limit: int = 200) -> list[dict[str, object]]:
    """The newest attempts first: time, account, client and outcome."""
    with store.read() as s:
        rows = s.scalars(select(SignInAttempt).order_by(SignInAttempt.id.desc()).limit(limit)).all()
        return [
            {"at": r.at, "account": r.name, "client": r.client, "outcome": r.outcome} for r in rows
        ]
