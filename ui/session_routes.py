"""Starlette routes that set and clear the HttpOnly session cookie (no Streamlit here).

``POST /auth/session`` trades a single-use ticket (``common.tickets.TICKETS``) for the
session token it stands for and answers with ``Set-Cookie: ...; HttpOnly;
SameSite=Strict`` (``Secure`` over HTTPS). ``POST /auth/signout`` clears the cookie (the
sign-out itself revoked the session on the server). Both refuse requests without the
page's guard header or from another origin.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from common.tickets import TICKETS
from ui.session_cookie import (
    COOKIE,
    GUARD_HEADER,
    MAX_AGE_S,
    SESSION_ROUTE,
    SIGN_OUT_ROUTE,
    is_https,
)


def refused_request(request: Request) -> Response | None:
    """A 403 for requests the workbench page did not send itself."""
    if request.headers.get(GUARD_HEADER) != "1":
        return PlainTextResponse("missing the workbench header", status_code=403)
    origin = request.headers.get("origin")
    hosts = {request.headers.get("host"), request.headers.get("x-forwarded-host")}
    if origin and urlsplit(origin).netloc not in hosts:  # a proxy may rewrite Host
        return PlainTextResponse("cross-origin request refused", status_code=403)
    return None


def _secure(request: Request) -> bool:
    return is_https(str(request.url), dict(request.headers))


async def open_session(request: Request) -> Response:
    """Trade a ticket for the HttpOnly session cookie."""
    refused = refused_request(request)
    if refused is not None:
        return refused
    try:
        body = await request.json()
    except ValueError:
        body = None
    token = TICKETS.redeem(body.get("ticket") if isinstance(body, dict) else None)
    if token is None:
        return PlainTextResponse("unknown, used or expired ticket", status_code=403)
    response = Response(status_code=204)
    response.set_cookie(
        COOKIE,
        token,
        max_age=MAX_AGE_S,
        path="/",
        secure=_secure(request),
        httponly=True,
        samesite="strict",
    )
    return response


async def close_session(request: Request) -> Response:
    """Clear the session cookie (the session was revoked by the sign-out)."""
    refused = refused_request(request)
    if refused is not None:
        return refused
    response = Response(status_code=204)
    response.delete_cookie(
        COOKIE, path="/", secure=_secure(request), httponly=True, samesite="strict"
    )
    return response


ROUTES = [
    Route(SESSION_ROUTE, open_session, methods=["POST"]),
    Route(SIGN_OUT_ROUTE, close_session, methods=["POST"]),
]
