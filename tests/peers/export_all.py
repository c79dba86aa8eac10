"""The workbench's side of the peer contract tests: write every export the tests judge.

Runs in the workbench's own venv (the tests in this folder run in .venv-peers and call
it as a separate process). It loads the demo projects and one project per example kind
(examples/kinds/ and this folder's kinds/) into a scratch SQLite file, gives every
example project submitted labels from three annotators (example_labels.py), then writes each project's items, annotations and scores in
every format that holds them::

    OUT/<project>/<format>/<what>[.json|.jsonl|/]
    OUT/manifest.json   [{project, kind, format, what, path, count, notes, error}]

``error`` is the one-line refusal when the export refuses the content; ``notes`` are the
``note:`` lines an export writes for what the tool cannot hold.

    .venv/bin/python tests/peers/export_all.py OUT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

#: example kinds (NAME.toml + NAME_items.jsonl): the shipped ones, then the tests' own
EXAMPLES = (ROOT / "examples" / "kinds", Path(__file__).resolve().parent / "kinds")
#: where each format's export goes, under OUT/<project>/<format>/
TARGETS = {
    "label-studio": "{what}.json",
    "potato": "{what}",
    "argilla": "{what}",
    "langfuse": "{what}.jsonl",
    "langsmith": "{what}.jsonl",
}


def example_projects(url: str) -> list[str]:
    """One project per example kind that ships items (``NAME.toml`` + ``NAME_items.jsonl``)."""
    from cli import main

    names = []
    for toml in sorted(t for folder in EXAMPLES for t in folder.glob("*.toml")):
        items = toml.with_name(f"{toml.stem}_items.jsonl")
        if not items.exists():
            continue
        kind = toml.stem.replace("_", "-")
        project = f"example-{kind}"
        for argv in (
            ["kind", "create", kind, "--from", str(toml)],
            ["project", "create", project, "--kind", f"decl:{kind}"],
            ["import", "items", project, str(items)],
        ):
            if main(["--db", url, *argv]) != 0:
                raise SystemExit(f"could not set up {project}: {argv}")
        names.append(project)
    return names


def declarable_types() -> set[str]:
    """Every question type a kind file may name."""
    from kinds.question_registry import question_types

    return {qt.name for qt in question_types(declarable=True)}


def asked_types(store: object, projects: list[str]) -> set[str]:
    """The question types the projects ask."""
    found = set()
    for project in projects:
        info = store.project(project)
        found |= {f.question_type.name for f in info.task_kind.human_fields(info.settings)}
    return found


def main(out: Path) -> None:
    """Write every export and the manifest."""
    import contextlib
    import io

    from example_labels import add_example_labels

    from annotation_store import Store
    from demo.loading import load_demo
    from interop import FORMATS, format_module
    from workbench_api import export_file

    out.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{out / 'workbench.db'}"
    store = Store(url)
    projects = load_demo(store)
    with contextlib.redirect_stdout(io.StringIO()):
        examples = example_projects(url)
    for project in examples:
        add_example_labels(store, project)
    uncovered = declarable_types() - asked_types(store, examples)
    if uncovered:
        raise SystemExit(f"no example project asks a {', '.join(sorted(uncovered))} question")
    projects += examples
    manifest = []
    for project in projects:
        kind = store.project(project).kind
        for fmt in FORMATS:
            module = format_module(fmt)
            for what in module.WRITES:
                path = out / project / fmt / TARGETS[fmt].format(what=what)
                path.parent.mkdir(parents=True, exist_ok=True)
                notes: list[str] = []
                entry = {"project": project, "kind": kind, "format": fmt, "what": what}
                try:
                    count = export_file(store, project, what, path, fmt, notes=notes)
                    entry.update(path=str(path), count=count, notes=notes, error=None)
                except Exception as exc:  # a refusal is a result the tests read
                    entry.update(path=None, count=0, notes=notes, error=str(exc))
                manifest.append(entry)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
