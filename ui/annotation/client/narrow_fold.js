// Below the configured width the side panel starts folded, once per browser tab: the
// page gets the window's width. A click before the app has wired its button does
// nothing, so the fold is retried until the sidebar says it is folded; from the moment
// it is seen folded (a MutationObserver sees it at once) the script never clicks again,
// so a user who opens the panel right away keeps it open.
(() => {
  const el = document.currentScript;
  if (!el || !el.dataset.config) return;
  const cfg = JSON.parse(el.dataset.config);
  if (window.__workbenchNarrowFolded || window.innerWidth >= cfg.narrowPx) return;
  window.__workbenchNarrowFolded = true;
  const start = Date.now();
  const folded = () => {
    const bar = document.querySelector('[data-testid="stSidebar"]');
    return Boolean(bar) && bar.getAttribute("data-collapsed") === "true";
  };
  let done = false;
  const observer = new MutationObserver(() => {
    if (folded()) {
      done = true;
      observer.disconnect();
    }
  });
  observer.observe(document.body, {
    attributes: true,
    subtree: true,
    attributeFilter: ["data-collapsed"],
  });
  const fold = () => {
    if (done || folded()) {
      done = true;
      observer.disconnect();
      return;
    }
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (button) button.click();
    if (Date.now() - start < 60000) setTimeout(fold, 500);
    else observer.disconnect();
  };
  fold();
})();
