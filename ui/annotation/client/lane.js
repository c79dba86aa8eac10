// The Annotate page's panel ("fast lane"): items drawn and labelled in the browser.
//
// boot.js calls start(config) on every run of the page's item area. The panel opens
// over the page on the page's own item, answers keys and clicks in the browser, posts
// each choice the moment it is given and each submit after it (post_queue.js: one at a
// time, in order, retried), and draws the next item, fetched while this one was
// labelled, at once. Esc, the page's other keys and the end of the queue go back to
// the ordinary page (see ui/annotation/fast_lane_view.py for the whole story).
//
// Keys belong to the item on screen: every choice carries the item's ref and the
// question it was given on (keys.js, item_state.js), and Enter submits: it never
// activates a focused option. Tab, Shift+Tab and Space are left to the browser.
//
// Free text, scores and spans are answered in their own controls (values.js): a box's
// answer is the item's answer at every input, and is saved when it is complete (the box
// or slider left, a span marked). A key answers the question the keyboard is on; a
// conditional question is drawn once the server's answer to a save says it is asked.

import { isCharacterKey, keyAction, keyHint, keyName, typesText } from "./keys.js";
import {
  adoptSaved,
  answered,
  applyChoice,
  applyRanking,
  applyValue,
  focusQuestion,
  isAsked,
  isChosen,
  leftQuestion,
  missingRequired,
  moveFocus,
  newItemState,
  setAsked,
  trySubmit,
} from "./item_state.js";
import { clearPanelMarks, markPanels, refreshPanels } from "./panels.js";
import { PostQueue } from "./post_queue.js";
import { checkBody, feedbackText, isGold, verdictText } from "./practice.js";
import { moveOutput, placeOf, rankingComplete, rankingText } from "./ranking.js";
import {
  addSpan,
  inSelection,
  removeSpan,
  scoreAnswer,
  selectWord,
  spanText,
  stepDecimals,
  textAnswer,
  wordMarked,
} from "./values.js";

const FULL_KEY = "wbLaneFullPage"; // sessionStorage: the item Esc opened on the full page
const SHORTCUTS_KEY = "wbShortcutsOff"; // localStorage: single-key shortcuts turned off

const L = window.__wbLane || (window.__wbLane = {});
Object.assign(L, {
  open: false,
  cur: null,
  after: undefined,
  next: undefined,
  pageRef: null,
  fullRef: null,
  posted: false,
  submits: 0,
  lastInput: Date.now(),
  since: null,
});
L.posts = new PostQueue({
  send: sendJob,
  onChange: () => {
    if (L.posts.refused && L.posts.failed.job.submit) clearPanelMarks(document);
    refreshStatus();
  },
});
L.posts.onSaved = saved;
Object.defineProperty(L, "queue", { get: () => L.posts.jobs, configurable: true });

// each post carries the lane it was given in: a project switch does not redirect it
function headers(json, lane) {
  const out = { [L.cfg.guard]: "1", [L.cfg.laneHeader]: lane || L.cfg.lane };
  if (json) out["Content-Type"] = "application/json";
  return out;
}

// a JSON post to one of the app's annotation routes, and the server's answer
async function postJson(route, payload, lane) {
  const r = await fetch(route, {
    method: "POST",
    credentials: "same-origin",
    headers: headers(true, lane),
    body: JSON.stringify(payload),
  });
  let body = null;
  try {
    body = await r.json();
  } catch {
    body = { error: r.status + " " + r.statusText };
  }
  return { ok: r.ok, status: r.status, statusText: r.statusText, retryAfter: r.headers.get("Retry-After"), body };
}

function sendJob(job) {
  const sent = job.act
    ? { item: job.ref, ...job.act }
    : { item: job.ref, chosen: job.chosen, submit: job.submit, seconds: job.seconds, active_seconds: job.active };
  return postJson(job.act ? L.cfg.actRoute : L.cfg.labelRoute, sent, job.lane);
}

// a saved choice comes back with the item's live scores (if the kind has any)
// and the questions asked now (a conditional question shown or hidden)
function saved(job, body) {
  if (body && body.scores && L.cur && L.cur.item.ref === job.ref) {
    L.cur.item.scores = body.scores;
    const p = document.querySelector("#wb-lane [data-testid=wbScores]");
    if (p) p.replaceChildren(...scoreSpans(body.scores));
  }
  if (body && body.asked && L.cur) {
    const before = L.cur.focus;
    if (setAsked(L.cur, job.ref, body.asked) && !L.held) {
      render();
      if (L.cur.focus !== before) focusRow(); // a question the answer opened
    }
  }
  if (job.submit) refreshPanels(document);
  if (L.leaving && !L.posts.jobs.length) leave();
  // a submit held until the item's saves said which questions are asked
  if (L.held && L.held === L.cur && !L.posts.jobs.some((j) => j.ref === L.cur.item.ref)) {
    L.held = null;
    render();
    submit();
  }
}

async function fetchNext(ref) {
  try {
    const q = new URLSearchParams({ after: ref });
    for (const job of L.posts.jobs) {
      // items whose submit is on its way count as submitted
      const done = job.submit || (job.act && job.act.action === "skip");
      if (job.ref !== ref && done && job.lane === L.cfg.lane) q.append("pending", job.ref);
    }
    const r = await fetch(L.cfg.nextRoute + "?" + q.toString(), {
      headers: headers(false),
      credentials: "same-origin",
    });
    if (!r.ok) return undefined;
    return (await r.json()).item;
  } catch {
    return undefined;
  }
}

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") el.addEventListener("click", v);
    else if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) {
    if (kid !== null && kid !== undefined) el.append(typeof kid === "string" ? document.createTextNode(kid) : kid);
  }
  return el;
}

function post(job) {
  if (L.cfg.practice) return; // a practice answer is sent whole, once checked
  job.lane = L.cfg.lane;
  L.posted = true;
  L.posts.push(job);
}

