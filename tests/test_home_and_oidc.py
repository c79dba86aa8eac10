"""AppTest: the Home page's project table, and OIDC sign-in (``WORKBENCH_AUTH_MODE=oidc``).

How ``st.user`` is faked: the installed Streamlit's ``AppTest`` has a ``user`` dict that
each run hands to the script-run context as its user info, which is exactly what
``st.user`` reads (``streamlit.user_info._get_user_info``). So the tests set
``at.user = {"is_logged_in": ..., "email": ...}`` (``_provider_user``) before ``run()``;
nothing in the app is monkeypatched. ``st.logout()`` in a run replaces ``at.user`` with
``{"is_logged_in": False}``, which the sign-out tests rely on.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from accounts import users as accounts
from annotation_store import Store
from tests.support.apptest import app_session, assert_ok

HOME_COLUMNS = [
    "project",
    "kind",
    "items",
    "complete items",
    "annotators",
    "submissions",
    "answers",
    "drafts",
    "evaluator results",
]


def _app(
    monkeypatch: pytest.MonkeyPatch,
    store: Store,
    mode: str | None = None,
    script: Callable[[], None] | None = None,
) -> AppTest:
    """A session of app.py (or ``script``), not run yet."""
    env = {
        "WORKBENCH_JOBS_IN_APP": "0",  # no job worker thread
        "WORKBENCH_AUTH_MODE": mode,  # None: the default, single-user sign-in
    }
    return app_session(monkeypatch, store.url, script=script, env=env)


def _provider_user(email: str | None = None, verified: bool = True) -> dict:
    """``st.user`` as the OIDC provider leaves it: signed out, or signed in as ``email``."""
    if email is None:
        return {"is_logged_in": False}
    return {"is_logged_in": True, "email": email, "email_verified": verified}


def _oidc(
    monkeypatch: pytest.MonkeyPatch, store: Store, email: str | None = None, verified: bool = True
) -> AppTest:
    """An OIDC session run once with the provider's user (signed out without ``email``)."""
    at = _app(monkeypatch, store, "oidc")
    at.user = _provider_user(email, verified)
    return assert_ok(at.run())


def _project(
    store: Store,
    name: str,
    kind: str,
    settings: dict | None,
    items: int,
    labels: list[tuple[str, str, int, str]],
) -> None:
    """Project ``name`` with items ``<n>0``, ``<n>1`` ... (n its first letter) and labels
    given as (item, annotator, value, status)."""
    store.create_project(name, kind, settings)
    store.upsert_items(
        name,
        [{"item_id": f"{name[0]}{i}", "fields": {"text": f"{name[0]} {i}"}} for i in range(items)],
    )
    store.import_labels(
        name,
        [
            {"item_id": item, "annotator": who, "field": "label", "value": value, "status": status}
            for item, who, value, status in labels
        ],
    )


def _two_projects(store: Store) -> None:
    # "beta" is created first so the table's name order is not just creation order.
    beta_labels = [
        ("b0", "cat", 4, "submitted"),
        ("b1", "cat", 2, "draft"),
        ("b2", "cat", 5, "draft"),
    ]
    _project(store, "beta", "likert", {"min": 1, "max": 5}, 4, beta_labels)
    alpha_labels = [
        ("a0", "ann", 1, "submitted"),
        ("a1", "ann", 0, "submitted"),
        ("a0", "bob", 1, "submitted"),
        ("a2", "bob", 0, "draft"),
    ]
    _project(store, "alpha", "binary", None, 3, alpha_labels)
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
    at = assert_ok(_app(monkeypatch, store).run())
    assert [t.value for t in at.main.title] == ["Metric-audit workbench"]
    frames = at.main.table
    assert len(frames) == 1
    table = frames[0].value
    assert list(table.columns) == HOME_COLUMNS
    assert table.values.tolist() == [
        ["alpha", "Binary label", 3, "0 / 3", 2, 3, 3, 1, 2],
        ["beta", "Likert scale", 4, "0 / 4", 1, 1, 1, 2, 0],
    ]
    # Single-user mode signs in as admin, and the picker defaults to the first project.
    assert "Signed in as **admin** (admin)" in _captions(at.sidebar)
    assert at.sidebar.selectbox(key="_project_picker").options == ["alpha", "beta"]
    assert [s.value for s in at.main.subheader] == ["Projects", "Continue with alpha"]


