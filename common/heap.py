"""Process-wide memory allocator settings: for short command-line processes, and giving
freed memory back in the long-lived app server."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Callable

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def keep_freed_memory(mmap_threshold: int = 32 << 20, trim_threshold: int = 512 << 20) -> bool:
    """Let glibc keep freed blocks for reuse instead of handing them back at once.

    numpy's temporaries of a few megabytes otherwise come from fresh ``mmap``s and every
    page of each faults in again: in ``metaeval`` a fifth of the process's CPU time went
    to system time (about 350,000 page faults in its worker processes). Only for a
    command-line process, which ends soon: a server would keep the memory. Returns
    whether the settings took (False off glibc)."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, mmap_threshold)) and bool(
        mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    )


#: Trim only once the resident size has grown this much since the last trim: a run that
#: allocated little leaves little to give back, and the call walks the whole heap.
TRIM_GROWTH_BYTES = 32 << 20
_trim_lock = threading.Lock()
_rss_after_trim = 0


def resident_bytes() -> int:
    """This process's resident memory in bytes (0 where /proc is not there)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None elsewhere (musl, macOS, Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


def give_back_freed_memory(growth: int = TRIM_GROWTH_BYTES) -> bool:
    """Hand the heap's free pages back to the system once the process has grown by
    ``growth`` bytes since the last time (a long-lived server: glibc keeps what a page's
    computation freed, tens of MB at 10,000 items). Returns whether it trimmed; a no-op
    off glibc or off Linux."""
    global _rss_after_trim
    trim = _malloc_trim()
    if trim is None:
        return False
    with _trim_lock:
        if resident_bytes() < _rss_after_trim + growth:
            return False
        trim(0)
        _rss_after_trim = resident_bytes()
    return True
