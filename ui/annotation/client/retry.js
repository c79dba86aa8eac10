// How long to wait before a failed post is sent again.
//
// A 429 (or 503) with a Retry-After header waits what the server asks (seconds or an
// HTTP date); anything else backs off 1, 2, 4, 5, 5 ... seconds.

export const MAX_BACKOFF_MS = 5000;
// A server asking for more than this is still retried, but no later than this.
export const MAX_RETRY_AFTER_MS = 120000;

/** Milliseconds a Retry-After header value asks for, or null when absent or unreadable. */
export function retryAfterMs(value, now = Date.now()) {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const when = Date.parse(text);
  if (Number.isNaN(when)) return null;
  return Math.min(Math.max(when - now, 0), MAX_RETRY_AFTER_MS);
}

/** The wait before attempt ``tries + 1`` (tries >= 1 failed so far). */
export function retryDelayMs(tries, retryAfter = null, now = Date.now()) {
  const asked = retryAfterMs(retryAfter, now);
  if (asked !== null) return asked;
  return Math.min(1000 * 2 ** Math.max(tries - 1, 0), MAX_BACKOFF_MS);
}

/** True when an HTTP status means "try again later" rather than "no". */
export function isTransient(status) {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}
