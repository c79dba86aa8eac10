"""Which estimate leads a group's table and why, and what to know below 30 labels.

The table leads with the narrowest *valid* interval: human only, PPI++ and the corrected
rate are valid (the judge-only mean is biased by the judge's errors, whatever its width).
A judge-assisted interval is not always the narrower one: Rogan-Gladen's delta-method
interval is often wider than the human-only one (bench/estimates_coverage.py), and the
sentence says by how much. Below :data:`SMALL` labelled items the normal intervals cover
the truth less often than 95 %; the note quotes the simulated coverage at that size.
"""

from __future__ import annotations

from collections.abc import Mapping

from estimates.coverage import COVERAGE, SIZES
from estimates.intervals import Estimate

#: The unbiased methods, in the order they keep when their widths are equal.
VALID = ("human", "ppi", "corrected")
#: Fewer labelled items than this get the simulated-coverage note.
SMALL = 30


def _valid(methods: Mapping[str, Estimate]) -> list[str]:
    keys = [k for k in VALID if k in methods and methods[k].half_width is not None]
    return sorted(keys, key=lambda k: methods[k].half_width or 0.0)


def ranked(methods: Mapping[str, Estimate]) -> list[str]:
    """Method keys: the valid intervals narrowest first, then the others in their order."""
    valid = _valid(methods)
    return valid + [k for k in methods if k not in valid]


def why(methods: Mapping[str, Estimate], labels: Mapping[str, str]) -> str | None:
    """One sentence: which interval leads and how every valid one compares with the
    human-only one; None when no valid interval exists."""
    valid = _valid(methods)
    if not valid:
        return None
    lead = valid[0]
    h = methods["human"].half_width if "human" in valid else None
    text = f"{labels[lead]} leads: the narrowest valid interval"
    if not h:
        return text + " (the human-only mean has no interval)."
    parts = []
    for k in valid:
        if k == "human":
            continue
        ratio = (methods[k].half_width or 0.0) / h - 1
        side = "narrower" if ratio < 0 else "wider"
        parts.append(f"{labels[k]} {abs(ratio):.0%} {side}")
    if not parts:
        return text + "."
    return f"{text}; beside the human-only interval: " + ", ".join(parts) + "."


def _n_of(key: str, n_human: int, n_both: int) -> int:
    return n_human if key == "human" else n_both


def small_sample_note(
    methods: Mapping[str, Estimate], n_human: int, n_both: int, labels: Mapping[str, str]
) -> str | None:
    """Below :data:`SMALL` labelled items: the coverage the valid intervals had in
    simulated studies of that size (the lowest over the simulated fields); else None."""
    shown = [k for k in _valid(methods) if _n_of(k, n_human, n_both) < SMALL]
    if not shown:
        return None
    n = min(_n_of(k, n_human, n_both) for k in shown)
    size = max(s for s in SIZES if s <= max(n, SIZES[0]))
    figures = ", ".join(
        f"{labels[k]} {min(by[k][size] for by in COVERAGE.values() if k in by):.1f} %"
        for k in shown
    )
    return (
        f"Only {n} labelled items: in simulated studies with {size} labelled items the 95 % "
        f"intervals covered the truth {figures} of the time (docs/estimates.md); read "
        "them as rougher than their 95 %."
    )
