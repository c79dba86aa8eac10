"""Start the workbench: ``streamlit run serve.py`` (what ``make run`` does).

Serves app.py as Streamlit does, plus the routes that set the sign-in cookie as
``HttpOnly`` (``ui.session_routes``) and anti-framing headers on every response
(``ui.frame_guard``). ``streamlit run app.py`` still works, without them: in ``local``
mode a reload then asks to sign in again, and nothing stops another site framing it.
"""

from streamlit.starlette import App

from ui.frame_guard import MIDDLEWARE
from ui.session_routes import ROUTES

app = App("app.py", routes=ROUTES, middleware=MIDDLEWARE)
