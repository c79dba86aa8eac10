"""Prolific's submissions export: who took part, their status and time taken.

The CSV a researcher downloads (``Submission id``, ``Participant id``, ``Status``,
``Time taken`` ...) holds one row per submission and no answers: those stay in the tool
the study linked to, or come from the workbench's own crowd study, which records the
Prolific ids of its participants itself (annotators ``prolific:ID``). What it brings is
the platform's time: each completed submission's ``Time taken`` (seconds) is spread
evenly over the participant's submitted items in the project and stored as time on task
from the platform (source "Prolific time taken"), which the speeder alarm reads when the
browser measured no active time. A file none of whose participants has submitted items
in the project imports nothing and says why in one line.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from interop.base import Converted, existing
from interop.importing import ImportFailure

WRITES: tuple[str, ...] = ()

REASON = (
    "a Prolific submissions export carries no labels (only who took part, their status "
    "and time taken per submission), and none of its participants has submitted items in "
    "this project to spread the time over: import the file of the tool the study linked "
    "to, or run the study in the workbench, which records Prolific ids itself"
)
#: Submissions whose time is a time on task (the others were returned or timed out).
COMPLETED = {"APPROVED", "AWAITING REVIEW", "REJECTED"}
SOURCE = "Prolific time taken"


def read(path: str | Path) -> Converted:
    """The completed submissions' time taken, by participant id."""
    p = existing(path)
    reader = csv.DictReader(io.StringIO(p.read_text(encoding="utf-8-sig"), newline=""))
    if not {"Participant id", "Time taken"} <= set(reader.fieldnames or []):
        raise ImportFailure(p.name, None, None, REASON)
    out = Converted(p.name, time_source=SOURCE, no_rows_reason=REASON)
    for row in reader:
        status = (row.get("Status") or "").strip().upper()
        who = (row.get("Participant id") or "").strip()
        try:
            seconds = float((row.get("Time taken") or "").strip())
        except ValueError:
            continue
        if who and status in COMPLETED and seconds >= 0:
            out.submission_seconds.append((who, seconds))
    return out
