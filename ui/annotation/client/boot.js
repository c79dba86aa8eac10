// Loads the annotation panel (lane.js, a module) and hands it this run's config.
//
// The page's item area inserts this classic script anew on every run, with the run's
// config as JSON in its data-config attribute; the module itself is loaded once per page.
(() => {
  const el = document.currentScript;
  if (!el || !el.dataset.config) return;
  const config = JSON.parse(el.dataset.config);
  import(new URL(el.dataset.module || "lane.js", el.src).href).then((m) => m.start(config));
})();
