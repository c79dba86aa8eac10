"""The Annotate page's fast lane: items drawn and labelled in the browser, saved over HTTP.

At load 16 on a 2-core machine a full Streamlit rerun per submitted item took 3.6-5.6 s
(issue #30). With the fast lane the page's script draws the page's own item in a panel
(its payload handed in with the page, :func:`payload_of`), holds the next item (fetched
while the current one is labelled), swaps it in at once on submit and sends the labels
in the background (``ui.annotation.fast_routes``). This module is the server side of that, with
no Streamlit: who may use a lane, what an item looks like to the browser (blind: the
display number, never the item id for annotators, no generator), and how posted choices
are saved and submitted through the same store API as the page's own callbacks.

Covered: items whose questions are all choices (fact lists, binary, ordinal, label
sets) with no conditional questions; in a study, while the worker is at its annotation
stage (consent, training, survey and the endings stay on the page). Anything else
keeps the ordinary page.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from annotation_store import AnnotatorInfo, ProjectInfo, Store, StoreError
from annotation_store import assignments as asg
from annotation_store.accounts import sign_in_sessions as auth_sessions
from annotation_store.accounts import users as accounts
from annotation_store.crowd import study_quality as crowd_quality
from annotation_store.crowd import workers as crowd
from annotation_store.studies.flow_settings import study_of
from kinds import FieldType, HumanField
from kinds.base import FACT_UNSET
from ui.annotation.blind import blinded_item, may_see_item_ids, submitted_is_final
from ui.annotation.context import (
    ItemContext,
    build_targets,
    derived_values,
    facts_of,
    missing_answers,
)
from ui.keyboard import option_keys

CHOICE_TYPES = (FieldType.FACT_LABELS, FieldType.BINARY, FieldType.ORDINAL, FieldType.CATEGORICAL)
REVIEW_ROLES = ("admin", "reviewer")
LANE_IDLE_S = 3600  # a lane unused this long is refused (the page's next run makes a new one)
#: Saves (choices and submits) one lane may post: this many at once, then this many a
#: second; beyond, 429 with the seconds to wait (a person keys a few a second).
SAVE_BURST = 30
SAVES_PER_S = 10.0
#: Session key of the session's lane tokens (project and user -> token); sign-out closes them.
SESSION_KEY = "annotate_fast_lane"


class LaneError(Exception):
    """A request the lane refuses; ``status`` is the HTTP status to answer with, and
    ``retry_after`` the seconds to wait first when a retry will do (429)."""

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass
class Lane:
    """One browser tab's right to label one project as one user, within the sign-in
    session that opened it (``session``: its token; None where there is none, as in
    single-user mode or behind a study link). ``user.role`` is the role it opened
    with: a request finding another one ends the user's lanes."""

    store: Store
    project: str
    user: AnnotatorInfo
    used: float
    session: str | None = None
    saves: float | None = None  # the save allowance left (None: full), as of saved_at
    saved_at: float = 0.0


class Lanes:
    """The lanes handed out by this server process (random tokens, in memory)."""

    def __init__(self) -> None:
        self._lanes: dict[str, Lane] = {}
        self._lock = threading.Lock()

    def open(
        self, store: Store, project: str, user: AnnotatorInfo, session: str | None = None
    ) -> str:
        """A new token for ``user`` on ``project``, within the sign-in ``session``."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            now = time.time()
            self._lanes = {t: ln for t, ln in self._lanes.items() if now - ln.used < LANE_IDLE_S}
            self._lanes[token] = Lane(store, project, user, now, session)
        return token

    def close(self, tokens: Iterable[str]) -> None:
        """Forget these lanes: their requests are refused from now on."""
        with self._lock:
            for token in tokens:
                self._lanes.pop(token, None)

    def close_user(self, name: str) -> None:
        """End every lane of ``name`` (signed out, password or role changed, disabled)."""
        with self._lock:
            self._lanes = {t: ln for t, ln in self._lanes.items() if ln.user.name != name}

    def get(self, token: str | None) -> Lane:
        """The lane of ``token``; LaneError 403 when unknown or idle too long."""
        with self._lock:
            lane = self._lanes.get(token or "")
            if lane is None or time.time() - lane.used > LANE_IDLE_S:
                raise LaneError("unknown or expired lane; reload the page", 403)
            lane.used = time.time()
            return lane

    def check(self, token: str | None) -> tuple[Lane, AnnotatorInfo]:
        """The lane of ``token`` and its user as the database has them now; LaneError
        403 (and every lane of the user ended) once the sign-in behind it was signed
        out or expired, the account disabled, or the user's role changed."""
        lane = self.get(token)
        name = lane.user.name
        if lane.session is not None:
            user = auth_sessions.touch(lane.store, lane.session)  # None: ended or expired
        else:
            user = lane.store.annotator(name) if accounts.is_active(lane.store, name) else None
        if user is None or user.name != name:
            self.close_user(name)
            raise LaneError("you were signed out or your account was disabled", 403)
        if user.role != lane.user.role:
            self.close_user(name)
            raise LaneError("your role changed; reload the page", 403)
        return lane, user

    def take_save(self, lane: Lane) -> None:
        """Count one save against the lane's allowance; LaneError 429 (with the seconds
        to wait) when it is used up."""
        with self._lock:
            now = time.monotonic()
            refill = (now - lane.saved_at) * SAVES_PER_S
            left = SAVE_BURST if lane.saves is None else min(SAVE_BURST, lane.saves + refill)
            lane.saves, lane.saved_at = left, now
            if left < 1:
                wait = math.ceil((1 - left) / SAVES_PER_S)
                raise LaneError("too many saves at once; retrying shortly", 429, wait)
            lane.saves = left - 1


