// The lane's posts, sent one at a time in the order they were made.
//
// A post goes only once the one before it is saved, so the server never sees a submit
// before the choices it submits. A transient failure (network, 408, 429, 5xx) is retried
// after retry.js's delay (a 429's Retry-After honoured); any other refusal is final: it
// stops the queue and is kept for the panel to show.

import { isTransient, retryDelayMs } from "./retry.js";

export class PostQueue {
  /**
   * send(job) -> Promise<{status, ok, retryAfter, body}>; status 0 for a network error.
   * timer(fn, ms) schedules a retry; onChange() is called after every state change.
   */
  constructor({ send, timer = (fn, ms) => setTimeout(fn, ms), onChange = () => {} }) {
    this.send = send;
    this.timer = timer;
    this.onChange = onChange;
    this.jobs = [];
    this.sending = false;
    this.failed = null; // {job, msg, tries, final, waitMs}
    this.saved = 0;
    this.onSaved = () => {};
  }

  /** Add a post at the end and send it when its turn comes. */
  push(job) {
    this.jobs.push(job);
    this.pump();
  }

  /** Items (refs) whose posts are not through yet. */
  pendingRefs() {
    return new Set(this.jobs.map((job) => job.ref));
  }

  get refused() {
    return Boolean(this.failed && this.failed.final);
  }

  /** Forget every post not sent (after a refusal: the full page shows the item). */
  clear() {
    this.jobs = [];
    this.onChange();
  }

  pump() {
    if (this.sending || !this.jobs.length || this.refused) return;
    const job = this.jobs[0];
    this.sending = true;
    this.onChange();
    let answer;
    try {
      answer = Promise.resolve(this.send(job));
    } catch (e) {
      answer = Promise.reject(e);
    }
    answer
      .then((a) => a || { status: 0, ok: false, body: { error: "no answer" } })
      .catch((e) => ({ status: 0, ok: false, body: { error: String(e) } }))
      .then((a) => this.settle(job, a));
  }

  settle(job, answer) {
    this.sending = false;
    if (answer.ok) {
      this.jobs.shift();
      this.failed = null;
      this.saved += 1;
      this.onSaved(job, answer.body);
      this.onChange();
      this.pump();
      return;
    }
    const same = this.failed && this.failed.job === job;
    const tries = same ? this.failed.tries + 1 : 1;
    const msg = (answer.body && answer.body.error) || `HTTP ${answer.status}`;
    const final = !isTransient(answer.status);
    const waitMs = final ? null : retryDelayMs(tries, answer.retryAfter);
    this.failed = { job, msg, tries, final, waitMs };
    if (!final) this.timer(() => this.pump(), waitMs);
    this.onChange();
  }
}
