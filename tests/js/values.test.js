// Unit tests of the value questions' state logic (ui/annotation/client/values.js) and
// of value and conditional questions in one item's state (item_state.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  applyChoice,
  applyValue,
  focusQuestion,
  leftQuestion,
  missingRequired,
  moveFocus,
  newItemState,
  setAsked,
  trySubmit,
} from "../../ui/annotation/client/item_state.js";
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
} from "../../ui/annotation/client/values.js";

const TEXT = "The cat sleep on the sofa.";
const WORDS = [
  [0, 3, "The"],
  [4, 7, "cat"],
  [8, 13, "sleep"],
  [14, 16, "on"],
  [17, 20, "the"],
  [21, 26, "sofa."],
];

test("a text answer is the text as typed; white space alone is none", () => {
  assert.equal(textAnswer("  A cat.\n"), "  A cat.\n");
  assert.equal(textAnswer(" \n\t"), null);
  assert.equal(textAnswer(""), null);
  assert.equal(textAnswer(undefined), null);
});

test("a score is a number inside its range, rounded to its step", () => {
  const unit = { min: 0, max: 1, step: 0.01 };
  assert.equal(stepDecimals(0.01), 2);
  assert.equal(stepDecimals(1), 0);
  assert.equal(scoreAnswer("0.7", unit), 0.7);
  assert.equal(scoreAnswer("0.1 ", unit), 0.1);
  assert.equal(scoreAnswer(0.30000000000000004, unit), 0.3);
  assert.equal(scoreAnswer("0", unit), 0);
  assert.equal(scoreAnswer("1.2", unit), null);
  assert.equal(scoreAnswer("-0.1", unit), null);
  assert.equal(scoreAnswer("", unit), null);
  assert.equal(scoreAnswer("high", unit), null);
  const stars = { min: 1, max: 10, step: 1 };
  assert.equal(scoreAnswer("7", stars), 7);
  assert.equal(scoreAnswer("0", stars), null);
  assert.equal(scoreAnswer("6.6", stars), 7);
});

test("words are selected by a first and a last press", () => {
  let sel = selectWord(null, 2);
  assert.deepEqual(sel, { from: 2, to: 2 });
  sel = selectWord(sel, 4);
  assert.deepEqual(sel, { from: 2, to: 4 });
  assert.ok(inSelection(sel, 3) && !inSelection(sel, 5) && !inSelection(null, 0));
  // a range made: the next press starts again
  assert.deepEqual(selectWord(sel, 0), { from: 0, to: 0 });
  // backwards, and the same word twice
  assert.deepEqual(selectWord({ from: 3, to: 3 }, 1), { from: 1, to: 3 });
  assert.deepEqual(selectWord({ from: 3, to: 3 }, 3), { from: 3, to: 3 });
});

test("a span is the character range of the selected words, stored sorted and once", () => {
  let spans = addSpan([], WORDS, { from: 2, to: 2 }, "fact");
  assert.deepEqual(spans, [{ start: 8, end: 13, label: "fact" }]);
  assert.equal(spanText(TEXT, spans[0]), "sleep");
  spans = addSpan(spans, WORDS, { from: 0, to: 1 }, "tone");
  assert.deepEqual(spans, [
    { start: 0, end: 7, label: "tone" },
    { start: 8, end: 13, label: "fact" },
  ]);
  assert.equal(spanText(TEXT, spans[0]), "The cat");
  // the same span twice is kept once
  assert.equal(addSpan(spans, WORDS, { from: 2, to: 2 }, "fact").length, 2);
  assert.equal(addSpan(spans, WORDS, null, "fact"), null);
  assert.equal(addSpan(spans, WORDS, { from: 4, to: 9 }, "fact"), null);
  assert.ok(wordMarked(spans, WORDS[1]) && !wordMarked(spans, WORDS[3]));
  assert.deepEqual(removeSpan(spans, 0), [{ start: 8, end: 13, label: "fact" }]);
});

