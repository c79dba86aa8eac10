// Unit tests of the client's side-panel marks and refresh presses (panels.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { clearPanelMarks, MARK_TEXT, markPanels, refreshPanels } from "../../ui/annotation/client/panels.js";

// a document of the given slots and buttons, found by the selectors panels.js uses
function fakeDoc({ slots = 0, buttons = 0 } = {}) {
  const marks = Array.from({ length: slots }, () => ({ textContent: "" }));
  const pressed = [];
  const found = Array.from({ length: buttons }, (_, i) => ({ click: () => pressed.push(i) }));
  return {
    marks,
    pressed,
    querySelectorAll(selector) {
      if (selector === ".wb-panel-mark") return marks;
      if (selector === "[class*='st-key-wb_panel_refresh'] button") return found;
      throw new Error("unexpected selector " + selector);
    },
  };
}

test("a submit marks every panel's slot as updating, and a refusal clears them", () => {
  const doc = fakeDoc({ slots: 2 });
  assert.equal(markPanels(doc), 2);
  assert.deepEqual(
    doc.marks.map((m) => m.textContent),
    [MARK_TEXT, MARK_TEXT],
  );
  assert.match(MARK_TEXT, /updating with the newest labels/); // the panel's own words
  clearPanelMarks(doc);
  assert.deepEqual(
    doc.marks.map((m) => m.textContent),
    ["", ""],
  );
});

test("a saved submit presses each panel's refresh button once", () => {
  const doc = fakeDoc({ buttons: 2 });
  assert.equal(refreshPanels(doc), 2);
  assert.deepEqual(doc.pressed, [0, 1]);
});

test("without panels (an annotator's page) nothing is marked or pressed", () => {
  const doc = fakeDoc();
  assert.equal(markPanels(doc), 0);
  assert.equal(refreshPanels(doc), 0);
});
