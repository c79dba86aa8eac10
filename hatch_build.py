"""Wheel build hook: the installed tree imports itself as ``metric_audit_workbench.*``.

The clone keeps its top-level packages (``common``, ``ui``, ``reports`` ...) and imports
them by those names. The wheel puts the same tree under ``metric_audit_workbench/``; this
hook gives it a copy of every Python file whose absolute imports of the tree's own names
are rewritten (``from common.x import y`` -> ``from metric_audit_workbench.common.x
import y``), so nothing of the workbench needs those plain names on ``sys.path``, and a
user's ``common.py`` neither replaces the workbench's nor is replaced by it. Only
``import`` statements change, each on its own lines (tracebacks keep their line
numbers); module names in strings go through ``common.package.own_module`` at run time.
Editable installs and the sdist are not touched. See docs/architecture.md.
"""

from __future__ import annotations

import ast
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = "metric_audit_workbench"


class RewriteError(ValueError):
    """An import the rewrite cannot express safely (the build stops and names it)."""


def own_names(root: Path, included: list[str]) -> set[str]:
    """The tree's top-level module names: included folders holding Python, and .py files."""
    names = set()
    for rel in included:
        path = root / rel
        if path.is_file() and path.suffix == ".py" and "/" not in rel:
            names.add(path.stem)
        elif path.is_dir() and any(path.rglob("*.py")):
            names.add(path.name)
    return names


def api_names(root: Path) -> set[str]:
    """The Python API's names (``workbench_api._EXPORTS``): the package's attributes."""
    tree = ast.parse((root / "workbench_api" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets
        ):
            return {k.value for k in node.value.keys if isinstance(k, ast.Constant)}  # type: ignore[attr-defined]
    raise RewriteError("workbench_api/__init__.py has no _EXPORTS")


def _import_text(node: ast.Import, own: set[str], reserved: set[str], where: str) -> str:
    parts = []
    for alias in node.names:
        head, _, rest = alias.name.partition(".")
        if head not in own:
            parts.append(f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else ""))
        elif alias.asname and rest:  # import a.b.c as x -> from P.a.b import c as x
            parent, _, leaf = alias.name.rpartition(".")
            parts.append(f"from {PACKAGE}.{parent} import {leaf} as {alias.asname}")
        elif head in reserved:
            # ``import agreement`` would read the package's attribute, which is the API's
            # function of that name; a from-import reads the module itself.
            raise RewriteError(f"{where}: `import {alias.name}` binds {head!r}: use a from-import")
        elif alias.asname:
            parts.append(f"from {PACKAGE} import {head} as {alias.asname}")
        elif rest:  # import a.b binds a: import the submodule, then bind a
            parts.append(f"import {PACKAGE}.{alias.name}; from {PACKAGE} import {head}")
        else:
            parts.append(f"from {PACKAGE} import {head}")
    return "; ".join(parts)


def rewrite(source: str, own: set[str], reserved: set[str] = frozenset(), where: str = "") -> str:
    """``source`` with its absolute imports of ``own`` names under the package.

    ``reserved`` are package attributes that a plain ``import NAME`` must not read."""
    tree = ast.parse(source)
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    edits: list[tuple[int, int, int, bytes]] = []  # (line index, start, end, new bytes)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.partition(".")[0] not in own:
                continue
            line = lines[node.lineno - 1]
            found = re.compile(rb"from\s+(" + re.escape(node.module.encode()) + rb")\b")
            match = found.match(line, node.col_offset)
            if match is None:
                raise RewriteError(f"{where}:{node.lineno}: cannot find the module name")
            new = f"{PACKAGE}.{node.module}".encode()
            edits.append((node.lineno - 1, match.start(1), match.end(1), new))
        elif isinstance(node, ast.Import):
            if not any(a.name.partition(".")[0] in own for a in node.names):
                continue
            if node.end_lineno != node.lineno:
                raise RewriteError(f"{where}:{node.lineno}: an own import over several lines")
            text = _import_text(node, own, reserved, f"{where}:{node.lineno}")
            edits.append((node.lineno - 1, node.col_offset, node.end_col_offset, text.encode()))  # type: ignore[arg-type]
    for index, start, end, new in sorted(edits, reverse=True):
        lines[index] = lines[index][:start] + new + lines[index][end:]
    return b"".join(lines).decode()


class TreeRewriteHook(BuildHookInterface):
    """Hatch's custom hook: rewritten copies of the tree's .py files replace the originals."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard":
            return  # an editable install runs the clone itself, by its plain names
        root = Path(self.root)
        included = list(self.build_config.target_config.get("only-include", []))
        own = own_names(root, included)
        reserved = api_names(root) & own
        self._out = Path(tempfile.mkdtemp(prefix="wb-rewrite-"))
        for rel in included:
            path = root / rel
            files = [path] if path.is_file() else sorted(path.rglob("*.py"))
            for file in files:
                if file.suffix != ".py" or "__pycache__" in file.parts:
                    continue
                target = file.relative_to(root).as_posix()
                source = file.read_text(encoding="utf-8")
                changed = rewrite(source, own, reserved, target)
                if changed == source:
                    continue
                copy = self._out / target
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(changed, encoding="utf-8")
                build_data["force_include"][str(copy)] = target

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        out = getattr(self, "_out", None)
        if out is not None:
            shutil.rmtree(out, ignore_errors=True)
