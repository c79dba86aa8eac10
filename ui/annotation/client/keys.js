// Keys of the annotation panel: what a key press means for the item on screen.
//
// Pure functions (no DOM), unit-tested under node (tests/js). Every choice an action
// names carries the item (its ref) and the question (target key) it was pressed on, so
// a choice can never land on an item other than the one on screen when it was given.

export const SUBMIT = "Enter";
export const LEAVE = "Escape";
export const PREVIOUS_ITEM = "ArrowLeft";
export const NEXT_ITEM = "ArrowRight";

/** The key's name: lower-case for a character ("Shift+s" with Shift), else ev.key;
 * null with Ctrl, Alt or Meta (the browser's and the system's own shortcuts). */
export function keyName(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  if (ev.key === undefined || ev.key === null) return null;
  if (ev.key.length !== 1) return ev.key;
  const key = ev.key.toLowerCase();
  return ev.shiftKey && /^[a-z]$/.test(key) ? "Shift+" + key : key;
}

/** True for a key that types a character (WCAG 2.1.4: these can be turned off). */
export function isCharacterKey(name) {
  return typeof name === "string" && (name.length === 1 || name.startsWith("Shift+"));
}

// the characters a number box takes (digits, a sign, a decimal point, an exponent)
const NUMBER_TEXT = /^[0-9.,eE+-]$/;

/**
 * Whether the key ``name`` types into the focused control ``box`` ({tag, type,
 * editable}): any character in a text box, a number's characters in a number box, none
 * in a slider. A character key a box does not take belongs to the panel's key map.
 */
export function typesText(box, name) {
  if (!box || !isCharacterKey(name)) return false;
  if (box.editable || box.tag === "TEXTAREA") return true;
  if (box.tag !== "INPUT") return false;
  const type = (box.type || "text").toLowerCase();
  if (type === "number") return NUMBER_TEXT.test(name);
  return !["range", "checkbox", "radio", "button", "submit", "reset", "color", "file"].includes(type);
}

/** Index of the choice of ``target`` that ``key`` picks, or -1. */
export function choiceIndex(target, key) {
  if (!target || !Array.isArray(target.choices)) return -1;
  return target.choices.findIndex((c) => Array.isArray(c.keys) && c.keys.includes(key));
}

/**
 * What a key does in the panel, or null to leave it to the browser (Tab, Space on a
 * focused button, keys typed in a text box ...).
 *
 * view: {item, focus, shortcuts (bool), nextKey, prevKey}
 */
export function keyAction(name, view) {
  if (name === null) return null;
  if (name === SUBMIT) return { type: "submit", ref: view.item.ref };
  if (name === LEAVE) return { type: "leave" };
  if (name === PREVIOUS_ITEM) return { type: "previousItem" };
  if (name === NEXT_ITEM) return { type: "fullPage" };
  if (!isCharacterKey(name) || !view.shortcuts) return null;
  if (name === "Shift+s" || name === "Shift+f") return { type: "fullPage" };
  const targets = view.item.targets;
  if (name === view.nextKey || name === view.prevKey) {
    return targets.length ? { type: "move", step: name === view.nextKey ? 1 : -1 } : null;
  }
  const target = targets[view.focus];
  const index = choiceIndex(target, name);
  if (index < 0) return null;
  return { type: "choose", ref: view.item.ref, target: target.key, index };
}

/** The key shown on an option (its first key, upper-case), or "" when it has none. */
export function keyHint(choice) {
  const key = choice && Array.isArray(choice.keys) ? choice.keys[0] : undefined;
  return key ? key.toUpperCase() : "";
}
