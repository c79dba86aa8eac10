"""One name in Python: the wheel's import rewrite (hatch_build.py), the clone's aliases of
``metric_audit_workbench.*`` and the API's exceptions. The built wheel itself is checked
in tests/test_packaging.py (fresh venv, a user's own common.py and app.py, the notebook)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

import metric_audit_workbench as wb
from hatch_build import PACKAGE, RewriteError, api_names, own_names, rewrite

ROOT = Path(__file__).resolve().parents[1]
OWN = {"common", "ui", "agreement", "app"}

SOURCE = '''"""Doc: import common stays as written."""
from __future__ import annotations

import os, common.version
from common.config import (
    get_setting,
)
from ui import auth as a  # a comment
import ui.context as ctx
import app as entry_script
from commonplace import x
from . import sibling

if TYPE_CHECKING:
    from agreement.document import Document

def f():
    import common; import json
    return "common.config:get_setting"
'''

EXPECTED = f'''"""Doc: import common stays as written."""
from __future__ import annotations

import os; import {PACKAGE}.common.version; from {PACKAGE} import common
from {PACKAGE}.common.config import (
    get_setting,
)
from {PACKAGE}.ui import auth as a  # a comment
from {PACKAGE}.ui import context as ctx
from {PACKAGE} import app as entry_script
from commonplace import x
from . import sibling

if TYPE_CHECKING:
    from {PACKAGE}.agreement.document import Document

def f():
    from {PACKAGE} import common; import json
    return "common.config:get_setting"
'''


def test_rewrite_prefixes_the_trees_imports_and_nothing_else() -> None:
    out = rewrite(SOURCE, OWN)
    assert out == EXPECTED
    assert out.count("\n") == SOURCE.count("\n")  # tracebacks keep their line numbers
    compile(out, "x.py", "exec")


def test_rewrite_refuses_what_it_cannot_express() -> None:
    # `import agreement` would read the package's attribute: the API's function
    with pytest.raises(RewriteError, match=r"x.py:2: `import agreement` binds 'agreement'"):
        rewrite("import os\nimport agreement\n", OWN, {"agreement"}, "x.py")
    with pytest.raises(RewriteError, match="x.py:1: an own import over several lines"):
        rewrite("import common, \\\n    ui\n", OWN, set(), "x.py")
    # a from-import of the same package is fine: it reads the module
    assert rewrite("from agreement import icc\n", OWN, {"agreement"}) == (
        f"from {PACKAGE}.agreement import icc\n"
    )


def test_the_package_knows_the_trees_names_and_the_api_names_it_shares() -> None:
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    included = wheel["targets"]["wheel"]["only-include"]
    assert own_names(ROOT, included) == set(wb.TREE)
    assert api_names(ROOT) & set(wb.TREE) == set(wb.API_FIRST) == {"agreement"}


def test_in_a_clone_the_installed_names_are_aliases_of_the_same_modules() -> None:
    from metric_audit_workbench.evaluators import pairs

    import evaluators.pairs

    assert pairs is evaluators.pairs
    assert pairs.__spec__.name == "evaluators.pairs"  # its own spec, not the alias's
    import metric_audit_workbench.agreement.document  # noqa: F401

    assert sys.modules["metric_audit_workbench.agreement"] is sys.modules["agreement"]
    assert callable(wb.agreement) and wb.agreement.__module__ == "workbench_api.analysis"
    assert wb.CODE_DIR == str(ROOT) and wb.INSTALLED is False


def test_own_module_names_the_running_copys_modules() -> None:
    from common.package import PREFIX, own_module

    assert PREFIX == ""  # the clone's tree is top-level
    assert own_module("reports.render") == "reports.render"
    from interop import format_module

    assert format_module("potato") is sys.modules["interop.potato"]


def test_the_apis_exceptions(sqlite_url: str, tmp_path: Path) -> None:
    from workbench_api.kinds import parse_toml

    store = wb.open_store(sqlite_url)
    wb.create_project(store, "p", "binary")
    with pytest.raises(wb.StoreError, match="project 'p' already exists"):
        wb.create_project(store, "p", "binary")
    bad = tmp_path / "items.csv"
    bad.write_text("x,y\n1,2\n")
    with pytest.raises(wb.ImportFailure, match="items.csv, row 1, column 'item_id'"):
        wb.import_file(store, "p", "items", bad)
    with pytest.raises(wb.DeclarationError, match="not valid TOML"):
        parse_toml("[[oops")
    assert {"StoreError", "ImportFailure", "DeclarationError"} <= set(wb.__all__)
