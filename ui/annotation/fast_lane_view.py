"""The fast lane in the page: a panel over the Annotate page, from the first item on.

When the page shows an item the lane covers, its script opens a panel over the page on
that same item at once (its blind payload comes with the page: display number, never
the item id or generator, for annotators), with the choices already saved marked.
There, choices, ``j`` / ``k`` and Enter are answered in the browser; each choice is
posted the moment it is given (so a reload loses nothing) and each submit after the
item's choices, in order in the background (a post goes only once the one before it is
saved, so nothing is counted out of order), while the next item, fetched while this one
was labelled (``ui.annotation.fast_routes``), is drawn at once. A failed post is shown
in the panel and retried (1, 2, 4, 5 s ...); a refusal (a missing answer, a lapsed
claim) is shown and stops the posting.

Esc ("Full page"), the page's other keys (previous, next, skip, flag) and the end of
the queue go back to the ordinary page: at once when the panel is still on the page's
own item and sent nothing, else once the posts are saved, by a reload on the item. The
panel then stays closed on that item for that load (a mark in ``sessionStorage``); on
the ordinary page a fully answered item's Enter hands over to the panel again, and so
does the next item the page opens.

Only a server that serves the routes (``serve.py``) opens the panel; under ``streamlit
run app.py`` the script stays out of the way (its fetches fail); without JavaScript
nothing of this runs. Browser tests of the ordinary page set ``window.__wbNoLaneFirst``
(``tests.e2e.harness.ordinary_annotate_page``): the page's own keys until a submit.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from annotation_store.studies.flow_settings import study_of
from ui import keyboard
from ui.annotation.blind import may_see_item_ids, submitted_is_final
from ui.annotation.context import ERROR_KEY, ItemContext, missing_answers
from ui.annotation.fast_lane import (
    LANES,
    SESSION_KEY,
    LaneError,
    covers,
    payload_of,
    previous_ref,
    reference,
)
from ui.annotation.fast_routes import LABEL_ROUTE, LANE_HEADER, NEXT_ROUTE, served
from ui.annotation.instant_keys import button_class
from ui.session_cookie import GUARD_HEADER, SESSION_TOKEN_KEY

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
#wb-lane .wb-scores {font-weight: 600; margin: .5rem 0}
#wb-lane .wb-saving {opacity: .75; font-size: .9em}
</style>"""

