// Unit tests of a ranking question in the panel (ui/annotation/client/ranking.js and its
// use by item_state.js / keys.js): keys place outputs best first, reorders, ties.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyChoice, applyRanking, isChosen, newItemState, trySubmit } from "../../ui/annotation/client/item_state.js";
import { keyAction } from "../../ui/annotation/client/keys.js";
import {
  levelLast,
  moveOutput,
  placeOf,
  pressOutput,
  rankingComplete,
  rankingText,
} from "../../ui/annotation/client/ranking.js";

const OUTPUTS = ["Response A", "Response B", "Response C"].map((label, i) => ({ label, keys: ["abc"[i]] }));
const LEVEL = { label: "Level with the place above", keys: ["="] };

function item(ref, { ties = true, chosen = null } = {}) {
  const rank = {
    key: "order",
    control: "ranking",
    required: true,
    places: 3,
    ties,
    choices: ties ? [...OUTPUTS, LEVEL] : OUTPUTS,
    chosen,
  };
  const after = { key: "ok", required: true, choices: [{ label: "yes", keys: ["y"] }], chosen: null };
  return { ref, targets: [rank, after] };
}

function press(state, key) {
  const action = keyAction(key, { item: state.item, focus: state.focus, shortcuts: true, nextKey: "j", prevKey: "k" });
  return action && action.type === "choose" ? applyChoice(state, action) : null;
}

test("letters place outputs best first; a second press takes one out", () => {
  assert.deepEqual(pressOutput([], 1), [[1]]);
  assert.deepEqual(pressOutput([[1], [0]], 2), [[1], [0], [2]]);
  assert.deepEqual(pressOutput([[1], [0], [2]], 0), [[1], [2]]);
  assert.deepEqual(pressOutput([[0, 2], [1]], 2), [[0], [1]]);
  assert.equal(placeOf([[1], [0, 2]], 2), 2);
  assert.equal(placeOf([[1]], 0), 0);
});

test("a ranking is complete once every output has one place", () => {
  assert.ok(rankingComplete([[1], [0, 2]], 3));
  assert.ok(!rankingComplete([[1], [0]], 3));
  assert.ok(!rankingComplete(null, 3));
  assert.equal(rankingText([[1], [0, 2]], ["A", "B", "C"]), "B > A = C");
});

test("= puts the last output placed level with the place above", () => {
  assert.deepEqual(levelLast([[1], [0]]), [[0, 1]]);
  assert.equal(levelLast([[1]]), null);
  assert.equal(levelLast([[1], [0, 2]]), null);
});

test("move up / down swaps places, or takes an output out of a tie on that side", () => {
  assert.deepEqual(moveOutput([[1], [0], [2]], 0, -1), [[0], [1], [2]]);
  assert.deepEqual(moveOutput([[1], [0], [2]], 0, 1), [[1], [2], [0]]);
  assert.equal(moveOutput([[1], [0], [2]], 1, -1), null);
  assert.equal(moveOutput([[1], [0], [2]], 2, 1), null);
  assert.deepEqual(moveOutput([[0, 2], [1]], 2, -1), [[2], [0], [1]]);
  assert.deepEqual(moveOutput([[0, 2], [1]], 0, 1), [[2], [0], [1]]);
  assert.equal(moveOutput([[0]], 1, 1), null);
});

test("keys rank on the item pressed; posted only once complete, then the focus stays for a tie", () => {
  const s = newItemState(item("4"));
  assert.deepEqual(press(s, "b"), {}); // nothing to post yet
  assert.deepEqual(press(s, "c"), {});
  assert.deepEqual(press(s, "="), {}); // c level with b
  assert.deepEqual(press(s, "a"), { order: [[1, 2], [0]] });
  assert.equal(s.focus, 0); // ties allowed: "=" may still follow
  assert.ok(isChosen(s, s.item.targets[0], 0) && !isChosen(s, s.item.targets[0], 3));
  // a choice carried from another item is dropped
  assert.equal(applyChoice(s, { ref: "3", target: "order", index: 0 }), null);
  assert.deepEqual(s.chosen.order, [[1, 2], [0]]);
});

test("without ties, a complete ranking moves the focus on; = is no key there", () => {
  const s = newItemState(item("1", { ties: false }));
  assert.equal(press(s, "="), null);
  press(s, "c");
  press(s, "a");
  assert.equal(s.focus, 0);
  assert.deepEqual(press(s, "b"), { order: [[2], [0], [1]] });
  assert.equal(s.focus, 1);
});

test("an incomplete ranking is missing on submit; a reorder of a complete one is posted", () => {
  const s = newItemState(item("2"));
  press(s, "a");
  s.chosen.ok = 0;
  assert.equal(trySubmit(s), null);
  assert.ok(s.missing && s.focus === 0);
  press(s, "b");
  press(s, "c");
  assert.deepEqual(trySubmit(s), { order: [[0], [1], [2]], ok: 0 });
  const moved = applyRanking(s, { ref: "2", target: "order", ranking: moveOutput(s.chosen.order, 2, -1) });
  assert.deepEqual(moved, { order: [[0], [2], [1]] });
  assert.deepEqual(applyRanking(s, { ref: "2", target: "order", ranking: [] }), {});
  assert.equal(applyRanking(s, { ref: "9", target: "order", ranking: [[0]] }), null);
});

test("a saved ranking comes back as the panel's answer", () => {
  const s = newItemState(item("5", { chosen: [[2], [0], [1]] }));
  assert.equal(s.focus, 1); // the ranking is answered: the first to do is the next one
  assert.deepEqual(trySubmit({ ...s, chosen: { ...s.chosen, ok: 0 } }), { order: [[2], [0], [1]], ok: 0 });
});
