"""What an ``agreement --json`` process imports: never matplotlib or pingouin (the ICCs
are numpy), and not scipy.stats for the correlations' p-values or the bias's Fisher test
(scipy.special's tail functions give the same numbers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from annotation_store import Store

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import contextlib, io, json, sys
from commands import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert main(sys.argv[1:]) == 0
doc = json.loads(out.getvalue())
print(json.dumps(sorted(k for k, f in doc["fields"].items() if f["icc_a_1"] is not None)))
heavy = ("matplotlib", "pingouin", "seaborn", "statsmodels", "scipy.stats")
print(json.dumps(sorted(m for m in heavy if m in sys.modules)))
"""


def _imported(url: str, project: str) -> tuple[list[str], list[str]]:
    """(fields with an ICC, heavy modules imported) of one agreement process."""
    args = ["--db", url, "agreement", project, "--json", "--resamples", "20"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    with_icc, heavy = done.stdout.strip().splitlines()[-2:]
    return json.loads(with_icc), json.loads(heavy)


def test_a_project_with_evaluators_imports_no_statistics_library(demo: str) -> None:
    assert _imported(demo, "demo-actionability") == (
        ["errors_corrected", "errors_detected", "sources"],
        [],
    )


def test_people_alone_import_no_statistics_library_beyond_numpy(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    try:
        store.create_project("people", "likert")
        store.upsert_items("people", [{"item_id": f"i{i}", "fields": {}} for i in range(12)])
        store.import_labels(
            "people",
            [
                {
                    "item_id": f"i{i}",
                    "annotator": who,
                    "field": "label",
                    "value": (i + shift) % 5 + 1,
                    "status": "submitted",
                }
                for i in range(12)
                for who, shift in (("ann", 0), ("bea", 1), ("cem", 0))
            ],
        )
    finally:
        store.close()
    assert _imported(sqlite_url, "people") == (["label"], [])


ALIGNMENT_PROBE = """
import sys
from annotation_store import Store
from bench.agreement import PROJECT, build
build(sys.argv[1], 150)  # 150 items x 5 people x 3 fields, 4 evaluators
from alignment.escalate import SOURCES, escalation
from alignment.inputs import load_field
from alignment.table import alignment_table
store = Store(sys.argv[1])
fi = load_field(store, PROJECT)
doc = alignment_table(store, PROJECT, n_resamples=20, inputs=fi)
for row in doc["versions"]:
    for alpha in (0.1, 0.4):
        escalation(store, PROJECT, doc["field"], row["label"], alpha=alpha, delta=0.2,
                   source=SOURCES[0], inputs=fi)
tests = [t for r in doc["versions"] for t in r["probes"]["bias_scan"].get("tests") or []]
alt = [len(r["probes"]["alt_test"]["annotators"]) for r in doc["versions"]]
print(len(doc["versions"]), sorted({t["test"] for t in tests}), alt,
      "scipy.stats" in sys.modules)
"""


def test_the_alignment_view_does_not_import_scipy_stats(sqlite_url: str) -> None:
    """The table's t-tests, correlations, bias scan and the escalation's binomial tails
    come from agreement.stats_lite: importing scipy.stats was half a second of the
    Alignment page's first visit."""
    done = subprocess.run(
        [sys.executable, "-c", ALIGNMENT_PROBE, sqlite_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "4 ['Kruskal-Wallis H'] [5, 5, 5, 5] False"
