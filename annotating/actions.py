"""The actions on an item, one set for every way of annotating: save, submit, skip, flag,
note, next and the study gate.

The Annotate page's callbacks and the annotation client's routes both call these; the
server alone decides what is missing, final or refused. A refusal raises
:class:`ActionRefused` with a one-line message (and the HTTP status the client's routes
answer with); nothing is changed then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotating.item_view import (
    ItemView,
    Target,
    build_targets,
    facts_of,
    missing_answers,
    missing_targets,
)
from annotation_store.records import AnnotatorInfo, ProjectInfo
from annotation_store.store import Store
from crowd import ending as crowd_end
from crowd import study_quality as crowd_quality
from crowd import workers as crowd
from kinds.base import FACT_UNSET
from studies import assignments as asg
from studies.flow_settings import study_of

REVIEW_ROLES = ("admin", "reviewer")


class ActionRefused(Exception):
    """An action refused; ``status`` is the HTTP status a route answers with and
    ``missing`` the targets still to answer when a submit was refused for them."""

    def __init__(self, message: str, status: int = 409, missing: Sequence[Target] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.missing = list(missing)


def submitted_is_final(role: str, project_settings: Mapping[str, Any]) -> bool:
    """In a study, an annotator's submitted item is final: no Resubmit, no later edits
    (reviewers and admins may still correct)."""
    return role not in REVIEW_ROLES and study_of(project_settings).active


def save_values(
    view: ItemView, values: Sequence[tuple[Target, Any]], *, fresh: bool = False
) -> ItemView:
    """Save answers the moment they are given (a draft, or still submitted when the item
    already was); ``values``: (target, value) pairs, a fact's answer going into its place
    in the fact list. A value of None clears a question's answer (an emptied text box),
    except a fact's (a fact list keeps its places) and a required one of a submitted item
    (ActionRefused: it would no longer be complete). Returns ``view`` read again; with
    ``fresh`` (its state was read in this request) nothing is read: the saved values go
    into its state as stored."""
    if not values:
        return view
    if fresh:
        state = view.state
    else:
        state = view.store.item_state(view.project.name, view.item.item_id, view.user.name)
    submitted = state["status"] == "submitted"
    if submitted and submitted_is_final(view.user.role, view.project.settings):
        raise ActionRefused("This item is submitted; in this study that is final.", 409)
    updates: dict[str, Any] = {}
    clears: list[str] = []
    for target, value in values:
        if value is None:
            clears.append(_clearable(target, submitted))
            continue
        if target.index is None:
            updates[target.field.name] = value
            continue
        n = len(facts_of(view, target.field))
        current = updates.get(target.field.name) or list(
            state["labels"].get(target.field.name) or []
        )
        current = (list(current) + [FACT_UNSET] * n)[:n]
        current[target.index] = value
        updates[target.field.name] = current
    status = "submitted" if submitted else "draft"
    if fresh and state["status"] == status:
        # the same value again would change nothing but the activity time (a submit
        # posts the choices its saves already stored): no write transaction for it
        saved_now = state["labels"]
        updates = {k: v for k, v in updates.items() if k not in saved_now or saved_now[k] != v}
    saved = {}
    for name, value in updates.items():
        outcome = view.store.save_label(
            view.project.name,
            view.item.item_id,
            view.user.name,
            name,
            value,
            status=status,
            target=view.target,
        )
        # the value as stored (cleaned); a preview's store answers None: the value given
        saved[name] = value if outcome is None else outcome.value
    cleared = [name for name in clears if name not in updates]
    for name in cleared:
        view.store.clear_label(view.project.name, view.item.item_id, view.user.name, name)
    if not fresh:
        return view.refresh()
    # the progress row a save creates is a draft; an existing one keeps its status
    labels = {**state["labels"], **saved}
    for name in cleared:
        labels.pop(name, None)
    view.state = {**state, "labels": labels}
    view.state["status"] = state["status"] or "draft"
    view.targets = build_targets(view)
    return view


def _clearable(target: Target, submitted: bool) -> str:
    """The field whose answer ``target`` may clear; ActionRefused when it may not."""
    if target.index is not None:
        raise ActionRefused(f"a fact's answer is changed, not cleared ({target.key})", 400)
    if submitted and target.field.required:
        raise ActionRefused(
            f"{target.key} is required and the item is submitted: give another answer", 409
        )
    return target.field.name


def submit(
    view: ItemView,
    seconds: float | None,
    active_seconds: float | None = None,
    *,
    fresh: bool = False,
) -> None:
    """Submit the item when nothing required is missing (else ActionRefused 422 naming
    what is), then store the time on it; ``active_seconds`` is the time measured in the
    browser without the time away (``None``: the caller records it). ``fresh``: the
    view's state was read (or saved) in this request, so it is not read again."""
    if not fresh:
        view.refresh()
    missing = missing_answers(view)
    if missing:
        raise ActionRefused(
            "still to answer: " + ", ".join(missing), 422, missing=missing_targets(view)
        )
    project, item_id, user = view.project.name, view.item.item_id, view.user
    asg.submit(
        view.store,
        project,
        item_id,
        user.name,
        seconds=seconds,
        bypass=user.role in REVIEW_ROLES,
        target=view.target,
    )
    if active_seconds is not None:
        crowd_quality.record_active_seconds(view.store, project, item_id, user.name, active_seconds)