function send(item, chosen, seconds, away) {
  // away: ms the tab was hidden, blurred or idle
  const active = Math.max(0, Math.round((seconds * 1000 - away) / 100) / 10);
  L.submits += 1;
  post({ ref: item.ref, name: item.name, chosen, submit: true, seconds, active });
}

function awayNow(cur) {
  return cur.away + (L.since !== null ? Date.now() - L.since : 0);
}

// Any input: a pause without input beyond the study's idle threshold counts as away
// (beyond the threshold), as on the ordinary page (ui/active_time.py).
function touch() {
  const now = Date.now();
  const idle = now - L.lastInput - L.cfg.idleMs;
  if (idle > 0 && L.open && L.cur) L.cur.away += idle;
  L.lastInput = now;
}

// the page the panel is over: another page or project of the app closes it
const where = () => location.pathname + "?" + new URL(location.href).searchParams.get("project");

function shortcutsOn() {
  try {
    return localStorage.getItem(SHORTCUTS_KEY) !== "1";
  } catch {
    return true;
  }
}

function announce(text) {
  const live = document.getElementById("wb-live");
  if (live) live.textContent = text;
  L.said = text;
}

function show(item, prev) {
  // prev: the item the ArrowLeft key opens ('' for none)
  L.prev = prev !== undefined ? prev : L.open ? L.curRef : L.pageRef;
  L.cur = newItemState(item);
  L.curRef = item.ref;
  L.after = undefined;
  L.open = true;
  L.where = where();
  L.verdict = null;
  if (!L.cfg.practice) {
    const url = new URL(window.location.href);
    url.searchParams.set("item", item.ref);
    window.history.replaceState(window.history.state, "", url);
    const ref = item.ref;
    fetchNext(ref).then((p) => {
      if (L.cur && L.cur.item.ref === ref) {
        L.after = p === undefined ? null : p;
        if (L.waiting) advance();
      }
    });
  }
  render({ newItem: true });
  // the keyboard starts in the panel: Tab goes on to its buttons in reading order
  const active = document.activeElement;
  if (!active || active === document.body) {
    const title = document.querySelector("#wb-lane h4");
    if (title) title.focus({ preventScroll: true });
  }
  announce(item.name + (item.targets[L.cur.focus] ? ": " + item.targets[L.cur.focus].title : ""));
  const box = document.getElementById("wb-lane");
  if (box) box.scrollTop = 0;
}

function closeHere() {
  // back to the page under the panel, which is on the item in view
  L.open = false;
  L.cur = null;
  L.fullRef = L.pageRef;
  L.leaveTo = undefined;
  const ref = L.pageRef;
  if (L.after !== undefined) L.next = L.after || undefined;
  else {
    fetchNext(ref).then((p) => {
      if (!L.open && L.pageRef === ref) L.next = p;
    });
  }
  render();
}

function leave(ref) {
  // the ordinary page, on ``ref`` (default: the item in view)
  if (typeof ref === "string") L.leaveTo = ref;
  const here = L.cur && (!L.leaveTo || L.leaveTo === L.cur.item.ref);
  // nothing sent from the panel and still on the page's own item: the page under the
  // panel shows what is saved, so the panel just closes (no reload)
  if (!L.leaving && !L.posted && here && L.cur.item.ref === L.pageRef) return closeHere();
  L.leaving = true;
  const refused = L.posts.refused; // the page shows the refused item
  if (L.posts.jobs.length && !refused) {
    render();
    return undefined;
  }
  const url = new URL(window.location.href);
  if (refused) {
    url.searchParams.set("item", L.posts.failed.job.ref);
    L.posts.clear();
  } else if (L.leaveTo) url.searchParams.set("item", L.leaveTo);
  else if (L.done) url.searchParams.delete("item");
  const to = url.searchParams.get("item"); // the panel stays closed on it for that load
  try {
    if (to) sessionStorage.setItem(FULL_KEY, JSON.stringify({ scope: L.cfg.scope, ref: to }));
  } catch {
    // no sessionStorage: the panel opens again on that item
  }
  window.location.assign(url.toString());
  return undefined;
}

function advance() {
  // the current item is submitted: the next one, or the end
  L.waiting = false;
  if (L.after === undefined) {
    L.waiting = true;
    render();
    return;
  }
  if (L.after === null) {
    L.done = true;
    leave();
    return;
  }
  show(L.after);
}

function submit() {
  const cur = L.cur;
  if (L.cfg.practice) return L.verdict ? continuePractice() : checkPractice(cur);
  // with conditional questions, the server's answers to this item's saves say which are
  // asked: the submit waits for them (keys meanwhile are dropped, never moved on)
  if (cur.item.conditional && L.posts.jobs.some((j) => j.ref === cur.item.ref && !j.submit)) {
    L.held = cur;
    announce("Saving, then submitting…");
    return;
  }
  const chosen = trySubmit(cur);
  if (chosen === null) {
    render();
    const titles = missingRequired(cur).map((k) => cur.item.targets.find((t) => t.key === k).title);
    announce("Not submitted. Still to answer: " + titles.join("; "));
    return;
  }
  const seconds = Math.round((Date.now() - cur.shown) / 100) / 10;
  send(cur.item, chosen, seconds, awayNow(cur));
  markPanels(document);
  advance();
}

