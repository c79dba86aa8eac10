"""Start the workbench: ``streamlit run serve.py`` (what ``make run`` does).

Serves app.py as Streamlit does, plus the routes that set the sign-in cookie as
``HttpOnly`` (``ui.session_routes``) and anti-framing headers on every response
(``ui.frame_guard``), and the Annotate page's fast lane (``ui.annotation.fast_routes``:
labelling without a rerun per item). ``streamlit run app.py`` still works, without
them: in ``local`` mode a reload then asks to sign in again, nothing stops another site
framing it, and every submitted item waits for a rerun of the page.
"""

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
