"""AppTest: the Home page's project table, and OIDC sign-in (``WORKBENCH_AUTH_MODE=oidc``).

How ``st.user`` is faked: the installed Streamlit's ``AppTest`` has a ``user`` dict that
each run hands to the script-run context as its user info, which is exactly what
``st.user`` reads (``streamlit.user_info._get_user_info``). So the tests set
``at.user = {"is_logged_in": ..., "email": ...}`` before ``run()``; nothing in the app is
monkeypatched. ``st.logout()`` in a run replaces ``at.user`` with
``{"is_logged_in": False}``, which the sign-out tests rely on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from annotation_store import Store, accounts

APP = str(Path(__file__).resolve().parent.parent / "app.py")

HOME_COLUMNS = [
    "project",
    "kind",
    "items",
    "annotators",
    "submitted labels",
    "drafts",
    "evaluator results",
]


def _app(monkeypatch: pytest.MonkeyPatch, store: Store, mode: str | None = None) -> AppTest:
    import ui.context

    monkeypatch.setenv("WORKBENCH_DB_URL", store.url)
    monkeypatch.setenv("WORKBENCH_JOBS_IN_APP", "0")  # no job worker thread
    if mode:
        monkeypatch.setenv("WORKBENCH_AUTH_MODE", mode)
    else:
        monkeypatch.delenv("WORKBENCH_AUTH_MODE", raising=False)
    ui.context.get_store.clear()
    return AppTest.from_file(APP, default_timeout=60)


def _label(item: str, who: str, value: int, status: str) -> dict:
    return {"item_id": item, "annotator": who, "field": "label", "value": value, "status": status}


def _two_projects(store: Store) -> None:
    # "beta" is created first so the table's name order is not just creation order.
    store.create_project("beta", "likert", {"min": 1, "max": 5})
    store.upsert_items(
        "beta", [{"item_id": f"b{i}", "fields": {"text": f"b {i}"}} for i in range(4)]
    )
    store.import_labels(
        "beta",
        [
            _label("b0", "cat", 4, "submitted"),
            _label("b1", "cat", 2, "draft"),
            _label("b2", "cat", 5, "draft"),
        ],
    )
    store.create_project("alpha", "binary")
    store.upsert_items(
        "alpha", [{"item_id": f"a{i}", "fields": {"text": f"a {i}"}} for i in range(3)]
    )
    store.import_labels(
        "alpha",
        [
            _label("a0", "ann", 1, "submitted"),
            _label("a1", "ann", 0, "submitted"),
            _label("a0", "bob", 1, "submitted"),
            _label("a2", "bob", 0, "draft"),
        ],
    )
    store.import_scores(
        "alpha",
        [
            {"item_id": i, "evaluator": "ext", "field": "score", "value": v, "run": 0}
            for i, v in (("a0", 0.9), ("a1", 0.2))
        ],
    )


def _captions(block) -> list[str]:
    return [c.value for c in block.caption]


# -- Home ---------------------------------------------------------------------------------


def test_home_lists_every_project_with_its_kind_and_counts(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _two_projects(store)
    at = _app(monkeypatch, store).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.main.title] == ["Metric-audit workbench"]
    frames = at.main.dataframe
    assert len(frames) == 1
    table = frames[0].value
    assert list(table.columns) == HOME_COLUMNS
    assert table.values.tolist() == [
        ["alpha", "Binary label", 3, 2, 3, 1, 2],
        ["beta", "Likert scale", 4, 1, 1, 2, 0],
    ]
    # Single-user mode signs in as admin, and the picker defaults to the first project.
    assert "Signed in as **admin** (admin)" in _captions(at.sidebar)
    assert at.sidebar.selectbox(key="_project_picker").options == ["alpha", "beta"]
    assert [s.value for s in at.main.subheader] == ["Projects", "Continue with alpha"]


def test_home_without_projects_says_so_and_shows_no_table(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    at = _app(monkeypatch, store).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.main.dataframe) == 0
    assert len(at.info) == 1 and at.info[0].value.startswith("No projects yet.")


# -- OIDC sign-in -------------------------------------------------------------------------


def test_oidc_logged_out_shows_only_the_sign_in_button(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _two_projects(store)
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    at = _app(monkeypatch, store, "oidc")
    at.user = {"is_logged_in": False}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [b.label for b in at.button] == ["Sign in"]
    assert "user" not in at.session_state
    # Nothing of the app: no sidebar at all (no project picker, no pages, no "Signed in
    # as"), no Home page; the picker never ran, so no project is chosen either.
    assert len(at.sidebar.children) == 0
    assert len(at.selectbox) == 0
    assert len(at.title) == 0 and len(at.dataframe) == 0
    assert "project" not in at.session_state
    assert [m.value for m in at.main.markdown] == [
        "### Metric-audit workbench",
        "Sign in with your organisation account.",
    ]


def test_oidc_registered_email_signs_in_as_that_user(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _two_projects(store)
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    accounts.add_user(store, "other", "admin", email="other@lab.org")
    at = _app(monkeypatch, store, "oidc")
    # Case differs from the registered address: the match is case-insensitive.
    at.user = {"is_logged_in": True, "email": "Ana@Lab.org", "email_verified": True}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["user"].name == "ana"
    assert at.session_state["user"].role == "reviewer"
    assert "Signed in as **ana** (reviewer)" in _captions(at.sidebar)
    assert at.sidebar.button(key="sign_out").label == "Sign out"
    assert "Sign in" not in [b.label for b in at.button]
    assert len(at.warning) == 0
    # The app itself runs: project picker and the Home table.
    assert at.sidebar.selectbox(key="_project_picker").value == "alpha"
    assert [t.value for t in at.main.title] == ["Metric-audit workbench"]
    assert at.main.dataframe[0].value["project"].tolist() == ["alpha", "beta"]

    # Signing out clears the app's user and logs out of the provider. AppTest reruns the
    # page the session was on (Home), which must now refuse; the browser goes back to the
    # app's root after a logout, where the sign-in button is shown again.
    at.sidebar.button(key="sign_out").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.user == {"is_logged_in": False}
    assert "user" not in at.session_state
    assert [e.value for e in at.error] == ["Not signed in."]
    assert len(at.dataframe) == 0 and len(at.title) == 0
    at.switch_page("app.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [b.label for b in at.button] == ["Sign in"]
    assert len(at.sidebar.children) == 0


def test_oidc_unregistered_email_is_warned_and_stopped(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _two_projects(store)
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    at = _app(monkeypatch, store, "oidc")
    at.user = {"is_logged_in": True, "email": "stranger@lab.org", "email_verified": True}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.warning) == 1
    warning = at.warning[0].value
    assert "**stranger@lab.org**" in warning
    assert "not registered in the workbench" in warning
    assert [b.label for b in at.button] == ["Sign out"]
    assert "user" not in at.session_state
    # The run stopped: no sidebar, no picker, no Home page.
    assert len(at.sidebar.children) == 0
    assert len(at.selectbox) == 0
    assert len(at.title) == 0 and len(at.dataframe) == 0

    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.user == {"is_logged_in": False}
    assert [b.label for b in at.button] == ["Sign in"]
    assert len(at.warning) == 0


def test_oidc_unverified_email_of_a_registered_user_is_not_signed_in(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    accounts.add_user(store, "ana", "admin", email="ana@lab.org")
    at = _app(monkeypatch, store, "oidc")
    at.user = {"is_logged_in": True, "email": "ana@lab.org", "email_verified": False}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "user" not in at.session_state
    assert len(at.warning) == 1 and "**ana@lab.org**" in at.warning[0].value
    assert len(at.sidebar.children) == 0


def test_home_opened_directly_while_signed_out_shows_no_projects(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    """Until some session has run ``st.navigation`` (a fresh server; every AppTest run),
    Streamlit routes the ``pages/`` folder, so ``/home`` runs ``pages/home.py`` without
    app.py's sign-in. Home must not list the projects to a signed-out visitor."""
    _two_projects(store)
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    # A new session opening /home (a bookmark): forwarded through app.py's sign-in.
    fresh = _app(monkeypatch, store, "oidc")
    fresh.user = {"is_logged_in": False}
    fresh.switch_page("pages/home.py").run()
    assert not fresh.exception, [e.value for e in fresh.exception]
    assert [b.label for b in fresh.button] == ["Sign in"]
    assert len(fresh.dataframe) == 0 and len(fresh.title) == 0
    # A session at the sign-in screen going to Home (the pages-folder sidebar): refused.
    at = _app(monkeypatch, store, "oidc")
    at.user = {"is_logged_in": False}
    at.run()
    at.switch_page("pages/home.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == ["Not signed in."]
    assert len(at.dataframe) == 0 and len(at.title) == 0
    assert "user" not in at.session_state


def _auth_script() -> None:
    import streamlit as st

    from ui.auth import authenticate
    from ui.context import get_store

    st.write(f"user {authenticate(get_store()).name}")


def test_oidc_logout_elsewhere_ends_the_app_session(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    """Each browser rerun passes app.py's authenticate(); AppTest reruns only the page
    after navigation, so authenticate is driven on its own here."""
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    _app(monkeypatch, store, "oidc")  # environment and a fresh store
    at = AppTest.from_function(_auth_script, default_timeout=60)
    at.user = {"is_logged_in": True, "email": "ana@lab.org", "email_verified": True}
    at.run()
    assert [m.value for m in at.markdown] == ["user ana"]
    at.user = {"is_logged_in": False}  # the provider session ended (another tab, expiry)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "user" not in at.session_state
    assert [b.label for b in at.button] == ["Sign in"]
    assert "user ana" not in [m.value for m in at.markdown]
