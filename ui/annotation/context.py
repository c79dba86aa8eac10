"""What a view needs about the item in front of the annotator, and the save callbacks.

Widgets are rebuilt from the store on every run (``state`` comes from
``store.item_state``), never from widget state, so a reload shows exactly what was saved.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from annotation_store import AnnotatorInfo, ItemRecord, ProjectInfo, Store
from kinds import FieldType, HumanField
from kinds.base import FACT_UNSET
from kinds.values import is_asked
from ui.annotation.blind import submitted_is_final

ERROR_KEY = "annotate_save_error"
#: (item_id, target keys) still unanswered when Submit was refused: marked in place.
MISSING_KEY = "annotate_missing"
#: How many saves and focus moves the server has applied in this session: the browser's
#: key handler (ui/annotation/instant_keys.py) compares it with the keys it sent.
SYNC_KEY = "annotate_sync"


def widget_token(project: str, item_id: str) -> str:
    """The opaque stand-in for an item id in the Annotate page's widget keys."""
    return hashlib.sha256(f"{project}\0{item_id}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Target:
    """One thing the keyboard can point at: a field, or one fact of a fact-label field."""

    field: HumanField
    index: int | None = None

    @property
    def key(self) -> str:
        """A stable id for widget keys."""
        return self.field.name if self.index is None else f"{self.field.name}.{self.index}"


@dataclass
class KeyBinding:
    """The keys of one target's choices: key -> widget key of the button it presses."""

    keys: dict[str, str] = field(default_factory=dict)
    multi: bool = False  # a key toggles its label and the focus stays
    advance: bool = True  # the focus moves on after a choice (as ``save_target`` does)


@dataclass
class ItemContext:
    """The item in view, the annotator's saved state on it and the keyboard focus."""

    store: Store
    project: ProjectInfo
    item: ItemRecord
    user: AnnotatorInfo
    state: dict[str, Any]
    fields: dict[str, HumanField]
    targets: list[Target] = field(default_factory=list)
    #: Filled by the views as they draw choice buttons (target key -> its keys).
    keymap: dict[str, KeyBinding] = field(default_factory=dict)

    def bind_key(
        self, target: Target, key: str | None, widget_key: str, *, multi: bool = False
    ) -> None:
        """Record that ``key`` presses the button ``widget_key`` when ``target`` has the
        focus (for the in-browser key handler)."""
        if key:
            binding = self.keymap.setdefault(target.key, KeyBinding(multi=multi, advance=not multi))
            binding.keys[key] = widget_key

    @property
    def labels(self) -> dict[str, Any]:
        """The annotator's saved labels on this item."""
        return self.state["labels"]

    @property
    def token(self) -> str:
        """An opaque stand-in for the item id in widget keys.

        Widget keys become CSS classes in the page, where an id such as
        ``...:tampered`` would give the answer away to anyone reading the HTML.
        """
        return widget_token(self.project.name, self.item.item_id)

    @property
    def focus_key(self) -> str:
        """Session key of the keyboard focus for this item."""
        return f"focus::{self.project.name}::{self.item.item_id}"

    @property
    def focus(self) -> int:
        """Index of the highlighted target."""
        n = max(len(self.targets), 1)
        return int(st.session_state.get(self.focus_key, 0)) % n

    def is_focused(self, target: Target) -> bool:
        """True when ``target`` is the highlighted one."""
        return bool(self.targets) and self.targets[self.focus].key == target.key

    def is_missing(self, target: Target) -> bool:
        """True when Submit was refused and ``target`` is still unanswered."""
        item_id, keys = st.session_state.get(MISSING_KEY) or (None, set())
        return item_id == self.item.item_id and target.key in keys and self.value(target) is None

    def value(self, target: Target) -> Any:
        """The saved value of a target (None when not given yet)."""
        saved = self.labels.get(target.field.name)
        if target.index is None:
            return saved
        if not isinstance(saved, list) or target.index >= len(saved):
            return None
        return None if saved[target.index] == FACT_UNSET else saved[target.index]


def facts_of(ctx: ItemContext, field: HumanField) -> list[str]:
    """The facts a fact-label field is about."""
    return list(ctx.item.fields.get(field.facts_field or "", []) or [])


def build_targets(ctx: ItemContext, order: list[str] | None = None) -> list[Target]:
    """Every keyboard target of the item: each fact of fact fields, then other fields."""
    names = order or sorted(
        ctx.fields, key=lambda n: ctx.fields[n].type is not FieldType.FACT_LABELS
    )
    out: list[Target] = []
    for name in names:
        spec = ctx.fields[name]
        if not is_asked(spec, ctx.labels):
            continue  # a declared question whose condition is not met
        if spec.type is FieldType.FACT_LABELS:
            out += [Target(spec, i) for i in range(len(facts_of(ctx, spec)))]
        else:
            out.append(Target(spec))
    return out


def save_target(ctx: ItemContext, target: Target, value: Any) -> None:
    """Save one choice now (callback). On failure, keep the message for the page."""
    _synced()
    try:
        fresh = ctx.store.item_state(ctx.project.name, ctx.item.item_id, ctx.user.name)
        status = "submitted" if fresh["status"] == "submitted" else "draft"
        if status == "submitted" and submitted_is_final(ctx.user.role, ctx.project.settings):
            st.session_state[ERROR_KEY] = "This item is submitted; in this study that is final."
            return
        if target.index is not None:
            n = len(facts_of(ctx, target.field))
            current = list(fresh["labels"].get(target.field.name) or [])
            current = (current + [FACT_UNSET] * n)[:n]
            current[target.index] = value
            value = current
        ctx.store.save_label(
            ctx.project.name,
            ctx.item.item_id,
            ctx.user.name,
            target.field.name,
            value,
            status=status,
        )
    except Exception as exc:  # any failure must be shown, never swallowed
        st.session_state[ERROR_KEY] = f"Could not save **{target.key}**: {exc}"
        return
    st.session_state.pop(ERROR_KEY, None)
    keys = [t.key for t in ctx.targets]
    if target.key in keys:
        st.session_state[ctx.focus_key] = min(keys.index(target.key) + 1, len(keys) - 1)


def _synced() -> None:
    st.session_state[SYNC_KEY] = int(st.session_state.get(SYNC_KEY, 0)) + 1


def set_focus(ctx: ItemContext, step: int) -> None:
    """Move the keyboard focus (callback)."""
    _synced()
    if ctx.targets:
        st.session_state[ctx.focus_key] = (ctx.focus + step) % len(ctx.targets)


def missing_targets(ctx: ItemContext) -> list[Target]:
    """The targets (questions, single facts) without an answer, in keyboard order."""
    return [t for t in ctx.targets if ctx.value(t) is None and t.field.required]


def derived_values(ctx: ItemContext) -> dict[str, float | None]:
    """The kind's derived scores (intent match: recall, precision, F1) of this annotator's
    saved labels, unset facts counting as not yet labelled."""
    labels = {
        k: [x for x in v if x != FACT_UNSET] if isinstance(v, list) else v
        for k, v in ctx.labels.items()
    }
    return ctx.project.task_kind.derive(labels, ctx.item.fields)


def missing_answers(ctx: ItemContext) -> list[str]:
    """Names of the questions not answered yet (submit refuses while any remain)."""
    missing = []
    for spec in ctx.fields.values():
        saved = ctx.labels.get(spec.name)
        if spec.type is FieldType.FACT_LABELS:
            n = len(facts_of(ctx, spec))
            if n and (not isinstance(saved, list) or len(saved) != n or FACT_UNSET in saved):
                todo = (
                    n
                    if not isinstance(saved, list)
                    else sum(1 for v in saved if v == FACT_UNSET) + max(0, n - len(saved))
                )
                missing.append(f"{spec.name.replace('_', ' ')} ({todo} left)")
        elif saved is None and spec.required and is_asked(spec, ctx.labels):
            missing.append(spec.name.replace("_", " "))
    return missing