// A practice answer, whole: the server stores it and says whether it was right.
async function checkPractice(cur) {
  if (L.checking || L.verdict || L.finishing) return undefined;
  const chosen = trySubmit(cur);
  if (chosen === null) {
    render();
    const titles = missingRequired(cur).map((k) => cur.item.targets.find((t) => t.key === k).title);
    announce("Not checked. Still to answer: " + titles.join("; "));
    return undefined;
  }
  L.checking = true;
  L.practiceError = null;
  announce("Checking your answer…");
  render();
  let result = null;
  try {
    const r = await postJson(L.cfg.practiceRoute, checkBody(cur.item, chosen));
    if (r.ok) result = r.body;
    else L.practiceError = r.body.error || r.status + " " + r.statusText;
  } catch {
    L.practiceError = "no connection to the server";
  }
  L.checking = false;
  if (L.cur !== cur) return undefined;
  if (result) {
    L.verdict = result;
    render();
    const go = document.querySelector("#wb-lane [data-fid=continue]");
    if (go) go.focus({ preventScroll: true });
    announce(feedbackText(result));
  } else {
    render();
    announce("Could not check the answer: " + L.practiceError);
  }
  return undefined;
}

// After the verdict: the next practice item, or (after the last) the page again, where
// the study judges the practice and moves on.
function continuePractice() {
  const verdict = L.verdict;
  if (!verdict) return;
  if (verdict.next) {
    show(verdict.next, "");
    return;
  }
  L.finishing = true; // keys are dropped until the page is loaded again
  render();
  window.location.reload();
}

function choose(action) {
  const cur = L.cur;
  if (L.cfg.practice && (L.checking || L.verdict || L.finishing)) return undefined; // answer sent
  const target = cur ? cur.item.targets.find((t) => t.key === action.target) : null;
  if (target && target.control === "spans") {
    // a label for the selected words, given on this item only
    return action.ref === cur.item.ref ? markSpan(cur, target, action.index) : undefined;
  }
  const change = cur ? applyChoice(cur, action) : null;
  if (change === null) return undefined; // a choice for another item: dropped
  if (target.control === "ranking") return ranked(cur, target, change);
  marks();
  announce(target.choices[action.index].label + " · " + target.title);
  // saved the moment it is given, as the page's buttons save it: a reload loses nothing
  post({ ref: cur.item.ref, name: cur.item.name, chosen: change, submit: false });
  focusAnswerBox();
  return undefined;
}

// A ranking changed on ``cur``'s item (a key, a click, a move): drawn again, said, and
// posted once complete (``change`` holds it then; {} while an output has no place).
function ranked(cur, target, change) {
  render();
  const names = target.choices.map((c) => c.label);
  const value = cur.chosen[target.key];
  const left = target.places - (Array.isArray(value) ? value.flat().length : 0);
  const text = rankingText(value, names) || "nothing placed";
  announce("Ranking: " + text + (left ? " · " + left + " to place" : "") + " · " + target.title);
  if (Object.keys(change).length) {
    post({ ref: cur.item.ref, name: cur.item.name, chosen: change, submit: false });
  }
  return undefined;
}

// A reorder of a ranking (move up / down, start over) given on ``cur``'s item.
function reorder(cur, target, ranking) {
  if (L.cur !== cur || ranking === null) return;
  const change = applyRanking(cur, { ref: cur.item.ref, target: target.key, ranking });
  if (change !== null) ranked(cur, target, change);
}

// A value question's answer (text, score, spans) given on ``cur``'s item; ``send``:
// post it now (a text or a score is posted when its box is left).
function giveValue(cur, target, value, send) {
  if (L.cur !== cur) return null;
  const change = applyValue(cur, { ref: cur.item.ref, target: target.key, value, send });
  if (change === null) return null;
  const row = document.querySelector('#wb-lane .wb-row[data-target="' + target.key + '"]');
  if (row && value !== null) row.querySelectorAll(".wb-missing").forEach((m) => m.remove());
  if (send && Object.keys(change).length) {
    post({ ref: cur.item.ref, name: cur.item.name, chosen: change, submit: false });
  }
  return change;
}

// The selected words marked with label ``index`` of a spans question.
function markSpan(cur, target, index) {
  if (L.cur !== cur || !target.choices[index]) return undefined;
  const sel = cur.spanSel && cur.spanSel[target.key];
  const spans = addSpan(cur.chosen[target.key], target.words, sel, target.choices[index].label);
  if (spans === null) {
    announce("Select the words first, then their label · " + target.title);
    return undefined;
  }
  cur.spanSel[target.key] = null;
  giveValue(cur, target, spans, true);
  render();
  const marked = { start: target.words[sel.from][0], end: target.words[sel.to][1] };
  announce("Marked " + target.choices[index].label + ": " + spanText(target.text, marked));
  return undefined;
}

// The keyboard goes to the current question's first control (its answer box, its first
// word or option), and the question is announced.
function focusRow() {
  const cur = L.cur;
  const t = cur && cur.item.targets[cur.focus];
  const row = t && document.querySelector('#wb-lane .wb-row[data-target="' + t.key + '"]');
  if (!row) return;
  const first = row.querySelector('[data-fid^="answer:"]') || row.querySelector("button, input, textarea");
  if (first) first.focus({ preventScroll: true });
  announce(t.title);
}

// The current question's text box or score box takes the keyboard (typing goes there).
function focusAnswerBox() {
  const cur = L.cur;
  const t = cur && cur.item.targets[cur.focus];
  if (!t || (t.control !== "text" && t.control !== "score")) return;
  const box = document.querySelector('#wb-lane [data-fid="answer:' + t.key + '"]');
  if (box) box.focus({ preventScroll: true });
}

