"""Prolific's submissions export carries no labels: on a project none of whose workers
took part in it, choosing it says so in one line, on the command line and in the API,
and imports nothing (with its workers' submitted items it brings their time taken:
tests/test_mturk_batches.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from interop.prolific import REASON
from tests.support.apptest import open_app

#: The columns of the CSV a researcher downloads from a Prolific study's submissions page.
EXPORT = (
    "Submission id,Participant id,Status,Custom study tncs accepted at,Started at,"
    "Completed at,Reviewed at,Archived at,Time taken,Completion code,Total approvals\n"
    "65a1,5f9c,APPROVED,Not Applicable,2026-05-04T12:00:00Z,2026-05-04T12:09:00Z,"
    "2026-05-05T08:00:00Z,2026-05-05T08:00:00Z,540,C1A2B3,112\n"
)


def test_a_prolific_export_is_refused_in_one_plain_line(
    sqlite_url: str, tmp_path: Path, capsys
) -> None:
    db = ["--db", sqlite_url]
    assert main([*db, "project", "create", "s", "--kind", "binary"]) == 0
    capsys.readouterr()
    path = tmp_path / "prolific_export_65a1.csv"
    path.write_text(EXPORT)
    cmd = [*db, "import", "annotations", "s", str(path), "--format", "prolific"]
    assert main(cmd) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: nothing imported: prolific_export_65a1.csv: a Prolific")
    assert "carries no labels" in err and err.count("\n") == 1
    assert main([*db, "projects"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[2:] == ["0", "0", "0", "0", "0"]
    out = tmp_path / "x.csv"
    with pytest.raises(SystemExit, match="2"):  # an import-only format: no export choice
        main([*db, "export", "annotations", "s", "--out", str(out), "--format", "prolific"])
    assert "invalid choice: 'prolific'" in capsys.readouterr().err and not out.exists()


def test_the_data_page_says_so_too(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.create_project("p", "binary")
    at = open_app(monkeypatch, store.url, page="pages/data.py", project="p")
    at.selectbox(key="foreign_format").set_value("prolific").run()
    at.file_uploader(key="foreign_upload_prolific").set_value(
        ("submissions.csv", EXPORT.encode(), "text/csv")
    ).run()
    at.button(key="foreign_import").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == [f"Nothing imported. submissions.csv: {REASON}"]
    assert store.items("p") == []
