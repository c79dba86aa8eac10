"""How long a sign-in session lives (``accounts.sign_in_sessions``), in a module of its own:
the server's cookie routes read it without loading the store."""

from __future__ import annotations

from datetime import timedelta

IDLE = timedelta(hours=1)
ABSOLUTE = timedelta(hours=8)
ROTATE_GRACE = timedelta(minutes=2)
RENEW_EVERY = timedelta(minutes=1)  # a run writes the renewal at most this often
