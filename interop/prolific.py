"""Prolific's submissions export: listed so that choosing it says plainly why it is no
import. The CSV a researcher downloads (``Submission id``, ``Participant id``,
``Status``, ``Time taken`` ...) holds who took part and for how long, per submission and
never per item, and no answers: those stay in the tool the study linked to. Its labels
come in from that tool's file, or from the workbench's own crowd study, which records
the Prolific ids of its participants itself.
"""

from __future__ import annotations

from pathlib import Path

from annotation_store.importing import ImportFailure
from interop.base import Converted, existing

WRITES: tuple[str, ...] = ()

REASON = (
    "a Prolific submissions export carries no labels (only who took part, their status "
    "and time taken per submission): import the file of the tool the study linked to, "
    "or run the study in the workbench, which records Prolific ids itself"
)


def read(path: str | Path) -> Converted:
    """Never returns: the file is named and the reason given in one line."""
    raise ImportFailure(existing(path).name, None, None, REASON)
