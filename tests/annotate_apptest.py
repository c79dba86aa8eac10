"""AppTest helpers for the Annotate page: a fresh app session on a given database."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import AnnotatorInfo

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_annotate(
    monkeypatch: pytest.MonkeyPatch,
    db_url: str,
    project: str,
    user: AnnotatorInfo | None = None,
    item: str | None = None,
) -> AppTest:
    """A new browser session (as after a reload) on the Annotate page."""
    import ui.context

    monkeypatch.setenv("WORKBENCH_DB_URL", db_url)
    ui.context.get_store.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["project"] = project
    if item:
        at.query_params["item"] = item
    if user is not None:
        at.session_state["user"] = user
    at.run()
    at.switch_page("pages/annotate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def click(at: AppTest, key: str) -> AppTest:
    """Click the button with ``key`` and rerun."""
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def chosen(at: AppTest, item: str, target: str) -> list[str]:
    """Values of the highlighted (saved) option buttons of one target."""
    prefix = f"opt::{item}::{target}::"
    return [
        b.key.rsplit("::", 1)[1]
        for b in at.button
        if (b.key or "").startswith(prefix) and b.proto.type == "primary"
    ]
