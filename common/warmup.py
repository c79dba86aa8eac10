"""Import what pages need in the background, once a process, before a page asks for it.

Two warm-ups, each once per process:

- **The first page** (:func:`warm_up_first_page`, a daemon thread of its own): serve.py
  starts it when the server is up, so the modules app.py and Home import (the store,
  pandas, the fast lane's handlers: about 0.8 s of CPU on a 2-core machine) load while
  the browser fetches Streamlit's frontend, instead of after it connected (issue #47
  point 4).
- **The analysis pages** (:func:`warm_up`, in the background lane of
  ``common.run_gate``): the statistics stack (SciPy, plotly's figure factories: about 3 s
  on a 2-core machine), once a page is drawn or while the user signs in, so the
  Agreement and Alignment pages' first visits only compute.

Python's import lock makes a page that needs a module meanwhile wait for the one import
already under way, never import it twice.
"""

from __future__ import annotations

import ast
import importlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from pathlib import Path

from common.package import PREFIX, own_module
from common.run_gate import in_background, wait_for_requests, wait_until_quiet

#: What the Agreement page, the report and the Alignment page import on their first run
#: (the Alignment table's probes bring SciPy's optimisers: 0.35 s).
MODULES = ("reports.data", "reports.figures", "agreement.icc", "alignment.table")
#: Libraries those import only where they are used, named as they are installed (not
#: through ``own_module``): SciPy's sparse matrices sum the bootstrap's counts by group
#: (0.1 s to import) and its special functions give the tests' p-values (0.27 s, most
#: of it SciPy writing its functions' docstrings).
LIBRARIES = ("scipy.sparse", "scipy.special")

#: The scripts whose module-level imports the first page runs: the router and Home.
FIRST_PAGE_SCRIPTS = ("app.py", "pages/home.py")
#: What serve.py's fast-lane routes load with their first request (``common.lazy``).
FIRST_PAGE_MODULES = ("ui.annotation.fast_lane", "ui.annotation.practice")
#: Then, as ``module:function``: the store's model classes mapped onto their tables, which
#: the first database session would otherwise do (about 0.1 s of CPU).
FIRST_PAGE_CALLS = ("annotation_store.models:map_models",)
#: The first page's warm-up waits at most this long before each import while requests
#: are being answered.
FIRST_PAGE_PAUSE_S = 0.2
#: The folder holding app.py and the packages (a clone's root, or the installed package).
ROOT = Path(__file__).resolve().parents[1]

_lock = threading.Lock()
_first_page: threading.Thread | None = None
_agreement: Future[None] | None = None


def _source_of(name: str) -> Path | None:
    """Where one of the workbench's modules lives (a package's folder or a ``.py`` file),
    None for a library's module or a name that is no module."""
    parts = name.removeprefix(PREFIX).split(".")
    base = ROOT.joinpath(*parts)
    for path in (base, base.with_suffix(".py")):
        if path.exists():
            return path
    return None


def _own_or_library(name: str) -> str:
    """``name`` as this copy imports it: one of the workbench's modules through
    ``own_module``, a library (``pandas``) as it is."""
    return own_module(name) if _source_of(name.split(".")[0]) else name


def _import_all(
    modules: tuple[str, ...],
    pause: Callable[[], object] | None = None,
    calls: tuple[str, ...] = (),
) -> None:
    """Import each of ``modules``, then run each of ``calls`` (``module:function``);
    ``pause`` runs before each step (waiting for a moment the process is not needed
    elsewhere, ``common.run_gate``)."""
    for name in (*modules, *calls):
        if pause is not None:
            pause()
        module_name, _, function = name.partition(":")
        try:
            module = importlib.import_module(
                module_name if module_name in LIBRARIES else _own_or_library(module_name)
            )
            if function:
                getattr(module, function)()
        except Exception:  # a missing optional library shows where it is used, not here
            logging.getLogger(__name__).debug("warm-up could not do %s", name, exc_info=True)


def warm_up(modules: tuple[str, ...] = MODULES + LIBRARIES) -> Future[None]:
    """Queue the Agreement page's imports in the background lane once per process
    (``common.run_gate.in_background``: they start once the page being drawn has the
    process to itself, and pause before each module while another page is drawn);
    returns the (one) future."""
    global _agreement
    with _lock:
        if _agreement is None:
            _agreement = in_background(partial(_import_all, modules, wait_until_quiet))
        return _agreement


def imports_of(script: Path) -> list[str]:
    """The modules a script imports at its top level, in order: ``from ui import app_style``
    gives ``ui`` and ``ui.app_style``; ``from ui.context import get_store`` gives
    ``ui.context``."""
    try:
        tree = ast.parse(script.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "__future__":
                continue
            names.append(node.module)
            subs = [f"{node.module}.{alias.name}" for alias in node.names]
            names += [sub for sub in subs if _source_of(sub) is not None]
    return list(dict.fromkeys(names))


def first_page_modules() -> tuple[str, ...]:
    """What the first page imports: app.py's and Home's imports, then the fast lane's."""
    names = [n for script in FIRST_PAGE_SCRIPTS for n in imports_of(ROOT / script)]
    return tuple(dict.fromkeys([*names, *FIRST_PAGE_MODULES]))


def warm_up_first_page() -> threading.Thread:
    """Start the first page's background imports and calls once per process (serve.py,
    when the server starts); returns the thread."""
    global _first_page
    with _lock:
        if _first_page is None:
            _first_page = threading.Thread(
                target=_import_all,
                args=(first_page_modules(), _between_requests, FIRST_PAGE_CALLS),
                name="workbench-first-page",
                daemon=True,
            )
            _first_page.start()
        return _first_page


def _between_requests() -> None:
    # A fresh browser fetches about sixty script files while this runs: each waits for
    # no module's import, so they go first.
    wait_for_requests(max_wait=FIRST_PAGE_PAUSE_S)
