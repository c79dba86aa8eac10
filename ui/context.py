"""What every page needs: the shared store, the current project and the signed-in user."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlparse

import streamlit as st

from annotation_store import AnnotatorInfo, ProjectInfo, Store, StoreError

PROJECT_KEY = "project"
USER_KEY = "user"
ENTRY_KEY = "_entrypoint_ran"
DEEP_LINK_KEY = "_deep_link"


def ensure_entrypoint() -> None:
    """Send a page that runs without app.py (sign-in, sidebar) through app.py.

    This only happens on a fresh server: until some session has run ``st.navigation``,
    Streamlit still routes the ``pages/`` folder, so a bookmarked ``/annotate`` runs the
    page script alone. The page is remembered and app.py forwards to it.
    """
    if st.session_state.get(ENTRY_KEY):
        return
    remember_deep_link()
    st.switch_page("app.py", query_params=st.query_params.to_dict())


def remember_deep_link() -> None:
    """Keep the page the browser's address names, for :func:`forward_deep_link`: a
    bookmarked page opened while signed out is where sign-in lands."""
    path = urlparse(st.context.url or "").path.strip("/").split("/")[-1]
    if path and path not in ("app", "home"):
        st.session_state.setdefault(DEEP_LINK_KEY, path)


def forward_deep_link(pages: Iterable[Any]) -> None:
    """In app.py, after navigation: go on to the page (``st.Page``) a deep link asked for.

    A page the user may not open (by role) is a hidden stand-in in ``pages`` that says so.
    """
    target = st.session_state.pop(DEEP_LINK_KEY, None)
    for page in pages:
        if target and page.url_path == target:
            st.switch_page(page, query_params=st.query_params.to_dict())


@st.cache_resource(show_spinner=False)
def get_store() -> Store:
    """One Store (engine and pool) per server process, shared by every session."""
    return Store()


def current_project() -> ProjectInfo | None:
    """The project picked in the sidebar, or None."""
    ensure_entrypoint()
    name = st.session_state.get(PROJECT_KEY)
    if not name:
        return None
    try:
        return get_store().project(name)
    except StoreError:
        return None


def require_project() -> ProjectInfo:
    """The current project; stops the page with a hint when none is picked."""
    project = current_project()
    if project is None:
        st.info("Pick a project in the sidebar, or create one on the **Data** page.")
        st.stop()
    return project


def current_user() -> AnnotatorInfo:
    """The signed-in annotator (set by ``ui.auth.authenticate`` before any page runs)."""
    ensure_entrypoint()
    user = st.session_state.get(USER_KEY)
    if user is None:
        st.error("Not signed in.")
        st.stop()
    return user


def has_role(*roles: str) -> bool:
    """True when the signed-in user has one of ``roles``."""
    ensure_entrypoint()  # a page opened straight from a bookmark goes through sign-in
    user = st.session_state.get(USER_KEY)
    return user is not None and user.role in roles
