// One item in the panel: its choices so far, the question in focus, what is missing.
//
// Pure (no DOM): lane.js draws it. The server says which questions are required (each
// target's ``required``) and which are asked (``asked``: false while a conditional
// question's condition does not hold; each save's answer says it again); the panel asks
// only for those, and the server still has the last word on submit.

import { levelLast, placeOf, pressOutput, rankingComplete } from "./ranking.js";

/** A fresh state for ``item`` (its saved choices marked, focus on the first to do). */
export function newItemState(item, now = Date.now()) {
  const chosen = {};
  for (const t of item.targets) {
    if (t.chosen !== null && t.chosen !== undefined) chosen[t.key] = t.chosen;
  }
  // saved: the value questions the server holds an answer to (an emptied one is cleared)
  const saved = Object.fromEntries(Object.keys(chosen).map((k) => [k, true]));
  const state = { item, chosen, saved, focus: 0, missing: false, keyed: false, shown: now, away: 0, spanSel: {} };
  const todo = firstTodo(state);
  state.focus = todo >= 0 ? todo : item.targets.length ? nextAsked(state, 0, 1) : 0;
  return state;
}

/** Whether ``target`` has an answer now (a ranking: once every output has a place). */
export function answered(state, target) {
  const value = state.chosen[target.key];
  if (target.control === "ranking") return rankingComplete(value, target.places);
  return value !== undefined && value !== null;
}

// A press on a ranking's option: an output placed next (or taken out), or "level with
// the place above". Returns the new ranking, or null when the press changes nothing.
function rankingPress(state, target, index) {
  const now = state.chosen[target.key];
  if (index < target.places) return pressOutput(now, index);
  return levelLast(now);
}

/** Whether a target is asked now (shown): its condition, if any, holds. */
export function isAsked(target) {
  return target.asked !== false;
}

/** Index of the first asked target without an answer (-1 when all have one). */
export function firstTodo(state) {
  return state.item.targets.findIndex((t) => isAsked(t) && !answered(state, t));
}

/** Keys of the required asked targets still without an answer. */
export function missingRequired(state) {
  return state.item.targets
    .filter((t) => isAsked(t) && t.required !== false && !answered(state, t))
    .map((t) => t.key);
}

// the next asked target from ``i`` on, going ``step`` (wrapping); ``i`` when none is
function nextAsked(state, i, step) {
  const n = state.item.targets.length;
  for (let k = 0; k < n; k += 1) {
    const j = (((i + step * k) % n) + n) % n;
    if (isAsked(state.item.targets[j])) return j;
  }
  return i;
}

/**
 * Apply a choice (``{ref, target, index}``) given on the item ``ref``. Returns the
 * change to post (``{target: value}``) or null when the choice is not for this item,
 * names no target or choice of it (nothing changes then).
 */
export function applyChoice(state, action) {
  if (!action || action.ref !== state.item.ref) return null;
  const i = state.item.targets.findIndex((t) => t.key === action.target);
  const target = state.item.targets[i];
  if (!target || !isAsked(target) || !Number.isInteger(action.index)) return null;
  if (action.index < 0 || action.index >= target.choices.length) return null;
  let value = action.index;
  if (target.control === "ranking") {
    // the ranking is posted once every output has a place; the focus moves on then,
    // unless a tie may still be made ("=" after the last output)
    value = rankingPress(state, target, action.index);
    if (value === null) return null;
    state.chosen[target.key] = value;
    state.keyed = true;
    const complete = rankingComplete(value, target.places);
    if (complete && !target.ties && i + 1 < state.item.targets.length) {
      const next = nextAsked(state, i + 1, 1);
      if (next > i) state.focus = next;
    }
    return complete ? { [target.key]: value } : {};
  }
  if (target.multi) {  // a label set: the key toggles its label, the focus stays
    const now = Array.isArray(state.chosen[target.key]) ? state.chosen[target.key] : [];
    value = now.includes(action.index)
      ? now.filter((x) => x !== action.index)
      : [...now, action.index].sort((a, b) => a - b);
  } else if (i + 1 < state.item.targets.length) {
    const next = nextAsked(state, i + 1, 1);
    if (next > i) state.focus = next;
  }
  state.chosen[target.key] = value;
  state.keyed = true;
  return { [target.key]: value };
}

/**
 * Set the answer of a value question (text, score, spans) given on the item ``ref``:
 * ``{ref, target, value}``, value null for none. Returns the change to post
 * (``{target: value}``), {} when there is nothing to post (no answer now), or null when
 * the value is not for this item or an asked value question of it. The focus stays.
 * A text answer emptied when the server holds one gives ``{target: null}``: the
 * server clears it (or refuses). ``action.send``: the change is posted now (the server
 * then holds the answer, or no longer does).
 */
