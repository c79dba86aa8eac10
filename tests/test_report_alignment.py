"""The report carries the judge versions' probes with n, the alt-test and the
calibration diagram (toy project, ``cli.py report``)."""

from __future__ import annotations

import json
from pathlib import Path

from annotation_store import Store
from commands import main
from tests.alignment_fixtures import build_toy


def test_report_has_probes_with_n_alt_test_and_reliability_diagram(
    store: Store, sqlite_url: str, tmp_path: Path
) -> None:
    build_toy(store)
    base = ["--db", sqlite_url, "report", "toy", "--resamples", "0", "--out"]
    assert main([*base, str(tmp_path / "r.md")]) == 0
    md = (tmp_path / "r.md").read_text()
    assert "## Judge versions against the people on `label`" in md
    row = next(x for x in md.splitlines() if x.startswith("| judge:toy v2 |"))
    assert "| 38 |" in row and "0.737 (n 38)" in row
    assert "0.076 (n 38)" in row  # ECE, P(yes) vs majority
    assert "0.079 [0.027, 0.208] (n 38)" in row  # swap share changed
    assert "passes; 3, 38-38" in row
    # Platt with Platt's smoothed targets (issue 42; plain logistic regression gave 0.125)
    assert row.endswith("Brier raw 0.120 · Platt 0.127 · isotonic 0.125 (n 38) |")
    assert "Alternative annotator test (ε = 0.2):" in md
    assert md.count("| judge:toy v2 | ann | 38 |") == 1
    assert "Reliability diagram of judge:toy v2 (bins):" in md

    assert main([*base, str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "judge:toy v2: reliability diagram (ECE 0.076, n 38)" in page
    assert main([*base, str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    [v2] = [r for r in data["alignment"]["versions"] if r["label"] == "judge:toy v2"]
    assert v2["probes"]["position_swap"]["n"] == 38
    # the same excluded count as the agreement provenance
    [excluded] = [e for e in data["provenance"]["excluded"] if e["signature"] == v2["signature"]]
    assert excluded["n_excluded"] == v2["excluded"]["n"] == 2