function valueItem(ref) {
  const yn = [{ label: "yes", keys: ["y"] }, { label: "no", keys: ["n"] }];
  return {
    ref,
    conditional: true,
    targets: [
      { key: "bad", required: true, choices: yn, chosen: null },
      { key: "errors", control: "spans", byValue: true, required: true, asked: false, choices: [], chosen: null },
      { key: "score", control: "score", byValue: true, required: true, choices: [], chosen: null, min: 0, max: 1, step: 0.01 },
      { key: "note", control: "text", byValue: true, required: false, choices: [], chosen: null },
    ],
  };
}

test("a value is kept for its own item and asked question only", () => {
  const s = newItemState(valueItem("1"));
  assert.deepEqual(applyValue(s, { ref: "1", target: "score", value: 0.4 }), { score: 0.4 });
  assert.equal(applyValue(s, { ref: "2", target: "score", value: 0.9 }), null); // another item
  assert.equal(applyValue(s, { ref: "1", target: "bad", value: 1 }), null); // a choice question
  assert.equal(applyValue(s, { ref: "1", target: "errors", value: [] }), null); // not asked yet
  assert.equal(s.chosen.score, 0.4);
  // cleared: nothing to post, and the answer is missing again
  assert.deepEqual(applyValue(s, { ref: "1", target: "score", value: null }), {});
  assert.deepEqual(missingRequired(s), ["bad", "score"]);
});

test("a conditional question counts only while the server says it is asked", () => {
  const s = newItemState(valueItem("1"));
  assert.deepEqual(missingRequired(s), ["bad", "score"]);
  // the choice moves the focus past the hidden question
  applyChoice(s, { ref: "1", target: "bad", index: 0 });
  assert.equal(s.item.targets[s.focus].key, "score");
  assert.equal(setAsked(s, "2", ["bad", "errors", "score", "note"]), false); // another item
  assert.equal(setAsked(s, "1", ["bad", "errors", "score", "note"]), true);
  assert.equal(setAsked(s, "1", ["bad", "errors", "score", "note"]), false); // no change
  assert.deepEqual(missingRequired(s), ["errors", "score"]);
  assert.equal(s.item.targets[s.focus].key, "errors");
  applyValue(s, { ref: "1", target: "errors", value: [{ start: 0, end: 3, label: "fact" }] });
  applyValue(s, { ref: "1", target: "score", value: 0.5 });
  assert.deepEqual(Object.keys(trySubmit(s)), ["bad", "errors", "score"]);
  // "no" now: the spans question is hidden again, the focus leaves it, its answer stays home
  applyChoice(s, { ref: "1", target: "bad", index: 1 });
  s.focus = 1;
  setAsked(s, "1", ["bad", "score", "note"]);
  assert.equal(s.item.targets[s.focus].key, "score");
  assert.deepEqual(trySubmit(s), { bad: 1, score: 0.5 });
  // moving skips the hidden question both ways
  s.focus = 0;
  moveFocus(s, 1);
  assert.equal(s.item.targets[s.focus].key, "score");
  moveFocus(s, -1);
  assert.equal(s.item.targets[s.focus].key, "bad");
});

test("a question the answer just opened takes the focus back", () => {
  const s = newItemState(valueItem("1"));
  applyChoice(s, { ref: "1", target: "bad", index: 0 });
  assert.equal(s.item.targets[s.focus].key, "score");
  setAsked(s, "1", ["bad", "errors", "score", "note"]);
  assert.equal(s.item.targets[s.focus].key, "errors");
});

test("a saved text answer emptied is posted as null once (the server clears it)", () => {
  const it = valueItem("1");
  it.targets[3].chosen = "Typed before.";
  const s = newItemState(it);
  // typing it away: the box's input events post nothing, its change event posts null
  assert.deepEqual(applyValue(s, { ref: "1", target: "note", value: null, send: false }), { note: null });
  assert.deepEqual(applyValue(s, { ref: "1", target: "note", value: null, send: true }), { note: null });
  assert.equal(s.chosen.note, undefined);
  // the server holds nothing now: emptied again, nothing to post
  assert.deepEqual(applyValue(s, { ref: "1", target: "note", value: null, send: true }), {});
  // typed and posted, then emptied: null again
  applyValue(s, { ref: "1", target: "note", value: "New.", send: true });
  assert.deepEqual(applyValue(s, { ref: "1", target: "note", value: null, send: true }), { note: null });
});

