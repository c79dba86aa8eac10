"""Anti-framing headers (issue 24 point 4): every response of the app server says who may
frame it (itself and MTurk's HIT frame), and the real server sends them."""

from __future__ import annotations

import urllib.request

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from ui.frame_guard import MIDDLEWARE

FRAMING = "frame-ancestors 'self' https://www.mturk.com https://workersandbox.mturk.com"


def test_every_response_carries_the_anti_framing_headers() -> None:
    async def page(_request: object) -> PlainTextResponse:
        return PlainTextResponse("hello")

    client = TestClient(Starlette(routes=[Route("/", page)], middleware=MIDDLEWARE))
    for path in ("/", "/missing"):
        response = client.get(path)
        assert FRAMING in response.headers["content-security-policy"].split("; ")
        assert response.headers["x-frame-options"] == "SAMEORIGIN"


@pytest.mark.e2e
def test_the_running_app_sends_them(sqlite_url: str) -> None:
    from tests.e2e.harness import running_app

    with running_app(sqlite_url) as app:
        for path in ("/", "/_stcore/health"):
            with urllib.request.urlopen(app.url + path, timeout=30) as response:
                assert FRAMING in response.headers["Content-Security-Policy"].split("; ")
                assert response.headers["X-Frame-Options"] == "SAMEORIGIN"