// A choice or a focus move restyles the rows in place (no new panel: less work for a
// browser that gets a ninth of a core, and the keyboard focus stays where it is).
function marks() {
  const box = document.getElementById("wb-lane");
  const cur = L.cur;
  const rows = box ? box.querySelectorAll(".wb-row") : [];
  const shown = cur.item.targets.filter(isAsked);
  if (!box || rows.length !== shown.length) return render();
  rows.forEach((row) => {
    const i = cur.item.targets.findIndex((t) => t.key === row.getAttribute("data-target"));
    const t = cur.item.targets[i];
    if (!t) return;
    const focused = i === cur.focus;
    row.classList.toggle("wb-focus", focused);
    if (focused) row.setAttribute("aria-current", "true");
    else row.removeAttribute("aria-current");
    if (answered(cur, t)) row.querySelectorAll(".wb-missing").forEach((m) => m.remove());
    row.querySelectorAll("button[data-opt]").forEach((b, j) => {
      const on = isChosen(cur, t, j);
      b.classList.toggle("wb-on", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    });
  });
  const focused = box.querySelector(".wb-focus");
  if (focused) focused.scrollIntoView({ block: "nearest" });
  return undefined;
}

function hidePageBeneath(hidden) {
  const main = document.querySelector("[data-testid=stMain]");
  if (!main) return;
  if (hidden) {
    main.setAttribute("aria-hidden", "true");
    main.inert = true;
  } else if (main.getAttribute("aria-hidden") === "true") {
    main.removeAttribute("aria-hidden");
    main.inert = false;
  }
}

function optionButton(cur, t, c, j) {
  const hint = keyHint(c);
  const shows = !hint || c.label.toUpperCase() === hint || c.label.toUpperCase().startsWith(hint + " ");
  const on = isChosen(cur, t, j);
  const ref = cur.item.ref;
  const gold = isGold(L.verdict, t, j); // a practice item's expected answer, once checked
  return h(
    "button",
    {
      type: "button",
      class: (on ? "wb-on" : "") + (gold ? " wb-gold" : ""),
      "aria-disabled": L.verdict ? "true" : null,
      "aria-pressed": on ? "true" : "false",
      "aria-label": c.label + (gold ? " (expected answer)" : "") + " · " + t.title,
      "aria-keyshortcuts": L.shortcuts && c.keys && c.keys.length ? c.keys.join(" ") : null,
      "data-fid": "opt:" + t.key + ":" + j,
      "data-opt": String(j),
      // the item and question this button was drawn for go with its click
      onclick: () => choose({ ref, target: t.key, index: j }),
    },
    shows ? null : h("kbd", { class: "wb-key", "aria-hidden": "true" }, hint),
    c.label,
    gold ? h("span", { class: "wb-expected" }, " ✓ expected") : null,
  );
}

function textControl(cur, t, titleId) {
  const saved = cur.chosen[t.key];
  const box = h("textarea", {
    class: "wb-answer",
    rows: "3",
    maxlength: "20000",
    "aria-labelledby": titleId,
    "aria-describedby": "wb-text-help",
    "data-fid": "answer:" + t.key,
    "data-answer": "text",
  });
  box.value = typeof saved === "string" ? saved : "";
  box.addEventListener("input", () => giveValue(cur, t, textAnswer(box.value), false));
  box.addEventListener("change", () => giveValue(cur, t, textAnswer(box.value), true));
  return box;
}

function scoreControl(cur, t, titleId) {
  const saved = cur.chosen[t.key];
  const has = typeof saved === "number";
  const shown = (v) => (v === null ? "not answered" : v.toFixed(stepDecimals(t.step)));
  const bounds = { min: String(t.min), max: String(t.max), step: String(t.step) };
  const slider = h("input", {
    type: "range",
    ...bounds,
    "aria-labelledby": titleId,
    "aria-valuetext": shown(has ? saved : null),
    "data-fid": "slider:" + t.key,
    "data-answer": "score",
  });
  slider.value = String(has ? saved : t.min);
  const box = h("input", {
    type: "number",
    ...bounds,
    class: "wb-number",
    "aria-label": t.title + " (a number from " + t.min + " to " + t.max + ")",
    "data-fid": "answer:" + t.key,
    "data-answer": "score",
  });
  box.value = has ? String(saved) : "";
  const from = (el, other, send) => {
    const value = scoreAnswer(el.value, t);
    if (value !== null) other.value = String(value);
    slider.setAttribute("aria-valuetext", shown(value));
    giveValue(cur, t, value, send);
  };
  slider.addEventListener("input", () => from(slider, box, false));
  slider.addEventListener("change", () => from(slider, box, true));
  box.addEventListener("input", () => from(box, slider, false));
  box.addEventListener("change", () => from(box, slider, true));
  return [slider, box, h("span", { class: "wb-range" }, t.min + " – " + t.max)];
}

function pickWord(cur, t, k) {
  if (L.cur !== cur) return;
  cur.spanSel[t.key] = selectWord(cur.spanSel[t.key], k);
  const sel = cur.spanSel[t.key];
  render();
  announce("Selected: " + spanText(t.text, { start: t.words[sel.from][0], end: t.words[sel.to][1] }));
}

function spansControl(cur, t) {
  const sel = cur.spanSel[t.key];
  const spans = Array.isArray(cur.chosen[t.key]) ? cur.chosen[t.key] : [];
  const ref = cur.item.ref;
  const words = h("div", { class: "wb-words", role: "group", "aria-label": "Words to mark · " + t.title });
  t.words.forEach((w, k) => {
    const marked = wordMarked(spans, w);
    words.append(
      h(
        "button",
        {
          type: "button",
          class: "wb-word" + (marked ? " wb-marked" : ""),
          "aria-pressed": inSelection(sel, k) ? "true" : "false",
          "aria-label": w[2] + (marked ? " (marked)" : ""),
          "data-fid": "word:" + t.key + ":" + k,
          onclick: () => pickWord(cur, t, k),
        },
        w[2],
      ),
    );
  });
  const marks = t.choices.map((c, j) =>
    h(
      "button",
      {
        type: "button",
        "aria-label": "Mark the selected words as " + c.label + " · " + t.title,
        "aria-keyshortcuts": L.shortcuts && c.keys.length ? c.keys.join(" ") : null,
        "data-fid": "mark:" + t.key + ":" + j,
        onclick: () => choose({ ref, target: t.key, index: j }),
      },
      c.keys.length ? h("kbd", { class: "wb-key", "aria-hidden": "true" }, keyHint(c)) : null,
      "Mark as " + c.label,
    ),
  );
  const none = h(
    "button",
    {
      type: "button",
      "aria-pressed": Array.isArray(cur.chosen[t.key]) && !spans.length ? "true" : "false",
      "data-fid": "nospans:" + t.key,
      onclick: () => {
        if (giveValue(cur, t, [], true) !== null) render();
      },
    },
    "No spans",
  );
  const list = h("ul", { class: "wb-spans", "aria-label": "Marked spans · " + t.title });
  spans.forEach((s, k) => {
    const what = s.label + ": “" + spanText(t.text, s) + "”";
    list.append(
      h(
        "li",
        {},
        what + " ",
        h(
          "button",
          {
            type: "button",
            "aria-label": "Remove " + what,
            "data-fid": "unmark:" + t.key + ":" + k,
            onclick: () => {
              if (giveValue(cur, t, removeSpan(spans, k), true) !== null) render();
              announce("Removed " + what);
            },
          },
          "Remove",
        ),
      ),
    );
  });
  return [words, h("div", { class: "wb-marks" }, ...marks, none), list];
}

// A ranking: a button per output (its letter places it next, again takes it out), "="
// to put the last one level with the place above, and the ranking so far as a list
// whose outputs move up and down by buttons (named with the output and its place).
function rankingControl(cur, t) {
  const ranking = Array.isArray(cur.chosen[t.key]) ? cur.chosen[t.key] : [];
  const names = t.choices.map((c) => c.label);
  const buttons = t.choices.map((c, j) => {
    const button = optionButton(cur, t, c, j);
    const place = j < t.places ? placeOf(ranking, j) : 0;
    const what = j < t.places ? c.label + (place ? ", place " + place : ", not placed") : c.label;
    button.setAttribute("aria-label", what + " · " + t.title);
    if (j >= t.places) button.removeAttribute("aria-pressed");
    return button;
  });
  const list = h("ol", { class: "wb-ranking", "aria-label": "Your ranking, best first · " + t.title });
  ranking.forEach((group, g) => {
    const entry = h("li", {}, group.map((j) => names[j]).join(" = "));
    for (const j of group) {
      for (const [step, word] of [[-1, "up"], [1, "down"]]) {
        const moved = moveOutput(ranking, j, step);
        entry.append(
          " ",
          h(
            "button",
            {
              type: "button",
              "aria-label": "Move " + names[j] + " " + word + " (place " + (g + 1) + ") · " + t.title,
              "data-fid": "move:" + t.key + ":" + j + ":" + word,
              disabled: moved === null,
              onclick: () => reorder(cur, t, moveOutput(cur.chosen[t.key], j, step)),
            },
            (group.length > 1 ? names[j] + " " : "") + (step < 0 ? "↑ up" : "↓ down"),
          ),
        );
      }
    }
    list.append(entry);
  });
  const restart = h(
    "button",
    {
      type: "button",
      "data-fid": "restart:" + t.key,
      disabled: !ranking.length,
      onclick: () => reorder(cur, t, []),
    },
    "Start over",
  );
  const status = rankingComplete(ranking, t.places)
    ? null
    : h("span", { class: "wb-help" }, "Press the responses best first (" + (t.places - ranking.flat().length) + " to place)");
  return [...buttons, list, restart, status];
}

function progressText(cfg) {
  const p = cfg.progress;
  if (!p) return "";
  const done = p.done + L.submits;
  const left = Math.max(p.left - L.submits, 0);
  return done + " of " + Math.max(p.target, done) + " submitted" + (p.quota ? " (quota)" : "") + " · " + left + " left";
}

function savingText() {
  const pending = L.posts.pendingRefs().size;
  if (pending) return "saving " + pending + " item" + (pending > 1 ? "s" : "") + "…";
  return L.posts.saved ? "all saved" : "";
}

function errorText(failed) {
  return (
    "Could not save " +
    failed.job.name +
    ": " +
    failed.msg +
    ". " +
    (failed.final
      ? "Items after it are not saved: press Esc to open it on the full page."
      : "Retrying (attempt " + (failed.tries + 1) + ")…")
  );
}

function scoreSpans(scores) {
  return scores.map((sc, i) =>
    h("span", { title: sc.help }, (i ? " · " : "") + sc.name + " " + (sc.value === null ? "—" : sc.value.toFixed(2))),
  );
}

// A post's progress changes only the status line and the error box (the rest of the
// panel, a note being typed included, stays as it is).
function refreshStatus() {
  const box = document.getElementById("wb-lane");
  if (!L.open || !box) return;
  const failed = L.posts.failed;
  const error = box.querySelector("[data-testid=wbSaveError]");
  const status = box.querySelector("[data-testid=wbSaving]");
  if (L.leaving || L.waiting || Boolean(failed) !== Boolean(error) || (!failed && !status)) {
    render();
    return;
  }
  if (failed) error.textContent = errorText(failed);
  else status.textContent = savingText();
}

function tools(cur) {
  const item = cur.item;
  const ref = item.ref;
  const note = h("textarea", { id: "wb-note", rows: "2", "data-fid": "note", maxlength: "5000" });
  note.value = item.note || "";
  note.addEventListener("change", () => {
    item.note = note.value;
    post({ ref, name: item.name, act: { action: "note", note: note.value } });
  });
  const guide = L.cfg.guideline
    ? h(
        "details",
        { class: "wb-guideline" },
        h("summary", { "data-fid": "guideline" }, "Guideline (version " + L.cfg.guidelineVersion + ")"),
        h("div", { class: "wb-panel" }, L.cfg.guideline),
      )
    : null;
  if (L.cfg.practice) return h("div", { class: "wb-tools" }, guide); // nothing to flag or skip
  return h(
    "div",
    { class: "wb-tools" },
    h(
      "button",
      { type: "button", "data-fid": "flag", "aria-pressed": item.flagged ? "true" : "false", onclick: () => flag(cur) },
      "Flag a problem",
    ),
    item.mayskip ? h("button", { type: "button", "data-fid": "skip", onclick: () => skip(cur) }, "Skip this item") : null,
    h("label", { for: "wb-note" }, "Note on this item (optional)"),
    note,
    guide,
  );
}

function flag(cur) {
  if (L.cur !== cur) return;
  const item = cur.item;
  item.flagged = !item.flagged;
  const button = document.querySelector("#wb-lane [data-fid=flag]");
  if (button) button.setAttribute("aria-pressed", item.flagged ? "true" : "false");
  announce(item.flagged ? "Flagged" : "Flag removed");
  post({ ref: item.ref, name: item.name, act: { action: "flag", flagged: item.flagged } });
}

function skip(cur) {
  if (L.cur !== cur || L.waiting || L.leaving) return;
  post({ ref: cur.item.ref, name: cur.item.name, act: { action: "skip" } });
  announce("Skipped " + cur.item.name);
  advance();
}

// The panel's main button: Submit; on a practice item Check my answer, then Continue.
function primaryButton() {
  const practice = L.cfg.practice;
  const label = !practice ? "Submit " : L.verdict ? "Continue " : "Check my answer ";
  return h(
    "button",
    {
      type: "button",
      class: "wb-primary",
      "data-fid": L.verdict ? "continue" : "submit",
      onclick: L.verdict ? continuePractice : submit,
    },
    label,
    h("kbd", { class: "wb-key", "aria-hidden": "true" }, "Enter"),
  );
}

// A practice item's notes: what happens after an answer; the check's failure; the
// server's verdict with the expected answer and why.
function practiceNotes() {
  const out = [];
  const v = L.verdict;
  if (!v) out.push(h("p", {}, "After each answer you see whether it was right, and why."));
  if (L.checking) out.push(h("p", {}, "Checking your answer…"));
  if (L.practiceError && !v) {
    const text = "Could not check the answer: " + L.practiceError + ". Press Enter to try again.";
    out.push(h("div", { class: "wb-error", "data-testid": "wbPracticeError", role: "alert" }, text));
  }
  if (v) {
    out.push(
      h(
        "div",
        { class: "wb-feedback " + (v.correct ? "wb-right" : "wb-wrong"), "data-testid": "wbPractice" },
        h("h5", {}, verdictText(v)),
        v.explanation ? h("p", {}, v.explanation) : null,
      ),
    );
  }
  return out;
}

function render(opts = {}) {
  let box = document.getElementById("wb-lane");
  if (!L.open) {
    if (box) box.remove();
    hidePageBeneath(false);
    return;
  }
  if (!box) {
    box = h("section", { id: "wb-lane", "data-testid": "wbFastLane", "aria-label": "Annotation panel" });
    document.body.append(box);
  }
  hidePageBeneath(true);
  const active = document.activeElement;
  const hadFocus = active && box.contains(active) ? active.getAttribute("data-fid") || "" : null;
  const app = document.querySelector("[data-testid=stApp]") || document.body;
  const main = document.querySelector("[data-testid=stMain]");
  const style = getComputedStyle(app);
  box.style.background = style.backgroundColor || "#fff";
  box.style.color = style.color;
  box.style.left = (main ? main.getBoundingClientRect().left : 0) + "px";
  box.classList.toggle("wb-no-keys", !L.shortcuts);
  const cur = L.cur;
  const item = cur.item;
  const pending = L.posts.pendingRefs().size;
  const failed = L.posts.failed;
  const saving = failed ? null : h("span", { class: "wb-saving", "data-testid": "wbSaving" }, savingText());
  const kids = [
    h(
      "div",
      { class: "wb-bar" },
      h("h4", { tabindex: "-1", "data-fid": "title" }, (item.title || item.kind) + " · " + item.name),
      item.status === "submitted" ? h("span", { class: "wb-saving" }, "submitted before") : null,
      primaryButton(),
      L.cfg.practice
        ? null
        : h(
            "button",
            { type: "button", "data-fid": "leave", onclick: () => leave() },
            "Full page ",
            h("kbd", { class: "wb-key", "aria-hidden": "true" }, "Esc"),
          ),
      h(
        "button",
        { type: "button", "data-fid": "shortcuts", "aria-pressed": L.shortcuts ? "true" : "false", onclick: toggleShortcuts },
        "Single-key shortcuts",
      ),
      saving,
      h("span", { class: "wb-progress", "data-testid": "wbProgress" }, progressText(L.cfg)),
    ),
    h("div", { id: "wb-live", class: "wb-sr", role: "status", "aria-live": "polite" }, L.said || ""),
  ];
  if (failed) {
    kids.push(h("div", { class: "wb-error", "data-testid": "wbSaveError", role: "alert" }, errorText(failed)));
  }
  if (L.cfg.practice) kids.push(...practiceNotes());
  if (L.waiting) kids.push(h("p", {}, "Loading the next item…"));
  if (L.leaving) kids.push(h("p", {}, pending ? "Saving, then opening the full page…" : "Opening the full page…"));
  if (L.finishing) kids.push(h("p", {}, "Loading the next step…"));
  if (L.waiting || L.leaving || L.finishing) {
    box.replaceChildren(...kids);
    return;
  }
  for (const p of item.panels) kids.push(h("div", { class: "wb-panel" }, h("h5", {}, p.title), p.text));
  let group = null;
  item.targets.forEach((t, i) => {
    if (!isAsked(t)) return; // a conditional question whose condition does not hold
    if (t.group && t.group !== group) {
      group = t.group;
      kids.push(h("h5", { class: "wb-group" }, group));
    }
    const miss = cur.missing && !answered(cur, t) && t.required !== false;
    const titleId = "wb-t-" + i;
    const row = h(
      "div",
      {
        class: "wb-row" + (i === cur.focus ? " wb-focus" : ""),
        role: "group",
        "aria-labelledby": titleId,
        "aria-current": i === cur.focus ? "true" : null,
        "data-target": t.key,
        "data-control": t.control,
      },
      h(
        "span",
        { class: "wb-title", id: titleId },
        t.title,
        t.required === false ? h("span", { class: "wb-optional" }, " (optional)") : null,
        miss ? h("span", { class: "wb-missing" }, "answer this") : null,
      ),
    );
    if (t.control === "text") row.append(textControl(cur, t, titleId));
    else if (t.control === "score") row.append(...scoreControl(cur, t, titleId));
    else if (t.control === "spans") row.append(...spansControl(cur, t));
    else if (t.control === "ranking") row.append(...rankingControl(cur, t));
    else t.choices.forEach((c, j) => row.append(optionButton(cur, t, c, j)));
    followKeyboard(cur, row, t);
    kids.push(row);
  });
  if (item.scores && item.scores.length) {
    kids.push(h("p", { class: "wb-scores", "data-testid": "wbScores" }, ...scoreSpans(item.scores)));
  }
  kids.push(tools(cur));
  kids.push(h("p", { class: "wb-help wb-key-help" }, L.cfg.help));
  if (item.targets.some((t) => t.control === "text" && isAsked(t))) {
    kids.push(h("p", { class: "wb-help", id: "wb-text-help" }, "In a text answer, Enter submits; Shift+Enter starts a new line."));
  }
  L.rendering = true; // a focused control taken out is no question left
  box.replaceChildren(...kids);
  L.rendering = false;
  // the keyboard focus stays on the control it was on (or the new item's title)
  if (hadFocus !== null) {
    const again = hadFocus && !opts.newItem ? focusable(box, hadFocus) : null;
    L.restoring = true; // the focus put back is no move to another question
    (again || box.querySelector("h4")).focus();
    L.restoring = false;
  }
  const focused = box.querySelector(".wb-focus");
  if (focused) focused.scrollIntoView({ block: "nearest" });
}

// The question whose controls the keyboard goes into (a click, Tab) is the current one:
// a key then answers the question the focus is on. A value question (text, score, spans)
// left for no other question, with an answer, hands on to the next, as a choice does.
function followKeyboard(cur, row, t) {
  const inRow = (el) => el instanceof Node && row.contains(el);
  row.addEventListener("focusin", (ev) => {
    if (L.cur !== cur || L.restoring || inRow(ev.relatedTarget)) return;
    if (focusQuestion(cur, t.key)) marks();
  });
  row.addEventListener("focusout", (ev) => {
    if (L.cur !== cur || L.rendering || inRow(ev.relatedTarget)) return;
    if (document.activeElement === ev.target) return; // the window lost the focus, not the box
    const to = ev.relatedTarget;
    if (to instanceof Element && to.closest("#wb-lane .wb-row")) return; // that row's focusin
    if (leftQuestion(cur, t.key)) {
      marks();
      announce(cur.item.targets[cur.focus].title);
    }
  });
}

// The control with ``fid`` in the new panel, if it can take the focus; a ranking's move
// button that can no longer move (its output reached the top or the bottom) hands it to
// the same output's other move button.
function focusable(box, fid) {
  const el = box.querySelector('[data-fid="' + fid + '"]');
  if (!el || !el.disabled) return el;
  const other = fid.replace(/:(up|down)$/, (_, w) => (w === "up" ? ":down" : ":up"));
  const alt = other !== fid ? box.querySelector('[data-fid="' + other + '"]') : null;
  return alt && !alt.disabled ? alt : null;
}

function toggleShortcuts() {
  L.shortcuts = !L.shortcuts;
  try {
    if (L.shortcuts) localStorage.removeItem(SHORTCUTS_KEY);
    else localStorage.setItem(SHORTCUTS_KEY, "1");
  } catch {
    // kept for this page only
  }
  render();
  announce("Single-key shortcuts " + (L.shortcuts ? "on" : "off"));
}

function typing(el) {
  return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

// the ordinary page: take over its submit when it is safe
function pageKey(ev) {
  const cfg = L.cfg;
  if (ev.key !== "Enter" || ev.repeat) return;
  if (!document.querySelector('[class*="' + cfg.marker + '"]')) return; // another page
  const K = window.__wbKeys;
  if (!cfg.complete || cfg.error || (K && K.sent) || !L.next || L.posts.jobs.length) return;
  ev.preventDefault();
  ev.stopImmediatePropagation();
  // the page's own away-time counter (ui/active_time.py) has this item's time away
  const W = window.__workbenchAway;
  const away = W && W.away ? W.away[cfg.token] || 0 : 0;
  send({ ref: cfg.ref, name: cfg.name }, {}, Math.round((Date.now() - L.pageShown) / 100) / 10, away);
  show(L.next);
}

// Keys on a practice item while it is checked or its verdict is shown (true: handled):
// Enter goes on to the next item; other keys are dropped, Tab and Space left to the
// browser. There is no full page to leave for.
function practiceKey(ev) {
  const free = /^(Tab| )$/.test(ev.key) || ev.ctrlKey || ev.metaKey || ev.altKey;
  const busy = L.checking || L.verdict || L.finishing;
  const away = ["Escape", "ArrowLeft", "ArrowRight", "Shift+s", "Shift+f"].includes(keyName(ev));
  if (free || (!busy && !away)) return false;
  ev.preventDefault();
  ev.stopImmediatePropagation();
  if (ev.key === "Enter" && !ev.repeat && L.verdict && !L.finishing) continuePractice();
  return true;
}

function onKey(ev) {
  touch();
  // a submit waiting on this item's saves holds every key but Tab and Esc (no longer
  // once the item is gone, or a save was refused: Esc opens the item then)
  if (L.held && (L.held !== L.cur || L.posts.refused)) L.held = null;
  if (L.open && L.held && ev.key !== "Tab" && ev.key !== "Escape") {
    ev.preventDefault();
    ev.stopImmediatePropagation();
    return;
  }
  if (typing(ev.target)) {
    // Enter in an answer's box submits (Shift+Enter: a new line of a text answer)
    const box = ev.target.hasAttribute && ev.target.hasAttribute("data-answer");
    if (L.open && box && ev.key === "Enter" && !ev.shiftKey && !ev.repeat) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      if (!L.waiting && !L.leaving) submit();
      return;
    }
    // keys typed in a box are text; a character key an answer's control does not take
    // (a letter in a number box, any in a slider) goes to the panel's keys below
    const control = { tag: ev.target.tagName, type: ev.target.type, editable: ev.target.isContentEditable };
    if (!L.open || !box || typesText(control, keyName(ev)) || !isCharacterKey(keyName(ev))) return;
  }
  if (!L.open) {
    pageKey(ev);
    return;
  }
  if (L.cfg.practice && practiceKey(ev)) return;
  const cur = L.cur;
  const action = cur
    ? keyAction(keyName(ev), {
        item: cur.item,
        focus: cur.focus,
        shortcuts: L.shortcuts,
        nextKey: L.cfg.nextKey,
        prevKey: L.cfg.prevKey,
      })
    : null;
  if (action === null) {
    // not ours: Tab, Space on a button ... go to the browser; other keys stop here, so
    // the ordinary page beneath never acts on them
    if (!/^(Tab| )$/.test(ev.key) && !(ev.ctrlKey || ev.metaKey || ev.altKey)) ev.stopImmediatePropagation();
    return;
  }
  // Enter submits, and never also activates the focused option
  ev.preventDefault();
  ev.stopImmediatePropagation();
  if (ev.repeat || L.waiting || L.leaving) return;
  if (action.type === "submit") submit();
  else if (action.type === "leave") leave();
  // previous item: the one before on the ordinary page; the page's other keys (next,
  // skip, flag) open it on this item, where they work as usual
  else if (action.type === "previousItem") leave(L.prev);
  else if (action.type === "fullPage") leave(cur.item.ref);
  else if (action.type === "move") {
    moveFocus(cur, action.step);
    marks();
    announce(cur.item.targets[cur.focus].title);
    // the keyboard leaves another question's box or slider: what it types next is not
    // that question's
    if (typing(document.activeElement) && document.activeElement.hasAttribute("data-answer")) focusRow();
    else focusAnswerBox();
  } else if (action.type === "choose") choose(action);
}

function install(config) {
  if (config.css && !document.querySelector('link[data-wb-lane]')) {
    document.head.append(h("link", { rel: "stylesheet", href: config.css, "data-wb-lane": "1" }));
  }
  window.addEventListener("keydown", onKey, true);
  for (const name of ["pointerdown", "mousemove", "wheel"]) {
    window.addEventListener(name, () => touch(), { passive: true, capture: true });
  }
  // time away from the lane's item: hidden tab or window out of focus
  const leaveTab = () => {
    if (L.since === null) L.since = Date.now();
  };
  const back = () => {
    if (L.since !== null && L.cur) L.cur.away += Date.now() - L.since;
    if (L.since !== null) L.lastInput = Date.now(); // counted once, not also as idle
    L.since = null;
  };
  document.addEventListener("visibilitychange", () => (document.hidden ? leaveTab() : back()));
  window.addEventListener("blur", leaveTab);
  window.addEventListener("focus", back);
  window.addEventListener("beforeunload", (ev) => {
    if (L.posts.jobs.length) {
      ev.preventDefault();
      ev.returnValue = "";
    }
  });
  // another page of the app (no reload): the panel goes; its posts go on
  setInterval(() => {
    if (L.open && !L.leaving && where() !== L.where) {
      L.open = false;
      L.cur = null;
      L.pageRef = null;
      render();
    }
  }, 500);
  try {
    // Esc opened the full page on an item: the panel stays closed on it
    const mark = JSON.parse(sessionStorage.getItem(FULL_KEY) || "null");
    sessionStorage.removeItem(FULL_KEY);
    if (mark && mark.scope === config.scope) L.fullRef = mark.ref;
  } catch {
    // no sessionStorage
  }
  L.scope = config.scope;
  L.shortcuts = shortcutsOn();
  L.installed = true;
}

/** One run of the page's item area: its config (lane, routes, the page's item). */
export function start(config) {
  L.cfg = config;
  if (!L.installed) install(config);
  if (config.practice) {
    // a practice item: the panel draws it unless it is already on it (or past it)
    L.scope = config.scope;
    if (!L.open && !L.finishing) show(config.item, "");
    return;
  }
  if (L.scope !== config.scope) {
    // another project or user in this tab: start over
    L.scope = config.scope;
    L.open = false;
    L.cur = null;
    L.pageRef = null;
    L.fullRef = null;
    render();
  }
  if (L.open) {
    if (config.item && L.cur && L.cur.item.ref === config.item.ref && adoptSaved(L.cur, config.item)) marks();
  } else if (L.pageRef !== config.ref) {
    // a new item on the ordinary page
    L.pageRef = config.ref;
    L.pageShown = Date.now();
    L.next = undefined;
    if (config.item && L.fullRef !== config.ref && !window.__wbNoLaneFirst) {
      show(config.item, config.prevRef); // the panel from the first item on
    } else {
      // the page's keys; its next item is fetched for the Enter takeover
      fetchNext(config.ref).then((p) => {
        if (!L.open && L.pageRef === config.ref) L.next = p;
      });
    }
  }
}
