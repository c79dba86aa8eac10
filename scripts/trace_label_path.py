"""Follow one agreement computation from the store read to the report document and print
the modules it passes through (issue 43, point 1).

``python scripts/trace_label_path.py [PROJECT] [--exclude]`` loads the demo projects into a scratch
SQLite file, then runs ``reports.data.agreement_document`` under ``sys.setprofile`` and
prints the module sequence: a line each time control crosses from one project module to
another, ``->`` when it calls in, ``<-`` when it returns to the caller.

What counts as one step: the store's persistence (``Store`` and its parts), the agreement
engine (``agreement/``), the registries below it (``kinds/``, ``evaluators/``) and
``common/`` are entered as one step each and not followed inside: they are the ends of
the path (the rows read, the figures computed), not the path. Every other project module
is followed. Printed at the end:

``--exclude`` excludes one annotator first, so the path makes the exclusions section too.

- ``modules``: distinct modules on the path (each end counted as one);
- ``entries``: calls from one module into another;
- ``returns``: returns to a caller that then itself calls into another module (the
  caller had to take control back and hand it on: a round trip in the middle of the
  path; the final unwinding is not counted);
- the modules entered more than once, with how often.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: The ends of the path, entered as one step each and not followed inside: group name ->
#: module prefixes (a prefix ending in ``_`` matches ``store_labels`` and kin).
ENDS = {
    "store": (
        "annotation_store.store",
        "annotation_store.store_",
        "annotation_store.exclusions",  # a mixin of Store, like the store_*.py parts
        "annotation_store.models",
        "annotation_store.db",
        "annotation_store.label_frames",
        "annotation_store.records",
        "annotation_store.fast_columns",
    ),
    "agreement": ("agreement",),
    "kinds": ("kinds",),
    "evaluators": ("evaluators",),
    "common": ("common",),
}


def _module(frame: FrameType) -> str | None:
    """The project module a frame runs in (None: outside the project, or a package's
    ``__init__``, which only hands names on)."""
    path = Path(frame.f_code.co_filename)
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        return None
    if rel.parts[0] in ("tests", "scripts", ".venv") or rel.suffix != ".py":
        return None
    if rel.name == "__init__.py":
        return None
    return ".".join(rel.with_suffix("").parts)


def end_of(module: str) -> str | None:
    """The end group ``module`` belongs to (None: a module the path is followed through)."""
    for group, prefixes in ENDS.items():
        for p in prefixes:
            if module == p or module.startswith(p if p.endswith("_") else p + "."):
                return group
    return None


class PathTracer:
    """Record module crossings as ``steps``: [(arrow, module)], ``->`` a call into another
    module (an end by its group name), ``<-`` a return from a followed module to its
    caller. Returns from an end are not steps (the end hands back what it read or
    computed); consecutive calls of one caller into the same end are one step."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, str]] = []
        self.stack: list[str] = []  # followed module of every traced frame still running
        self.depth_in_end = 0  # project frames running inside an end

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        module = _module(frame)
        if module is None:
            return
        if self.depth_in_end:
            self.depth_in_end += 1 if event == "call" else -1
            return
        if event == "call":
            group = end_of(module)
            if group is not None:
                if self.steps[-1:] != [("->", group)] and self.stack:
                    self.steps.append(("->", group))
                self.depth_in_end = 1
                return
            if not self.stack or self.stack[-1] != module:
                self.steps.append(("->", module))
            self.stack.append(module)
            return
        if not self.stack:
            return
        left = self.stack.pop()
        if self.stack and self.stack[-1] != left:
            self.steps.append(("<-", self.stack[-1]))


def summary(steps: list[tuple[str, str]]) -> dict[str, Any]:
    """The counts printed at the end (see the module docstring)."""
    entries = [m for arrow, m in steps if arrow == "->"]
    returns = sum(
        1
        for (arrow, _), (after, _) in zip(steps, steps[1:], strict=False)
        if arrow == "<-" and after == "->"
    )
    modules = {m for _, m in steps}
    again = {m: n for m, n in Counter(entries).items() if n > 1 and m not in ENDS}
    return {"modules": len(modules), "entries": len(entries), "returns": returns, "again": again}


def trace(project: str, exclude: bool) -> list[tuple[str, str]]:
    """The module steps of ``agreement_document(store, project)`` on the demo data
    (``exclude``: with one annotator excluded first, so the exclusions section is made)."""
    sys.path.insert(0, str(ROOT))
    from annotation_store import Store
    from demo.loading import load_demo
    from reports.data import agreement_document

    with tempfile.TemporaryDirectory() as scratch:
        store = Store(f"sqlite:///{Path(scratch) / 'trace.db'}")
        load_demo(store)
        if exclude:
            who = sorted(store.annotations_frame(project)["annotator"].unique())[0]
            store.exclude_annotator(project, who, "traced with an exclusion")
        agreement_document(store, project, n_resamples=20)  # warm: imports, caches
        tracer = PathTracer()
        sys.setprofile(tracer)
        try:
            agreement_document(store, project, n_resamples=20)
        finally:
            sys.setprofile(None)
        store.close()
    return tracer.steps


def main(argv: list[str]) -> int:
    exclude = "--exclude" in argv
    names = [a for a in argv if not a.startswith("--")]
    steps = trace(names[0] if names else "demo-intent-match", exclude)
    s = summary(steps)
    again = ", ".join(f"{m} x{n}" for m, n in s["again"].items()) or "none"
    lines = [f"{arrow} {module}" for arrow, module in steps]
    lines.append(f"modules: {s['modules']}  entries: {s['entries']}  returns: {s['returns']}")
    lines.append(f"followed modules entered more than once: {again}")
    print("\n".join(lines))  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
