"""Layering rules: which top-level package may import which, checked on every import.

``ALLOWED`` is the layer picture of docs/architecture.md as a table. Every ``import`` and
``from ... import`` of every module counts, at module top, inside functions and under
``TYPE_CHECKING`` alike, so a lazy import cannot hide an upward arrow. ``PRIVATE`` names
modules only their own package may import (concrete kinds and evaluators are reached
through their registries; the store's tables and sessions stay behind ``Store`` and the
policy packages built straight on it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Folders that are not layers of the application (they may import anything), and
#: build or test output.
NOT_LAYERED = {
    *("tests", "bench", "scripts", "examples", "docs", "data"),
    *("build", "dist", "test-output", "node_modules"),
}

#: The domain packages under the Python API, bottom layers last.
DOMAIN = {
    "demo",
    "interop",
    "alignment",
    "reports",
    "study_inputs",
    "estimates",
    "jobs",
    "audit",
    "annotating",
    "crowd",
    "studies",
    "accounts",
    "adjudication",
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
    # the installed wheel's one top-level name: the console script and the API
    "metric_audit_workbench": frozenset({"cli", "workbench_api"}),
    # the wheel's build hook (rewrites the tree's imports): imports nothing of the tree
    "hatch_build": frozenset(),
    "commands": frozenset({"workbench_api", *DOMAIN}),
    "workbench_api": frozenset(DOMAIN),
    # domain
    # loading the demo projects (their data lives beside the code)
    "demo": frozenset({"interop", "crowd", "studies", "annotation_store", "kinds", "common"}),
    "interop": frozenset(
        {"annotating", "adjudication", "studies", "annotation_store", "kinds", "common"}
    ),
    "alignment": frozenset(
        {"reports", "study_inputs", "agreement", "annotation_store", "kinds", "common"}
    ),
    "reports": frozenset(
        {"study_inputs", "agreement", "annotation_store", "evaluators", "kinds", "common"}
    ),
    # what a study's figures are computed from: labels with exclusions, references,
    # scores per evaluator configuration, gold and times
    "study_inputs": frozenset(
        {
            *("agreement", "crowd", "studies", "adjudication"),
            *("annotation_store", "evaluators", "kinds", "common"),
        }
    ),
    # pure maths of judge-assisted estimates and planning: arrays and frames in, dataclasses out
    "estimates": frozenset({"common"}),
    "jobs": frozenset({"annotation_store", "evaluators", "kinds", "common"}),
    "audit": frozenset(
        {"annotation_store.label_frames", "annotation_store.records", "kinds", "common"}
    ),
    # policy built on the store, free functions taking the store first
    "annotating": frozenset({"crowd", "studies", "annotation_store", "kinds", "common"}),
    "crowd": frozenset({"studies", "annotation_store", "kinds", "common"}),
    "studies": frozenset({"annotation_store", "kinds", "common"}),
    "accounts": frozenset({"annotation_store", "common"}),
    "adjudication": frozenset({"annotation_store", "kinds", "common"}),
    "agreement": frozenset({"kinds", "common"}),
    # plain persistence: the Store and its tables
    "annotation_store": frozenset({"kinds", "common"}),
    "evaluators": frozenset({"kinds", "common"}),
    "kinds": frozenset({"common"}),
    "common": frozenset(),
}

#: The policy built straight on the store (packages, or single modules of a package):
#: they query the store's models inside ``store.read()`` / ``store.write()`` and use its
#: session-level helpers (``store_projects.annotator_info``, ``label_writes``), so the
#: models and those helpers are private to them and the store together.
STORE_BUILDERS = (
    *("annotation_store", "studies", "crowd", "accounts", "annotating", "adjudication"),
    "alignment.drift_records",
)

#: module prefix -> the package(s) or module(s) that alone may import it.
PRIVATE: dict[str, tuple[str, ...]] = {
    "kinds.builtin": ("kinds",),
    "evaluators.builtin": ("evaluators",),
    "annotation_store.models": STORE_BUILDERS,
    "annotation_store.store_projects": STORE_BUILDERS,
    "annotation_store.db": ("annotation_store",),
    "annotation_store.migrations": ("annotation_store",),
    "annotation_store.fast_columns": ("annotation_store",),
    "annotation_store.item_upsert": ("annotation_store",),
    "annotation_store.store_labels": ("annotation_store",),
    "annotation_store.store_results": ("annotation_store",),
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


def _module_name(rel: str) -> str:
    """``ui/audit/drilldown.py`` -> ``ui.audit.drilldown``."""
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


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
        private = [p for c in candidates for p in PRIVATE if _under(c, p)]
        owners = PRIVATE[private[0]] if private else ()
        if private and not any(_under(_module_name(rel), o) for o in owners):
            found.append(f"{rel}:{line}: imports {module} (private to {owners[0]})")
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


def _module_file(module: str) -> str | None:
    """The project file a module name is (``a.b`` -> ``a/b.py``), None for a package's
    ``__init__`` or anything outside the project."""
    path = ROOT.joinpath(*module.split("."))
    if path.with_suffix(".py").is_file():
        return _rel(path.with_suffix(".py"))
    return None


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """file -> the project files it imports (any import: in a function, under
    TYPE_CHECKING; a package's ``__init__`` only hands names on and is left out)."""
    graph: dict[str, set[str]] = {rel: set() for rel in sources}
    for rel, source in sources.items():
        if rel.endswith("__init__.py"):
            continue
        for _, candidates in _imports(source, rel):
            # ``from a import b``: the submodule a.b when there is one, else a
            hit = next((f for f in map(_module_file, reversed(candidates)) if f), None)
            if hit in sources and hit != rel:
                graph[rel].add(hit)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of files that import each other in a loop (Tarjan's strongly connected
    components with more than one file), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_two_modules_import_each_other() -> None:
    sources = {_rel(p): p.read_text("utf-8") for p in _layered_files()}
    assert circles(import_graph(sources)) == []


def test_the_checker_reports_a_circle_through_a_function_level_import() -> None:
    sources = {
        "jobs/runner.py": "def go():\n    from jobs.batch_mode import run_batch_mode\n",
        "jobs/batch_mode.py": "from jobs import runner\n",
        "jobs/worker.py": "from jobs.runner import go\n",
    }
    assert circles(import_graph(sources)) == [["jobs/batch_mode.py", "jobs/runner.py"]]


# -- the store's one shape ---------------------------------------------------------------
#
# annotation_store is plain persistence, reached one way: as ``Store`` methods. No public
# module-level function there takes the store (it is a Store method, a private helper of
# a Store part, or it moved up). The policy built on the store (the packages of
# ``STORE_BUILDERS`` above it) is the other shape, one way too: free functions taking the
# store as their first argument, reaching the database through ``store.read()``,
# ``store.write()`` or ``store.read_statement()``. Only the store core opens the database
# (engine, sessions, connections).

#: The store core: engine, session factories, the Store and its parts, the migrations and
#: the staging helper the core hands a connection to.
STORE_CORE = (
    "annotation_store/db.py",
    "annotation_store/store.py",
    "annotation_store/store_",
    "annotation_store/item_upsert.py",
    "annotation_store/migrations/",
    # the project listing's read-only fast path opens the SQLite file itself, on purpose
    # (no SQLAlchemy import for `workbench projects`); it writes nothing
    "annotation_store/summaries.py",
)
#: Imports that open the database (a ``Session`` may be imported as a type: policy
#: functions pass on the one ``store.read()`` / ``store.write()`` hands them).
_OPENERS = {"sessionmaker", "create_engine", "sqlite3"}
_STORE_TYPES = {"Store", "StoreBase"}


def _takes_the_store_first(node: ast.FunctionDef) -> bool:
    if not node.args.args:
        return False
    first = node.args.args[0]
    hint = first.annotation
    named = getattr(hint, "id", None) or getattr(hint, "value", None)
    return first.arg == "store" or named in _STORE_TYPES


def store_shape_violations(source: str, rel: str) -> list[str]:
    """Where the module at ``rel`` breaks the store's shape: a public function of the
    store beside the Store's methods, a policy module that opens the database itself or
    takes the store other than as its first argument."""
    in_store = rel.startswith("annotation_store/")
    builder = any(_under(_module_name(rel), b) for b in STORE_BUILDERS)
    if not (in_store or builder) or rel.startswith("annotation_store/migrations/"):
        return []
    tree = ast.parse(source, rel)
    found = []
    if in_store:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if not node.name.startswith("_") and _takes_the_store_first(node):
                    found.append(f"{rel}:{node.lineno}: {node.name} is a function of the store")
    if rel.startswith(STORE_CORE):
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            mod = node.module if isinstance(node, ast.ImportFrom) else None
            names = [n for n in (mod or "", *(a.name for a in node.names)) if n]
            hit = [n for n in names if n.split(".")[0] in _OPENERS or n in _OPENERS]
            if hit:
                found.append(f"{rel}:{node.lineno}: imports {', '.join(hit)}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Session":
            found.append(f"{rel}:{node.lineno}: makes a Session")
        elif isinstance(node, ast.Attribute) and node.attr in ("engine", "connect"):
            found.append(f"{rel}:{node.lineno}: uses .{node.attr}")
        elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            args = [a.arg for a in node.args.args]
            if "store" in args[1:] and args[0] not in ("self", "cls"):
                found.append(f"{rel}:{node.lineno}: {node.name} takes the store not first")
    return found


def test_the_store_has_one_shape() -> None:
    found = [
        v for p in _layered_files() for v in store_shape_violations(p.read_text("utf-8"), _rel(p))
    ]
    assert found == []


def test_the_store_shape_checker_reports_a_policy_module_with_its_own_session() -> None:
    source = (
        "from sqlalchemy.orm import Session, sessionmaker\n"
        "def pick(project, store):\n"
        "    with store.engine.begin() as conn:\n"
        "        return Session(bind=conn)\n"
        "def count(store, project):\n"
        "    with store.read() as s:\n"
        "        return s\n"
    )
    assert sorted(store_shape_violations(source, "crowd/links.py")) == [
        "crowd/links.py:1: imports sessionmaker",
        "crowd/links.py:2: pick takes the store not first",
        "crowd/links.py:3: uses .engine",
        "crowd/links.py:4: makes a Session",
    ]
    # the store core opens the database, but a function taking the store is not its shape
    assert store_shape_violations(source, "annotation_store/store_labels.py") == [
        "annotation_store/store_labels.py:5: count is a function of the store"
    ]
    # a module outside the store and its builders is none of this test's business
    assert store_shape_violations(source, "reports/links.py") == []


def test_the_store_shape_checker_knows_a_store_by_its_type() -> None:
    source = "def pin(base: StoreBase, kind):\n    pass\ndef _pin(store, kind):\n    pass\n"
    assert store_shape_violations(source, "annotation_store/store_kinds.py") == [
        "annotation_store/store_kinds.py:1: pin is a function of the store"
    ]


# -- the picture in docs/architecture.md -------------------------------------------------

DOC = ROOT / "docs" / "architecture.md"


def pictured_layers(text: str) -> dict[str, set[str]]:
    """package -> the packages its arrow names, read off the layer picture at the top of
    the architecture document (``├── name/`` ... ``└─> a, b``; ``common`` goes unnamed)."""
    picture = text.split("```")[1]
    found: dict[str, set[str]] = {}
    current = None
    for line in picture.splitlines():
        if "├── " in line:
            current = line.split("├── ", 1)[1].split("/")[0]
            found[current] = set()
        elif current is not None and "└─> " in line:
            words = line.split("└─> ", 1)[1].replace(",", " ").split()
            found[current] = ({w.split(".")[0] for w in words} & set(ALLOWED)) - {"common"}
            current = None
    return found


def test_the_documents_picture_is_the_table() -> None:
    pictured = pictured_layers(DOC.read_text("utf-8"))
    assert set(pictured) >= DOMAIN - {"common"}
    for package in DOMAIN - {"common"}:
        table = {a.split(".")[0] for a in ALLOWED[package]} - {"common"}
        assert pictured[package] == table, package


def test_the_picture_reader_reads_an_arrow() -> None:
    text = "x\n```\n  ├── studies/   a study\n  │     │   more\n  │     └─> annotation_store, kinds\n```\n"
    assert pictured_layers(text) == {"studies": {"annotation_store", "kinds"}}
