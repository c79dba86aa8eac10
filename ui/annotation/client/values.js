// Questions answered with a value in the panel: free text, a score, spans.
//
// Pure (no DOM): lane.js draws the controls. A value the client cannot read (an empty
// text, a number outside the range) is no answer (null); the server's question type
// still checks every value it is sent.

/** A text box's answer: the text, or null when it holds only white space. */
export function textAnswer(raw) {
  return typeof raw === "string" && raw.trim() ? raw : null;
}

/** The decimals a step shows (0.01: 2; 1: 0). */
export function stepDecimals(step) {
  if (!(step > 0) || Number.isInteger(step)) return 0;
  const digits = String(step).split(".")[1] || "";
  return Math.min(digits.length, 6);
}

/**
 * A score's answer from the text of its box or slider: the number rounded to the
 * step's decimals, or null for no number or one outside [min, max].
 */
export function scoreAnswer(raw, target) {
  if (raw === null || raw === undefined || String(raw).trim() === "") return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < target.min || n > target.max) return null;
  return Number(n.toFixed(stepDecimals(target.step)));
}

/**
 * The words selected after a press on word ``index``: a first press selects that word,
 * a second press on another word extends the selection to it, a press on a range
 * already made starts again there.
 */
export function selectWord(sel, index) {
  if (!sel || sel.from !== sel.to || sel.from === index) return { from: index, to: index };
  return { from: Math.min(sel.from, index), to: Math.max(sel.from, index) };
}

/** Whether word ``i`` is in the selection. */
export function inSelection(sel, i) {
  return Boolean(sel) && sel.from <= i && i <= sel.to;
}

function spanKey(s) {
  return [s.start, s.end, s.label];
}

function compareSpans(a, b) {
  const ka = spanKey(a);
  const kb = spanKey(b);
  for (let i = 0; i < ka.length; i += 1) {
    if (ka[i] < kb[i]) return -1;
    if (ka[i] > kb[i]) return 1;
  }
  return 0;
}

/**
 * ``spans`` with the selected words marked ``label``: {start, end, label}, characters
 * start <= c < end of the text, sorted and without repeats (as the server stores them).
 * null when the selection names no words.
 */
export function addSpan(spans, words, sel, label) {
  if (!sel || !words[sel.from] || !words[sel.to] || sel.from > sel.to) return null;
  const added = { start: words[sel.from][0], end: words[sel.to][1], label };
  const all = [...(spans || []), added].sort(compareSpans);
  return all.filter((s, i) => i === 0 || compareSpans(all[i - 1], s) !== 0);
}

/** ``spans`` without the one at ``index``. */
export function removeSpan(spans, index) {
  return (spans || []).filter((_, i) => i !== index);
}

/** The words of a span, as the text has them. */
export function spanText(text, span) {
  return text.slice(span.start, span.end);
}

/** Whether word ``i`` (start, end, word) lies in a marked span. */
export function wordMarked(spans, word) {
  return (spans || []).some((s) => s.start < word[1] && word[0] < s.end);
}