SCRIPT = """<script>
(() => {
const C = CONFIG_JSON;
const FULL_KEY = 'wbLaneFullPage';  // sessionStorage: the item Esc opened on the full page
const L = window.__wbLane || (window.__wbLane = {queue: [], sending: false, open: false,
  failed: null, saved: 0, cur: null, after: undefined, next: undefined, pageRef: null,
  fullRef: null, posted: false, lastInput: Date.now()});
L.cfg = C;
// each post carries the lane it was given in: a project switch does not redirect it
const headers = (json, lane) => Object.assign({[L.cfg.guard]: '1',
  [L.cfg.laneHeader]: lane || L.cfg.lane}, json ? {'Content-Type': 'application/json'} : {});
async function fetchNext(ref) {
  try {
    const q = new URLSearchParams({after: ref});
    L.queue.forEach((job) => {  // items whose submit is on its way count as submitted
      if (job.ref !== ref && job.submit && job.lane === L.cfg.lane) q.append('pending', job.ref);
    });
    const r = await fetch(L.cfg.nextRoute + '?' + q.toString(),
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
  const done = (ok, msg, final, wait) => {  // wait: ms the server asked for (429)
    L.sending = false;
    if (ok) { L.queue.shift(); L.failed = null; L.saved += 1; }
    else {
      const tries = L.failed && L.failed.ref === job.ref ? L.failed.tries + 1 : 1;
      L.failed = {ref: job.ref, name: job.name, msg: msg, tries: tries, final: final};
      if (!final) setTimeout(pump, wait || Math.min(1000 * 2 ** (tries - 1), 5000));
    }
    render();
    if (ok) { pump(); if (L.leaving) leave(); }
  };
  fetch(L.cfg.labelRoute, {method: 'POST', credentials: 'same-origin',
    headers: headers(true, job.lane),
    body: JSON.stringify({item: job.ref, chosen: job.chosen, submit: job.submit,
      seconds: job.seconds, active_seconds: job.active})})
    .then(async (r) => {
      if (r.ok) {  // a saved choice comes back with the item's live scores (if the kind has any)
        let body = null;
        try { body = await r.json(); } catch (e) {}
        if (body && body.scores && L.cur && L.cur.item.ref === job.ref) L.cur.item.scores = body.scores;
        return done(true);
      }
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) {}
      const wait = r.status === 429 ? 1000 * (Number(r.headers.get('Retry-After')) || 1) : 0;
      done(false, msg, r.status >= 400 && r.status < 500 && !wait, wait);
    })
    .catch((e) => done(false, String(e), false));
  render();
}
function post(job) { job.lane = L.cfg.lane; L.posted = true; L.queue.push(job); pump(); }
function send(item, chosen, seconds, away) {  // away: ms the tab was hidden, blurred or idle
  const active = Math.max(0, Math.round((seconds * 1000 - away) / 100) / 10);
  post({ref: item.ref, name: item.name, chosen: chosen, submit: true,
    seconds: seconds, active: active});
}
function awayNow(cur) { return cur.away + (L.since !== null ? Date.now() - L.since : 0); }
// Any input: a pause without input beyond the study's idle threshold counts as away
// (beyond the threshold), as on the ordinary page (ui/active_time.py).
function touch() {
  const now = Date.now(), idle = now - L.lastInput - L.cfg.idleMs;
  if (idle > 0 && L.open && L.cur) L.cur.away += idle;
  L.lastInput = now;
}
// the page the panel is over: another page or project of the app closes it
const where = () => location.pathname + '?' + new URL(location.href).searchParams.get('project');
function show(item, prev) {  // prev: the item the ArrowLeft key opens ('' for none)
  const chosen = {};
  item.targets.forEach((t) => { if (t.chosen !== null) chosen[t.key] = t.chosen; });
  const todo = item.targets.findIndex((t) => chosen[t.key] === undefined);
  L.prev = prev !== undefined ? prev : (L.open ? L.cur_ref : L.pageRef);
  L.cur = {item: item, chosen: chosen, focus: Math.max(todo, 0), missing: false,
    shown: Date.now(), away: 0, keyed: false};
  L.cur_ref = item.ref;
  L.after = undefined; L.open = true;
  L.where = where();
  const url = new URL(window.location.href);
  url.searchParams.set('item', item.ref);
  window.history.replaceState(window.history.state, '', url);
  const ref = item.ref;
  fetchNext(ref).then((p) => { if (L.cur && L.cur.item.ref === ref) {
    L.after = p === undefined ? null : p; L.afterFailed = p === undefined; if (L.waiting) advance(); } });
  render();
  const box = document.getElementById('wb-lane'); if (box) box.scrollTop = 0;
}
// A rerun drew the page's item again under the panel (a key that reached the page just
// before the panel opened): take the saved choices the panel does not have yet.
function adopt(item) {
  const cur = L.cur;
  let changed = false;
  item.targets.forEach((t) => {
    if (t.chosen !== null && cur.chosen[t.key] === undefined) {
      cur.chosen[t.key] = t.chosen; changed = true;
    }
  });
  if (!changed) return;
  const todo = cur.item.targets.findIndex((t) => cur.chosen[t.key] === undefined);
  if (!cur.keyed && todo >= 0) cur.focus = todo;
  marks();
}
function closeHere() {  // back to the page under the panel, which is on the item in view
  L.open = false; L.cur = null; L.fullRef = L.pageRef; L.leaveTo = undefined;
  const ref = L.pageRef;
  if (L.after !== undefined) L.next = L.after || undefined;
  else fetchNext(ref).then((p) => { if (!L.open && L.pageRef === ref) L.next = p; });
  render();
}
function leave(ref) {  // the ordinary page, on ``ref`` (default: the item in view)
  if (typeof ref === 'string') L.leaveTo = ref;
  const here = L.cur && (!L.leaveTo || L.leaveTo === L.cur.item.ref);
  // nothing sent from the panel and still on the page's own item: the page under the
  // panel shows what is saved, so the panel just closes (no reload)
  if (!L.leaving && !L.posted && here && L.cur.item.ref === L.pageRef) return closeHere();
  L.leaving = true;
  const refused = L.failed && L.failed.final;  // the page shows the refused item
  if (L.queue.length && !refused) { render(); return; }
  const url = new URL(window.location.href);
  if (refused) { url.searchParams.set('item', L.failed.ref); L.queue = []; }
  else if (L.leaveTo) url.searchParams.set('item', L.leaveTo);
  else if (L.done) url.searchParams.delete('item');
  const to = url.searchParams.get('item');  // the panel stays closed on it for that load
  try { if (to) sessionStorage.setItem(FULL_KEY, JSON.stringify({scope: L.cfg.scope, ref: to})); }
  catch (e) {}
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
  cur.chosen[t.key] = c; cur.keyed = true;
  cur.focus = Math.min(i + 1, cur.item.targets.length - 1);
  marks();
  // saved the moment it is given, as the page's buttons save it: a reload loses nothing
  post({ref: cur.item.ref, name: cur.item.name, chosen: {[t.key]: c}, submit: false});
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
  const cur = L.cur, item = cur.item, cfg = L.cfg;
  const pending = new Set(L.queue.map((job) => job.ref)).size;
  const saving = L.failed ? null : h('span', {class: 'wb-saving', 'data-testid': 'wbSaving'},
    pending ? 'saving ' + pending + ' item' + (pending > 1 ? 's' : '') + '…'
            : (L.saved ? 'all saved' : ''));
  const kids = [h('div', {class: 'wb-bar'},
    h('h4', {}, item.kind + ' · ' + item.name),
    item.status === 'submitted' ? h('span', {class: 'wb-saving'}, 'submitted before') : null,
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
  if (item.scores && item.scores.length) kids.push(h('p', {class: 'wb-scores',
    'data-testid': 'wbScores'}, ...item.scores.map((sc, i) => h('span', {title: sc.help},
      (i ? ' · ' : '') + sc.name + ' ' + (sc.value === null ? '—' : sc.value.toFixed(2))))));
  kids.push(h('p', {class: 'wb-saving'}, cfg.nextKey + ' / ' + cfg.prevKey +
    ': next / previous question · ←: previous item · the note, guideline, skip (Shift+S)' +
    ' and flag (Shift+F) are on the full page (Esc)'));
  box.replaceChildren(...kids);
  const focused = box.querySelector('.wb-focus');
  if (focused) focused.scrollIntoView({block: 'nearest'});
}
function onKey(ev) {
  touch();
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
    cur.focus = (cur.focus + (key === cfg.nextKey ? 1 : -1) + n) % n; cur.keyed = true;
    marks(); return;
  }
  const t = cur.item.targets[cur.focus];
  const c = t ? t.choices.findIndex((x) => x.key === key) : -1;
  if (c >= 0) choose(cur.focus, c);
}
L.onKey = onKey;
if (!L.installed) {
  L.installed = true;
  window.addEventListener('keydown', (ev) => L.onKey(ev), true);
  for (const name of ['pointerdown', 'mousemove', 'wheel'])
    window.addEventListener(name, () => touch(), {passive: true, capture: true});
  L.since = null;  // time away from the lane's item: hidden tab or window out of focus
  const leaveTab = () => { if (L.since === null) L.since = Date.now(); };
  const back = () => { if (L.since !== null && L.cur) L.cur.away += Date.now() - L.since;
    if (L.since !== null) L.lastInput = Date.now();  // counted once, not also as idle
    L.since = null; };
  document.addEventListener('visibilitychange', () => (document.hidden ? leaveTab() : back()));
  window.addEventListener('blur', leaveTab);
  window.addEventListener('focus', back);
  window.addEventListener('beforeunload', (ev) => {
    if (L.queue.length) { ev.preventDefault(); ev.returnValue = ''; }
  });
  // another page of the app (no reload): the panel goes; its posts go on
  setInterval(() => {
    if (L.open && !L.leaving && where() !== L.where) {
      L.open = false; L.cur = null; L.pageRef = null; render();
    }
  }, 500);
  try {  // Esc opened the full page on an item: the panel stays closed on it
    const mark = JSON.parse(sessionStorage.getItem(FULL_KEY) || 'null');
    sessionStorage.removeItem(FULL_KEY);
    if (mark && mark.scope === C.scope) L.fullRef = mark.ref;
  } catch (e) {}
  L.scope = C.scope;
}
if (L.scope !== C.scope) {  // another project or user in this tab: start over
  L.scope = C.scope; L.open = false; L.cur = null; L.pageRef = null; L.fullRef = null;
  render();
}
if (L.open) {
  if (C.item && L.cur && L.cur.item.ref === C.item.ref) adopt(C.item);
} else if (L.pageRef !== C.ref) {  // a new item on the ordinary page
  L.pageRef = C.ref; L.pageShown = Date.now(); L.next = undefined;
  if (C.item && L.fullRef !== C.ref && !window.__wbNoLaneFirst) {
    show(C.item, C.prevRef);  // the panel from the first item on
  } else {  // the page's keys; its next item is fetched for the Enter takeover
    fetchNext(C.ref).then((p) => { if (!L.open && L.pageRef === C.ref) L.next = p; });
  }
}
})();
</script><!-- RUN_ID -->"""


