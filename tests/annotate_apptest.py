"""AppTest helpers for the Annotate page: a fresh app session on a given database."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import AnnotatorInfo
from tests.support.apptest import assert_ok, open_app
from ui.annotation.context import widget_token


def open_annotate(
    monkeypatch: pytest.MonkeyPatch,
    db_url: str,
    project: str,
    user: AnnotatorInfo | None = None,
    item: str | None = None,
) -> AppTest:
    """A new browser session (as after a reload) on the Annotate page."""
    return open_app(
        monkeypatch,
        db_url,
        page="pages/annotate.py",
        project=project,
        query={"item": item} if item else None,
        user=user,
    )


def click(at: AppTest, key: str) -> AppTest:
    """Click the button with ``key`` and rerun."""
    return assert_ok(at.button(key=key).click().run())


def chosen(at: AppTest, project: str, item: str, target: str) -> list[str]:
    """Values of the highlighted (saved) option buttons of one target."""
    prefix = f"opt::{widget_token(project, item)}::{target}::"
    return [
        b.key.rsplit("::", 1)[1]
        for b in at.button
        if (b.key or "").startswith(prefix) and b.proto.type == "primary"
    ]


def open_side_expander(at: AppTest, key: str) -> AppTest:
    """Open one of the side column's expanders (they draw their content only when open)."""
    at.session_state[key] = True
    return assert_ok(at.run())