export function applyValue(state, action) {
  if (!action || action.ref !== state.item.ref) return null;
  const target = state.item.targets.find((t) => t.key === action.target);
  if (!target || !isAsked(target) || !target.byValue) return null;
  state.keyed = true;
  if (!state.saved) state.saved = {};
  if (action.value === null || action.value === undefined) {
    delete state.chosen[target.key];
    if (!state.saved[target.key] || target.control !== "text") return {};
    if (action.send) delete state.saved[target.key];
    return { [target.key]: null };
  }
  state.chosen[target.key] = action.value;
  if (action.send) state.saved[target.key] = true;
  return { [target.key]: action.value };
}

/**
 * The server's word on which targets are asked (``keys``, after a save on item
 * ``ref``). Returns true when a target was shown or hidden; the focus leaves a hidden
 * one, and goes back to a question just shown before it without an answer (the one the
 * answer just given opened).
 */
export function setAsked(state, ref, keys) {
  if (ref !== state.item.ref || !Array.isArray(keys)) return false;
  let changed = false;
  let opened = -1;
  state.item.targets.forEach((t, i) => {
    const asked = keys.includes(t.key);
    if (isAsked(t) === asked) return;
    t.asked = asked;
    changed = true;
    if (asked && opened < 0 && !answered(state, t)) opened = i;
  });
  if (opened >= 0 && opened < state.focus) state.focus = opened;
  else if (changed && !isAsked(state.item.targets[state.focus])) {
    state.focus = nextAsked(state, state.focus, 1);
  }
  return changed;
}

/**
 * Make the asked question ``key`` the current one (the keyboard went into its
 * controls). Returns true when the current question changed.
 */
export function focusQuestion(state, key) {
  const i = state.item.targets.findIndex((t) => t.key === key);
  if (i < 0 || i === state.focus || !isAsked(state.item.targets[i])) return false;
  state.focus = i;
  return true;
}

/**
 * The keyboard left the value question ``key`` (its box, slider or words) for no other
 * question: once it has an answer the next asked question becomes the current one, as
 * after a choice, so the next key answers that question. Returns true when it moved.
 */
export function leftQuestion(state, key) {
  const i = state.item.targets.findIndex((t) => t.key === key);
  const target = state.item.targets[i];
  if (i < 0 || i !== state.focus || !target.byValue || !answered(state, target)) return false;
  const next = nextAsked(state, i + 1, 1);
  if (next <= i) return false;
  state.focus = next;
  return true;
}

/** Move the focus by ``step`` asked questions (wrapping). */
export function moveFocus(state, step) {
  const n = state.item.targets.length;
  if (!n) return;
  state.focus = nextAsked(state, (state.focus + step + n) % n, step < 0 ? -1 : 1);
  state.keyed = true;
}

/**
 * Submit if nothing required is missing: returns the choices to send, or null with
 * ``state.missing`` set and the focus on the first missing question.
 */
export function trySubmit(state) {
  const missing = missingRequired(state);
  if (missing.length) {
    state.missing = true;
    state.focus = state.item.targets.findIndex((t) => t.key === missing[0]);
    return null;
  }
  // an answer to a question no longer asked is not sent (the server would refuse it);
  // a text answer the server holds and the box no longer does is sent as null (cleared),
  // or the submit would keep the text last saved
  const out = {};
  for (const t of state.item.targets) {
    if (isAsked(t) && answered(state, t)) out[t.key] = state.chosen[t.key];
    else if (isAsked(t) && t.control === "text" && state.saved && state.saved[t.key]) out[t.key] = null;
  }
  return out;
}

/** Take saved choices the panel does not have yet (a rerun of the page drew the same item). */
export function adoptSaved(state, item) {
  let changed = false;
  for (const t of item.targets) {
    if (t.chosen !== null && t.chosen !== undefined && state.chosen[t.key] === undefined) {
      state.chosen[t.key] = t.chosen;
      changed = true;
    }
  }
  if (changed && !state.keyed) {
    const todo = firstTodo(state);
    if (todo >= 0) state.focus = todo;
  }
  return changed;
}

/**
 * Put a ranking given on item ``ref`` by a reorder (move up / down, start over):
 * ``{ref, target, ranking}``. Returns the change to post, {} when the ranking is not
 * complete (nothing to post), or null when it is not for this item's asked ranking.
 */
export function applyRanking(state, action) {
  if (!action || action.ref !== state.item.ref || !Array.isArray(action.ranking)) return null;
  const target = state.item.targets.find((t) => t.key === action.target);
  if (!target || !isAsked(target) || target.control !== "ranking") return null;
  state.chosen[target.key] = action.ranking;
  state.keyed = true;
  return rankingComplete(action.ranking, target.places) ? { [target.key]: action.ranking } : {};
}

/** Whether option ``j`` of ``target`` is chosen (a ranking's output: placed). */
export function isChosen(state, target, j) {
  const value = state.chosen[target.key];
  if (target.control === "ranking") return j < target.places && placeOf(value, j) > 0;
  return Array.isArray(value) ? value.includes(j) : value === j;
}
