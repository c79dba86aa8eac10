"""HTTP routes of the Annotate page's fast lane (``ui.annotation.fast_lane``).

``GET /api/annotate/next?after=REF&pending=REF...`` answers with the item the page
would show once ``REF`` is submitted (``{"item": null}`` at the end of the queue), the
``pending`` items counting as submitted (their posts are on the way); ``POST
/api/annotate/label`` with ``{"item": REF, "chosen": {target: choice index}, "seconds":
s}`` saves the choices and submits the item; with ``"submit": false`` it only saves them
(each key's choice is posted the moment it is given, as the page's buttons save it);
``POST /api/annotate/act`` flags, notes or skips an item. Both need the lane token the page handed
its own script (header ``X-Workbench-Lane``), the page's guard header, and the same
origin, like ``ui.session_routes``. The store is blocking: the work runs in a thread.

The page's script opens its panel on the first item only when :func:`served` says this
process serves the routes (``serve.py`` takes them through :func:`routes`); under
``streamlit run app.py`` it does not, and the page stays as it is.
"""

from __future__ import annotations

import threading
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from annotation_store import StoreError
from annotation_store.accounts import users as accounts
from ui.annotation import fast_lane
from ui.annotation.fast_lane import LANES, Lane, LaneError
from ui.session_routes import refused_request

NEXT_ROUTE = "/api/annotate/next"
LABEL_ROUTE = "/api/annotate/label"
ACT_ROUTE = "/api/annotate/act"
LANE_HEADER = "X-Workbench-Lane"
_SERVED = threading.Event()


def _lane(request: Request) -> Lane:
    lane = LANES.get(request.headers.get(LANE_HEADER))
    if not accounts.is_active(lane.store, lane.user.name):
        raise LaneError("this account is no longer active", 403)
    return lane


def _next(lane: Lane, after: str, pending: list[str]) -> dict[str, Any]:
    project = lane.store.project(lane.project)
    try:
        fast_lane.study_gate(lane.store, project, lane.user)
    except LaneError:
        return {"item": None}  # the end of the lane: the page shows the study's next stage
    here = fast_lane.resolve(lane.store, project, lane.user, after)
    waiting = [fast_lane.resolve(lane.store, project, lane.user, ref) for ref in pending]
    nxt = fast_lane.next_item(lane.store, project, lane.user, here, waiting)
    if nxt is None:
        return {"item": None}
    return {"item": fast_lane.item_payload(lane.store, project, lane.user, nxt)}


def _label(lane: Lane, body: dict[str, Any]) -> dict[str, Any]:
    project = lane.store.project(lane.project)
    fast_lane.study_gate(lane.store, project, lane.user)
    item_id = fast_lane.resolve(lane.store, project, lane.user, str(body.get("item", "")))
    chosen = body.get("chosen") or {}
    if body.get("submit", True) is False:
        if not isinstance(chosen, dict):
            raise LaneError("malformed request", 400)
        ctx = fast_lane.save_choices(lane.store, project, lane.user, item_id, chosen)
        return {"saved": True, "submitted": False, "scores": fast_lane.live_scores(ctx)}
    seconds, active = body.get("seconds"), body.get("active_seconds")
    numbers = all(
        isinstance(x, int | float | None) and (x is None or x >= 0) for x in (seconds, active)
    )
    if not isinstance(chosen, dict) or not numbers:
        raise LaneError("malformed request", 400)
    fast_lane.save_and_submit(lane.store, project, lane.user, item_id, chosen, seconds, active)
    return {"saved": True}


def _act(lane: Lane, body: dict[str, Any]) -> dict[str, Any]:
    project = lane.store.project(lane.project)
    fast_lane.study_gate(lane.store, project, lane.user)
    item_id = fast_lane.resolve(lane.store, project, lane.user, str(body.get("item", "")))
    return fast_lane.act(lane.store, project, lane.user, item_id, body)


async def _answer(request: Request, work: Any, *args: Any) -> Response:
    refused = refused_request(request)
    if refused is not None:
        return refused
    try:
        lane = await run_in_threadpool(_lane, request)
        return JSONResponse(await run_in_threadpool(work, lane, *args))
    except LaneError as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)
    except (StoreError, ValueError) as exc:  # refused by the store: say why, no retry helps
        return JSONResponse({"error": str(exc)}, status_code=409)


async def next_item(request: Request) -> Response:
    """The item after ``?after=`` as the browser draws it."""
    params = request.query_params
    return await _answer(request, _next, params.get("after", ""), params.getlist("pending"))


async def _posted(request: Request, work: Any) -> Response:
    """A POST's JSON object handed to ``work`` (400 for anything else)."""
    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return JSONResponse({"error": "malformed request"}, status_code=400)
    return await _answer(request, work, body)


async def label_item(request: Request) -> Response:
    """Save the posted choices and (unless ``"submit": false``) submit the item."""
    return await _posted(request, _label)


async def act_on_item(request: Request) -> Response:
    """Flag, note or skip the item (``{"item": REF, "action": ...}``, see ``fast_lane.act``)."""
    return await _posted(request, _act)


ROUTES = [
    Route(NEXT_ROUTE, next_item, methods=["GET"]),
    Route(LABEL_ROUTE, label_item, methods=["POST"]),
    Route(ACT_ROUTE, act_on_item, methods=["POST"]),
]


def routes() -> list[Route]:
    """The fast lane's routes, for the server that serves them (see :func:`served`)."""
    _SERVED.set()
    return ROUTES


def served() -> bool:
    """True when this process serves the routes (the server took them via :func:`routes`)."""
    return _SERVED.is_set()
