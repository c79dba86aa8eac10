"""Issue 43, point 2: renderers read the agreement document through ``agreement.views``.

Every read of a key ``"fields"`` or ``"evaluators"`` (``x["fields"]``, ``x.get("fields")``)
in a product file outside ``agreement/`` is found by walking the syntax tree, with the
expression it reads from. Each must be either listed in ``NOT_THE_DOCUMENT`` (the same
key of something else: a kind's declared fields, an item's values, a job's parameters)
or be in a file of ``DOCUMENT_READERS``, the files still allowed to index the agreement
document directly: at most five. A new reader of the document fails here; read it
through :mod:`agreement.views` instead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Folders that are not product code (``agreement/`` owns the document's layout), and
#: build or test output.
NOT_PRODUCT = {
    *("tests", "bench", "scripts", "examples", "docs", "agreement"),
    *("build", "dist", "test-output", "node_modules"),
}

KEYS = ("fields", "evaluators")

#: The most files that may index the agreement document's sections directly.
MAX_READERS = 5

#: Product files that still index the agreement document directly (none today).
DOCUMENT_READERS: frozenset[str] = frozenset()

#: file -> the expressions it reads a "fields" / "evaluators" key of that are not the
#: agreement document (what each is, after the file).
NOT_THE_DOCUMENT: dict[str, frozenset[str]] = {
    "alignment/bias_scan.py": frozenset({"items"}),  # the item frame's column
    "alignment/probes.py": frozenset({"fi.inputs.items.set_index('item_id')"}),  # items
    "annotation_store/item_upsert.py": frozenset({"row", "wanted"}),  # item rows
    "interop/row_source.py": frozenset({"obj"}),  # an imported record
    "interop/sgd.py": frozenset({"item"}),  # an SGD item
    "studies/flow_settings.py": frozenset({"entry"}),  # training item
    "studies/settings_form.py": frozenset({"t"}),  # training item
    "commands/jobs.py": frozenset({"job.params"}),  # a job's parameters
    "commands/judge.py": frozenset({"d", "r.definition"}),  # a judge definition
    "commands/kind.py": frozenset({"d"}),  # a kind definition
    "commands/kinds.py": frozenset({"k"}),  # a kind's listing
    "commands/quality.py": frozenset({"table"}),  # the annotator quality table
    "evaluators/judges/evaluator.py": frozenset({"ex"}),  # a worked example
    "evaluators/judges/leakage.py": frozenset({"ex"}),  # a worked example
    "interop/base.py": frozenset({"r"}),  # an imported item row
    "interop/label_studio_config.py": frozenset({"data"}),  # a Label Studio config
    "jobs/worker.py": frozenset({"out", "params"}),  # a job's parameters and progress
    "pages/alignment.py": frozenset({"doc"}),  # the alignment document
    "reports/judges.py": frozenset({"d"}),  # a judge definition
    "reports/quality.py": frozenset({"out"}),  # the annotator quality table
    "reports/render.py": frozenset({"it"}),  # a drill-down item
    "ui/agreement_panel.py": frozenset({"s"}),  # the side panel's summary
    "ui/audit/jobs_view.py": frozenset({"j.params", "p", "params"}),  # job parameters
    "ui/judge_editor.py": frozenset({"definition"}),  # a judge definition
    "ui/kind_form.py": frozenset({"data"}),  # a kind definition
    "ui/kind_form_edits.py": frozenset({"data", "out"}),  # a kind definition
    "ui/kind_preview.py": frozenset({"definition.data"}),  # a kind definition
    "ui/quality_view.py": frozenset({"table"}),  # the annotator quality table
    "ui/study/settings_form.py": frozenset({"t"}),  # a training item
    "workbench_api/estimates.py": frozenset({"items"}),  # the item frame's column
}


def key_reads(source: str, rel: str) -> Iterator[tuple[int, str, str]]:
    """(line, key, the expression read from) for every ``x["fields"]`` / ``x["evaluators"]``
    and ``x.get("fields" ...)`` / ``x.get("evaluators" ...)`` in ``source``."""
    for node in ast.walk(ast.parse(source, rel)):
        if isinstance(node, ast.Subscript):
            key = node.slice
            if isinstance(key, ast.Constant) and key.value in KEYS:
                yield node.lineno, key.value, ast.unparse(node.value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in KEYS
        ):
            yield node.lineno, node.args[0].value, ast.unparse(node.func.value)


def _product_files() -> list[Path]:
    tops = [p for p in ROOT.iterdir() if p.name not in NOT_PRODUCT and p.name[0] != "."]
    return sorted(
        f for p in tops for f in ([p] if p.is_file() else p.rglob("*.py")) if f.suffix == ".py"
    )


def _found() -> dict[str, set[tuple[int, str, str]]]:
    out: dict[str, set[tuple[int, str, str]]] = {}
    for path in _product_files():
        rel = path.relative_to(ROOT).as_posix()
        for read in key_reads(path.read_text(encoding="utf-8"), rel):
            out.setdefault(rel, set()).add(read)
    return out


def test_at_most_five_files_index_the_agreement_document() -> None:
    assert len(DOCUMENT_READERS) <= MAX_READERS


def test_no_other_file_indexes_the_agreement_document() -> None:
    unlisted = [
        f"{rel}:{line}: reads {key!r} of {expr}"
        for rel, reads in _found().items()
        if rel not in DOCUMENT_READERS
        for line, key, expr in sorted(reads)
        if expr not in NOT_THE_DOCUMENT.get(rel, frozenset())
    ]
    assert not unlisted, (
        "read the agreement document through agreement.views (or, if this is not the "
        "agreement document, list the expression in NOT_THE_DOCUMENT):\n" + "\n".join(unlisted)
    )


def test_the_lists_name_only_reads_that_exist() -> None:
    found = {rel: {expr for _, _, expr in reads} for rel, reads in _found().items()}
    stale = [
        f"{rel}: {expr}"
        for rel, exprs in NOT_THE_DOCUMENT.items()
        for expr in sorted(exprs)
        if expr not in found.get(rel, set())
    ]
    stale += [rel for rel in DOCUMENT_READERS if rel not in found]
    assert not stale, "no longer read there; drop from the lists:\n" + "\n".join(stale)


def test_the_checker_finds_both_ways_of_reading_a_section() -> None:
    source = (
        "def f(doc, data):\n"
        "    for name, block in doc['fields'].items():\n"
        "        pass\n"
        "    return data.get('evaluators', {}), doc['project'], data.get('derived')\n"
    )
    assert sorted(key_reads(source, "x.py")) == [(2, "fields", "doc"), (4, "evaluators", "data")]


def test_the_renderers_read_through_the_views() -> None:
    for rel in ("reports/text.py", "reports/panel.py", "reports/measure_tables.py"):
        source = (ROOT / rel).read_text(encoding="utf-8")
        assert "agreement.views" in source, rel
        assert list(key_reads(source, rel)) == [], rel
