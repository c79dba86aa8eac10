// The study's completion page: back to the crowd platform after a countdown, with a
// button to stay (no automatic redirect without a way to stay, WCAG 2.2.1).
(() => {
  const el = document.currentScript;
  if (!el || !el.dataset.config) return;
  const cfg = JSON.parse(el.dataset.config);
  const status = document.createElement("p");
  status.setAttribute("role", "status");
  const stay = document.createElement("button");
  stay.type = "button";
  stay.textContent = "Stay on this page";
  stay.className = "wb-stay";
  let left = cfg.seconds;
  const say = () => {
    status.textContent = "Taking you back to " + cfg.platform + " in " + left + " seconds …";
  };
  say();
  const timer = setInterval(() => {
    left -= 1;
    if (left > 0) return say();
    clearInterval(timer);
    window.top.location.href = cfg.url;
    return undefined;
  }, 1000);
  stay.addEventListener("click", () => {
    clearInterval(timer);
    status.textContent = "You stay on this page: use the button above when you are ready.";
    stay.remove();
  });
  el.after(status, stay);
})();
