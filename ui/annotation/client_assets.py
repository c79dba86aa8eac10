"""The annotation client's files (``ui/annotation/client/*.js`` and ``*.css``) in the page.

The JavaScript and CSS live in files (linted by eslint and unit-tested under node: ``make
test``). ``serve.py`` serves them from the app itself (:func:`routes`, under
:data:`ROUTE`), so a Content-Security-Policy of ``script-src 'self'`` admits them; each
run of the page inserts a ``<script src=...>`` with that run's state as JSON in its
``data-config`` attribute (the script reads ``document.currentScript``). Under ``streamlit
run app.py`` nothing serves them: a classic script's text is then put in the element
itself (the panel, a module, needs the routes and does not open there).
"""

from __future__ import annotations

import html
import json
import threading
from functools import cache
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

CLIENT_DIR = Path(__file__).parent / "client"
ROUTE = "/annotate-client"
MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
_SERVED = threading.Event()


@cache
def files() -> dict[str, Path]:
    """The files the route serves: the client directory's scripts and styles, by name."""
    return {p.name: p for p in sorted(CLIENT_DIR.iterdir()) if p.suffix in MEDIA_TYPES}


def url(name: str) -> str:
    """Where the page loads the client file ``name``."""
    if name not in files():
        raise KeyError(f"no client file {name!r}")
    return f"{ROUTE}/{name}"


def text(name: str) -> str:
    """The text of the client file ``name``."""
    return files()[name].read_text(encoding="utf-8")


def config_attribute(config: dict[str, Any]) -> str:
    """``config`` as JSON for a ``data-config`` attribute (no item text can end the
    attribute or look like markup to the page's HTML sanitizer)."""
    as_json = json.dumps(config).replace("<", "\\u003c").replace(">", "\\u003e")
    return html.escape(as_json.replace("&", "\\u0026"), quote=True)


def script(name: str, config: dict[str, Any], run_id: str, **data: str) -> str:
    """A ``<script>`` element that runs the client file ``name`` with ``config``;
    ``run_id`` makes each new state a new element (so it runs again)."""
    attrs = f'data-config="{config_attribute(config)}" data-run="{html.escape(run_id)}"'
    for key, value in data.items():
        attrs += f' data-{key}="{html.escape(value, quote=True)}"'
    if served():
        return f'<script src="{url(name)}" {attrs}></script>'
    return f"<script {attrs}>{text(name)}</script>"


async def client_file(request: Request) -> Response:
    """One client file (``GET /annotate-client/NAME``); anything else is a 404."""
    path = files().get(request.path_params["name"])
    if path is None:
        return PlainTextResponse("not found", status_code=404)
    # no-cache: revalidated each load (a redeploy is seen at once; unchanged files are 304s)
    return FileResponse(
        path, media_type=MEDIA_TYPES[path.suffix], headers={"Cache-Control": "no-cache"}
    )


def routes() -> list[Route]:
    """The client files' route, for the server that serves it (``serve.py``)."""
    _SERVED.set()
    return [Route(ROUTE + "/{name}", client_file, methods=["GET"])]


def served() -> bool:
    """True when this process serves the client files (the server took :func:`routes`)."""
    return _SERVED.is_set()
