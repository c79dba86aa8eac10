"""The project a visit opens on: asked for, else the browser's last one, else the README's."""

from __future__ import annotations

from ui.last_project import COOKIE, remember_script
from ui.page_index import FIRST_PROJECT, default_project

NAMES = ["a-first", FIRST_PROJECT, "mine"]


def test_asked_for_then_last_used_then_the_readmes_then_the_first() -> None:
    assert default_project(NAMES, "a-first", "mine") == "a-first"  # session or link
    assert default_project(NAMES, None, "mine") == "mine"  # this browser's last project
    assert default_project(NAMES, "gone", "also-gone") == FIRST_PROJECT
    assert default_project(["b", "a"], None, None) == "b"
    assert default_project([], None, "mine") is None


def test_the_cookie_script_quotes_the_name() -> None:
    script = remember_script('x</script>"y')
    assert f'document.cookie = \'{COOKIE}=\' + encodeURIComponent("x<\\/script>\\"y")' in script
    assert "</script>" not in script.removesuffix("</script>")
    assert remember_script(None) == ""