def may_skip(view: ItemView) -> bool:
    """Whether the item may be skipped now: not once it is final, nor once a study's
    skips are used up (or when it allows none)."""
    if view.state["status"] == "submitted" and submitted_is_final(
        view.user.role, view.project.settings
    ):
        return False
    if study_of(view.project.settings).max_skips is None:
        return True
    return asg.skips_left(view.store, view.project.name, view.user.name) != 0


def skip(view: ItemView) -> str | None:
    """Give the item back (the labels are kept as skipped) and claim the next one."""
    if not may_skip(view):
        raise ActionRefused("This item cannot be skipped: it is final or no skips are left.")
    asg.skip(view.store, view.project.name, view.item.item_id, view.user.name)
    return asg.claim_next(view.store, view.project.name, view.user.name)


def set_flag(view: ItemView, flagged: bool) -> None:
    """Flag (or unflag) a problem with the item."""
    view.store.set_note(view.project.name, view.item.item_id, view.user.name, flagged=flagged)


def toggle_flag(view: ItemView) -> bool:
    """Flag the item if it is not flagged, else unflag it; returns the new state."""
    view.refresh()
    flagged = not view.state["flagged"]
    set_flag(view, flagged)
    return flagged


def save_note(view: ItemView, note: str) -> None:
    """Save the annotator's note on the item (an empty note clears it)."""
    view.store.set_note(view.project.name, view.item.item_id, view.user.name, note=note or "")


def next_item(
    store: Store,
    project: ProjectInfo,
    user: AnnotatorInfo,
    after: str,
    pending: Sequence[str] = (),
    *,
    queue: Sequence[str] | None = None,
) -> str | None:
    """The item to show once ``after`` is submitted: the next one in the annotator's
    queue, or a new claim, made now as if ``after`` and the ``pending`` items (submitted
    in the browser, their posts not yet through) were submitted. ``queue``: the
    annotator's queue as the caller just read it (else it is read here)."""
    if queue is None:
        queue = asg.queue(store, project.name, user.name)
    if after in queue and queue.index(after) + 1 < len(queue):
        return queue[queue.index(after) + 1]
    nxt = asg.claim_next(
        store,
        project.name,
        user.name,
        ahead_of=[after, *pending],
        known=(project.id, project.settings, user.id),
    )
    return None if nxt == after or nxt in pending else nxt


def study_gate(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, *, finish_when_empty: bool = False
) -> str | None:
    """The checks a study makes before each item, for a worker at its annotation stage:
    gold accuracy below the study's threshold stops them; with ``finish_when_empty``, an
    empty queue ends their annotation (survey, completion, ...). Returns the worker's
    stage afterwards ("" before they joined), or None when no study applies (staff,
    projects without one)."""
    if not study_of(project.settings).active or user.role != "annotator":
        return None
    part = crowd.participant(store, project.name, user.name)
    if part is None or part.stage != "annotate":
        return part.stage if part else ""
    if crowd_quality.should_stop(store, project.name, user.name):
        return crowd.stop(store, project.name, user.name).stage
    # claim_next resumes an open item first, so this claims nothing the page would not
    if finish_when_empty and asg.claim_next(store, project.name, user.name) is None:
        return crowd_end.finish_annotation(store, project.name, user.name).stage
    return "annotate"
