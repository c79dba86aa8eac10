"""Issue #43 point 3: one shape for the store.

``annotation_store/`` is plain persistence (the ``Store`` and its parts, tables, models,
migrations, records and the write helpers the Store's methods use), reached as ``Store``
methods; the policy built on it (crowd studies, accounts, a study's design, annotating,
adjudication, the native import/export, the demo) lives in packages above it. These
tests hold the size that shape gives the store and where the policy packages are; the
layer table and the one-shape rule itself are in tests/test_architecture.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Folders that are not the product (their .py files are not counted), and build output.
NOT_PRODUCT = {"tests", "bench", "scripts", "examples", "build", "dist", "data"}
NOT_PRODUCT |= {"node_modules", "test-output"}
#: The store's share of the product's lines stays under this.
STORE_SHARE = 0.12


def _product_files() -> list[Path]:
    return [
        p
        for p in ROOT.rglob("*.py")
        if (top := p.relative_to(ROOT).parts[0]) not in NOT_PRODUCT and not top.startswith(".")
    ]


def _lines(path: Path) -> int:
    return len(path.read_text("utf-8").splitlines())


def test_the_store_is_under_an_eighth_of_the_product() -> None:
    files = _product_files()
    product = sum(_lines(p) for p in files)
    store = sum(_lines(p) for p in files if p.relative_to(ROOT).parts[0] == "annotation_store")
    assert product > 30_000  # the count found the product, not a stray folder
    assert store / product < STORE_SHARE, f"annotation_store: {store} of {product} lines"


def test_the_policy_packages_are_not_inside_the_store() -> None:
    for name in ("crowd", "accounts", "studies", "annotating", "adjudication"):
        assert (ROOT / name / "__init__.py").is_file(), name
        assert not (ROOT / "annotation_store" / name).exists(), name
    moved = ("assignments", "importing", "exporting", "demo", "demo_crowd", "drift", "sgd")
    assert [m for m in moved if (ROOT / "annotation_store" / f"{m}.py").exists()] == []


def _functions_of_the_store(path: Path) -> list[str]:
    """The public module-level functions of ``path`` whose first parameter is the store."""
    found = []
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.args.args:
            if node.args.args[0].arg == "store":
                found.append(f"{path.relative_to(ROOT).as_posix()}:{node.name}")
    return found


def test_no_function_of_the_store_beside_its_methods() -> None:
    store = sorted((ROOT / "annotation_store").rglob("*.py"))
    assert [f for p in store for f in _functions_of_the_store(p)] == []
    # ... while the policy above it is that shape (a function taking the store first)
    assert "studies/assignments.py:assign" in _functions_of_the_store(
        ROOT / "studies" / "assignments.py"
    )
