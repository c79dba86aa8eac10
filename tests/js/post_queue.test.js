// Unit tests of the panel's posts and retries (post_queue.js, retry.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { PostQueue } from "../../ui/annotation/client/post_queue.js";
import { isTransient, retryAfterMs, retryDelayMs } from "../../ui/annotation/client/retry.js";

const flush = () => new Promise((resolve) => setImmediate(resolve));

function scripted(answers) {
  const sent = [];
  const timers = [];
  const queue = new PostQueue({
    send: (job) => {
      sent.push(job.id);
      return Promise.resolve(answers.shift());
    },
    timer: (fn, ms) => timers.push({ fn, ms }),
  });
  return { queue, sent, timers };
}

test("Retry-After in seconds or as an HTTP date; capped", () => {
  assert.equal(retryAfterMs("3"), 3000);
  assert.equal(retryAfterMs("0.5"), 500);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:07 GMT", now), 7000);
  assert.equal(retryAfterMs("Wed, 31 Dec 2025 23:00:00 GMT", now), 0);
  assert.equal(retryAfterMs("9999"), 120000);
  assert.equal(retryAfterMs(null), null);
  assert.equal(retryAfterMs("soon"), null);
});

test("without Retry-After the wait doubles up to 5 s", () => {
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelayMs(n)), [1000, 2000, 4000, 5000, 5000]);
  assert.equal(retryDelayMs(4, "2"), 2000);
  assert.ok(isTransient(429) && isTransient(503) && isTransient(0) && !isTransient(422));
});

test("posts go one at a time, in order", async () => {
  const ok = { ok: true, status: 200 };
  const { queue, sent } = scripted([ok, ok, ok]);
  queue.push({ id: 1, ref: "1" });
  queue.push({ id: 2, ref: "1" });
  queue.push({ id: 3, ref: "2" });
  assert.deepEqual(sent, [1]); // the second waits for the first
  await flush();
  assert.deepEqual(sent, [1, 2, 3]);
  assert.equal(queue.saved, 3);
  assert.equal(queue.jobs.length, 0);
});

test("a 429 waits what Retry-After asks, then sends the same post again", async () => {
  const { queue, sent, timers } = scripted([
    { ok: false, status: 429, retryAfter: "7", body: { error: "too many requests" } },
    { ok: true, status: 200 },
    { ok: true, status: 200 },
  ]);
  queue.push({ id: 1, ref: "1" });
  queue.push({ id: 2, ref: "2" });
  await flush();
  assert.deepEqual(sent, [1]);
  assert.equal(timers.length, 1);
  assert.equal(timers[0].ms, 7000);
  assert.equal(queue.failed.msg, "too many requests");
  assert.ok(!queue.failed.final);
  timers[0].fn();
  await flush();
  assert.deepEqual(sent, [1, 1, 2]);
});

test("a refusal is final: the queue stops and keeps it", async () => {
  const { queue, sent, timers } = scripted([{ ok: false, status: 422, body: { error: "still to answer: label" } }]);
  queue.push({ id: 1, ref: "1" });
  queue.push({ id: 2, ref: "2" });
  await flush();
  assert.deepEqual(sent, [1]);
  assert.equal(timers.length, 0);
  assert.ok(queue.refused);
  assert.deepEqual([...queue.pendingRefs()], ["1", "2"]);
  queue.clear();
  assert.equal(queue.jobs.length, 0);
});

test("a network error is retried with backoff", async () => {
  const { queue, timers } = scripted([]);
  queue.send = () => Promise.reject(new Error("offline"));
  queue.push({ id: 1, ref: "1" });
  await flush();
  assert.equal(timers[0].ms, 1000);
  assert.equal(queue.failed.msg, "Error: offline");
  timers[0].fn();
  await flush();
  assert.equal(timers[1].ms, 2000);
  assert.equal(queue.failed.tries, 2);
});
