"""The project's study inputs, read once per data version for every page and side panel
of this server process (``study_inputs.shared``; the last two reads kept)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from study_inputs.shared import SharedInputs

if TYPE_CHECKING:
    from annotation_store import Store
    from study_inputs.load import StudyInputs

#: Two: the project open now and the one before (each 10,000-item read holds ~100 MB).
SHARED = SharedInputs(max_entries=2)


def shared_inputs(
    store: Store, project: str, version: str, reference: str = "majority"
) -> StudyInputs:
    """``load_inputs(store, project, reference_method=reference)`` at data ``version``,
    shared (read-only) by the Agreement, Alignment and Estimates pages and both panels."""
    return SHARED.get(store, project, version, reference)
