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
        assert warmup.warm_up() is first  # one thread per process, however many reruns
        first.join(120)
        assert first.daemon and not first.is_alive()
        print(sorted(m for m in warmup.MODULES + warmup.LIBRARIES if m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=True
    ).stdout.strip()
    assert out == str(sorted(["reports.data", "reports.figures", "agreement.icc", "scipy.sparse"]))


def test_a_module_that_fails_to_import_does_not_stop_the_others() -> None:
    from common.warmup import _import_all

    sys.modules.pop("wave", None)  # a standard module nothing here needs
    _import_all(("no_such_module_for_the_warmup_test", "wave"))
    assert "wave" in sys.modules
