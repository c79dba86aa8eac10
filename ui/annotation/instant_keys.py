"""Choice keys answered in the browser: the pressed choice shows as selected at once.

Every label key used to wait for a server round trip before anything changed on screen
(367-411 ms at load 16 on a 2-core machine, issue #30). Here a small script owns the
choice keys of the Annotate page: on a digit (or A / B / T for pairwise) it marks the
chosen button selected in the page, clicks that button (the ordinary Streamlit click, so
the label is saved by the same callback as a mouse click, before the next run draws
anything) and moves its own copy of the keyboard focus on, so a fast typist's next key
goes to the next question even while the save is in flight.

Nothing is decided in the browser alone: each run of the item area sends the saved
state (focus, and a counter of the saves and focus moves the server has applied); the
script drops its marks and takes the server's focus as soon as the server has caught up
with every key it sent. A failed save is shown by the page (``ERROR_KEY``) and the
script clicks the same choice again, up to three times, a second apart.

The script is ``ui/annotation/client/instant_keys.js`` (its look ``instant_keys.css``).
Streamlit's own ``shortcut=`` stays on the buttons: without JavaScript, or with this
script not yet loaded, the keys work as before.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from ui import keyboard
from ui.annotation import client_assets
from ui.annotation.context import ERROR_KEY, SYNC_KEY, ItemContext

_CLASS_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def button_class(widget_key: str) -> str:
    """The CSS class Streamlit gives the element of a keyed widget (``st-key-...``)."""
    return "st-key-" + _CLASS_UNSAFE.sub("-", widget_key.strip())


def client_state(ctx: ItemContext) -> dict[str, Any]:
    """What the script needs: the targets in keyboard order with their key -> button
    class maps, the focus, and the count of saves / focus moves applied so far."""
    targets = []
    for target in ctx.targets:
        binding = ctx.keymap.get(target.key)
        keys = {k.lower(): button_class(w) for k, w in (binding.keys if binding else {}).items()}
        targets.append(
            {
                "keys": keys,
                "multi": bool(binding and binding.multi),
                "advance": bool(binding and binding.advance),
            }
        )
    return {
        "item": ctx.token,
        "marker": button_class(f"opt::{ctx.token}::"),
        "focus": ctx.focus,
        "sync": int(st.session_state.get(SYNC_KEY, 0)),
        "error": bool(st.session_state.get(ERROR_KEY)),
        "next": keyboard.NEXT_TARGET,
        "prev": keyboard.PREVIOUS_TARGET,
        "targets": targets,
    }


def instant_keys(ctx: ItemContext) -> None:
    """Send this run's state to the in-page key handler (drawn after the item's view)."""
    if not ctx.targets:
        return
    state = client_state(ctx)
    # The run counter makes every run a new element, so its script runs.
    run_id = f"{ctx.token}:{state['sync']}:{state['focus']}:{state['error']}"
    style = f"<style>{client_assets.text('instant_keys.css')}</style>"
    body = client_assets.script("instant_keys.js", state, run_id)
    st.html(style + body, unsafe_allow_javascript=True)
