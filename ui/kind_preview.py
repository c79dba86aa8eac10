"""A live preview of a kind being declared: the real Annotate view on one item.

The view is the one annotators get (``ui.annotation.view_for``), handed an item context
whose store is a :class:`PreviewLabels` sandbox: answers given in the preview are
checked like real ones and kept in this browser session only, so conditions and
controls can be tried while nothing reaches the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from annotation_store import AnnotatorInfo, ItemRecord, ProjectInfo, Store
from annotation_store.records import utcnow
from kinds import TaskKind, ValidationError
from kinds.declared import KindDefinition, build_kind, kind_ref
from kinds.declared_form import sample_item
from ui.annotation import view_for
from ui.annotation.context import ERROR_KEY, ItemContext, build_targets

#: session key of the preview's answers: {item key: {question: value}}
ANSWERS_KEY = "kd_preview_answers"
PROJECT = "kind-preview"
SAMPLE = "the kind's sample item"


@dataclass(frozen=True)
class PreviewProject(ProjectInfo):
    """A project that exists only for the preview: its kind is the unsaved definition."""

    preview_kind: TaskKind | None = None

    @property
    def task_kind(self) -> TaskKind:
        """The kind being previewed (never looked up by name)."""
        assert self.preview_kind is not None
        return self.preview_kind


class PreviewLabels:
    """Stands in for the store in the preview's item context: the two calls the view's
    save callbacks make, on answers held in session state."""

    def __init__(self, kind: TaskKind, item_key: str, fields: Mapping[str, Any]) -> None:
        self.kind = kind
        self.fields = dict(fields)
        self.answers: dict[str, Any] = st.session_state.setdefault(ANSWERS_KEY, {}).setdefault(
            item_key, {}
        )
        self._drop_stale()

    def _drop_stale(self) -> None:
        """Forget answers the current definition no longer accepts (a renamed question,
        a removed label)."""
        questions = {f.name: f for f in self.kind.human_fields()}
        for name, value in list(self.answers.items()):
            try:
                if name not in questions:
                    raise ValidationError("gone", name)
                questions[name].validate(value, self.fields, draft=True)
            except (ValidationError, TypeError, ValueError):
                del self.answers[name]

    def item_state(self, project: str, item_id: str, annotator: str) -> dict[str, Any]:
        """The answers given in the preview, as ``Store.item_state`` shapes them."""
        return {"labels": dict(self.answers), "status": "draft", "note": "", "flagged": False}

    def save_label(
        self, project: str, item_id: str, annotator: str, field: str, value: Any, **_: Any
    ) -> None:
        """Check ``value`` as the store would, then keep it in the session."""
        spec = self.kind.human_field(field)
        self.answers[field] = spec.validate(value, self.fields, draft=True)


def pick_item(store: Store, definition: KindDefinition, default: str | None) -> tuple[str, dict]:
    """A picker: the kind's sample item or an item of a project. (key, fields) of it;
    a real item's missing fields are filled with sample values (said in a caption)."""
    sample = sample_item(definition.data.get("fields") or [])
    projects = [p.name for p in store.projects()]
    options = [SAMPLE, *projects]
    if "kd_preview_on" not in st.session_state:
        st.session_state["kd_preview_on"] = default if default in projects else SAMPLE
    c1, c2 = st.columns([3, 1])
    source = c1.selectbox("Preview on", options, key="kd_preview_on")
    if source == SAMPLE:
        return "sample", sample
    count = store.item_count(source)
    if not count:
        st.caption(f"{source} has no items yet: the sample item is shown.")
        return "sample", sample
    n = c2.number_input("item", 1, count, key=f"kd_preview_n::{source}")
    item = store.items_page(source, int(n) - 1, 1)[0]
    missing = [f.name for f in definition.item_fields if f.name not in item.fields]
    if missing:
        st.caption(f"This item has no {', '.join(missing)}: sample values stand in.")
    return f"{source}/{item.item_id}", {**sample, **item.fields}


def live_preview(
    definition: KindDefinition,
    name: str,
    item_key: str,
    fields: Mapping[str, Any],
    user: AnnotatorInfo,
) -> None:
    """Draw the Annotate view of ``definition`` on one item; answers stay in the session."""
    kind = build_kind(kind_ref(name or "draft", 0), definition)
    labels = PreviewLabels(kind, item_key, fields)
    project = PreviewProject(0, PROJECT, kind.name, {}, "", 0, utcnow(), preview_kind=kind)
    item = ItemRecord(0, item_key, 0, dict(fields))
    ctx = ItemContext(
        labels,  # type: ignore[arg-type]  # the sandbox answers the view's two store calls
        project,
        item,
        user,
        labels.item_state(PROJECT, item_key, user.name),
        {f.name: f for f in kind.human_fields()},
    )
    ctx.targets = build_targets(ctx)
    if ctx.focus_key not in st.session_state:
        st.session_state[ctx.focus_key] = 0
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error(error, icon=":material/error:")
    with st.container(border=True, key="kd_preview"):
        view_for(project.kind)(ctx)
    c1, c2 = st.columns([3, 1], vertical_alignment="center")
    c1.caption(
        f"Answers given here are checked as in Annotate and kept in this session only "
        f"({len(labels.answers)} so far); nothing is saved."
    )
    c2.button(
        "Clear",
        key="kd_preview_clear",
        help="Forget the answers given in the preview",
        on_click=labels.answers.clear,
    )
