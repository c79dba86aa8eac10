// The live side panels beside the annotation client (ui/panel_refresh.py).
//
// A submit marks every panel at once ("updating with the newest labels"), in the slot the
// panel draws for it; once the submit is saved the panels' hidden refresh buttons are
// pressed, so they redraw then instead of at their next tick. The panel's first redraw at
// the new data version replaces its slot, and with it the mark. A submit the server
// refuses clears the marks: nothing new is coming.

export const MARK_TEXT = "↻ updating with the newest labels…";
const MARKS = ".wb-panel-mark";
const REFRESH_BUTTONS = "[class*='st-key-wb_panel_refresh'] button";

/** Mark every live panel in `doc` as updating; returns how many were marked. */
export function markPanels(doc) {
  const slots = [...doc.querySelectorAll(MARKS)];
  for (const slot of slots) slot.textContent = MARK_TEXT;
  return slots.length;
}

/** Take the client's marks off again (a refused submit). */
export function clearPanelMarks(doc) {
  for (const slot of doc.querySelectorAll(MARKS)) slot.textContent = "";
}

/** Press the live panels' hidden refresh buttons: they redraw at the new data version. */
export function refreshPanels(doc) {
  const buttons = [...doc.querySelectorAll(REFRESH_BUTTONS)];
  for (const b of buttons) b.click();
  return buttons.length;
}
