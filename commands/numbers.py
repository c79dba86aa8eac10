"""Number options that refuse nonsense at parse time (``--runs 0``, ``--limit -5``): one
line on stderr and exit 2, through argparse's own error path."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    bound = f"from {low} to {high}" if high is not None else f">= {low}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be a whole number {bound}, got {text!r}")
        return value

    return parse


def _real(low: float, inclusive: bool) -> Callable[[str], float]:
    bound = f"{'>=' if inclusive else '>'} {low:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(f"must be a number {bound}, got {text!r}")
        return value

    return parse


#: At least one (``--runs``, ``--limit``, ``--batch-size``, ids, versions).
positive_int = _whole(1)
#: Zero or more (``--resamples`` where 0 means none, ``--seed``).
count = _whole(0)
#: A TCP port.
port = _whole(1, 65535)
#: Above zero (seconds between polls, a tolerance).
positive_number = _real(0.0, inclusive=False)
#: Zero or above (thresholds).
nonnegative_number = _real(0.0, inclusive=True)
