"""The two outputs a pairwise question compares, as a pair a judge may read exchanged.

A declared kind's pairwise question over exactly two outputs gives a custom judge a
``swap`` probe: the same version asked with the two outputs in the other order (the
MT-Bench position check). Questions over three or more outputs have no single swap.
"""

from __future__ import annotations

from collections.abc import Iterable

from kinds.base import FieldType, HumanField


def pairwise_swappable(questions: Iterable[HumanField]) -> tuple[tuple[str, str], ...]:
    """The distinct output pairs of the two-output pairwise questions, in order."""
    pairs: list[tuple[str, str]] = []
    for q in questions:
        if q.type is FieldType.PAIRWISE and len(q.outputs) == 2:
            pair = (q.outputs[0], q.outputs[1])
            if pair not in pairs:
                pairs.append(pair)
    return tuple(pairs)
