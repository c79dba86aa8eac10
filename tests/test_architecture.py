"""Layering rules: which top-level package may import which, checked on every import.

``ALLOWED`` is the layer picture of docs/architecture.md as a table. Every ``import`` and
``from ... import`` of every module counts, at module top, inside functions and under
``TYPE_CHECKING`` alike, so a lazy import cannot hide an upward arrow. ``PRIVATE`` names
modules only their own package may import (concrete kinds and evaluators are reached
through their registries; the store's tables and sessions stay behind ``Store``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Folders that are not layers of the application (they may import anything), and
#: build or test output.
NOT_LAYERED = {
    *("tests", "bench", "scripts", "examples", "demo", "docs", "data"),
    *("build", "dist", "test-output"),
}

#: The domain packages under the Python API, bottom layers last.
DOMAIN = {
    "interop",
    "alignment",
    "reports",
    "estimates",
    "jobs",
    "audit",
    "agreement",
    "annotation_store",
    "evaluators",
    "kinds",
    "common",
}

#: package (or top-level module) -> what it may import: project packages, dotted module
#: prefixes (``annotation_store.label_frames`` allows that module only) and ``streamlit``.
ALLOWED: dict[str, frozenset[str]] = {
    # views: the only layer that imports streamlit
    "app": frozenset({"streamlit", "pages", "ui", "workbench_api", *DOMAIN}),
    "serve": frozenset({"streamlit", "ui"}),
    "pages": frozenset({"streamlit", "ui", "workbench_api", *DOMAIN}),
    "ui": frozenset({"streamlit", "workbench_api", *DOMAIN}),
    # the same operations headless
    "cli": frozenset({"commands", "common"}),
    "commands": frozenset({"workbench_api", *DOMAIN}),
    "workbench_api": frozenset(DOMAIN),
    # domain
    "interop": frozenset({"annotation_store", "kinds", "common"}),
    "alignment": frozenset({"reports", "agreement", "annotation_store", "kinds", "common"}),
    "reports": frozenset({"agreement", "annotation_store", "evaluators", "kinds", "common"}),
    # pure maths of judge-assisted estimates and planning: arrays and frames in, dataclasses out
    "estimates": frozenset({"common"}),
    "jobs": frozenset({"annotation_store", "evaluators", "kinds", "common"}),
    "audit": frozenset(
        {"annotation_store.label_frames", "annotation_store.records", "kinds", "common"}
    ),
    "agreement": frozenset({"kinds", "common"}),
    "annotation_store": frozenset({"kinds", "common"}),
    "evaluators": frozenset({"kinds", "common"}),
    "kinds": frozenset({"common"}),
    "common": frozenset(),
}

#: module prefix -> the package that alone may import it.
PRIVATE = {
    "kinds.builtin": "kinds",
    "evaluators.builtin": "evaluators",
    "annotation_store.models": "annotation_store",
    "annotation_store.db": "annotation_store",
    "annotation_store.migrations": "annotation_store",
    "annotation_store.fast_columns": "annotation_store",
    "annotation_store.item_upsert": "annotation_store",
    "annotation_store.store_projects": "annotation_store",
    "annotation_store.store_labels": "annotation_store",
    "annotation_store.store_results": "annotation_store",
}

PROJECT = set(ALLOWED) | {"streamlit"}


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _package_of(rel: str) -> str:
    """``ui/audit/drilldown.py`` -> ``ui``; ``app.py`` -> ``app``."""
    first = rel.split("/")[0]
    return first.removesuffix(".py")


def _imports(source: str, rel: str) -> Iterator[tuple[int, list[str]]]:
    """(line, candidate module names) for every absolute import in ``source``.

    ``from a import b`` yields ``a`` and ``a.b`` (``b`` may be a submodule). Relative
    imports are left out: Python keeps them inside the module's own top-level package."""
    for node in ast.walk(ast.parse(source, rel)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, [alias.name]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, [node.module, *(f"{node.module}.{a.name}" for a in node.names)]


def violations(source: str, rel: str) -> list[str]:
    """Each import of the module at ``rel`` (its text ``source``) that the table forbids."""
    own = _package_of(rel)
    allowed = ALLOWED.get(own, frozenset())
    found = []
    for line, candidates in _imports(source, rel):
        module = candidates[0]
        top = module.split(".")[0]
        if top not in PROJECT or top == own:
            continue
        private = [p for c in candidates for p, owner in PRIVATE.items() if _under(c, p)]
        if private:
            found.append(f"{rel}:{line}: imports {module} (private to {PRIVATE[private[0]]})")
        elif not any(_under(c, a) for c in candidates for a in allowed):
            found.append(f"{rel}:{line}: {own} may not import {module}")
    return found


def _layered_files() -> list[Path]:
    return [
        p
        for p in ROOT.rglob("*.py")
        if p.relative_to(ROOT).parts[0] not in NOT_LAYERED
        and not p.relative_to(ROOT).parts[0].startswith(".")
    ]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_every_package_has_a_row_in_the_table() -> None:
    assert {_package_of(_rel(p)) for p in _layered_files()} == set(ALLOWED)


def test_imports_follow_the_table() -> None:
    found = [v for p in _layered_files() for v in violations(p.read_text("utf-8"), _rel(p))]
    assert found == []


def test_the_checker_reports_an_upward_import_inside_a_function() -> None:
    source = "import json\n\n\ndef helper():\n    from ui.context import get_store\n"
    assert violations(source, "annotation_store/helper.py") == [
        "annotation_store/helper.py:5: annotation_store may not import ui.context"
    ]


def test_the_checker_reports_sideways_and_private_imports() -> None:
    source = (
        "from evaluators import registry\n"  # sideways: evaluators is no layer of audit's
        "from kinds.builtin import generic\n"  # concrete kinds come from the registry
        "from annotation_store import Store\n"  # audit may read label frames and records
        "from annotation_store import label_frames\n"  # ... which it may
        "from .categories import CATEGORIES\n"  # its own package
        "import pandas, kinds\n"  # third party, and a layer below
    )
    assert violations(source, "audit/analysis.py") == [
        "audit/analysis.py:1: audit may not import evaluators",
        "audit/analysis.py:2: imports kinds.builtin (private to kinds)",
        "audit/analysis.py:3: audit may not import annotation_store",
    ]


def test_the_checker_lets_views_import_streamlit_and_nobody_else() -> None:
    source = "import streamlit as st\n"
    assert violations(source, "ui/panel.py") == []
    assert violations(source, "reports/panel.py") == [
        "reports/panel.py:1: reports may not import streamlit"
    ]
