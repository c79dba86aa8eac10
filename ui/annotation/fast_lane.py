"""The Annotate page's fast lane: items drawn and labelled in the browser, saved over HTTP.

At load 16 on a 2-core machine a full Streamlit rerun per submitted item took 3.6-5.6 s
(issue #30). With the fast lane the page's script draws the page's own item in a panel
(its payload handed in with the page, :func:`payload_of`), holds the next item (fetched
while the current one is labelled), swaps it in at once on submit and sends the labels
in the background (``ui.annotation.fast_routes``). This module is the server side of that, with
no Streamlit: who may use a lane, what an item looks like to the browser (blind: the
display number, never the item id for annotators, no generator), and how posted choices,
submits, flags, notes and skips go through the same actions as the page's own callbacks
(``annotating.actions``).

Covered: items whose questions the client draws (``ui.annotation.options``: fact lists,
binary, Likert, label sets, multi-label, pairwise with or without strengths, rankings,
scores, free text, spans; conditional questions are drawn hidden and shown when the server's answer to a save
says they are asked); in a study, while the worker is at its annotation stage (consent, survey and
the endings stay on the page; its practice items are drawn by the same client through
``ui.annotation.practice``). Anything else keeps the ordinary page.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from accounts import sign_in_sessions as auth_sessions
from annotating import actions
from annotating.actions import REVIEW_ROLES, ActionRefused
from annotating.item_view import (
    ItemView,
    Target,
    build_targets,
    derived_values,
    facts_of,
    is_required,
)
from annotating.lane_reads import asker, lane_item
from annotation_store import AnnotatorInfo, ProjectInfo, Store, StoreError
from annotation_store.label_writes import LabelTarget
from kinds import FieldType
from kinds.values import is_asked
from studies import assignments as asg
from ui.annotation.blind import blinded_item, may_see_item_ids
from ui.annotation.options import (
    RANKING,
    by_value,
    chosen_index,
    control,
    drawn_by_client,
    options,
    response_title,
    shown_order,
    source_text,
    value_of,
    words,
)

LANE_IDLE_S = 3600  # a lane unused this long is refused (the page's next run makes a new one)
#: Saves (choices and submits) one lane may post: this many at once, then this many a
#: second; beyond, 429 with the seconds to wait (a person keys a few a second).
SAVE_BURST = 30
SAVES_PER_S = 10.0
#: Session key of the session's lane tokens (project and user -> token); sign-out closes them.
SESSION_KEY = "annotate_fast_lane"


class LaneError(ActionRefused):
    """A request the lane refuses: the domain's refusal (so the routes answer both
    alike), with ``retry_after`` the seconds to wait first when a retry will do (429)."""

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message, status)
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
    #: The user's display order as last read (item ids; number n is order[n - 1]). It
    #: only grows (items handed out later come last), so a number within it is read
    #: from it and one beyond it reads the order again.
    order: list[str] = field(default_factory=list)


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
        lane, user, _ = self.enter(token)
        return lane, user

    def enter(self, token: str | None) -> tuple[Lane, AnnotatorInfo, ProjectInfo]:
        """:meth:`check`, with the lane's project as the database has it now: one
        statement for the user and the project (two behind a sign-in: the session's
        and the project's)."""
        lane = self.get(token)
        name = lane.user.name
        if lane.session is not None:
            user = auth_sessions.touch(lane.store, lane.session)  # None: ended or expired
            project = lane.store.project(lane.project) if user is not None else None
        else:
            now = asker(lane.store, name, lane.project)
            user, project = (now.user if now.active else None), now.project
        if user is None or user.name != name:
            self.close_user(name)
            raise LaneError("you were signed out or your account was disabled", 403)
        if user.role != lane.user.role:
            self.close_user(name)
            raise LaneError("your role changed; reload the page", 403)
        assert project is not None
        return lane, user, project

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
    return bool(fields) and all(drawn_by_client(f) for f in fields)


def study_gate(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    """Refuse (LaneError 409) a study worker who is not at the annotation stage, after
    the study's checks before each item (``actions.study_gate``); staff and projects
    without a study pass."""
    if actions.study_gate(store, project, user) not in (None, "annotate"):
        raise LaneError("the study has moved on for you: press Esc to continue", 409)


def _context(store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str) -> ItemView:
    item = blinded_item(
        store.item(project.name, item_id),
        user.role,
        project.settings,
        [f.name for f in project.task_kind.item_fields],
    )
    ctx = ItemView(
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


def _lane_item_id(lane: Lane, project: ProjectInfo, user: AnnotatorInfo, ref: str) -> str | None:
    """The item id a reference names in the lane (None: none): the display order is
    read again only for a number beyond the lane's copy of it."""
    if may_see_item_ids(user.role, project.settings):
        return ref
    if not ref.isdigit() or int(ref) < 1:
        return None
    number = int(ref)
    if number > len(lane.order):
        lane.order = asg.display_order(lane.store, project.name, user.name)
    order = lane.order
    return order[number - 1] if number <= len(order) else None


def lane_ref(lane: Lane, project: ProjectInfo, user: AnnotatorInfo, item_id: str) -> str:
    """:func:`reference` from the lane's copy of the display order (read again when
    ``item_id`` is not in it)."""
    if may_see_item_ids(user.role, project.settings):
        return item_id
    if item_id not in lane.order:
        lane.order = asg.display_order(lane.store, project.name, user.name)
    order = lane.order
    return str(order.index(item_id) + 1) if item_id in order else ""


def open_view(lane: Lane, project: ProjectInfo, user: AnnotatorInfo, ref: str) -> ItemView:
    """The item a reference names as :func:`resolve` checks it (LaneError 404 unless
    this user may open it) and as :func:`item_payload` shows it: one statement reads
    the item, the user's claim on it, their progress and labels."""
    item_id = _lane_item_id(lane, project, user, ref)
    try:
        if item_id is None:
            raise StoreError(ref)
        got = lane_item(lane.store, project, item_id, user.name)
    except StoreError:
        raise LaneError(f"no item {ref} for you in this project", 404) from None
    if user.role not in REVIEW_ROLES and got.claim not in ("open", "done"):
        raise LaneError(f"item {ref} is not assigned to you", 404)
    kind = project.task_kind
    ctx = ItemView(
        lane.store,
        project,
        blinded_item(got.item, user.role, project.settings, [f.name for f in kind.item_fields]),
        user,
        got.state,
        {f.name: f for f in kind.human_fields(project.settings)},
        target=LabelTarget(
            project.id,
            project.kind,
            project.settings,
            project.guideline_version,
            got.item.pk,
            got.item.fields,
            user.id,
        ),
    )
    ctx.targets = build_targets(ctx)
    return ctx


def lane_next(
    lane: Lane, project: ProjectInfo, user: AnnotatorInfo, after: str, pending: Sequence[str]
) -> dict[str, Any] | None:
    """The payload of the item the page shows once ``after`` (and the ``pending`` items)
    are submitted, None at the end of the queue; LaneError 404 when one of them is not
    this user's to open. Annotators' references are checked against their queue, read
    once for the check and the next item."""
    refs = [after, *pending]
    if user.role in REVIEW_ROLES:
        ids = [open_view(lane, project, user, ref).item.item_id for ref in refs]
        queue = None
    else:
        queue = asg.queue(lane.store, project.name, user.name)
        ids = []
        for ref in refs:
            item_id = _lane_item_id(lane, project, user, ref)
            if item_id is None:
                raise LaneError(f"no item {ref} for you in this project", 404)
            if item_id not in queue:
                raise LaneError(f"item {ref} is not assigned to you", 404)
            ids.append(item_id)
    nxt = actions.next_item(lane.store, project, user, ids[0], ids[1:], queue=queue)
    if nxt is None:
        return None
    ref = lane_ref(lane, project, user, nxt)
    return payload_of(open_view(lane, project, user, ref), ref)


def field_text(value: Any) -> str | None:
    """An item field as plain text (a chat transcript one line per turn, an object one
    line per key), None for none; never a Python repr."""
    if isinstance(value, list):
        return "\n".join(
            f"{t.get('role', '?')}: {t.get('content', '')}" if isinstance(t, dict) else str(t)
            for t in value
        )
    if isinstance(value, dict):
        return "\n".join(f"{k}: {inline_text(v)}" for k, v in value.items()) or None
    return None if value is None else str(value)


def inline_text(value: Any) -> str:
    """A value on one line: a list as its entries, comma-separated; an object as ``key:
    value`` pairs separated by semicolons."""
    if isinstance(value, list | tuple):
        return ", ".join(inline_text(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {inline_text(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def panels(ctx: ItemView) -> list[dict[str, str]]:
    """The item's text as titled panels: the kind's shown text fields in order, then the
    outputs a pairwise question compares, in the annotator's shown order, titled
    "Response A", "Response B" ... (never by field or system name)."""
    facts = {f.facts_field for f in ctx.fields.values() if f.facts_field}
    # a spans question shows its text itself (with the spans marked)
    facts |= {f.source_field for f in ctx.fields.values() if f.type is FieldType.SPANS}
    # pairwise and ranking questions: their outputs, once per set of outputs
    pairs = [f for f in ctx.fields.values() if f.question_type.shows_outputs(f)]
    compared = {o for f in pairs for o in f.question_type.shows_outputs(f)}
    systems = {s for f in pairs for s in f.systems}
    out = []
    for spec in ctx.project.task_kind.item_fields:
        text = field_text(ctx.item.fields.get(spec.name))
        skip = spec.hidden or spec.name in facts | compared | systems or spec.name == "generator"
        if not skip and text is not None:
            out.append({"title": spec.name.replace("_", " ").capitalize(), "text": text})
    for outputs in dict.fromkeys(f.question_type.shows_outputs(f) for f in pairs):
        for pos, name in enumerate(shown_order(ctx, outputs)):
            text = field_text(ctx.item.fields.get(name))
            out.append({"title": response_title(pos), "text": text or ""})
    return out


def item_payload(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str
) -> dict[str, Any]:
    """What the browser draws for one item: its reference and name, text panels, and
    each keyboard target (question or fact) with its choices and saved choice."""
    ctx = _context(store, project, user, item_id)
    return payload_of(ctx, reference(store, project, user, item_id))


def payload_of(ctx: ItemView, ref: str) -> dict[str, Any]:
    """:func:`item_payload` of an item context already built (its item blinded, its
    targets and saved state read), named ``ref`` (see :func:`reference`). Every question
    is in it; ``asked`` is false for one whose condition does not hold now."""
    project, user, item_id = ctx.project, ctx.user, ctx.item.item_id
    asked = asked_keys(ctx)
    targets = [
        target_payload(ctx, target, asked=target.key in asked, required=is_required(target))
        for target in build_targets(ctx, every=True)
    ]
    shows_ids = may_see_item_ids(user.role, project.settings)
    return {
        "ref": ref,
        "name": item_id if shows_ids else f"item {ref}",
        "kind": project.task_kind.title,
        "title": title_of(project, user),
        "status": ctx.state["status"] or "new",
        "flagged": bool(ctx.state["flagged"]),
        "note": ctx.state["note"] or "",
        "mayskip": actions.may_skip(ctx),
        "panels": panels(ctx),
        "targets": targets,
        "scores": live_scores(ctx),
        "conditional": any(f.show_if is not None for f in ctx.fields.values()),
    }


def target_title(ctx: ItemView, target: Target) -> str:
    """A target's title: its question's description (or name), or a fact numbered."""
    spec = target.field
    if target.index is None:
        return spec.description or spec.name
    return f"{target.index + 1}. {facts_of(ctx, spec)[target.index]}"


def target_payload(ctx: ItemView, target: Target, *, asked: bool, required: bool) -> dict[str, Any]:
    """One keyboard target as the client draws it: its title, control, options with
    their keys, and the saved answer (an option's index, or a value question's value)."""
    spec = target.field
    opts = options(ctx, target)
    return {
        "key": target.key,
        "group": spec.description or spec.name if target.index is not None else "",
        "title": target_title(ctx, target),
        "control": control(spec),
        "required": required,
        "multi": spec.type is FieldType.MULTI_LABEL,
        "choices": [{"label": o.label, "keys": list(o.keys)} for o in opts],
        "chosen": chosen_index(ctx, target, opts),
        "asked": asked,
        "byValue": by_value(spec),
        **value_control(ctx, target),
    }


def asked_keys(ctx: ItemView) -> list[str]:
    """The keys of the targets asked now (a conditional question's condition holds)."""
    return [t.key for t in ctx.targets]


def value_control(ctx: ItemView, target: Target) -> dict[str, Any]:
    """What a value question's control needs besides its title: a score's range and
    step, a spans question's text and its words (start, end, word); a ranking's number
    of places (its outputs) and whether outputs may be placed level."""
    spec = target.field
    if control(spec) == RANKING:
        return {"places": len(spec.outputs), "ties": spec.allow_tie}
    if not by_value(spec):
        return {}
    if control(spec) == "score":
        lo = spec.minimum if spec.minimum is not None else 0.0
        hi = spec.maximum if spec.maximum is not None else 1.0
        return {"min": lo, "max": hi, "step": score_step(lo, hi)}
    if control(spec) == "spans":
        text = source_text(ctx, spec)
        return {"text": text, "words": [list(w) for w in words(text)]}
    return {}


def score_step(lo: float, hi: float) -> float:
    """A slider's step: a hundredth of a range up to 1 wide, else 1 for whole-number
    bounds, else a hundredth of the range."""
    if hi - lo > 1 and float(lo).is_integer() and float(hi).is_integer():
        return 1.0
    return (hi - lo) / 100


def title_of(project: ProjectInfo, user: AnnotatorInfo) -> str:
    """The task's name in the panel: the kind's title, never the project's name (which
    may be internal; a study has no title of its own yet)."""
    return project.task_kind.title


def live_scores(ctx: ItemView) -> list[dict[str, Any]]:
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
    """The item the page would show once ``after`` is submitted (``actions.next_item``)."""
    return actions.next_item(store, project, user, after, pending)


def save_choices(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str, chosen: dict[str, Any]
) -> ItemView:
    """Save the posted choices (target key -> option index, or indices for a label set)
    the moment they are given, as the page's choice buttons do, and return the item's
    view afterwards; LaneError says what was refused (and nothing is saved then). A
    value question takes its value (text, number, spans); null clears an answer
    (``actions.save_values`` decides whether it may be); a conditional question is
    refused unless its condition holds with the answers saved and posted before it."""
    return choose(_context(store, project, user, item_id), chosen, fresh=False)


def choose(ctx: ItemView, chosen: dict[str, Any], *, fresh: bool = True) -> ItemView:
    """:func:`save_choices` on an item's view; ``fresh``: its state was read in this
    request (``open_view``), so the save reads nothing more."""
    by_key = {t.key: t for t in build_targets(ctx, every=True)}
    answers = dict(ctx.labels)
    values = []
    for key, index in chosen.items():
        target = by_key.get(key)
        if target is None:
            raise LaneError(f"no question {key!r} on this item", 400)
        if not is_asked(target.field, answers):
            raise LaneError(f"{key!r} is not asked on this item: its condition does not hold", 409)
        if index is None:  # an answer emptied: the action decides whether it may be cleared
            values.append((target, None))
            answers.pop(target.field.name, None)
            continue
        try:
            value = value_of(target, options(ctx, target), index)
        except ValueError as exc:
            raise LaneError(str(exc), 400) from None
        values.append((target, value))
        if target.index is None:
            answers[target.field.name] = value
    return actions.save_values(ctx, values, fresh=fresh)


def save_and_submit(
    store: Store,
    project: ProjectInfo,
    user: AnnotatorInfo,
    item_id: str,
    chosen: dict[str, Any],
    seconds: float | None,
    active_seconds: float | None = None,
) -> None:
    """Save the posted choices (see :func:`save_choices`) and submit the item
    (``actions.submit``: the server decides what is missing); LaneError says what was
    refused."""
    actions.submit(save_choices(store, project, user, item_id, chosen), seconds, active_seconds)


#: The most characters a note posted from the panel may hold.
NOTE_CHARS = 5000


def act(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, item_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Flag or unflag (``{"action": "flag", "flagged": bool}``), note (``{"action":
    "note", "note": text}``) or skip (``{"action": "skip"}``) the item, through the same
    actions as the page; LaneError says what was refused."""
    return act_on(_context(store, project, user, item_id), body)


def act_on(view: ItemView, body: dict[str, Any]) -> dict[str, Any]:
    """:func:`act` on an item's view."""
    action = body.get("action")
    if action == "flag" and isinstance(body.get("flagged"), bool):
        actions.set_flag(view, body["flagged"])
    elif action == "note" and isinstance(body.get("note"), str):
        if len(body["note"]) > NOTE_CHARS:
            raise LaneError(f"a note holds at most {NOTE_CHARS} characters", 400)
        actions.save_note(view, body["note"])
    elif action == "skip":
        actions.skip(view)
    else:
        raise LaneError("malformed request", 400)
    return {"saved": True}
