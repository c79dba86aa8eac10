// A study's practice items in the panel: the server's verdict, as the panel shows it.
//
// Pure (no DOM): lane.js draws it. A practice item is drawn and answered like any
// item, but nothing is saved until the whole answer is checked: the server stores it,
// decides whether it was right, words the verdict (``verdict``: "Right.", or "Not
// quite." with each question's expected answer) and sends the gold answer to mark on
// the options (``gold``: target key -> option index, indices, or a value).

/** The verdict in one sentence, as the server words it (the practice form says the same). */
export function verdictText(result) {
  if (!result) return "";
  return result.verdict || (result.correct ? "Right." : "Not quite.");
}

/** The whole feedback as the live region says it: the verdict, then why. */
export function feedbackText(result) {
  const verdict = verdictText(result);
  return result && result.explanation ? verdict + " " + result.explanation : verdict;
}

/** Whether option ``j`` of ``target`` is (part of) the gold answer (a ranking's
 * outputs all are: its order is said in words instead). */
export function isGold(result, target, j) {
  const gold = result && result.gold ? result.gold[target.key] : undefined;
  if (gold === undefined || gold === null) return false;
  if (Array.isArray(gold)) return !gold.some(Array.isArray) && gold.includes(j);
  return gold === j;
}

/** The body posted to check an answer: the item's id and the answers given. */
export function checkBody(item, chosen) {
  return { item: item.practice.id, chosen };
}
