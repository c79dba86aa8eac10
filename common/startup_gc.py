"""Python's cyclic garbage collector paused while a command-line process starts up.

Starting a command imports SQLAlchemy, the store's models and the command's modules:
about 120,000 objects (modules, classes, functions) that live as long as the process.
Their allocation sets off a few hundred collections that walk them again and again and
find nothing to free, about a fifth of an ``evaluate`` process's CPU before its first
call. ``cli.py`` pauses the collector first thing; the command runner resumes it once
the store is open. Only a pause made here is undone, so a process that switched the
collector off itself keeps it off.

Resuming does not freeze the start-up objects (``gc.freeze``): the collector decides
when a full collection is due by comparing new long-lived objects with those counted by
the last full collection, and with nothing counted (everything frozen, no full
collection yet) every full-collection trigger of the run that follows would fire. One
full collection soon after the resume counts them; a cached re-run of 10,000 items
took about 0.3 s more CPU with the freeze.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Switch the collector off until :func:`resume` (nothing if it is already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Switch the collector back on, if :func:`pause` switched it off."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()