test("a text never posted, emptied, posts nothing", () => {
  const s = newItemState(valueItem("1"));
  applyValue(s, { ref: "1", target: "note", value: "Draft", send: false });
  assert.deepEqual(applyValue(s, { ref: "1", target: "note", value: null, send: true }), {});
});

test("each typed character's answer is the item's answer at once, and what Enter submits", () => {
  const s = newItemState(valueItem("1"));
  applyChoice(s, { ref: "1", target: "bad", index: 1 });
  // the box's input events: nothing posted, the answer taken
  for (const typed of ["0", "0.", "0.7", "0.75"]) {
    assert.deepEqual(applyValue(s, { ref: "1", target: "score", value: Number(typed) || 0, send: false }), {
      score: Number(typed) || 0,
    });
  }
  applyValue(s, { ref: "1", target: "note", value: "Fine", send: false });
  applyValue(s, { ref: "1", target: "note", value: "Fine.", send: false });
  assert.deepEqual(missingRequired(s), []);
  assert.deepEqual(trySubmit(s), { bad: 1, score: 0.75, note: "Fine." });
});

test("a saved text emptied and submitted at once is submitted as null, not the saved text", () => {
  const it = valueItem("1");
  it.targets[0].chosen = 1;
  it.targets[2].chosen = 0.5;
  it.targets[3].chosen = "Typed before.";
  const s = newItemState(it);
  // emptied by typing (input events only: no change event before Enter)
  applyValue(s, { ref: "1", target: "note", value: null, send: false });
  assert.deepEqual(trySubmit(s), { bad: 1, score: 0.5, note: null });
  // once the null is posted (the box left), the server holds nothing: nothing to clear
  applyValue(s, { ref: "1", target: "note", value: null, send: true });
  assert.deepEqual(trySubmit(s), { bad: 1, score: 0.5 });
});

test("the question the keyboard goes into is the current one", () => {
  const s = newItemState(valueItem("1"));
  assert.equal(focusQuestion(s, "note"), true);
  assert.equal(s.item.targets[s.focus].key, "note");
  assert.equal(focusQuestion(s, "note"), false); // already
  assert.equal(focusQuestion(s, "errors"), false); // not asked
  assert.equal(focusQuestion(s, "nope"), false);
  assert.equal(s.item.targets[s.focus].key, "note");
});

test("a value question left with an answer hands the next key to the next question", () => {
  const it = valueItem("1");
  it.targets.push({ key: "topic", required: true, choices: [{ label: "travel", keys: ["1"] }], chosen: null });
  const s = newItemState(it);
  focusQuestion(s, "score");
  // left without an answer: still the current question
  assert.equal(leftQuestion(s, "score"), false);
  assert.equal(s.item.targets[s.focus].key, "score");
  applyValue(s, { ref: "1", target: "score", value: 0.3, send: true });
  // another question's box left: no move
  assert.equal(leftQuestion(s, "note"), false);
  assert.equal(leftQuestion(s, "score"), true);
  assert.equal(s.item.targets[s.focus].key, "note");
  // the key pressed now answers the question after the box, not the box's
  focusQuestion(s, "score");
  leftQuestion(s, "score");
  moveFocus(s, 1);
  assert.equal(s.item.targets[s.focus].key, "topic");
  assert.deepEqual(applyChoice(s, { ref: "1", target: s.item.targets[s.focus].key, index: 0 }), { topic: 0 });
  // a choice question is not handed on when left (its choice moved the focus already)
  assert.equal(leftQuestion(s, "topic"), false);
});
