"""Markers another tool put on an annotator's work (Label Studio's ground-truth flag),
kept in that annotator's note on the item, beside their labels and not in their place."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from annotating.time_on_task import progress_rows

if TYPE_CHECKING:
    from annotation_store import Store


def add_marks(store: Store, project: str, marks: Iterable[tuple[str, str, str]]) -> int:
    """Add each ``(item_id, annotator, text)`` to the note of that progress row (once;
    the row exists when the labels were imported first); returns the rows changed."""
    wanted: dict[tuple[str, str], list[str]] = {}
    for item, who, text in marks:
        wanted.setdefault((str(item), str(who)), []).append(text)
    if not wanted:
        return 0
    done = 0
    with store.write() as s:
        for progress, item_id, name in progress_rows(store, s, project):
            new = [t for t in wanted.get((item_id, name), []) if t not in (progress.note or "")]
            if new:
                progress.note = "\n".join([*filter(None, [progress.note]), *new])
                done += 1
    return done


def marked(store: Store, project: str, text: str) -> set[tuple[str, str]]:
    """The ``(item_id, annotator)`` pairs whose note holds the marker ``text``."""
    frame = store.progress_frame(project)
    return {
        (r.item_id, r.annotator)
        for r in frame.itertuples()
        if isinstance(r.note, str) and text in r.note
    }
