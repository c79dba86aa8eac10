"""The evaluator side panel on the item in view (Annotate and Audit pages).

Lists the evaluators that apply to the project's kind, says why one cannot run here,
runs one on this item with one click (synchronously: one item is short) and shows the
newest stored result per evaluator at once, without re-running anything.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

import streamlit as st

from annotation_store import AnnotatorInfo, ItemRecord, ProjectInfo, Store
from annotation_store.label_frames import labels_by_annotator
from audit.analysis import latest_results
from evaluators.base import NotConfiguredError
from evaluators.registry import create_evaluator, evaluators_for_kind, get_evaluator_class
from jobs.runner import build_context, run_evaluator
from studies.assignments import annotation_settings
from ui.audit.result_view import render_result
from ui.context import get_store

REVIEW_ROLES = ("admin", "reviewer")


def visible_labels(
    store: Store, project: ProjectInfo, item: ItemRecord, user: AnnotatorInfo
) -> dict[str, dict[str, Any]]:
    """Annotator -> labels on this item that ``user`` may see (annotators: only their own)."""
    if user.role in REVIEW_ROLES:
        frame = store.annotations_frame(project.name, ("submitted",), item_id=item.item_id)
        return labels_by_annotator(frame).get(item.item_id, {})
    own = store.item_state(project.name, item.item_id, user.name)["labels"]
    return {user.name: own} if own else {}


def may_run(project: ProjectInfo, user: AnnotatorInfo) -> bool:
    """Reviewers and admins run evaluators; annotators only when the project allows it."""
    return (
        user.role in REVIEW_ROLES or annotation_settings(project.settings).annotators_run_evaluators
    )


def unavailable_reasons(store: Store, names: list[str]) -> dict[str, str | None]:
    """Evaluator name -> why it cannot run here (None when it can)."""
    ctx = build_context(store)
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = create_evaluator(name, ctx=ctx).unavailable_reason()
        except Exception as exc:  # a broken evaluator must not break the page
            out[name] = f"cannot be created: {exc}"
    return out


@st.cache_data(ttl=120, show_spinner=False)
def _cached_reasons(names: tuple[str, ...], llm_key: str) -> dict[str, str | None]:
    """Availability per process for two minutes (METEOR's check loads WordNet: seconds)."""
    return unavailable_reasons(get_store(), list(names))


_IDENTIFIER = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def breakable(text: str) -> str:
    """``text`` as HTML where ENV_VAR_NAMES may wrap only after an underscore.

    A narrow column otherwise breaks them anywhere (``WORKBENCH_LLM_MO`` / ``DEL``).
    Use with ``unsafe_allow_html=True``.
    """
    return _IDENTIFIER.sub(
        lambda m: "<code>" + m.group(0).replace("_", "_<wbr>") + "</code>", html.escape(text)
    )


def grouped_reasons(reasons: Mapping[str, str | None]) -> list[tuple[list[str], str]]:
    """Evaluators that cannot run, grouped by their reason (first-seen order)."""
    groups: dict[str, list[str]] = {}
    for name, reason in reasons.items():
        if reason:
            groups.setdefault(reason, []).append(name)
    return [(names, reason) for reason, names in groups.items()]


def unavailable_note(reasons: Mapping[str, str | None]) -> str | None:
    """One Markdown+HTML paragraph saying which evaluators are unavailable and why, each
    reason once; None when every evaluator can run."""
    parts = [
        ", ".join(f"**{n}**" for n in names) + ": " + breakable(without_paths(reason))
        for names, reason in grouped_reasons(reasons)
    ]
    return "Unavailable here: " + "; ".join(parts) if parts else None


_ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:[\w.+-]+/)+([\w.+-]+)")


def without_paths(text: str) -> str:
    """``text`` with the server's absolute paths cut to their last part: what a browser
    user needs is the file's name, not the server's folders."""
    return _ABSOLUTE_PATH.sub(lambda m: f"…/{m.group(1)}", text)


def status_rows(reasons: Mapping[str, str | None]) -> list[dict[str, str]]:
    """One row per evaluator: its name, ready or not, and how to enable it."""
    return [
        {
            "evaluator": name,
            "status": "ready" if not reason else "not available",
            "how to enable": "" if not reason else without_paths(reason),
        }
        for name, reason in reasons.items()
    ]


