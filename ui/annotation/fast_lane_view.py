"""The fast lane in the page: a panel over the Annotate page, from the first item on.

When the page shows an item the lane covers, its script opens a panel over the page on
that same item at once (its blind payload comes with the page: display number, never
the item id or generator, for annotators), with the choices already saved marked.
There, choices, ``j`` / ``k`` and Enter are answered in the browser; each choice is
posted the moment it is given (so a reload loses nothing) and each submit after the
item's choices, in order in the background (a post goes only once the one before it is
saved, so nothing is counted out of order), while the next item, fetched while this one
was labelled (``ui.annotation.fast_routes``), is drawn at once. A failed post is shown
in the panel and retried (1, 2, 4, 5 s ...); a refusal (a missing answer, a lapsed
claim) is shown and stops the posting.

Esc ("Full page"), the page's other keys (previous, next, skip, flag) and the end of
the queue go back to the ordinary page: at once when the panel is still on the page's
own item and sent nothing, else once the posts are saved, by a reload on the item. The
panel then stays closed on that item for that load (a mark in ``sessionStorage``); on
the ordinary page a fully answered item's Enter hands over to the panel again, and so
does the next item the page opens.

A study's practice items open in the same panel (:func:`practice_client`): answered
by the same keys, checked whole by the server (``ui.annotation.practice``), with the
verdict shown in the panel before the next one.

The panel's code is ``ui/annotation/client/lane.js`` (with its pure parts beside it, and
``lane.css``), loaded by ``boot.js`` from the app's own routes (``client_assets``). Only a
server that serves the routes (``serve.py``) opens the panel; under ``streamlit run
app.py`` nothing of this is drawn; without JavaScript nothing of this runs. Browser tests of the ordinary page set ``window.__wbNoLaneFirst``
(``tests.e2e.harness.ordinary_annotate_page``): the page's own keys until a submit.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation_store import AnnotatorInfo, ProjectInfo, Store
from studies.flow_settings import StudySettings, study_of
from ui import keyboard
from ui.annotation import client_assets, practice
from ui.annotation.blind import may_see_item_ids, submitted_is_final
from ui.annotation.context import ERROR_KEY, ItemContext, missing_answers
from ui.annotation.fast_lane import (
    LANES,
    SESSION_KEY,
    LaneError,
    covers,
    payload_of,
    previous_ref,
    reference,
)
from ui.annotation.fast_routes import (
    ACT_ROUTE,
    LABEL_ROUTE,
    LANE_HEADER,
    NEXT_ROUTE,
    PRACTICE_ROUTE,
    served,
)
from ui.annotation.instant_keys import button_class
from ui.session_cookie import GUARD_HEADER, SESSION_TOKEN_KEY

HELP = (
    f"{keyboard.NEXT_TARGET} / {keyboard.PREVIOUS_TARGET}: next / previous question · "
    "the key on an option picks it (C / M or 1 / 0 for facts, Y / N for yes / no, A / B / T "
    "for pairs, the digits shown for a pair with strengths; a ranking: the letters best first, "
    "= puts the last one level) · Enter: submit · ←: previous item · Esc: the full page (Shift+S / Shift+F "
    "skip / flag there) · Tab moves between the buttons"
)


def _lane_token(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> str:
    """This session's lane for the project and user (a new one once it expired, or when
    the sign-in or the role it opened with is no longer this run's)."""
    lanes = st.session_state.setdefault(SESSION_KEY, {})
    key = f"{project.name}\0{user.name}"
    session = st.session_state.get(SESSION_TOKEN_KEY)
    try:
        lane = LANES.get(lanes.get(key))  # in use again: its idle time starts over
        if lane.session != session or lane.user.role != user.role:
            raise LaneError("opened under another sign-in or role")
    except LaneError:
        lanes[key] = LANES.open(store, project.name, user, session)
    return lanes[key]


