// Unit tests: a pairwise question with strengths is a scale keyed by digits (the tie
// also T), each key picking the option it is shown on, on the item it was pressed on.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyChoice, isChosen, newItemState } from "../../ui/annotation/client/item_state.js";
import { keyAction, keyHint } from "../../ui/annotation/client/keys.js";

// as the server sends it (ui/annotation/options.py: _strength_scale)
const SCALE = [
  { label: "A is better (much)", keys: ["1"] },
  { label: "A is better (slightly)", keys: ["2"] },
  { label: "Tie", keys: ["3", "t"] },
  { label: "B is better (slightly)", keys: ["4"] },
  { label: "B is better (much)", keys: ["5"] },
];

function item(ref) {
  return { ref, targets: [{ key: "preference", control: "pairwise", required: true, choices: SCALE, chosen: null }] };
}

function act(state, key) {
  return keyAction(key, { item: state.item, focus: state.focus, shortcuts: true, nextKey: "j", prevKey: "k" });
}

test("each digit picks the option showing it; T is the tie too", () => {
  for (const [key, index] of [["1", 0], ["2", 1], ["3", 2], ["t", 2], ["4", 3], ["5", 4]]) {
    const s = newItemState(item("7"));
    assert.deepEqual(applyChoice(s, act(s, key)), { preference: index }, key);
    assert.ok(isChosen(s, s.item.targets[0], index));
  }
  assert.deepEqual(SCALE.map(keyHint), ["1", "2", "3", "4", "5"]);
});

test("a, b and other digits pick nothing on a scale", () => {
  const s = newItemState(item("7"));
  for (const key of ["a", "b", "6", "0"]) assert.equal(act(s, key), null, key);
});

test("a key pressed on one item never lands on the next", () => {
  const first = newItemState(item("1"));
  const action = act(first, "5");
  const second = newItemState(item("2"));
  assert.equal(applyChoice(second, action), null);
  assert.deepEqual(second.chosen, {});
});
