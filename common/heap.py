"""Process-wide memory allocator settings for short command-line processes."""

from __future__ import annotations

import ctypes
import ctypes.util

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
