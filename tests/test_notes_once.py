"""Warnings stated once: shared reasons grouped with a count, shared table notes footnoted."""

from __future__ import annotations

import re
from pathlib import Path

from commands import main
from common.notes import footnoted, once_each


def test_once_each_groups_a_shared_reason_with_its_subjects_in_order() -> None:
    lines = once_each(
        [
            ("pearson", "needs 10 items"),
            ("spearman", "needs 10 items"),
            ("kendall", "no variance"),
            ("pearson", "needs 10 items"),  # the same subject again counts once
            ("bias", "needs 10 items"),
        ],
        "measures",
    )
    assert lines == [
        "needs 10 items (3 measures: pearson, spearman, bias)",
        "kendall: no variance",
    ]


def test_footnoted_moves_shared_notes_under_the_table() -> None:
    rows = [["a", 1, "too few"], ["b", 2, ""], ["c", 3, "too few"], ["d", 4, "odd one"]]
    table, notes = footnoted(rows, 2)
    assert table == [["a", 1, "note 1"], ["b", 2, ""], ["c", 3, "note 1"], ["d", 4, "odd one"]]
    assert notes == ["note 1 (2 rows): too few"]
    assert rows[0][2] == "too few"  # the input is left as it was


def test_demo_reports_state_each_warning_once(demo: str, tmp_path: Path) -> None:
    for name in ("demo-intent-match", "demo-judge-study"):
        out = tmp_path / f"{name}.md"
        assert main(["--db", demo, "report", name, "--out", str(out), "--resamples", "0"]) == 0
        text = out.read_text()
        # every bullet line (warnings, notes) is there once; a table's footnotes are
        # stated under each table (one estimates table per field)
        bullets = [
            line
            for line in text.splitlines()
            if line.startswith("- ") and not line.startswith("- note ")
        ]
        assert len(bullets) == len(set(bullets)), name
        # no note text repeats in a table's note column
        notes = [
            cells[-2].strip()
            for line in text.splitlines()
            if line.startswith("|") and len(cells := line.split("|")) > 3
        ]
        long_notes = [n for n in notes if len(n) > 25]
        assert len(long_notes) == len(set(long_notes)), name
    text = (tmp_path / "demo-intent-match.md").read_text()
    # once under each of the four fields' planning tables, not once per row (12)
    assert text.count("needs at least 10 items with both a human label and a judge score") == 4
    assert len(re.findall(r"note 1 \(3 rows\): needs at least 10 items", text)) == 4
