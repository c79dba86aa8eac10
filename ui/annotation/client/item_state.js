// One item in the panel: its choices so far, the question in focus, what is missing.
//
// Pure (no DOM): lane.js draws it. The server says which questions are required (each
// target's ``required``); the panel asks only for those, and the server still has the
// last word on submit.

/** A fresh state for ``item`` (its saved choices marked, focus on the first to do). */
export function newItemState(item, now = Date.now()) {
  const chosen = {};
  for (const t of item.targets) {
    if (t.chosen !== null && t.chosen !== undefined) chosen[t.key] = t.chosen;
  }
  const state = { item, chosen, focus: 0, missing: false, keyed: false, shown: now, away: 0 };
  state.focus = Math.max(firstTodo(state), 0);
  return state;
}

function answered(state, target) {
  const value = state.chosen[target.key];
  return value !== undefined && value !== null;
}

/** Index of the first target without an answer (-1 when all have one). */
export function firstTodo(state) {
  return state.item.targets.findIndex((t) => !answered(state, t));
}

/** Keys of the required targets still without an answer. */
export function missingRequired(state) {
  return state.item.targets.filter((t) => t.required !== false && !answered(state, t)).map((t) => t.key);
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
  if (!target || !Number.isInteger(action.index)) return null;
  if (action.index < 0 || action.index >= target.choices.length) return null;
  let value = action.index;
  if (target.multi) {  // a label set: the key toggles its label, the focus stays
    const now = Array.isArray(state.chosen[target.key]) ? state.chosen[target.key] : [];
    value = now.includes(action.index)
      ? now.filter((x) => x !== action.index)
      : [...now, action.index].sort((a, b) => a - b);
  } else {
    state.focus = Math.min(i + 1, state.item.targets.length - 1);
  }
  state.chosen[target.key] = value;
  state.keyed = true;
  return { [target.key]: value };
}

/** Move the focus by ``step`` questions (wrapping). */
export function moveFocus(state, step) {
  const n = state.item.targets.length;
  if (!n) return;
  state.focus = (state.focus + step + n) % n;
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
  return { ...state.chosen };
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

/** Whether option ``j`` of ``target`` is chosen. */
export function isChosen(state, target, j) {
  const value = state.chosen[target.key];
  return Array.isArray(value) ? value.includes(j) : value === j;
}
