"""The workbench's one top-level name once installed: ``import metric_audit_workbench as wb``.

A wheel puts the whole repository tree (``common/``, ``ui/``, ``app.py`` ...) inside this
package, its imports rewritten at build time to ``metric_audit_workbench.common`` and so
on (hatch_build.py), so importing it adds nothing to ``sys.path``: a user's own
``common.py`` or ``app.py`` stays theirs and cannot stand in for the workbench's. In a
clone (and an editable install) the tree sits beside this package under its plain names;
``metric_audit_workbench.<name>`` is then an alias of the same module, so a plugin written
against the installed names runs on a clone too. The module hands out the Python API
(``workbench_api``) and runs the ``workbench`` console script (:func:`entry`).
"""

from __future__ import annotations

# No typing import here: this module is on the path of `workbench --version`.
import importlib
import os
import sys
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
#: True in the installed wheel: the tree is inside this package, imports rewritten.
INSTALLED = os.path.isfile(os.path.join(_HERE, "cli.py"))
#: The folder that holds cli.py, app.py and the packages: this one in a wheel, the
#: repository root in a clone; None in an editable install (``pip install -e``), whose
#: .pth file already put the clone on sys.path.
CODE_DIR = next(
    (d for d in (_HERE, os.path.dirname(_HERE)) if os.path.isfile(os.path.join(d, "cli.py"))),
    None,
)
#: The tree's top-level names (pyproject's wheel ``only-include``; a test keeps them equal).
TREE = frozenset(
    {
        *("agreement", "alignment", "annotation_store", "audit", "commands", "common"),
        *("estimates", "evaluators", "interop", "jobs", "kinds", "pages", "reports", "ui"),
        *("study_inputs", "workbench_api", "app", "serve", "cli", "demo"),
        *("accounts", "adjudication", "annotating", "crowd", "studies"),
    }
)
#: Names that are both a package of the tree and a function of the API (``wb.agreement``):
#: the package keeps its module in sys.modules, the attribute stays the function.
API_FIRST = frozenset({"agreement"})


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: object) -> None:
        # The import system names each loaded subpackage on its parent; for API_FIRST
        # names that would replace the API's function.
        if name in API_FIRST and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


class _Alias:
    """Finder and loader for a clone: ``metric_audit_workbench.X.y`` is the module ``X.y``."""

    def __init__(self) -> None:
        self._specs: dict[int, object] = {}  # the aliased module's own spec, by id

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        head, _, plain = fullname.partition(".")
        if head != __name__ or plain.partition(".")[0] not in TREE:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(fullname, self)

    def create_module(self, spec: object) -> types.ModuleType:
        module = importlib.import_module(spec.name.partition(".")[2])  # type: ignore[attr-defined]
        self._specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system set the alias's spec on the module: give it its own back.
        module.__spec__ = self._specs.pop(id(module), module.__spec__)


if not INSTALLED:
    if CODE_DIR is not None and CODE_DIR not in sys.path:
        sys.path.insert(0, CODE_DIR)  # a clone imports its tree by the plain names
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())


def entry() -> None:
    """The ``workbench`` console script: ``cli.entry`` on this tree."""
    importlib.import_module(f"{__name__}.cli").entry()


def __getattr__(name: str) -> object:
    """The Python API's names (``wb.open_store``, ``wb.evaluate`` ...), on first use."""
    if name.startswith("_") and name not in ("__version__", "__all__"):
        raise AttributeError(f"module 'metric_audit_workbench' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.workbench_api"), name)


def __dir__() -> list[str]:
    api = importlib.import_module(f"{__name__}.workbench_api")
    return sorted({*globals(), *dir(api)})
