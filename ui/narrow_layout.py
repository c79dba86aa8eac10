"""Below about 1200 px the side panel starts folded, so the page gets the window's width.

Streamlit folds its sidebar by itself only on phone-sized windows (768 px); at 1024 px it
takes about 300 px, and charts turn their labels vertical, tables cut their headers. The
script folds it once per browser tab when the window is narrower than ``NARROW_PX``; the
user opens it again with its button, and it stays as they leave it.
"""

from __future__ import annotations

import streamlit as st

#: Windows narrower than this start with the sidebar folded.
NARROW_PX = 1200

SCRIPT = (
    """<script>
(() => {
  if (window.__workbenchNarrowFolded || window.innerWidth >= NARROW_PX) return;
  window.__workbenchNarrowFolded = true;
  const start = Date.now();
  // Click until the sidebar says it is folded: a click before the app has wired its
  // button does nothing. Half a second apart, so one click is never undone by the next.
  const fold = () => {
    const bar = document.querySelector('[data-testid="stSidebar"]');
    if (bar && bar.getAttribute('data-collapsed') === 'true') return;
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (bar && button) button.click();
    if (Date.now() - start < 60000) setTimeout(fold, 500);
  };
  fold();
})();
</script>"""
).replace("NARROW_PX", str(NARROW_PX))


def fold_sidebar_when_narrow(more: str = "") -> None:
    """Emit the folding script (and ``more`` scripts) as the sidebar's last element.

    Re-emitted with the same body every run, so the browser keeps the element and does
    not run it again; a changed ``more`` runs again (the fold itself runs once a tab)."""
    st.sidebar.html(SCRIPT + more, unsafe_allow_javascript=True)
