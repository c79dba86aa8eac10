"""Simulated coverage of the 95 % intervals by the number of labelled items.

Measured by ``bench/estimates_coverage.py`` (5,000 synthetic studies per row, 2,000
judged items; the scenarios are in its docstring) and tabled in docs/estimates.md;
:mod:`estimates.verdict` quotes them below 30 labelled items. Field scenario -> method ->
n labelled -> coverage in %.
"""

from __future__ import annotations

SIZES = (10, 20, 30, 50, 100)
COVERAGE: dict[str, dict[str, dict[int, float]]] = {
    "binary": {
        "human": {10: 85.0, 20: 95.1, 30: 95.1, 50: 93.4, 100: 94.8},
        "ppi": {10: 75.0, 20: 88.2, 30: 91.8, 50: 92.6, 100: 93.9},
        "corrected": {10: 79.5, 20: 94.2, 30: 97.1, 50: 97.5, 100: 97.3},
    },
    "scale": {
        "human": {10: 90.1, 20: 91.9, 30: 93.5, 50: 93.8, 100: 94.6},
        "ppi": {10: 88.3, 20: 91.1, 30: 92.8, 50: 93.7, 100: 94.3},
    },
}
