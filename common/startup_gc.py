"""Python's cyclic garbage collector paused while a command-line process starts up.

Starting a command imports SQLAlchemy, the store's models and the command's modules:
about 120,000 objects (modules, classes, functions) that live as long as the process.
Their allocation sets off a few hundred collections that walk them again and again and
find nothing to free, about a fifth of an ``evaluate`` process's CPU before its first
call. ``cli.py`` pauses the collector first thing; the command runner resumes it once
the store is open, freezing what exists by then (start-up objects are not walked again;
``gc.freeze``). Only a pause made here is undone, so a process that switched the
collector off itself keeps it off.
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
    """Freeze the objects made so far and switch the collector back on, if :func:`pause`
    switched it off."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