def _lane_token(ctx: ItemContext) -> str:
    """This session's lane for the project and user (a new one once it expired, or when
    the sign-in or the role it opened with is no longer this run's)."""
    lanes = st.session_state.setdefault(SESSION_KEY, {})
    key = f"{ctx.project.name}\0{ctx.user.name}"
    session = st.session_state.get(SESSION_TOKEN_KEY)
    try:
        lane = LANES.get(lanes.get(key))  # in use again: its idle time starts over
        if lane.session != session or lane.user.role != ctx.user.role:
            raise LaneError("opened under another sign-in or role")
    except LaneError:
        lanes[key] = LANES.open(ctx.store, ctx.project.name, ctx.user, session)
    return lanes[key]


def _first_item(ctx: ItemContext, ref: str) -> dict[str, Any] | None:
    """The page's item as the panel draws it, when the panel may open on it at once:
    this process serves the routes, no failed save is on screen, and the item is not
    submitted for good (then the page's lock says so)."""
    final = ctx.state["status"] == "submitted" and submitted_is_final(
        ctx.user.role, ctx.project.settings
    )
    if not served() or final or st.session_state.get(ERROR_KEY):
        return None
    return payload_of(ctx, ref)


def fast_lane(ctx: ItemContext) -> None:
    """Hand the page's script the lane and this run's state of the item (after the view)."""
    if not ctx.targets or not covers(ctx.project):
        return
    store, project, user = ctx.store, ctx.project, ctx.user
    ref = reference(store, project, user, ctx.item.item_id)
    if not ref:
        return
    first = _first_item(ctx, ref)
    config = {
        "lane": _lane_token(ctx),
        "laneHeader": LANE_HEADER,
        "guard": GUARD_HEADER,
        "nextRoute": NEXT_ROUTE,
        "labelRoute": LABEL_ROUTE,
        "ref": ref,
        "token": ctx.token,
        "name": ctx.item.item_id
        if may_see_item_ids(user.role, project.settings)
        else f"item {ref}",
        # which project and user this tab labels (a switch of either starts over)
        "scope": f"{project.name}/{user.name}",
        # present only on this item's choice buttons: the Annotate page is on screen
        "marker": button_class(f"opt::{ctx.token}::"),
        "complete": not missing_answers(ctx),
        "error": bool(st.session_state.get(ERROR_KEY)),
        "nextKey": keyboard.NEXT_TARGET,
        "prevKey": keyboard.PREVIOUS_TARGET,
        "idleMs": study_of(project.settings).idle_seconds * 1000,
        "item": first,
        "prevRef": previous_ref(store, project, user, ctx.item.item_id) if first else "",
    }
    run_id = f"{ctx.token}:{config['complete']}:{config['error']}:{len(ctx.labels)}"
    st.html(CSS + script(config, run_id), unsafe_allow_javascript=True)


def script(config: dict[str, Any], run_id: str) -> str:
    """The page's script with its ``config``; ``run_id`` makes each new state a new element
    (so the script runs again). No text of an item can close the script element."""
    as_json = json.dumps(config).replace("<", "\\u003c")
    return SCRIPT.replace("RUN_ID", run_id).replace("CONFIG_JSON", as_json)