def _llm_key() -> str:
    from evaluators.llm.config import load_llm_config

    config = load_llm_config()
    return repr(config.public()) if config is not None else "none"


def evaluator_panel(
    project: ProjectInfo, item: ItemRecord, user: AnnotatorInfo, *, key: str = "evpanel"
) -> None:
    """Draw the panel for ``item``; safe to call on any page (keys are prefixed by ``key``)."""
    store = get_store()
    kind = project.task_kind
    # the registered evaluators, then the project's stored custom judges (judge:NAME)
    names = evaluators_for_kind(kind.name) + [j.evaluator for j in store.judges(project.name)]
    people = visible_labels(store, project, item, user)
    st.markdown("#### Evaluators")
    if not names:
        st.caption(f"No evaluator applies to {kind.title} projects yet.")
    reasons = _cached_reasons(tuple(names), _llm_key())
    note = unavailable_note(reasons)
    if note:
        st.caption(":material/block: " + note, unsafe_allow_html=True)
    base = f"{key}-{project.name}-{item.item_id}"
    runs = may_run(project, user)
    for name in names:
        if st.session_state.pop(f"{base}-{name}-run", False) and runs:
            _run_one(store, project, item, name, f"{base}-{name}")
    latest = latest_results(
        store.item_results(project.name, item.item_id), store.runs(project.name)
    )
    shown: set[str] = set()
    for name in names:
        with st.container(border=True):
            _evaluator_block(project, item, name, reasons[name], latest, people, base, runs)
        shown |= {lab for lab, r in latest.items() if r["evaluator"] == name}
    others = {lab: r for lab, r in latest.items() if lab not in shown}
    if others:
        st.markdown("##### Other stored results")
        for lab, res in others.items():
            with st.container(border=True):
                st.markdown(f"**{lab}**")
                render_result(
                    res,
                    kind,
                    project.settings,
                    item.fields,
                    people,
                    key=f"{base}-{lab}",
                    page_lookup=get_store().page_get,
                )


def _title(name: str) -> str:
    try:
        return get_evaluator_class(name).title or name
    except Exception:
        return name


def _evaluator_block(
    project: ProjectInfo,
    item: ItemRecord,
    name: str,
    reason: str | None,
    latest: Mapping[str, Mapping[str, Any]],
    people: Mapping[str, Mapping[str, Any]],
    base: str,
    runs: bool = True,
) -> None:
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.markdown(f"**{_title(name)}** `{name}`")
    mine = {lab: r for lab, r in latest.items() if r["evaluator"] == name}
    if runs:
        _run_button(right, name, base, reason, bool(mine))
    if reason and runs:
        st.caption(":material/block: unavailable (see above)")
    error = st.session_state.get(f"{base}-{name}-error")
    if error:
        st.error(error)
    if not mine:
        st.caption("No result yet for this item.")
    for lab, res in mine.items():
        if len(mine) > 1:
            st.markdown(f"*{lab}*")
        render_result(
            res,
            project.task_kind,
            project.settings,
            item.fields,
            people,
            key=f"{base}-{lab}",
            page_lookup=get_store().page_get,
        )


def _run_button(col: Any, name: str, base: str, reason: str | None, again: bool) -> None:
    col.button(
        "Run again" if again else "Run",
        key=f"{base}-{name}-btn",
        disabled=reason is not None,
        icon=":material/play_arrow:",
        on_click=st.session_state.__setitem__,
        args=(f"{base}-{name}-run", True),
        help=without_paths(reason)
        if reason
        else "Evaluate this item now (a cached reply comes back at once)",
    )


def _run_one(store: Store, project: ProjectInfo, item: ItemRecord, name: str, prefix: str) -> None:
    """Evaluate one item now; the error (if any) is kept for the block to show."""
    st.session_state.pop(f"{prefix}-error", None)
    try:
        with st.spinner(f"Running {name} on {item.item_id}…"):
            run_evaluator(store, project.name, name, runs=1, item_ids=[item.item_id])
    except (NotConfiguredError, ValueError) as exc:
        st.session_state[f"{prefix}-error"] = str(exc)
