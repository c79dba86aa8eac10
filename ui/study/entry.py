"""Entry by a study link: the worker becomes the session's user, bound to one project."""

from __future__ import annotations

import streamlit as st

from annotation_store import AnnotatorInfo, Store
from crowd import workers as crowd
from ui.context import PROJECT_KEY, USER_KEY

CROWD_KEY = "_crowd_project"


def crowd_project() -> str | None:
    """The project this session's worker came for by a study link (None: not a worker)."""
    return st.session_state.get(CROWD_KEY)


def _refuse(message: str) -> None:
    st.error(message, icon=":material/block:")
    st.caption("Open the study from the link your study platform gave you.")
    st.stop()


SINGLE_MODE_REFUSAL = (
    "Study links do not work while the workbench runs in single sign-in mode: there, "
    "anyone who opens it is its admin. The researcher must start it in crowd (or local) "
    "sign-in mode."
)


def link_user(store: Store, mode: str) -> AnnotatorInfo | None:
    """The worker of a study link (created on the first visit), or None without a link.

    A bad link (no token, another project's token, no worker id), or any link while the
    sign-in ``mode`` is ``single``, is refused on the page and stops the run; nothing is
    stored.
    """
    user = st.session_state.get(USER_KEY)
    if crowd_project() and user is not None:
        st.session_state[PROJECT_KEY] = crowd_project()
        return user
    try:
        link = crowd.parse_link(st.query_params.to_dict())
        if link is None:
            return None
        if mode == "single":
            raise crowd.CrowdRefused(SINGLE_MODE_REFUSAL)
        user = crowd.enter(store, link, crowd_mode=mode == "crowd")
    except crowd.CrowdPreview as exc:
        st.info(str(exc), icon=":material/visibility:")
        st.stop()
        raise AssertionError("unreachable") from None
    except crowd.CrowdRefused as exc:
        _refuse(str(exc))
        raise AssertionError("unreachable") from None
    st.session_state[USER_KEY] = user
    st.session_state[CROWD_KEY] = link.project
    st.session_state[PROJECT_KEY] = link.project
    return user


def run_study_session(store: Store) -> None:
    """A worker's whole app: the study of their project, nothing else (no sidebar pages)."""
    from ui.study.flow import render_study

    def study_page() -> None:
        user = st.session_state[USER_KEY]
        render_study(store, store.project(crowd_project() or ""), user)

    page = st.navigation(
        [st.Page(study_page, title="Study", icon=":material/edit_note:", default=True)],
        position="hidden",
    )
    page.run()
    st.stop()
