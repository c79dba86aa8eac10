"""No outside loads from data (issue 37 point 6): Markdown from items and kind texts is
drawn without images, a link field as exactly one link, and every response carries a
Content-Security-Policy that allows only the app itself and ``data:``. Rendered here with
markdown-it (CommonMark, as Streamlit's renderer) and checked on the HTML it makes."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from ui.annotation.widgets import _plain, linkify
from ui.frame_guard import MIDDLEWARE
from ui.safe_markdown import no_images, one_link

RENDER = MarkdownIt("commonmark").render
INJECTED_LINK = "https://ok.example/a\n\n![b][r]\n\n[r]: http://evil.example/ref.png"


@pytest.mark.parametrize(
    "text",
    [
        "Look ![pixel](http://evil.example/p.png) here",
        "![ref image][r]\n\n[r]: http://evil.example/r.png",
        "![r]\n\n[r]: http://evil.example/r.png",
        "[![nested](http://evil.example/n.png)](http://ok.example)",
        "![data](data:image/png;base64,AAAA) and ![alt](//evil.example/x.png)",
    ],
)
def test_markdown_from_data_draws_no_image(text: str) -> None:
    assert "<img" in RENDER(text)  # as it was drawn before
    assert "<img" not in RENDER(no_images(text))
    assert "<img" not in RENDER(linkify(text))  # item text with its bare URLs as links


def test_code_keeps_its_text() -> None:
    text = "Use `![x](y)` or\n\n```\n![z](w)\n```\n"
    assert no_images(text) == text


def test_a_link_field_is_exactly_one_link() -> None:
    before = f"[{_plain(INJECTED_LINK)}]({INJECTED_LINK.replace(')', '%29')})"
    assert "<img" in RENDER(before) or RENDER(before).count("<a ") != 1  # the old drawing
    link = one_link(_plain(INJECTED_LINK), INJECTED_LINK)
    assert link is not None and "\n" not in link
    html = RENDER(link)
    assert html.count("<a ") == 1 and "<img" not in html
    assert 'href="https://ok.example/a%0A%0A!%5Bb%5D%5Br%5D%0A%0A%5Br%5D:%20http' in html
    assert one_link("x", "javascript:alert(1)") is None


def test_every_source_list_allows_only_the_app_and_data() -> None:
    async def page(_request: object) -> PlainTextResponse:
        return PlainTextResponse("hello")

    client = TestClient(Starlette(routes=[Route("/", page)], middleware=MIDDLEWARE))
    policy = client.get("/").headers["content-security-policy"]
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    assert directives["default-src"] == "'self'"
    assert directives["img-src"] == "'self' data:"
    for name, sources in directives.items():
        hosts = [s for s in sources.split() if not s.startswith("'") and s != "data:"]
        if name == "script-src":  # the page's own v2 components (ui.active_time)
            assert hosts == ["blob:"]
            continue
        if name in ("frame-ancestors", "form-action"):  # MTurk frames a study, takes its HIT
            assert hosts == ["https://www.mturk.com", "https://workersandbox.mturk.com"]
        else:
            assert hosts == [], name
