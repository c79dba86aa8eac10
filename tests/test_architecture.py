"""Layering rules: domain packages never import streamlit; agreement stays pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = [
    "annotation_store",
    "evaluators",
    "agreement",
    "alignment",
    "reports",
    "kinds",
    "jobs",
    "common",
    "commands",
    "interop",
    "workbench_api",
]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", DOMAIN)
def test_domain_packages_do_not_import_streamlit(package: str) -> None:
    files = list((ROOT / package).rglob("*.py"))
    offenders = [str(f.relative_to(ROOT)) for f in files if "streamlit" in imported_modules(f)]
    assert offenders == []


def test_agreement_imports_neither_store_nor_evaluators() -> None:
    files = list((ROOT / "agreement").rglob("*.py"))
    if not files:
        pytest.skip("agreement package not present")
    bad = [
        str(f.relative_to(ROOT))
        for f in files
        if imported_modules(f) & {"annotation_store", "evaluators", "streamlit"}
    ]
    assert bad == []
