// Choice keys of the ordinary Annotate page, answered in the browser
// (ui/annotation/instant_keys.py tells the whole story).
//
// Inserted anew on every run of the item area with the server's state as JSON in its
// data-config attribute; installed once per tab, each run replaces the state.
(() => {
  const el = document.currentScript;
  if (!el || !el.dataset.config) return;
  const S = JSON.parse(el.dataset.config);
  const A = window.__wbKeys || (window.__wbKeys = {state: null, focus: 0, base: 0, sent: 0,
    lastKey: 0, lastClick: null, retries: 0});
  const clear = () => document.querySelectorAll(".wb-chosen, .wb-unchosen")
    .forEach((e) => e.classList.remove("wb-chosen", "wb-unchosen"));
  // Caught up: the server applied every key sent (or none came back for 10 s: a lost click)
  const caughtUp = S.sync >= A.base + A.sent || Date.now() - A.lastKey > 10000;
  if (!A.state || A.state.item !== S.item || caughtUp) {
    A.focus = S.focus; A.base = S.sync; A.sent = 0;
    clear();
  }
  A.state = S;
  const find = (cls) => {
    const box = document.querySelector("." + cls);
    return [box, box && box.querySelector("button")];
  };
  if (S.error && A.lastClick && A.lastClick.item === S.item && A.retries < 3) {
    A.retries += 1; // the save failed: the page says so; try the same choice again
    const cls = A.lastClick.cls;
    setTimeout(() => {
      const [, btn] = find(cls);
      if (btn && !btn.disabled) btn.click();
    }, 1000);
  } else if (!S.error) {
    A.retries = 0;
  }
  const isOn = (box) => box.classList.contains("wb-chosen") ||
    (!box.classList.contains("wb-unchosen") &&
     !!box.querySelector("button[data-testid='stBaseButton-primary']"));
  function mark(t, cls, box) {
    if (t.multi) {
      const on = isOn(box);
      box.classList.toggle("wb-chosen", !on); box.classList.toggle("wb-unchosen", on);
      return;
    }
    for (const other of Object.values(t.keys)) {
      const [b] = find(other);
      if (b && other !== cls) { b.classList.remove("wb-chosen"); b.classList.add("wb-unchosen"); }
    }
    box.classList.remove("wb-unchosen"); box.classList.add("wb-chosen");
  }
  function onKey(ev) {
    const st = A.state;
    if (!st || ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    if (window.__wbLane && window.__wbLane.open) return; // the panel has the keys
    const target = ev.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    if (!document.querySelector('[class*="' + st.marker + '"]')) return; // another page
    const n = st.targets.length;
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    if (n && (key === st.next || key === st.prev)) { // Streamlit moves the server's focus too
      A.focus = (A.focus + (key === st.next ? 1 : -1) + n) % n;
      A.sent += 1; A.lastKey = Date.now();
      return;
    }
    const t = st.targets[A.focus];
    const cls = t && t.keys[key];
    if (!cls) return;
    const [box, btn] = find(cls);
    if (!btn || btn.disabled) return;
    ev.preventDefault(); ev.stopImmediatePropagation();
    mark(t, cls, box);
    A.lastClick = {item: st.item, cls: cls}; A.sent += 1; A.lastKey = Date.now();
    btn.click();
    if (t.advance) A.focus = Math.min(A.focus + 1, n - 1);
  }
  if (!A.installed) { A.installed = true; window.addEventListener("keydown", onKey, true); }
})();
