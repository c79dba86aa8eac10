"""The typed seams type-check: mypy on the store's parts, the evaluator base and records,
and the evaluators whose settings are typed through ``Evaluator[SettingsT]``.

Each of these modules once needed ``Any`` or ``type: ignore`` where it borrowed from
another part; this keeps them honest. ``store_results.py`` is left out until its job
functions (owned by the job-table work) type-check too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TYPED = [
    "common/records.py",
    "annotation_store/store.py",
    "annotation_store/store_base.py",
    "annotation_store/store_projects.py",
    "annotation_store/store_labels.py",
    # the versioned definitions (declared kinds, judges) and their one helper
    "annotation_store/store_versions.py",
    "annotation_store/store_kinds.py",
    "annotation_store/store_judges.py",
    "annotation_store/import_journal.py",
    "annotation_store/records.py",
    "annotation_store/label_frames.py",
    "evaluators/base.py",
    "evaluators/registry.py",
    "interop/formats.py",
    "evaluators/pairs.py",
    "evaluators/llm/evaluator.py",
    "evaluators/nli/evaluator.py",
    "evaluators/builtin/bifact.py",
    "evaluators/builtin/embedding.py",
    "evaluators/builtin/fingract.py",
    "evaluators/builtin/intent_resolution.py",
    "evaluators/builtin/lexical.py",
    "evaluators/builtin/ser.py",
    "evaluators/builtin/sgsacc.py",
    # judge-assisted estimates: the maths, its loader and the paired judge test
    "estimates",
    "workbench_api/estimates.py",
    "agreement/paired_compare.py",
    # the typed views the renderers read the agreement document through
    "agreement/views.py",
]


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is in requirements-dev.txt")
    cmd = [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent"]
    return subprocess.run(
        [*cmd, "--cache-dir", str(ROOT / ".mypy_cache"), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_typed_seams_type_check() -> None:
    done = _mypy(*TYPED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_reports_settings_used_as_the_wrong_model(tmp_path: Path) -> None:
    """A field the evaluator's settings model lacks is an error, not Any."""
    source = (
        "from evaluators.builtin.bifact import BiFact\n\n\n"
        "def temperature(ev: BiFact) -> float:\n"
        "    return ev.settings.no_such_field\n"
    )
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    done = _mypy(str(probe))
    assert done.returncode == 1
    assert '"BiFactSettings" has no attribute "no_such_field"' in done.stdout
