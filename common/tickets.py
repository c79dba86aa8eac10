"""Single-use, short-lived tickets that stand for a secret for a few seconds.

The sign-in page hands the browser a ticket instead of the session token; the browser
trades it at ``/auth/session`` for an ``HttpOnly`` cookie (``ui.session_routes``). A
ticket works once, within :data:`TTL`; the book lives in the server process's memory.
"""

from __future__ import annotations

import secrets
import threading
import time

TTL_S = 30.0


class TicketBook:
    """Issue tickets for values and trade each back at most once before it expires."""

    def __init__(self, ttl_s: float = TTL_S) -> None:
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._open: dict[str, tuple[str, float]] = {}
        self._used: dict[str, float] = {}

    def _purge(self, now: float) -> None:
        for book in (self._open, self._used):
            for key in [k for k, v in book.items() if _issued(v) + self.ttl_s * 2 < now]:
                del book[key]

    def issue(self, value: str, now: float | None = None) -> str:
        """A new ticket for ``value``."""
        now = time.monotonic() if now is None else now
        ticket = secrets.token_urlsafe(24)
        with self._lock:
            self._purge(now)
            self._open[ticket] = (value, now)
        return ticket

    def redeem(self, ticket: object, now: float | None = None) -> str | None:
        """The ticket's value, once; None when unknown, used or expired."""
        now = time.monotonic() if now is None else now
        if not isinstance(ticket, str):
            return None
        with self._lock:
            found = self._open.pop(ticket, None)
            if found is None or now - found[1] > self.ttl_s:
                return None
            self._used[ticket] = now
            return found[0]

    def redeemed(self, ticket: str) -> bool:
        """True once the ticket was traded (the browser holds the cookie)."""
        with self._lock:
            return ticket in self._used

    def pending(self, ticket: str, now: float | None = None) -> bool:
        """True while the ticket can still be traded."""
        now = time.monotonic() if now is None else now
        with self._lock:
            found = self._open.get(ticket)
            return found is not None and now - found[1] <= self.ttl_s


def _issued(entry: tuple[str, float] | float) -> float:
    return entry[1] if isinstance(entry, tuple) else entry


#: The server process's book (the routes and the script runs share it).
TICKETS = TicketBook()
