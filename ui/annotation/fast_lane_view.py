"""The fast lane in the page: a script that takes over from the first submit on.

When the item in view is fully answered and every key the browser sent has been
applied, Enter no longer waits for a Streamlit rerun: the script submits the item over
HTTP (``ui.annotation.fast_routes``) and at once draws the next item, which it fetched
while this one was being labelled, in a panel over the page. There, choices, ``j`` /
``k`` and Enter are answered in the browser; each choice is posted the moment it is
given (so a reload loses nothing) and each submit after the item's choices, in order in
the background (a post goes only once the one before it is saved, so nothing is counted
out of order). A failed post is shown in the panel and retried
(1, 2, 4, 5 s ...); a refusal (a missing answer, a lapsed claim) is shown and stops the
posting. Esc, or the end of the queue, waits for the posts and reloads the ordinary
page on the item in view, which then shows exactly what was saved.

Without the routes (``streamlit run app.py``) the first fetch fails and the script
stays out of the way; without JavaScript nothing of this runs.
"""

from __future__ import annotations

import json

import streamlit as st

from ui import keyboard
from ui.annotation.blind import may_see_item_ids
from ui.annotation.context import ERROR_KEY, ItemContext, missing_answers
from ui.annotation.fast_lane import LANES, SESSION_KEY, LaneError, covers, reference
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE
from ui.annotation.instant_keys import button_class
from ui.session_cookie import GUARD_HEADER

CSS = """<style>
#wb-lane {position: fixed; top: 3.75rem; right: 0; bottom: 0; z-index: 999990;
  overflow-y: auto; padding: 1rem 2rem 3rem 2rem; box-sizing: border-box}
#wb-lane h4 {margin: 0 0 .25rem 0}
#wb-lane .wb-bar {display: flex; gap: .75rem; align-items: center; flex-wrap: wrap;
  padding-bottom: .5rem; margin-bottom: .75rem; border-bottom: 1px solid rgba(128,128,128,.35)}
#wb-lane button {font: inherit; padding: .25rem .75rem; border-radius: .5rem; cursor: pointer;
  border: 1px solid rgba(128,128,128,.45); background: transparent; color: inherit}
#wb-lane button.wb-on {background: #2f5fb3; border-color: #2f5fb3; color: #fff}
#wb-lane button.wb-primary {background: #ff4b4b; border-color: #ff4b4b; color: #fff}
#wb-lane .wb-panel {border: 1px solid rgba(128,128,128,.35); border-radius: .5rem;
  padding: .75rem 1rem; margin-bottom: .75rem; white-space: pre-wrap}
#wb-lane .wb-row {display: flex; gap: .75rem; align-items: center; flex-wrap: wrap;
  padding: .2rem .4rem; border-radius: .35rem}
#wb-lane .wb-row.wb-focus {background: rgba(47, 95, 179, .18); font-weight: 600}
#wb-lane .wb-row .wb-title {flex: 1 1 24rem}
#wb-lane .wb-missing {color: #d33; font-weight: 600}
#wb-lane .wb-error {border: 1px solid #d33; color: #d33; border-radius: .5rem;
  padding: .5rem .75rem; margin-bottom: .75rem}
#wb-lane .wb-saving {opacity: .75; font-size: .9em}
</style>"""

