"""Streamlit AppTest sessions of the workbench on a given database.

    at = open_app(monkeypatch, store.url, page="pages/audit.py", project="im")
    at.button(key="...").click().run()
    assert_ok(at)

``app_session`` gives a session not yet run (to set ``at.user`` or session state first);
``open_app`` runs it, goes to ``page`` and checks that nothing raised.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def app_session(
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    *,
    script: Callable[..., None] | None = None,
    args: tuple[Any, ...] | None = None,
    env: Mapping[str, str | None] | None = None,
    timeout: float = 60,
) -> AppTest:
    """A new browser session (as after a reload) of app.py, or of ``script`` called with
    ``args``, on the database at ``url``; not run yet.

    ``env`` sets more environment variables for the app; a ``None`` value unsets one. The
    app's cached store is dropped, so the session opens ``url``.
    """
    from streamlit import config

    import ui.context

    # The app shows users no error details (.streamlit/config.toml); a failing test
    # should show its developer the whole exception.
    monkeypatch.setattr(config, "get_option", _full_error_details(config.get_option))
    monkeypatch.setenv("WORKBENCH_DB_URL", url)
    for key, value in (env or {}).items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    ui.context.get_store.clear()
    if script is not None:
        return AppTest.from_function(script, default_timeout=timeout, args=args)
    return AppTest.from_file(APP, default_timeout=timeout)


def _full_error_details(get_option: Callable[[str], Any]) -> Callable[[str], Any]:
    def patched(key: str) -> Any:
        return "full" if key == "client.showErrorDetails" else get_option(key)

    return patched


def open_app(
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    *,
    page: str | None = None,
    project: str | None = None,
    query: Mapping[str, str] | None = None,
    user: Any = None,
    script: Callable[..., None] | None = None,
    args: tuple[Any, ...] | None = None,
    env: Mapping[str, str | None] | None = None,
    timeout: float = 60,
) -> AppTest:
    """``app_session`` run once: with ``?project=`` (and more ``query`` parameters), the
    signed-in ``user`` in session state, then switched to ``page``; no exception raised."""
    at = app_session(monkeypatch, url, script=script, args=args, env=env, timeout=timeout)
    if project is not None:
        at.query_params["project"] = project
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if user is not None:
        at.session_state["user"] = user
    at.run()
    if page is not None:
        at.switch_page(page).run()
    return assert_ok(at)


def assert_ok(at: AppTest) -> AppTest:
    """Fail with the exceptions' messages if the last run raised; else return ``at``."""
    assert not at.exception, [e.value for e in at.exception]
    return at


def rerun_until(at: AppTest, shown: Callable[[AppTest], bool], tries: int = 200) -> AppTest:
    """Rerun ``at`` (already run once), as a side panel's tick does, until ``shown(at)``: a
    panel's first draw does not wait for its figures, they are computed in the background."""
    for _ in range(tries):
        assert_ok(at)
        if shown(at):
            return at
        time.sleep(0.1)
        at.run()
    raise AssertionError(f"never shown; captions: {[str(c.value) for c in at.caption]}")


def panel_caption(text: str) -> Callable[[AppTest], bool]:
    """For :func:`rerun_until`: whether some caption of the run contains ``text``."""
    return lambda at: any(text in str(c.value) for c in at.caption)


def evaluator_panel_script(project: str, item_id: str) -> None:
    """An AppTest script: the evaluator panel of one item, for reviewer "rev" (the body runs
    on its own, so it imports what it uses)."""
    from ui.context import get_store
    from ui.evaluator_panel import evaluator_panel

    store = get_store()
    user = store.ensure_annotator("rev", role="reviewer")
    evaluator_panel(store.project(project), store.item(project, item_id), user)


def open_evaluator_panel(
    monkeypatch: pytest.MonkeyPatch, url: str, project: str, item_id: str
) -> AppTest:
    """A new session showing only the evaluator panel of ``item_id`` in ``project``."""
    return open_app(monkeypatch, url, script=evaluator_panel_script, args=(project, item_id))
