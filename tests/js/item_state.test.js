// Unit tests of one item's state in the panel (ui/annotation/client/item_state.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  adoptSaved,
  applyChoice,
  isChosen,
  missingRequired,
  moveFocus,
  newItemState,
  trySubmit,
} from "../../ui/annotation/client/item_state.js";

const YN = [{ label: "yes", keys: ["y"] }, { label: "no", keys: ["n"] }];
function item(ref, chosen = {}) {
  return {
    ref,
    targets: [
      { key: "q1", required: true, choices: YN, chosen: chosen.q1 ?? null },
      { key: "q2", required: false, choices: YN, chosen: chosen.q2 ?? null },
      { key: "q3", required: true, choices: YN, chosen: chosen.q3 ?? null },
    ],
  };
}

test("a new item starts on its first question without an answer", () => {
  assert.equal(newItemState(item("1")).focus, 0);
  const s = newItemState(item("1", { q1: 0, q2: 1 }));
  assert.equal(s.focus, 2);
  assert.deepEqual(s.chosen, { q1: 0, q2: 1 });
});

test("a choice lands on the item and question it names, and the focus moves on", () => {
  const s = newItemState(item("1"));
  assert.deepEqual(applyChoice(s, { ref: "1", target: "q1", index: 1 }), { q1: 1 });
  assert.equal(s.focus, 1);
  assert.ok(isChosen(s, s.item.targets[0], 1) && !isChosen(s, s.item.targets[0], 0));
});

test("a choice given on another item changes nothing", () => {
  const s = newItemState(item("2"));
  assert.equal(applyChoice(s, { ref: "1", target: "q1", index: 0 }), null);
  assert.equal(applyChoice(s, { ref: "2", target: "nope", index: 0 }), null);
  assert.equal(applyChoice(s, { ref: "2", target: "q1", index: 5 }), null);
  assert.deepEqual(s.chosen, {});
  assert.equal(s.focus, 0);
});

test("only required questions hold up a submit; the focus goes to the first missing", () => {
  const s = newItemState(item("1"));
  applyChoice(s, { ref: "1", target: "q1", index: 0 });
  assert.deepEqual(missingRequired(s), ["q3"]);
  assert.equal(trySubmit(s), null);
  assert.ok(s.missing);
  assert.equal(s.focus, 2);
  applyChoice(s, { ref: "1", target: "q3", index: 1 });
  assert.deepEqual(trySubmit(s), { q1: 0, q3: 1 }); // the optional q2 left out
});

test("a label set toggles its labels and keeps the focus", () => {
  const s = newItemState({ ref: "1", targets: [{ key: "tags", multi: true, choices: YN, chosen: null }] });
  assert.deepEqual(applyChoice(s, { ref: "1", target: "tags", index: 1 }), { tags: [1] });
  assert.deepEqual(applyChoice(s, { ref: "1", target: "tags", index: 0 }), { tags: [0, 1] });
  assert.deepEqual(applyChoice(s, { ref: "1", target: "tags", index: 1 }), { tags: [0] });
  assert.equal(s.focus, 0);
});

test("the focus wraps; saved choices drawn by the page are taken in", () => {
  const s = newItemState(item("1"));
  moveFocus(s, -1);
  assert.equal(s.focus, 2);
  const fresh = newItemState(item("1"));
  assert.ok(adoptSaved(fresh, item("1", { q1: 1 })));
  assert.equal(fresh.focus, 1);
  assert.ok(!adoptSaved(fresh, item("1", { q1: 0 }))); // the panel's own choice stays
  assert.equal(fresh.chosen.q1, 1);
});