LANES = Lanes()


def covers(project: ProjectInfo) -> bool:
    """True when the fast lane can draw and save this project's items (in a study, only
    while the worker is at its annotation stage: see :func:`study_gate`)."""
    fields = project.task_kind.human_fields(project.settings)
    return bool(fields) and all(f.type in CHOICE_TYPES and f.show_if is None for f in fields)


def study_gate(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    """Refuse (LaneError 409) a study worker who is not at the annotation stage, stopping
    one whose gold accuracy fell below the study's threshold first, as the study's page
    does before each item; staff and projects without a study pass."""
    if not study_of(project.settings).active or user.role != "annotator":
        return
    if crowd_quality.should_stop(store, project.name, user.name):
        crowd.stop(store, project.name, user.name)
    part = crowd.participant(store, project.name, user.name)
    if part is None or part.stage != "annotate":
        raise LaneError("the study has moved on for you: press Esc to continue", 409)


def _context(store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str) -> ItemContext:
    item = blinded_item(
        store.item(project.name, item_id),
        user.role,
        project.settings,
        [f.name for f in project.task_kind.item_fields],
    )
    ctx = ItemContext(
        store,
        project,
        item,
        user,
        store.item_state(project.name, item_id, user.name),
        {f.name: f for f in project.task_kind.human_fields(project.settings)},
    )
    ctx.targets = build_targets(ctx)
    return ctx


def reference(store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str) -> str:
    """The item's name in the URL and the lane: its id for reviewers, else its display
    number (as ``ui.annotation.page.Address.to_url``)."""
    if may_see_item_ids(user.role, project.settings):
        return item_id
    order = asg.display_order(store, project.name, user.name)
    return str(order.index(item_id) + 1) if item_id in order else ""


def resolve(store: Store, project: ProjectInfo, user: AnnotatorInfo, ref: str) -> str:
    """The item id a reference names, if this user may open it (else LaneError 404)."""
    item_id: str | None = ref
    if not may_see_item_ids(user.role, project.settings):
        order = asg.display_order(store, project.name, user.name)
        item_id = order[int(ref) - 1] if ref.isdigit() and 1 <= int(ref) <= len(order) else None
    try:
        if item_id is None:
            raise StoreError(ref)
        store.item(project.name, item_id)
    except StoreError:
        raise LaneError(f"no item {ref} for you in this project", 404) from None
    if not asg.may_open(store, project.name, item_id, user.name, user.role):
        raise LaneError(f"item {ref} is not assigned to you", 404)
    return item_id


def _choices(spec: HumanField) -> list[dict[str, Any]]:
    labels = spec.level_descriptions or {}
    out = []
    for value, key in option_keys(spec):
        if spec.type is FieldType.BINARY and not labels:
            label = "yes" if value == 1 else "no"
        elif spec.type is FieldType.FACT_LABELS:
            label = str(value)
        else:
            desc = labels.get(value)
            label = desc if desc and spec.type is FieldType.BINARY else str(value)
            if desc and spec.type is not FieldType.BINARY:
                label = f"{value} · {desc}"
            if key and key != str(value):
                label = f"[{key}] {label}"
        out.append({"label": label, "key": key})
    return out


def _chosen(spec: HumanField, saved: Any) -> int | None:
    if saved is None or saved == FACT_UNSET:
        return None
    for i, (value, _) in enumerate(option_keys(spec)):
        if value == saved or str(value) == str(saved):
            return i
    return None


def _panels(ctx: ItemContext) -> list[dict[str, str]]:
    """The item's text as titled panels: the kind's shown text fields, in order."""
    facts = {f.facts_field for f in ctx.fields.values() if f.facts_field}
    panels = []
    for spec in ctx.project.task_kind.item_fields:
        value = ctx.item.fields.get(spec.name)
        if spec.hidden or spec.name in facts or value is None or spec.name == "generator":
            continue
        if isinstance(value, list):  # a chat transcript: one line per turn
            text = "\n".join(
                f"{t.get('role', '?')}: {t.get('content', '')}" if isinstance(t, dict) else str(t)
                for t in value
            )
        elif isinstance(value, dict):
            continue
        else:
            text = str(value)
        panels.append({"title": spec.name.replace("_", " ").capitalize(), "text": text})
    return panels


def item_payload(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str
) -> dict[str, Any]:
    """What the browser draws for one item: its reference and name, text panels, and
    each keyboard target (question or fact) with its choices and saved choice."""
    ctx = _context(store, project, user, item_id)
    return payload_of(ctx, reference(store, project, user, item_id))


def payload_of(ctx: ItemContext, ref: str) -> dict[str, Any]:
    """:func:`item_payload` of an item context already built (its item blinded, its
    targets and saved state read), named ``ref`` (see :func:`reference`)."""
    project, user, item_id = ctx.project, ctx.user, ctx.item.item_id
    targets = []
    for target in ctx.targets:
        spec = target.field
        if target.index is None:
            title = spec.description or spec.name
        else:
            title = f"{target.index + 1}. {facts_of(ctx, spec)[target.index]}"
        targets.append(
            {
                "key": target.key,
                "group": spec.description or spec.name if target.index is not None else "",
                "title": title,
                "choices": _choices(spec),
                "chosen": _chosen(spec, ctx.value(target)),
            }
        )
    shows_ids = may_see_item_ids(user.role, project.settings)
    return {
        "ref": ref,
        "name": item_id if shows_ids else f"item {ref}",
        "kind": project.task_kind.title,
        "status": ctx.state["status"] or "new",
        "panels": _panels(ctx),
        "targets": targets,
        "scores": live_scores(ctx),
    }


def live_scores(ctx: ItemContext) -> list[dict[str, Any]]:
    """The kind's derived scores of this annotator's saved labels (intent match: recall,
    precision, F1), as the page's live figures show them; unset facts count as not yet
    labelled, and a score not yet defined is ``None``."""
    kind = ctx.project.task_kind
    if not kind.derived_scores:
        return []
    values = derived_values(ctx)
    return [
        {"name": d.name.capitalize(), "value": values.get(d.name), "help": d.description}
        for d in kind.derived_scores
    ]


def previous_ref(store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str) -> str:
    """The reference of the item the page's Previous opens from ``item_id`` ("" for none):
    the one before it in the annotator's queue, or the queue's last when it is not in it."""
    queue = asg.queue(store, project.name, user.name)
    if item_id in queue:
        index = queue.index(item_id)
        return reference(store, project, user, queue[index - 1]) if index > 0 else ""
    return reference(store, project, user, queue[-1]) if queue else ""


def next_item(
    store: Store,
    project: ProjectInfo,
    user: AnnotatorInfo,
    after: str,
    pending: Sequence[str] = (),
) -> str | None:
    """The item the page would show once ``after`` is submitted: the next one in the
    annotator's queue, or a new claim, made now as if ``after`` and the ``pending``
    items (submitted in the browser, their posts not yet through) were submitted."""
    queue = asg.queue(store, project.name, user.name)
    if after in queue and queue.index(after) + 1 < len(queue):
        return queue[queue.index(after) + 1]
    nxt = asg.claim_next(store, project.name, user.name, ahead_of=[after, *pending])
    return None if nxt == after or nxt in pending else nxt


def save_choices(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str, chosen: dict[str, int]
) -> ItemContext:
    """Save the posted choices (target key -> choice index, a whole number: ``true`` is
    not one) the moment they are given, as
    the page's choice buttons do (a draft, or still submitted when the item already was),
    and return the item's context afterwards; LaneError says what was refused."""
    ctx = _context(store, project, user, item_id)
    final = submitted_is_final(user.role, project.settings)
    if ctx.state["status"] == "submitted" and final:
        raise LaneError("this item is submitted; in this study that is final", 409)
    by_key = {t.key: t for t in ctx.targets}
    updates: dict[str, Any] = {}
    for key, index in chosen.items():
        target = by_key.get(key)
        options = option_keys(target.field) if target else []
        if target is None or type(index) is not int or not 0 <= index < len(options):
            raise LaneError(f"no choice {index!r} for {key!r}", 400)
        value = options[index][0]
        if target.index is None:
            updates[target.field.name] = value
            continue
        n = len(facts_of(ctx, target.field))
        current = updates.get(target.field.name) or list(ctx.labels.get(target.field.name) or [])
        current = (list(current) + [FACT_UNSET] * n)[:n]
        current[target.index] = value
        updates[target.field.name] = current
    status = "submitted" if ctx.state["status"] == "submitted" else "draft"
    for name, value in updates.items():
        store.save_label(project.name, item_id, user.name, name, value, status=status)
    return _context(store, project, user, item_id) if updates else ctx


def save_and_submit(
    store: Store,
    project: ProjectInfo,
    user: AnnotatorInfo,
    item_id: str,
    chosen: dict[str, int],
    seconds: float | None,
    active_seconds: float | None = None,
) -> None:
    """Save the posted choices (see :func:`save_choices`) and submit the item, with the
    checks of the page's callbacks, then store its active time (measured in the browser)
    as ``ui.active_time.record`` does; LaneError says what was refused."""
    ctx = save_choices(store, project, user, item_id, chosen)
    missing = missing_answers(ctx)
    if missing:
        raise LaneError("still to answer: " + ", ".join(missing), 422)
    asg.submit(
        store, project.name, item_id, user.name, seconds=seconds, bypass=user.role in REVIEW_ROLES
    )
    if active_seconds is not None:
        crowd_quality.record_active_seconds(store, project.name, item_id, user.name, active_seconds)
