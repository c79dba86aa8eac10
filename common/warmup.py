"""Import the Agreement page's heavy libraries once, in the background, when the server starts.

The first visit to the Agreement page used to pay for importing the statistics stack
(SciPy, plotly's figure factories: about 3 s on a
2-core machine) before it computed anything. A daemon thread started with the first
session imports them while the user signs in or looks at Home, so that visit only
computes. Python's import lock makes a page that needs a module meanwhile wait for the
one import already under way, never import it twice.
"""

from __future__ import annotations

import importlib
import logging
import threading

from common.package import own_module

#: What the Agreement page and the report import on their first run.
MODULES = ("reports.data", "reports.figures", "agreement.icc")
#: Libraries those import only where they are used, named as they are installed (not
#: through ``own_module``): SciPy's sparse matrices sum the bootstrap's counts by group,
#: about 0.1 s of CPU to import on the page's first visit otherwise.
LIBRARIES = ("scipy.sparse",)

_lock = threading.Lock()
_thread: threading.Thread | None = None


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name if name in LIBRARIES else own_module(name))
        except Exception:  # a missing optional library shows where it is used, not here
            logging.getLogger(__name__).debug("warm-up could not import %s", name, exc_info=True)


def warm_up(modules: tuple[str, ...] = MODULES + LIBRARIES) -> threading.Thread:
    """Start the background imports once per process; returns the (one) thread."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(
                target=_import_all, args=(modules,), name="workbench-warmup", daemon=True
            )
            _thread.start()
        return _thread
