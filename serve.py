"""Start the workbench: ``streamlit run serve.py`` (what ``make run`` does).

Serves app.py as Streamlit does, plus the routes that set the sign-in cookie as
``HttpOnly`` (``ui.session_routes``) and anti-framing headers on every response
(``ui.frame_guard``), and the Annotate page's fast lane (``ui.annotation.fast_routes``:
labelling without a rerun per item). ``streamlit run app.py`` still works, without
them: in ``local`` mode a reload then asks to sign in again, nothing stops another site
framing it, and every submitted item waits for a rerun of the page.
"""

import os

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

from streamlit.starlette import App

from ui.annotation import client_assets, fast_routes
from ui.frame_guard import MIDDLEWARE
from ui.navigation_mode import use_app_navigation
from ui.session_routes import ROUTES

use_app_navigation()  # app.py's first run needs no rerun to show its own page list
app = App(
    "app.py",
    routes=[*ROUTES, *fast_routes.routes(), *client_assets.routes()],
    middleware=MIDDLEWARE,
)
