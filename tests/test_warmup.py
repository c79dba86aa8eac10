"""The server's background warm-up imports the Agreement page's libraries, once."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_warm_up_imports_the_statistics_stack_once_in_the_background() -> None:
    code = textwrap.dedent(
        """
        import sys
        from common import warmup
        assert "reports.figures" not in sys.modules and "scipy.sparse" not in sys.modules
        first = warmup.warm_up()
        assert warmup.warm_up() is first  # queued once per process, however many reruns
        first.result(120)
        print(sorted(m for m in warmup.MODULES + warmup.LIBRARIES if m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=True
    ).stdout.strip()
    assert out == str(
        sorted(
            ["reports.data", "reports.figures", "agreement.icc", "alignment.table"]
            + ["scipy.sparse", "scipy.special"]
        )
    )


def test_a_module_that_fails_to_import_does_not_stop_the_others() -> None:
    from common.warmup import _import_all

    sys.modules.pop("wave", None)  # a standard module nothing here needs
    _import_all(("no_such_module_for_the_warmup_test", "wave"))
    assert "wave" in sys.modules


def test_the_first_pages_modules_are_app_pys_and_homes_imports_and_the_lanes() -> None:
    """Read from the scripts themselves: a new import in app.py or Home is warmed up too."""
    import importlib.util

    from common import warmup

    names = warmup.first_page_modules()
    for must in ("streamlit", "pandas", "ui.context", "ui.app_style", "accounts.own_projects"):
        assert must in names
    assert names[-2:] == warmup.FIRST_PAGE_MODULES
    # ``from ui.context import get_store`` names a module, never the function
    assert "ui.context.get_store" not in names and not any("__future__" in n for n in names)
    assert all(importlib.util.find_spec(n) is not None for n in names), names


def test_the_pause_runs_before_each_import() -> None:
    from common.warmup import _import_all

    order: list[str] = []

    class Watch:
        def find_spec(self, name: str, path: object = None, target: object = None) -> None:
            if name in ("wave", "colorsys"):
                order.append(name)

    for name in ("wave", "colorsys"):
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, Watch())  # type: ignore[arg-type]
    try:
        _import_all(("wave", "colorsys"), pause=lambda: order.append("pause"))
    finally:
        sys.meta_path.pop(0)
    assert order == ["pause", "wave", "pause", "colorsys"]
