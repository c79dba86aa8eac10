"""The admin page's record tables in words: assignments and fact-list versions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

#: Assignment statuses as the admin reads them.
ASSIGNMENT_STATUS = {"open": "to do", "done": "submitted"}


def _when(values: pd.Series) -> pd.Series:
    """Timestamps to the minute, in UTC like the rest of the page."""
    return pd.to_datetime(values).dt.strftime("%Y-%m-%d %H:%M")


def assignments_table(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """item, annotator, status, how the item was given (by an admin or taken from the
    queue) and since when."""
    frame = pd.DataFrame(
        list(rows), columns=["item_id", "annotator", "status", "explicit", "created_at"]
    )
    return pd.DataFrame(
        {
            "item": frame["item_id"],
            "annotator": frame["annotator"],
            "status": frame["status"].map(lambda s: ASSIGNMENT_STATUS.get(s, s)),
            "given": frame["explicit"].map(
                lambda x: "assigned by an admin" if x else "taken from the queue"
            ),
            "since (UTC)": _when(frame["created_at"]),
        }
    )


def fact_versions_table(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One line per version of an item's fact lists: field, version, the facts, where
    they came from, by whom and when."""
    frame = pd.DataFrame(
        list(rows), columns=["field", "version", "facts", "source", "created_by", "created_at"]
    )
    return pd.DataFrame(
        {
            "field": frame["field"],
            "version": frame["version"],
            "facts": frame["facts"].map(lambda xs: "; ".join(map(str, xs or []))),
            "source": frame["source"],
            "by": frame["created_by"],
            "when (UTC)": _when(frame["created_at"]),
        }
    )
