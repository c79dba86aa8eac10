"""Start the workbench: ``streamlit run serve.py`` (what ``make run`` does).

Serves app.py as Streamlit does, plus the routes that set the sign-in cookie as
``HttpOnly`` (``ui.session_routes``). ``streamlit run app.py`` still works, without
them: in ``local`` mode a reload then asks to sign in again.
"""

from streamlit.starlette import App

from ui.session_routes import ROUTES

app = App("app.py", routes=ROUTES)