def _first_item(ctx: ItemContext, ref: str) -> dict[str, Any] | None:
    """The page's item as the panel draws it, when the panel may open on it at once:
    this process serves the routes, no failed save is on screen, and the item is not
    submitted for good (then the page's lock says so)."""
    final = ctx.state["status"] == "submitted" and submitted_is_final(
        ctx.user.role, ctx.project.settings
    )
    if not served() or final or st.session_state.get(ERROR_KEY):
        return None
    return payload_of(ctx, ref)


def fast_lane(ctx: ItemContext, progress: dict[str, Any] | None = None) -> None:
    """Hand the page's script the lane and this run's state of the item (after the view);
    ``progress``: the annotator's standing (done, target, left, quota) as the page shows it."""
    if not ctx.targets or not covers(ctx.project) or not served():
        return
    store, project, user = ctx.store, ctx.project, ctx.user
    ref = reference(store, project, user, ctx.item.item_id)
    if not ref:
        return
    first = _first_item(ctx, ref)
    config = {
        "lane": _lane_token(store, project, user),
        "laneHeader": LANE_HEADER,
        "guard": GUARD_HEADER,
        "nextRoute": NEXT_ROUTE,
        "labelRoute": LABEL_ROUTE,
        "ref": ref,
        "token": ctx.token,
        "name": ctx.item.item_id
        if may_see_item_ids(user.role, project.settings)
        else f"item {ref}",
        # which project and user this tab labels (a switch of either starts over)
        "scope": f"{project.name}/{user.name}",
        # present only on this item's choice buttons: the Annotate page is on screen
        "marker": button_class(f"opt::{ctx.token}::"),
        "complete": not missing_answers(ctx),
        "error": bool(st.session_state.get(ERROR_KEY)),
        "nextKey": keyboard.NEXT_TARGET,
        "prevKey": keyboard.PREVIOUS_TARGET,
        "idleMs": study_of(project.settings).idle_seconds * 1000,
        "item": first,
        "prevRef": previous_ref(store, project, user, ctx.item.item_id) if first else "",
        "actRoute": ACT_ROUTE,
        "guideline": project.guideline or "",
        "guidelineVersion": project.guideline_version,
        "css": client_assets.url("lane.css"),
        "help": HELP,
        "progress": progress,
    }
    run_id = f"{ctx.token}:{config['complete']}:{config['error']}:{len(ctx.labels)}"
    st.html(client_assets.script("boot.js", config, run_id), unsafe_allow_javascript=True)


PRACTICE_HELP = (
    f"{keyboard.NEXT_TARGET} / {keyboard.PREVIOUS_TARGET}: next / previous question · "
    "the key on an option picks it · Enter: check the answer, then go on · "
    "Tab moves between the buttons"
)


def practice_client(
    store: Store, project: ProjectInfo, user: AnnotatorInfo, study: StudySettings, item_id: str
) -> bool:
    """Open the annotation client on the practice item ``item_id`` (the study's first
    one the worker has not answered); False when this process does not serve the
    client's routes (the page's practice form is then the only one)."""
    if not served():
        return False
    config = {
        "practice": True,
        "lane": _lane_token(store, project, user),
        "laneHeader": LANE_HEADER,
        "guard": GUARD_HEADER,
        "practiceRoute": PRACTICE_ROUTE,
        "scope": f"{project.name}/{user.name}/practice",
        "nextKey": keyboard.NEXT_TARGET,
        "prevKey": keyboard.PREVIOUS_TARGET,
        "idleMs": study.idle_seconds * 1000,
        "item": practice.payload(store, project, user, study, item_id),
        "guideline": project.guideline or "",
        "guidelineVersion": project.guideline_version,
        "css": client_assets.url("lane.css"),
        "help": PRACTICE_HELP,
    }
    run_id = f"practice:{item_id}"
    st.html(client_assets.script("boot.js", config, run_id), unsafe_allow_javascript=True)
    return True