def test_home_counts_progress_once_per_data_version(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    """Home's complete items and submissions are counted once per project and data
    version (at 10,000 items a count reads every label); a new submission counts again."""
    from studies import assignments

    _two_projects(store)
    calls: list[str] = []
    real = assignments.project_progress

    def counting(st_store, project):
        calls.append(project)
        return real(st_store, project)

    monkeypatch.setattr(assignments, "project_progress", counting)
    at = _app(monkeypatch, store)
    at.run()
    assert sorted(calls) == ["alpha", "beta"]
    assert_ok(at.run())
    assert sorted(calls) == ["alpha", "beta"], "same data: the counts are reused"
    store.import_labels(
        "alpha",
        [
            {
                "item_id": "a1",
                "annotator": "bob",
                "field": "label",
                "value": 0,
                "status": "submitted",
            }
        ],
    )
    assert_ok(at.run())
    assert sorted(calls) == ["alpha", "alpha", "beta"]
    row = at.main.table[0].value.set_index("project").loc["alpha"]
    assert (row["complete items"], row["submissions"]) == ("0 / 3", 4)


def test_home_without_projects_says_so_and_shows_no_table(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    at = assert_ok(_app(monkeypatch, store).run())
    assert len(at.main.table) == 0
    assert len(at.info) == 1 and at.info[0].value.startswith("No projects yet.")


# -- OIDC sign-in -------------------------------------------------------------------------


def test_oidc_logged_out_shows_only_the_sign_in_button(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _two_projects(store)
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    at = _oidc(monkeypatch, store)
    assert [b.label for b in at.button] == ["Sign in"]
    assert "user" not in at.session_state
    # Nothing of the app: no sidebar at all (no project picker, no pages, no "Signed in
    # as"), no Home page; the picker never ran, so no project is chosen either.
    assert len(at.sidebar.children) == 0
    assert len(at.selectbox) == 0
    assert len(at.title) == 0 and len(at.table) == 0
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
    # Case differs from the registered address: the match is case-insensitive.
    at = _oidc(monkeypatch, store, "Ana@Lab.org")
    assert at.session_state["user"].name == "ana"
    assert at.session_state["user"].role == "reviewer"
    assert "Signed in as **ana** (reviewer)" in _captions(at.sidebar)
    assert at.sidebar.button(key="sign_out").label == "Sign out"
    assert "Sign in" not in [b.label for b in at.button]
    assert len(at.warning) == 0
    # The app itself runs: project picker and the Home table.
    assert at.sidebar.selectbox(key="_project_picker").value == "alpha"
    assert [t.value for t in at.main.title] == ["Metric-audit workbench"]
    assert at.main.table[0].value["project"].tolist() == ["alpha", "beta"]

    # Signing out clears the app's user and logs out of the provider. AppTest reruns the
    # page the session was on (Home), which must now refuse; the browser goes back to the
    # app's root after a logout, where the sign-in button is shown again.
    assert_ok(at.sidebar.button(key="sign_out").click().run())
    assert at.user == {"is_logged_in": False}
    assert "user" not in at.session_state
    assert [e.value for e in at.error] == ["Not signed in."]
    assert len(at.table) == 0 and len(at.title) == 0
    assert_ok(at.switch_page("app.py").run())
    assert [b.label for b in at.button] == ["Sign in"]
    assert len(at.sidebar.children) == 0


def test_oidc_unregistered_email_is_warned_and_stopped(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _two_projects(store)
    accounts.add_user(store, "ana", "reviewer", email="ana@lab.org")
    at = _oidc(monkeypatch, store, "stranger@lab.org")
    assert len(at.warning) == 1
    warning = at.warning[0].value
    assert "**stranger@lab.org**" in warning
    assert "not registered in the workbench" in warning
    assert [b.label for b in at.button] == ["Sign out"]
    assert "user" not in at.session_state
    # The run stopped: no sidebar, no picker, no Home page.
    assert len(at.sidebar.children) == 0
    assert len(at.selectbox) == 0
    assert len(at.title) == 0 and len(at.table) == 0

    assert_ok(at.button[0].click().run())
    assert at.user == {"is_logged_in": False}
    assert [b.label for b in at.button] == ["Sign in"]
    assert len(at.warning) == 0


def test_oidc_unverified_email_of_a_registered_user_is_not_signed_in(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    accounts.add_user(store, "ana", "admin", email="ana@lab.org")
    at = _oidc(monkeypatch, store, "ana@lab.org", verified=False)
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
    fresh.user = _provider_user()
    assert_ok(fresh.switch_page("pages/home.py").run())
    assert [b.label for b in fresh.button] == ["Sign in"]
    assert len(fresh.table) == 0 and len(fresh.title) == 0
    # A session at the sign-in screen going to Home (the pages-folder sidebar): refused.
    at = _oidc(monkeypatch, store)
    assert_ok(at.switch_page("pages/home.py").run())
    assert [e.value for e in at.error] == ["Not signed in."]
    assert len(at.table) == 0 and len(at.title) == 0
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
    at = _app(monkeypatch, store, "oidc", script=_auth_script)
    at.user = _provider_user("ana@lab.org")
    at.run()
    assert [m.value for m in at.markdown] == ["user ana"]
    at.user = _provider_user()  # the provider session ended (another tab, expiry)
    assert_ok(at.run())
    assert "user" not in at.session_state
    assert [b.label for b in at.button] == ["Sign in"]
    assert "user ana" not in [m.value for m in at.markdown]


def test_home_opens_on_the_readme_project_and_says_what_each_page_is_for(
    monkeypatch: pytest.MonkeyPatch, demo: str
) -> None:
    store = Store(demo)
    at = assert_ok(_app(monkeypatch, store).run())
    # alphabetically demo-actionability comes first; the README's tour starts here
    assert at.sidebar.selectbox(key="_project_picker").value == "demo-intent-match"
    guide = next(e for e in at.main.expander if e.label.startswith("Where to start"))
    text = guide.markdown[0].value
    assert "- **Agreement**: how far people agree" in text
    assert "- **Audit**: the items where an evaluator and people part ways" in text
    assert "**Home**" not in text
    assert any("is **complete** once k people" in c for c in _captions(at.main))
    store.close()
