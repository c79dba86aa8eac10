// Unit tests of the panel's key mapping (ui/annotation/client/keys.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { choiceIndex, isCharacterKey, keyAction, keyHint, keyName, typesText } from "../../ui/annotation/client/keys.js";

const FACTS = {
  ref: "3",
  targets: [
    { key: "gold.0", choices: [{ label: "C", keys: ["c", "1"] }, { label: "M", keys: ["m", "0"] }] },
    { key: "gold.1", choices: [{ label: "C", keys: ["c", "1"] }, { label: "M", keys: ["m", "0"] }] },
  ],
};
const PAIR = {
  ref: "7",
  targets: [
    {
      key: "better",
      choices: [
        { label: "A is better", keys: ["a"] },
        { label: "B is better", keys: ["b"] },
        { label: "Tie", keys: ["t"] },
      ],
    },
  ],
};
const view = (item, focus = 0, shortcuts = true) => ({ item, focus, shortcuts, nextKey: "j", prevKey: "k" });

test("key names: characters lower-case, Shift+letter named, modifiers left alone", () => {
  assert.equal(keyName({ key: "C" }), "c");
  assert.equal(keyName({ key: "S", shiftKey: true }), "Shift+s");
  assert.equal(keyName({ key: "1", shiftKey: false }), "1");
  assert.equal(keyName({ key: "Enter" }), "Enter");
  assert.equal(keyName({ key: "c", ctrlKey: true }), null);
  assert.equal(keyName({ key: "r", metaKey: true }), null);
  assert.ok(isCharacterKey("c") && isCharacterKey("Shift+f"));
  assert.ok(!isCharacterKey("Enter") && !isCharacterKey("ArrowLeft"));
});

test("C / M and 1 / 0 pick a fact's option, on the item and fact in focus", () => {
  assert.deepEqual(keyAction("c", view(FACTS)), { type: "choose", ref: "3", target: "gold.0", index: 0 });
  assert.deepEqual(keyAction("0", view(FACTS, 1)), { type: "choose", ref: "3", target: "gold.1", index: 1 });
  assert.deepEqual(keyAction("m", view(FACTS, 1)), { type: "choose", ref: "3", target: "gold.1", index: 1 });
  assert.equal(keyAction("y", view(FACTS)), null); // not a key of this question
});

test("A / B / T pick a pair's option", () => {
  assert.equal(keyAction("a", view(PAIR)).index, 0);
  assert.equal(keyAction("b", view(PAIR)).index, 1);
  assert.equal(keyAction("t", view(PAIR)).index, 2);
  assert.equal(choiceIndex(PAIR.targets[0], "c"), -1);
});

test("Enter submits the item on screen; Esc and the arrows leave; Tab is the browser's", () => {
  assert.deepEqual(keyAction("Enter", view(PAIR)), { type: "submit", ref: "7" });
  assert.deepEqual(keyAction("Escape", view(PAIR)), { type: "leave" });
  assert.deepEqual(keyAction("ArrowLeft", view(PAIR)), { type: "previousItem" });
  assert.deepEqual(keyAction("ArrowRight", view(PAIR)), { type: "fullPage" });
  assert.deepEqual(keyAction("Shift+s", view(PAIR)), { type: "fullPage" });
  assert.equal(keyAction("Tab", view(PAIR)), null);
  assert.equal(keyAction(" ", view(PAIR)), null);
  assert.equal(keyAction(null, view(PAIR)), null);
});

test("j / k move between questions", () => {
  assert.deepEqual(keyAction("j", view(FACTS)), { type: "move", step: 1 });
  assert.deepEqual(keyAction("k", view(FACTS)), { type: "move", step: -1 });
});

test("shortcuts turned off: no single-character key acts, Enter and Esc still do", () => {
  for (const key of ["c", "1", "j", "Shift+s"]) assert.equal(keyAction(key, view(FACTS, 0, false)), null);
  assert.equal(keyAction("Enter", view(FACTS, 0, false)).type, "submit");
  assert.equal(keyAction("Escape", view(FACTS, 0, false)).type, "leave");
});

test("an option shows its first key", () => {
  assert.equal(keyHint({ keys: ["y", "1"] }), "Y");
  assert.equal(keyHint({ keys: [] }), "");
  assert.equal(keyHint({}), "");
});

test("a key types into a box only when the box takes it as text", () => {
  const area = { tag: "TEXTAREA" };
  const number = { tag: "INPUT", type: "number" };
  const slider = { tag: "INPUT", type: "range" };
  for (const key of ["a", "1", "Shift+c", " "]) assert.equal(typesText(area, key), true, key);
  assert.equal(typesText({ tag: "INPUT", type: "text" }, "y"), true);
  assert.equal(typesText({ tag: "DIV", editable: true }, "y"), true);
  for (const key of ["7", ".", "-", "e"]) assert.equal(typesText(number, key), true, key);
  // a letter in a number box, any key on a slider: the panel's key map has them
  for (const key of ["j", "c", "Shift+s"]) assert.equal(typesText(number, key), false, key);
  for (const key of ["1", "j"]) assert.equal(typesText(slider, key), false, key);
  // keys that are no characters (arrows, Enter, Tab) are not taken here
  assert.equal(typesText(area, "ArrowLeft"), false);
  assert.equal(typesText(null, "a"), false);
});
