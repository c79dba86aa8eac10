"""Anti-framing and content-security headers on every HTTP response of the app server
(``serve.py``).

Another site must not show the workbench in a frame (clickjacking a signed-in admin).
MTurk shows a study inside the HIT's frame, so its two hosts may frame the app; modern
browsers follow ``Content-Security-Policy: frame-ancestors`` and ignore
``X-Frame-Options`` when both are sent, older ones fall back to same-origin only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.middleware import Middleware

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]

#: MTurk's two hosts (production, sandbox): they frame a study, and a study's last page
#: posts the finished assignment to one of them.
MTURK = "https://www.mturk.com https://workersandbox.mturk.com"
#: Who may frame the app: itself and MTurk, nobody else.
FRAME_ANCESTORS = f"'self' {MTURK}"
#: Where a page may load anything from: the app itself, and ``data:`` for images, fonts
#: and media; no outside host (an image in an item's Markdown would tell that host who
#: opened the item). Streamlit's page needs inline scripts and styles and ``eval``, and
#: its v2 components (``ui.active_time``) load their script from a ``blob:`` the page
#: makes itself.
POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "media-src 'self' data:",
        "connect-src 'self'",
        "frame-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        f"form-action 'self' {MTURK}",
        f"frame-ancestors {FRAME_ANCESTORS}",
    )
)
HEADERS = (
    (b"content-security-policy", POLICY.encode()),
    (b"x-frame-options", b"SAMEORIGIN"),
)


class FrameGuard:
    """Pure ASGI middleware: add :data:`HEADERS` to each HTTP response (streams and
    websockets pass untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_guarded)


MIDDLEWARE = [Middleware(FrameGuard)]
