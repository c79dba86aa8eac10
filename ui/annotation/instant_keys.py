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

Streamlit's own ``shortcut=`` stays on the buttons: without JavaScript, or with this
script not yet loaded, the keys work as before.
"""

from __future__ import annotations

import json
import re
from typing import Any

import streamlit as st

from ui import keyboard
from ui.annotation.context import ERROR_KEY, SYNC_KEY, ItemContext

_CLASS_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")

# The look of a choice chosen in the browser before the server confirms it (the
# primary button's look) and of the one it replaces.
CSS = """<style>
.wb-chosen button {background-color: var(--wb-accent, #2f5fb3) !important;
  border-color: var(--wb-accent, #2f5fb3) !important; color: #fff !important}
.wb-unchosen button[data-testid='stBaseButton-primary'] {background-color: transparent !important;
  border-color: rgba(128, 128, 128, 0.4) !important; color: inherit !important}
</style>"""

# Installed once per browser tab; each run replaces ``window.__wbKeys.next`` with the
# server's state. Keys pressed while typing (note box, text answers) are left alone.
SCRIPT = """<script>
(() => {
const S = STATE_JSON;
const A = window.__wbKeys || (window.__wbKeys = {state: null, focus: 0, base: 0, sent: 0,
  lastKey: 0, lastClick: null, retries: 0});
const clear = () => document.querySelectorAll('.wb-chosen, .wb-unchosen')
  .forEach((e) => e.classList.remove('wb-chosen', 'wb-unchosen'));
// Caught up: the server applied every key sent (or none came back for 10 s: a lost click)
const caughtUp = S.sync >= A.base + A.sent || Date.now() - A.lastKey > 10000;
if (!A.state || A.state.item !== S.item || caughtUp) {
  A.focus = S.focus; A.base = S.sync; A.sent = 0;
  clear();
}
A.state = S;
const find = (cls) => { const box = document.querySelector('.' + cls);
  return [box, box && box.querySelector('button')]; };
if (S.error && A.lastClick && A.lastClick.item === S.item && A.retries < 3) {
  A.retries += 1;  // the save failed: the page says so; try the same choice again
  const cls = A.lastClick.cls;
  setTimeout(() => { const [, btn] = find(cls); if (btn && !btn.disabled) btn.click(); }, 1000);
} else if (!S.error) {
  A.retries = 0;
}
const isOn = (box) => box.classList.contains('wb-chosen') ||
  (!box.classList.contains('wb-unchosen') &&
   !!box.querySelector("button[data-testid='stBaseButton-primary']"));
function mark(t, cls, box) {
  if (t.multi) {
    const on = isOn(box);
    box.classList.toggle('wb-chosen', !on); box.classList.toggle('wb-unchosen', on);
    return;
  }
  for (const other of Object.values(t.keys)) {
    const [b] = find(other);
    if (b && other !== cls) { b.classList.remove('wb-chosen'); b.classList.add('wb-unchosen'); }
  }
  box.classList.remove('wb-unchosen'); box.classList.add('wb-chosen');
}
function onKey(ev) {
  const st = A.state;
  if (!st || ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
  if (window.__wbLane && window.__wbLane.open) return;  // the fast lane has the keys
  const el = ev.target;
  if (el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))) return;
  if (!document.querySelector('[class*="' + st.marker + '"]')) return;  // another page
  const n = st.targets.length;
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (n && (key === st.next || key === st.prev)) {  // Streamlit moves the server's focus too
    A.focus = (A.focus + (key === st.next ? 1 : -1) + n) % n;
    A.sent += 1; A.lastKey = Date.now();
    return;
  }
  const t = st.targets[A.focus];
  const cls = t && t.keys[key];
  if (!cls) return;
  const [box, btn] = find(cls);
  if (!btn || btn.disabled) return;
  ev.preventDefault(); ev.stopImmediatePropagation();
  mark(t, cls, box);
  A.lastClick = {item: st.item, cls: cls}; A.sent += 1; A.lastKey = Date.now();
  btn.click();
  if (t.advance) A.focus = Math.min(A.focus + 1, n - 1);
}
if (!A.installed) { A.installed = true; window.addEventListener('keydown', onKey, true); }
})();
</script><!-- RUN_ID -->"""


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
    # The run counter in the body makes every run a new element, so its script runs.
    body = SCRIPT.replace("STATE_JSON", json.dumps(state)).replace(
        "RUN_ID", f"{ctx.token}:{state['sync']}:{state['focus']}:{state['error']}"
    )
    st.html(CSS + body, unsafe_allow_javascript=True)