SCRIPT = """<script>
(() => {
const C = CONFIG_JSON;
const L = window.__wbLane || (window.__wbLane = {queue: [], sending: false, open: false,
  failed: null, saved: 0, cur: null, after: undefined, next: undefined, pageRef: null});
L.cfg = C;
const headers = (json) => Object.assign({[C.guard]: '1', [C.laneHeader]: C.lane},
  json ? {'Content-Type': 'application/json'} : {});
async function fetchNext(ref) {
  try {
    const q = new URLSearchParams({after: ref});
    L.queue.forEach((job) => {  // items whose submit is on its way count as submitted
      if (job.ref !== ref && job.submit) q.append('pending', job.ref); });
    const r = await fetch(C.nextRoute + '?' + q.toString(),
      {headers: headers(false), credentials: 'same-origin'});
    if (!r.ok) return undefined;
    return (await r.json()).item;
  } catch (e) { return undefined; }
}
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'onclick') el.onclick = v; else el.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined)
    el.append(typeof kid === 'string' ? document.createTextNode(kid) : kid);
  return el;
}
function pump() {
  if (L.sending || !L.queue.length || (L.failed && L.failed.final)) return;
  const job = L.queue[0];
  L.sending = true;
  const done = (ok, msg, final) => {
    L.sending = false;
    if (ok) { L.queue.shift(); L.failed = null; L.saved += 1; }
    else {
      const tries = L.failed && L.failed.ref === job.ref ? L.failed.tries + 1 : 1;
      L.failed = {ref: job.ref, name: job.name, msg: msg, tries: tries, final: final};
      if (!final) setTimeout(pump, Math.min(1000 * 2 ** (tries - 1), 5000));
    }
    render();
    if (ok) { pump(); if (L.leaving) leave(); }
  };
  fetch(C.labelRoute, {method: 'POST', credentials: 'same-origin', headers: headers(true),
    body: JSON.stringify({item: job.ref, chosen: job.chosen, submit: job.submit,
      seconds: job.seconds, active_seconds: job.active})})
    .then(async (r) => {
      if (r.ok) return done(true);
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) {}
      done(false, msg, r.status >= 400 && r.status < 500);
    })
    .catch((e) => done(false, String(e), false));
  render();
}
function send(item, chosen, seconds, away) {  // away: ms the tab was hidden or blurred
  const active = Math.max(0, Math.round((seconds * 1000 - away) / 100) / 10);
  L.queue.push({ref: item.ref, name: item.name, chosen: chosen, submit: true,
    seconds: seconds, active: active});
  pump();
}
function awayNow(cur) { return cur.away + (L.since !== null ? Date.now() - L.since : 0); }
function show(item) {
  const chosen = {};
  item.targets.forEach((t) => { if (t.chosen !== null) chosen[t.key] = t.chosen; });
  const todo = item.targets.findIndex((t) => chosen[t.key] === undefined);
  L.cur = {item: item, chosen: chosen, focus: Math.max(todo, 0), missing: false,
    shown: Date.now(), away: 0};
  L.prev = L.open ? L.cur_ref : L.pageRef; L.cur_ref = item.ref;
  L.after = undefined; L.open = true;
  const url = new URL(window.location.href);
  url.searchParams.set('item', item.ref);
  window.history.replaceState(window.history.state, '', url);
  const ref = item.ref;
  fetchNext(ref).then((p) => { if (L.cur && L.cur.item.ref === ref) {
    L.after = p === undefined ? null : p; L.afterFailed = p === undefined; if (L.waiting) advance(); } });
  render();
  const box = document.getElementById('wb-lane'); if (box) box.scrollTop = 0;
}
function leave(ref) {  // the ordinary page, on ``ref`` (default: the item in view)
  if (typeof ref === 'string') L.leaveTo = ref;
  L.leaving = true;
  const refused = L.failed && L.failed.final;  // the page shows the refused item
  if (L.queue.length && !refused) { render(); return; }
  const url = new URL(window.location.href);
  if (refused) { url.searchParams.set('item', L.failed.ref); L.queue = []; }
  else if (L.leaveTo) url.searchParams.set('item', L.leaveTo);
  else if (L.done) url.searchParams.delete('item');
  window.location.assign(url.toString());
}
function advance() {  // the current item is submitted: the next one, or the end
  L.waiting = false;
  if (L.after === undefined) { L.waiting = true; render(); return; }
  if (L.after === null) { L.done = true; leave(); return; }
  show(L.after);
}
function submit() {
  const cur = L.cur;
  if (cur.item.targets.some((t) => cur.chosen[t.key] === undefined)) {
    cur.missing = true;
    cur.focus = cur.item.targets.findIndex((t) => cur.chosen[t.key] === undefined);
    render(); return;
  }
  send(cur.item, Object.assign({}, cur.chosen), Math.round((Date.now() - cur.shown) / 100) / 10,
    awayNow(cur));
  advance();
}
function choose(i, c) {
  const cur = L.cur, t = cur.item.targets[i];
  cur.chosen[t.key] = c;
  cur.focus = Math.min(i + 1, cur.item.targets.length - 1);
  marks();
  // saved the moment it is given, as the page's buttons save it: a reload loses nothing
  L.queue.push({ref: cur.item.ref, name: cur.item.name, chosen: {[t.key]: c}, submit: false});
  pump();
}
// A choice or a focus move restyles the rows in place (no new panel: less work for a
// browser that gets a ninth of a core).
function marks() {
  const box = document.getElementById('wb-lane'), cur = L.cur;
  const rows = box ? box.querySelectorAll('.wb-row') : [];
  if (!box || rows.length !== cur.item.targets.length) return render();
  rows.forEach((row, i) => {
    const t = cur.item.targets[i], on = cur.chosen[t.key];
    row.classList.toggle('wb-focus', i === cur.focus);
    const title = row.querySelector('.wb-title');
    title.firstChild.textContent = (i === cur.focus ? '▸ ' : '') + t.title;
    if (on !== undefined) title.querySelectorAll('.wb-missing').forEach((m) => m.remove());
    row.querySelectorAll('button').forEach((b, j) => b.classList.toggle('wb-on', on === j));
  });
  const focused = box.querySelector('.wb-focus');
  if (focused) focused.scrollIntoView({block: 'nearest'});
}
function render() {
  let box = document.getElementById('wb-lane');
  if (!L.open) { if (box) box.remove(); return; }
  if (!box) {
    box = h('div', {id: 'wb-lane', 'data-testid': 'wbFastLane'});
    document.body.append(box);
  }
  const app = document.querySelector('[data-testid=stApp]') || document.body;
  const main = document.querySelector('[data-testid=stMain]');
  const style = getComputedStyle(app);
  box.style.background = style.backgroundColor || '#fff';
  box.style.color = style.color;
  box.style.left = (main ? main.getBoundingClientRect().left : 0) + 'px';
  const cur = L.cur, item = cur.item;
  const pending = new Set(L.queue.map((job) => job.ref)).size;
  const saving = L.failed ? null : h('span', {class: 'wb-saving', 'data-testid': 'wbSaving'},
    pending ? 'saving ' + pending + ' item' + (pending > 1 ? 's' : '') + '…'
            : (L.saved ? 'all saved' : ''));
  const kids = [h('div', {class: 'wb-bar'},
    h('h4', {}, item.kind + ' · ' + item.name),
    h('button', {class: 'wb-primary', onclick: submit}, 'Submit (Enter)'),
    h('button', {onclick: () => leave()}, 'Full page (Esc)'), saving)];
  if (L.failed) kids.push(h('div', {class: 'wb-error', 'data-testid': 'wbSaveError'},
    'Could not save ' + L.failed.name + ': ' + L.failed.msg + '. ' + (L.failed.final
      ? 'Items after it are not saved: press Esc to open it on the full page.'
      : 'Retrying (attempt ' + (L.failed.tries + 1) + ')…')));
  if (L.waiting) kids.push(h('p', {}, 'Loading the next item…'));
  if (L.leaving) kids.push(h('p', {}, pending ? 'Saving, then opening the full page…'
                                              : 'Opening the full page…'));
  if (L.waiting || L.leaving) { box.replaceChildren(...kids); return; }
  for (const p of item.panels) kids.push(h('div', {class: 'wb-panel'}, h('b', {}, p.title),
    '\\n' + p.text));
  let group = null;
  item.targets.forEach((t, i) => {
    if (t.group && t.group !== group) { group = t.group; kids.push(h('p', {}, h('b', {}, group))); }
    const on = cur.chosen[t.key];
    const miss = cur.missing && on === undefined;
    const row = h('div', {class: 'wb-row' + (i === cur.focus ? ' wb-focus' : ''),
      'data-target': t.key},
      h('span', {class: 'wb-title'}, (i === cur.focus ? '▸ ' : '') + t.title,
        miss ? h('span', {class: 'wb-missing'}, '  answer this') : null));
    t.choices.forEach((c, j) => row.append(h('button', {class: on === j ? 'wb-on' : '',
      onclick: () => choose(i, j)}, c.label)));
    kids.push(row);
  });
  box.replaceChildren(...kids);
  const focused = box.querySelector('.wb-focus');
  if (focused) focused.scrollIntoView({block: 'nearest'});
}
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const el = ev.target;
  if (el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))) return;
  const cfg = L.cfg;
  if (!L.open) {  // the ordinary page: take over its submit when it is safe
    if (ev.key !== 'Enter' || ev.repeat) return;
    if (!document.querySelector('[class*="' + cfg.marker + '"]')) return;  // another page
    const K = window.__wbKeys;
    if (!cfg.complete || cfg.error || (K && K.sent) || !L.next || L.queue.length) return;
    ev.preventDefault(); ev.stopImmediatePropagation();
    // the page's own away-time counter (ui/active_time.py) has this item's time away
    const W = window.__workbenchAway, away = W && W.away ? W.away[cfg.token] || 0 : 0;
    send({ref: cfg.ref, name: cfg.name}, {}, Math.round((Date.now() - L.pageShown) / 100) / 10,
      away);
    show(L.next);
    return;
  }
  ev.preventDefault(); ev.stopImmediatePropagation();
  if (ev.repeat || L.waiting || L.leaving) return;
  const cur = L.cur, n = cur.item.targets.length;
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === 'Enter') return submit();
  if (key === 'Escape') return leave();
  // previous item: the one before on the ordinary page; the page's other keys (next,
  // skip, flag) open it on this item, where they work as usual
  if (key === 'ArrowLeft') return leave(L.prev);
  if (/^(ArrowRight|S|F)$/.test(ev.key)) return leave(cur.item.ref);
  if (key === cfg.nextKey || key === cfg.prevKey) {
    cur.focus = (cur.focus + (key === cfg.nextKey ? 1 : -1) + n) % n; marks(); return;
  }
  const t = cur.item.targets[cur.focus];
  const c = t ? t.choices.findIndex((x) => x.key === key) : -1;
  if (c >= 0) choose(cur.focus, c);
}
L.onKey = onKey;
if (!L.installed) {
  L.installed = true;
  window.addEventListener('keydown', (ev) => L.onKey(ev), true);
  L.since = null;  // time away from the lane's item: hidden tab or window out of focus
  const leaveTab = () => { if (L.since === null) L.since = Date.now(); };
  const back = () => { if (L.since !== null && L.cur) L.cur.away += Date.now() - L.since;
    L.since = null; };
  document.addEventListener('visibilitychange', () => (document.hidden ? leaveTab() : back()));
  window.addEventListener('blur', leaveTab);
  window.addEventListener('focus', back);
  window.addEventListener('beforeunload', (ev) => {
    if (L.queue.length) { ev.preventDefault(); ev.returnValue = ''; }
  });
}
if (!L.open && L.pageRef !== C.ref) {  // a new item on the ordinary page: fetch its next
  L.pageRef = C.ref; L.pageShown = Date.now(); L.next = undefined;
  fetchNext(C.ref).then((p) => { if (L.pageRef === C.ref) L.next = p; });
}
})();
</script><!-- RUN_ID -->"""


