"""Each warning stated once: repeated reasons grouped with a count of what they concern."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def once_each(notes: Iterable[tuple[str, str]], noun: str = "places") -> list[str]:
    """``(subject, reason)`` pairs as lines, each reason once, in first-seen order.

    A reason of one subject reads ``subject: reason``; a reason shared by several reads
    ``reason (12 fields: a, b, …)``, with ``noun`` naming what the subjects are.
    """
    grouped: dict[str, list[str]] = {}
    for subject, reason in notes:
        subjects = grouped.setdefault(reason, [])
        if subject not in subjects:
            subjects.append(subject)
    lines = []
    for reason, subjects in grouped.items():
        if len(subjects) == 1:
            lines.append(f"{subjects[0]}: {reason}")
        else:
            lines.append(f"{reason} ({len(subjects)} {noun}: {', '.join(subjects)})")
    return lines


def footnoted(rows: Sequence[Sequence[Any]], column: int) -> tuple[list[list[Any]], list[str]]:
    """A table whose ``column`` holds notes, with every note shared by several rows moved
    under the table: the cells say ``note 1`` and the lines ``note 1 (12 rows): text``.
    A note of a single row stays in its cell."""
    counts: dict[str, int] = {}
    for row in rows:
        text = row[column]
        if text:
            counts[text] = counts.get(text, 0) + 1
    shared = {text: n for text, n in counts.items() if n > 1}
    numbers = {text: i for i, text in enumerate(shared, 1)}
    out = []
    for row in rows:
        cells = list(row)
        if cells[column] in numbers:
            cells[column] = f"note {numbers[cells[column]]}"
        out.append(cells)
    lines = [f"note {numbers[text]} ({n} rows): {text}" for text, n in shared.items()]
    return out, lines
