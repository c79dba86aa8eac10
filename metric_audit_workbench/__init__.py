"""The workbench's one top-level name once installed: ``import metric_audit_workbench as wb``.

A wheel puts the whole repository tree (``common/``, ``ui/``, ``app.py`` ...) in the folder
of this package, not straight into site-packages, where names that plain would clash with
other distributions. Importing this module puts that folder on ``sys.path`` (in a clone
the tree sits beside it), so the packages import by their own names inside the workbench
process; it then hands out the Python API (``workbench_api``) and runs the ``workbench``
console script (:func:`entry`).
"""

from __future__ import annotations

# No typing import here: this module is on the path of `workbench --version`.
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
#: The folder that holds cli.py, app.py and the packages: this one in a wheel, the
#: repository root in a clone; None in an editable install (``pip install -e``), whose
#: .pth file already put the clone on sys.path.
CODE_DIR = next(
    (d for d in (_HERE, os.path.dirname(_HERE)) if os.path.isfile(os.path.join(d, "cli.py"))),
    None,
)
if CODE_DIR is not None and CODE_DIR not in sys.path:
    # First, so that another distribution's ``common`` or ``ui`` cannot stand in for ours.
    sys.path.insert(0, CODE_DIR)


def entry() -> None:
    """The ``workbench`` console script: ``cli.entry`` on this tree."""
    from cli import entry as run

    run()


def __getattr__(name: str) -> object:
    """The Python API's names (``wb.open_store``, ``wb.evaluate`` ...), on first use."""
    if name.startswith("_") and name not in ("__version__", "__all__"):
        raise AttributeError(f"module 'metric_audit_workbench' has no attribute {name!r}")
    import workbench_api

    return getattr(workbench_api, name)


def __dir__() -> list[str]:
    import workbench_api

    return sorted({*globals(), *dir(workbench_api)})