def _lane_token(ctx: ItemContext) -> str:
    """This session's lane for the project and user (a new one once it expired)."""
    lanes = st.session_state.setdefault(SESSION_KEY, {})
    key = f"{ctx.project.name}\0{ctx.user.name}"
    try:
        LANES.get(lanes.get(key))  # in use again: its idle time starts over
    except LaneError:
        lanes[key] = LANES.open(ctx.store, ctx.project.name, ctx.user)
    return lanes[key]


def fast_lane(ctx: ItemContext) -> None:
    """Hand the page's script the lane and this run's state of the item (after the view)."""
    if not ctx.targets or not covers(ctx.project):
        return
    ref = reference(ctx.store, ctx.project, ctx.user, ctx.item.item_id)
    if not ref:
        return
    config = {
        "lane": _lane_token(ctx),
        "laneHeader": LANE_HEADER,
        "guard": GUARD_HEADER,
        "nextRoute": NEXT_ROUTE,
        "labelRoute": LABEL_ROUTE,
        "ref": ref,
        "token": ctx.token,
        "name": ctx.item.item_id
        if may_see_item_ids(ctx.user.role, ctx.project.settings)
        else f"item {ref}",
        # present only on this item's choice buttons: the Annotate page is on screen
        "marker": button_class(f"opt::{ctx.token}::"),
        "complete": not missing_answers(ctx),
        "error": bool(st.session_state.get(ERROR_KEY)),
        "nextKey": keyboard.NEXT_TARGET,
        "prevKey": keyboard.PREVIOUS_TARGET,
    }
    body = SCRIPT.replace("CONFIG_JSON", json.dumps(config)).replace(
        "RUN_ID", f"{ctx.token}:{config['complete']}:{config['error']}:{len(ctx.labels)}"
    )
    st.html(CSS + body, unsafe_allow_javascript=True)
