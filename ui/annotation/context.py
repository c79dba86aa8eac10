"""What a view needs about the item in front of the annotator, and the save callbacks.

Widgets are rebuilt from the store on every run (``state`` comes from
``store.item_state``), never from widget state, so a reload shows exactly what was saved.
The item model (targets, what is missing) and the save itself are the domain's
(``annotating``); this adds the page's keyboard focus and its messages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from annotating import actions
from annotating.actions import ActionRefused
from annotating.item_view import (
    ItemView,
    Target,
    build_targets,
    derived_values,
    facts_of,
    missing_answers,
    missing_targets,
)

ERROR_KEY = "annotate_save_error"
#: (item_id, target keys) still unanswered when Submit was refused: marked in place.
MISSING_KEY = "annotate_missing"
#: How many saves and focus moves the server has applied in this session: the browser's
#: key handler (ui/annotation/instant_keys.py) compares it with the keys it sent.
SYNC_KEY = "annotate_sync"
__all__ = [
    "ItemContext",
    "Target",
    "build_targets",
    "derived_values",
    "facts_of",
    "missing_answers",
    "missing_targets",
    "save_target",
    "set_focus",
]


def widget_token(project: str, item_id: str) -> str:
    """The opaque stand-in for an item id in the Annotate page's widget keys."""
    return hashlib.sha256(f"{project}\0{item_id}".encode()).hexdigest()[:12]


@dataclass
class KeyBinding:
    """The keys of one target's choices: key -> widget key of the button it presses."""

    keys: dict[str, str] = field(default_factory=dict)
    multi: bool = False  # a key toggles its label and the focus stays
    advance: bool = True  # the focus moves on after a choice (as ``save_target`` does)


@dataclass
class ItemContext(ItemView):
    """The item in view, the annotator's saved state on it and the keyboard focus."""

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


def save_target(ctx: ItemContext, target: Target, value: Any) -> None:
    """Save one choice now (callback). On failure, keep the message for the page."""
    _synced()
    try:
        actions.save_values(ctx, [(target, value)])
    except ActionRefused as exc:
        st.session_state[ERROR_KEY] = str(exc)
        return
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
