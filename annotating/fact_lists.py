"""Admin edits of an item's fact lists, allowed only before anyone labels that list."""

from __future__ import annotations

from annotation_store.store import Store
from annotation_store.store_projects import StoreError
from kinds import FieldType


class FactListLocked(StoreError):
    """The fact list already has labels; editing it would invalidate them."""


def fact_fields(store: Store, project: str) -> dict[str, str]:
    """Item list field -> the human field labelling it (e.g. gold_facts -> gold_fact_labels)."""
    info = store.project(project)
    return {
        f.facts_field: f.name
        for f in info.task_kind.human_fields(info.settings)
        if f.type is FieldType.FACT_LABELS and f.facts_field
    }


def labelled_by(store: Store, project: str, item_id: str, facts_field: str) -> list[str]:
    """Annotators who have any label (draft, submitted or skipped) on this fact list."""
    label_field = fact_fields(store, project)[facts_field]
    frame = store.annotations_frame(project, ("draft", "submitted", "skipped"))
    rows = frame[(frame["item_id"] == item_id) & (frame["field"] == label_field)]
    return sorted(set(rows["annotator"]))


def edit_fact_list(
    store: Store, project: str, item_id: str, facts_field: str, facts: list[str], by: str
) -> list[str]:
    """Replace a fact list (a new version is recorded); refused once it has labels.

    The check and the write are two transactions: a label saved in between still fails
    its own validation against the new list length, so it cannot silently misalign.
    """
    if facts_field not in fact_fields(store, project):
        raise StoreError(f"{facts_field!r} is not a fact list of this project")
    clean = [f.strip() for f in facts if f.strip()]
    who = labelled_by(store, project, item_id, facts_field)
    if who:
        raise FactListLocked(
            f"{facts_field} of {item_id} already has labels by "
            f"{', '.join(who)}; it stays fixed so everyone labels the same "
            "facts"
        )
    fields = store.set_item_fields(
        project, item_id, {facts_field: clean}, only_if_missing=False, source="edit", by=by
    )
    return list(fields[facts_field])
