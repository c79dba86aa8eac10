"""What a fresh server does before its first page is drawn (issue #47 point 4).

Each check runs in a child process: what is imported, and what Streamlit's class-level
page mode holds, depends on everything the process did before.
"""

from __future__ import annotations

from tests.support.fresh_python import fresh_python


def _child(code: str, env_url: str | None = None) -> dict:
    """Run ``code`` in a fresh interpreter at the tree's root; it prints one JSON line."""
    env = {"WORKBENCH_DB_URL": env_url, "WORKBENCH_JOBS_IN_APP": "1"} if env_url else None
    return fresh_python(code, env=env, timeout=300)


def test_serve_routes_the_first_run_through_app_py_with_the_page_list_shown() -> None:
    """``make run`` serves serve.py: before any session, the pages/ folder mode is off and
    the sidebar page list is on, so app.py's first run does not rerun itself."""
    out = _child(
        """
        import json
        import streamlit as st
        from streamlit.runtime.pages_manager import PagesManager
        before = st.get_option("client.showSidebarNavigation")  # .streamlit/config.toml
        import serve  # noqa: F401
        print(json.dumps({
            "config": before,
            "shown": st.get_option("client.showSidebarNavigation"),
            "pages_folder": PagesManager.uses_pages_directory,
        }))
        """
    )
    assert out == {"config": False, "shown": True, "pages_folder": False}


def test_homes_first_run_does_not_rerun_and_leaves_the_heavy_libraries_for_later(
    demo: str,
) -> None:
    """On a server started by serve.py, app.py's first run reaches Home once; until the
    page is drawn the script's thread imports neither the evaluators, the jobs nor SciPy,
    and the warm-up thread has not started when Home begins."""
    out = _child(
        """
        import json, os, sys, threading
        import serve  # noqa: F401  (what the server imports before any session)
        import streamlit as st
        from streamlit.testing.v1 import AppTest

        WATCH = ("scipy", "evaluators", "jobs")
        seen = {}
        page_drawn = []  # app.py starts the background work once the page is drawn
        try:
            import ui.background
        except ImportError:  # older trees: they started it before the page
            pass
        else:
            start = ui.background.start_background_work
            ui.background.start_background_work = lambda *a: (page_drawn.append(1), start(*a))

        class Recorder:
            def find_spec(self, name, path=None, target=None):
                thread = threading.current_thread().name
                if name in WATCH and name not in seen and not page_drawn:
                    seen[name] = thread
                if name == "accounts.own_projects":  # Home's first import
                    from common import warmup
                    seen["warm-up started at Home"] = warmup._agreement is not None
                return None

        sys.meta_path.insert(0, Recorder())
        runs = []
        real_rerun = st.rerun
        st.rerun = lambda *a, **k: (runs.append("rerun"), real_rerun(*a, **k))
        at = AppTest.from_file(os.path.abspath("app.py"), default_timeout=120).run()
        seen["exceptions"] = [str(e.value) for e in at.exception]
        seen["title"] = [t.value for t in at.title]
        seen["reruns"] = runs
        print(json.dumps(seen))
        """,
        env_url=demo,
    )
    assert out["exceptions"] == [] and out["title"] == ["Metric-audit workbench"]
    assert out["reruns"] == []
    assert out["warm-up started at Home"] is False
    script_thread = [m for m in ("scipy", "evaluators", "jobs") if "script" in out.get(m, "")]
    assert script_thread == [], out


def test_plugin_warnings_without_plugins_import_no_built_in_evaluator() -> None:
    """An admin's Home asks for plugin warnings: with no plugin installed there is nothing
    to load, so the built-in evaluators (sacrebleu, the LLM client, ...) stay unimported."""
    out = _child(
        """
        import json, sys
        import evaluators.registry  # noqa: F401
        from common import registry
        warnings = registry.plugin_warnings()
        print(json.dumps({
            "installed": getattr(registry, "plugins_installed", lambda: False)(),
            "warnings": warnings,
            "lexical": "evaluators.builtin.lexical" in sys.modules,
        }))
        """
    )
    assert out == {"installed": False, "warnings": [], "lexical": False}


def test_the_server_answers_before_the_first_page_loads_and_then_warms_it_up() -> None:
    """serve.py leaves the store, pandas and the fast lane's handlers to the first page's
    warm-up, which its lifespan starts when the server comes up (issue #47 point 4)."""
    out = _child(
        """
        import asyncio, json, sys
        import serve
        heavy = ("pandas", "sqlalchemy", "annotation_store.store", "annotating.actions")
        before = [m for m in heavy if m in sys.modules]

        async def up():
            async with serve.app._user_lifespan(serve.app):
                pass

        asyncio.run(up())
        from common import warmup
        thread = warmup.warm_up_first_page()  # the one the server started
        thread.join(120)
        print(json.dumps({
            "imported by serve.py": before,
            "after the warm-up": [m for m in heavy if m in sys.modules],
            "models mapped": sys.modules["annotation_store.models"]._registry is not None,
        }))
        """
    )
    assert out == {
        "imported by serve.py": [],
        "after the warm-up": [
            "pandas",
            "sqlalchemy",
            "annotation_store.store",
            "annotating.actions",
        ],
        "models mapped": True,
    }
