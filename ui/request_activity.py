"""Count the HTTP requests the app server is answering, for ``common.run_gate``.

Background work waits while a browser fetches a page's scripts (about sixty files for a
fresh browser's first page, each answered by this process): on two cores a thread
importing modules or computing figures would slow every one of them down. Websockets are
not counted: a page's socket stays open as long as the page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.middleware import Middleware

from common import run_gate
from ui.frame_guard import ASGIApp, Message, Scope

Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class RequestActivity:
    """Pure ASGI middleware: each HTTP request counts from its start to its last byte."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        run_gate.request_started()
        try:
            await self.app(scope, receive, send)
        finally:
            run_gate.request_ended()


MIDDLEWARE = [Middleware(RequestActivity)]
