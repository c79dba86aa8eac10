"""Start the workbench: ``streamlit run serve.py`` (what ``make run`` does).

Serves app.py as Streamlit does, plus the routes that set the sign-in cookie as
``HttpOnly`` (``ui.session_routes``) and anti-framing headers on every response
(``ui.frame_guard``), and the Annotate page's fast lane (``ui.annotation.fast_routes``:
labelling without a rerun per item). It counts the requests it is answering
(``ui.request_activity``: background work waits while a browser fetches a page's
scripts) and loads the first page's modules as soon as it is up (``ui.server_start``).
``streamlit run app.py`` still works, without them: in ``local`` mode a reload then asks
to sign in again, nothing stops another site framing it, and every submitted item waits
for a rerun of the page.
"""

import os
import sys

# One BLAS thread unless the user chose a number, as cli.py sets for every command (and
# so for ``make run``, which starts this file through ``cli.py run``): the pages' matrix
# products are small and memory-bound, so a second OpenBLAS thread mostly spins (about
# 0.5 s of server CPU on the first visit of Agreement or Alignment at 10,000 items), and
# with one thread the page's figures equal the command line's to the last bit. OpenBLAS
# reads it once, when numpy loads: streamlit imports this file before anything does.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Arrow-backed frames allocate through malloc, not Arrow's own mimalloc pool, which kept
# about 40 MB of freed string buffers in a server after the analysis pages (issue #47).
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from streamlit import delta_generator
from streamlit.starlette import App

from ui import frame_guard, request_activity
from ui.annotation import client_assets, fast_routes
from ui.navigation_mode import use_app_navigation
from ui.server_start import first_page_ready
from ui.session_routes import ROUTES

# A thread waiting for the GIL asks for it after this long (Python's default: 5 ms). The
# server's event loop gives the GIL up at every socket read and write and then waits for it
# again: with a background thread computing a panel's figures, a click took 1.2 s to start
# its page's run at 5 ms and about 0.1 s at 1 ms (issue #47).
sys.setswitchinterval(0.001)
use_app_navigation()  # app.py's first run needs no rerun to show its own page list
# Streamlit checks once per process, at the first element a page draws, whether it runs
# outside ``streamlit run`` to print a hint; the check walks the call stack with every
# frame's source lines (``inspect.stack``: about 0.1 s on the first page with the
# workbench's modules loaded). This file is only ever run by ``streamlit run``: mark the
# hint as given (a private flag of Streamlit's, pinned in requirements.txt).
delta_generator._use_warning_has_been_displayed = True
app = App(
    "app.py",
    lifespan=first_page_ready,  # the first page's modules load while a browser connects
    routes=[*ROUTES, *fast_routes.routes(), *client_assets.routes()],
    middleware=[*request_activity.MIDDLEWARE, *frame_guard.MIDDLEWARE],
)
