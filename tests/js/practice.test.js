// Unit tests of a practice item's verdict in the panel (ui/annotation/client/practice.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { checkBody, feedbackText, isGold, verdictText } from "../../ui/annotation/client/practice.js";

const WRONG = {
  correct: false,
  verdict: "Not quite. The expected answer is 1. a table: C; 2. for two: M.",
  gold: { "facts.0": 0, "facts.1": 1, rank: [[1], [0]], reply: "hello" },
  expected: [
    { title: "1. a table", answer: "C" },
    { title: "2. for two", answer: "M" },
  ],
  explanation: "Two people were asked for.",
};

test("a right answer says so, then why", () => {
  const right = { correct: true, verdict: "Right.", gold: {}, explanation: "Snow reflects light." };
  assert.equal(verdictText(right), "Right.");
  assert.equal(feedbackText(right), "Right. Snow reflects light.");
  assert.equal(feedbackText({ ...right, explanation: "" }), "Right.");
});

test("a wrong answer is said as the server words it, then why", () => {
  assert.equal(verdictText(WRONG), "Not quite. The expected answer is 1. a table: C; 2. for two: M.");
  assert.equal(
    feedbackText(WRONG),
    "Not quite. The expected answer is 1. a table: C; 2. for two: M. Two people were asked for.",
  );
  // without the server's words: the verdict alone
  assert.equal(verdictText({ correct: false }), "Not quite.");
  assert.equal(verdictText({ correct: true }), "Right.");
  assert.equal(verdictText(null), "");
});

test("the gold option is marked: an index or a label set's indices, never a value", () => {
  assert.equal(isGold(WRONG, { key: "facts.0" }, 0), true);
  assert.equal(isGold(WRONG, { key: "facts.0" }, 1), false);
  assert.equal(isGold(WRONG, { key: "facts.1" }, 1), true);
  assert.equal(isGold(WRONG, { key: "rank" }, 0), false); // a ranking's order is in words
  assert.equal(isGold({ gold: { tags: [0, 2] } }, { key: "tags" }, 2), true);
  assert.equal(isGold({ gold: { tags: [0, 2] } }, { key: "tags" }, 1), false);
  assert.equal(isGold(WRONG, { key: "reply" }, 0), false);
  assert.equal(isGold(WRONG, { key: "other" }, 0), false);
  assert.equal(isGold(null, { key: "facts.0" }, 0), false); // before the check
});

test("the check posts the practice item's id and the answers", () => {
  const item = { ref: "practice:t1", practice: { id: "t1", number: 1, total: 2 } };
  assert.deepEqual(checkBody(item, { label: 0 }), { item: "t1", chosen: { label: 0 } });
});
