"""HTTP routes of the Annotate page's fast lane (``ui.annotation.fast_lane``).

``GET /api/annotate/next?after=REF&pending=REF...`` answers with the item the page
would show once ``REF`` is submitted (``{"item": null}`` at the end of the queue), the
``pending`` items counting as submitted (their posts are on the way); ``POST
/api/annotate/label`` with ``{"item": REF, "chosen": {target: choice index}, "seconds":
s}`` saves the choices and submits the item; with ``"submit": false`` it only saves them
(each key's choice is posted the moment it is given, as the page's buttons save it);
``POST /api/annotate/act`` flags, notes or skips an item; ``POST /api/annotate/practice``
checks a study's practice item (``ui.annotation.practice``). They need the lane token the page handed
its own script (header ``X-Workbench-Lane``), the page's guard header, and the same
origin, like ``ui.session_routes``; the lane is checked against the sign-in behind it
and the user's current role (``Lanes.enter``), saves are rate-limited per lane (429 with
``Retry-After``), and a save's body is read only after all that, up to :data:`MAX_BODY`
bytes, with no database connection held while it arrives. The store is blocking: the
work runs in a thread, on one database connection for the whole request, and checks the
lane and the sign-in again there before it uses the body.

The page's script opens its panel on the first item only when :func:`served` says this
process serves the routes (``serve.py`` takes them through :func:`routes`); under
``streamlit run app.py`` it does not, and the page stays as it is.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from common.lazy import LazyModule
from ui.session_routes import refused_request

if TYPE_CHECKING:
    from annotation_store import AnnotatorInfo, ProjectInfo
    from ui.annotation.fast_lane import Lane

# The lane's modules (the store, the domain actions, pandas: about 0.8 s of CPU) load with
# the first request, in the thread that serves it, or earlier in the server's warm-up
# (``common.warmup``), not when serve.py is imported: the server answers that much sooner.
actions: Any = LazyModule("annotating.actions")
fast_lane: Any = LazyModule("ui.annotation.fast_lane")
practice: Any = LazyModule("ui.annotation.practice")
store_module: Any = LazyModule("annotation_store")

NEXT_ROUTE = "/api/annotate/next"
LABEL_ROUTE = "/api/annotate/label"
ACT_ROUTE = "/api/annotate/act"
PRACTICE_ROUTE = "/api/annotate/practice"
LANE_HEADER = "X-Workbench-Lane"
#: A save's body: a few choices and two numbers (a long fact list stays far below this).
MAX_BODY = 64 * 1024
#: Items a ``next`` request may count as on their way (the page has a few at most).
MAX_PENDING = 50
#: Time spent on one item, at most (seconds): a day.
MAX_SECONDS = 86_400
_SERVED = threading.Event()


def _next(
    lane: Lane, user: AnnotatorInfo, project: ProjectInfo, after: str, pending: list[str]
) -> dict[str, Any]:
    try:
        fast_lane.study_gate(lane.store, project, user)
    except fast_lane.LaneError:
        return {"item": None}  # the end of the lane: the page shows the study's next stage
    return {"item": fast_lane.lane_next(lane, project, user, after, pending)}


def _seconds(body: dict[str, Any], key: str) -> float | None:
    """A time in the body: absent, or a finite number from 0 to a day (not a boolean)."""
    value = body.get(key)
    if value is None:
        return None
    if type(value) not in (int, float) or not 0 <= value <= MAX_SECONDS:
        raise fast_lane.LaneError(f"{key} must be a number of seconds from 0 to {MAX_SECONDS}", 400)
    return float(value)


def _label(
    lane: Lane, user: AnnotatorInfo, project: ProjectInfo, body: dict[str, Any]
) -> dict[str, Any]:
    fast_lane.study_gate(lane.store, project, user)
    view = fast_lane.open_view(lane, project, user, str(body.get("item", "")))
    chosen = body.get("chosen") or {}
    if not isinstance(chosen, dict):
        raise fast_lane.LaneError("malformed request", 400)
    if body.get("submit", True) is False:
        ctx = fast_lane.choose(view, chosen)
        return {
            "saved": True,
            "submitted": False,
            "scores": fast_lane.live_scores(ctx),
            "asked": fast_lane.asked_keys(ctx),
        }
    seconds, active = _seconds(body, "seconds"), _seconds(body, "active_seconds")
    # the view was read in this request and the save updates it: the submit reads it no more
    actions.submit(fast_lane.choose(view, chosen), seconds, active, fresh=True)
    return {"saved": True}


def _act(
    lane: Lane, user: AnnotatorInfo, project: ProjectInfo, body: dict[str, Any]
) -> dict[str, Any]:
    fast_lane.study_gate(lane.store, project, user)
    view = fast_lane.open_view(lane, project, user, str(body.get("item", "")))
    return fast_lane.act_on(view, body)


def _practice(
    lane: Lane, user: AnnotatorInfo, project: ProjectInfo, body: dict[str, Any]
) -> dict[str, Any]:
    return practice.check(lane.store, project, user, body)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number here")


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read only up to :data:`MAX_BODY` bytes (413 beyond);
    ``NaN`` and ``Infinity`` are refused."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise fast_lane.LaneError(f"request body over {MAX_BODY} bytes", 413)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise fast_lane.LaneError(f"request body over {MAX_BODY} bytes", 413)
    try:
        body = json.loads(raw, parse_constant=_refuse_constant)
    except ValueError:  # bad JSON, a number too long to read, NaN / Infinity
        body = None
    if not isinstance(body, dict):
        raise fast_lane.LaneError("malformed request", 400)
    return body


def serve(token: str | None, work: Any, *args: Any) -> Any:
    """``work(lane, user, project, *args)`` once the lane of ``token`` and the sign-in
    behind it pass (``Lanes.enter``), the whole request on one database connection
    (``Store.one_connection``)."""
    return fast_lane.LANES.get(token).store.one_connection(_entered, token, work, *args)


def _the_lane(lane: Any, _user: Any, _project: Any) -> Any:
    return lane


def _entered(token: str | None, work: Any, *args: Any) -> Any:
    lane, user, project = fast_lane.LANES.enter(token)
    return work(lane, user, project, *args)


async def _answer(request: Request, work: Any, *args: Any, saves: bool = False) -> Response:
    """Run ``work(lane, user, project, *args)`` once the request passed every door, in order:
    the guard header and origin, the lane and the sign-in behind it, the save allowance
    and (for a save) the body, read last; the work runs in one thread on one database
    connection, the lane and sign-in checked again there (:func:`serve`)."""
    refused = refused_request(request)
    if refused is not None:
        return refused
    token = request.headers.get(LANE_HEADER)
    try:
        if saves:
            # The sign-in and role are checked before a byte of the body is read (a short
            # checkout of its own: no connection is held while the body arrives); the work
            # checks them again on its own connection, so a sign-out in between still wins.
            lane = await run_in_threadpool(serve, token, _the_lane)
            fast_lane.LANES.take_save(lane)
            args = (*args, await _body(request))
        return JSONResponse(await run_in_threadpool(serve, token, work, *args))
    except actions.ActionRefused as exc:  # the lane's refusals and the domain actions' alike
        retry = getattr(exc, "retry_after", None)
        wait = {"Retry-After": str(retry)} if retry else None
        return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=wait)
    except (
        store_module.StoreError,
        ValueError,
    ) as exc:  # refused by the store: say why, no retry helps
        return JSONResponse({"error": str(exc)}, status_code=409)


async def next_item(request: Request) -> Response:
    """The item after ``?after=`` as the browser draws it."""
    params = request.query_params
    pending = list(dict.fromkeys(params.getlist("pending")))
    if len(pending) > MAX_PENDING:
        return JSONResponse({"error": f"more than {MAX_PENDING} pending items"}, status_code=400)
    return await _answer(request, _next, params.get("after", ""), pending)


async def label_item(request: Request) -> Response:
    """Save the posted choices and (unless ``"submit": false``) submit the item."""
    return await _answer(request, _label, saves=True)


async def act_on_item(request: Request) -> Response:
    """Flag, note or skip the item (``{"item": REF, "action": ...}``, see ``fast_lane.act``)."""
    return await _answer(request, _act, saves=True)


async def check_practice(request: Request) -> Response:
    """Store the answer to a practice item and say whether it was right (``{"item":
    training id, "chosen": {target: choice index or value}}``, see ``practice.check``)."""
    return await _answer(request, _practice, saves=True)


ROUTES = [
    Route(NEXT_ROUTE, next_item, methods=["GET"]),
    Route(LABEL_ROUTE, label_item, methods=["POST"]),
    Route(ACT_ROUTE, act_on_item, methods=["POST"]),
    Route(PRACTICE_ROUTE, check_practice, methods=["POST"]),
]


def routes() -> list[Route]:
    """The fast lane's routes, for the server that serves them (see :func:`served`)."""
    _SERVED.set()
    return ROUTES


def served() -> bool:
    """True when this process serves the routes (the server took them via :func:`routes`)."""
    return _SERVED.is_set()
