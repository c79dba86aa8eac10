// A ranking question in the panel: outputs placed best first, by keys or clicks.
//
// Pure (no DOM): lane.js draws it. A ranking is groups of option indices, best first
// ([[1], [0, 2]]: B first, A and C level second), each group sorted. The keys are the
// outputs' letters (A, B, C ...): a press puts that output in the next place, a second
// press takes it out again; "=" (ties allowed) puts the last output placed level with
// the place above. Move up / down reorder a placed output. The ranking is an answer
// (posted, counted as given) only once every output has a place.

function copy(ranking) {
  return Array.isArray(ranking) ? ranking.map((g) => [...g]) : [];
}

/** The place (1 = best) of output ``index`` in ``ranking``, or 0 when it has none. */
export function placeOf(ranking, index) {
  const at = copy(ranking).findIndex((g) => g.includes(index));
  return at + 1;
}

/** Whether every one of ``places`` outputs has a place. */
export function rankingComplete(ranking, places) {
  if (!Array.isArray(ranking)) return false;
  const placed = ranking.flat();
  return placed.length === places && new Set(placed).size === places;
}

/** The ranking after a press on output ``index``: placed next, or taken out when placed. */
export function pressOutput(ranking, index) {
  const out = copy(ranking);
  if (placeOf(out, index)) {
    return out.map((g) => g.filter((i) => i !== index)).filter((g) => g.length);
  }
  out.push([index]);
  return out;
}

/**
 * The ranking with its last place put level with the place above (null when there is
 * no place above, or the last place already holds more than one output).
 */
export function levelLast(ranking) {
  const out = copy(ranking);
  if (out.length < 2 || out[out.length - 1].length !== 1) return null;
  const last = out.pop();
  out[out.length - 1] = [...out[out.length - 1], ...last].sort((a, b) => a - b);
  return out;
}

/**
 * The ranking with output ``index`` moved one place up (step -1) or down (step 1):
 * alone in its place, it swaps with the place next to it; level with others, it leaves
 * them for a place of its own on that side. null when it cannot move that way.
 */
export function moveOutput(ranking, index, step) {
  const out = copy(ranking);
  const at = out.findIndex((g) => g.includes(index));
  if (at < 0) return null;
  if (out[at].length > 1) {
    out[at] = out[at].filter((i) => i !== index);
    out.splice(step < 0 ? at : at + 1, 0, [index]);
    return out;
  }
  const to = at + (step < 0 ? -1 : 1);
  if (to < 0 || to >= out.length) return null;
  [out[at], out[to]] = [out[to], out[at]];
  return out;
}

/** The ranking in words: "B > A = C" (``names``: the outputs' names by index). */
export function rankingText(ranking, names) {
  return copy(ranking)
    .map((g) => g.map((i) => names[i]).join(" = "))
    .join(" > ");
}
