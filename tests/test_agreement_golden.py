"""`agreement NAME --json` on the four demo projects, byte for byte.

The golden files were written by the CLI before the agreement document became rows
(issue 26) and regenerated only for deliberate additions (issue 25's own-model bias keys,
issue 24's `alarms`, issue 32's question-type statistics, null on these fields);
any other change to the document's keys, order, numbers or formatting fails here.
The only normalised bytes are the demo's load timestamps (the timeline's ``"at"``), which
differ on every load. ``make golden`` rewrites the files (:mod:`tests.support.golden`) when
a change to the document is meant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.golden import (
    GOLDEN,
    PLACEHOLDER,
    PROJECTS,
    agreement_json,
    normalised,
    write_golden,
)


@pytest.mark.parametrize("project", PROJECTS)
def test_json_is_byte_identical_to_the_golden_file(demo: str, project: str) -> None:
    got = normalised(agreement_json(demo, project))
    assert got == (GOLDEN / f"{project}.json").read_text()


def test_an_at_key_that_is_not_a_load_timestamp_is_refused() -> None:
    stamp = '{"at": "2026-01-02T03:04:05.678+00:00", "x": 1}'
    assert normalised(stamp) == "{" + PLACEHOLDER + ', "x": 1}'
    with pytest.raises(ValueError, match="not a load timestamp"):
        normalised('{"at": "yesterday"}')


def test_make_golden_writes_what_the_test_compares(tmp_path: Path) -> None:
    for project in PROJECTS[1:]:
        (tmp_path / f"{project}.json").write_text((GOLDEN / f"{project}.json").read_text())
    (tmp_path / f"{PROJECTS[1]}.json").write_text("stale")
    changed = write_golden(tmp_path)
    assert [p.name for p in changed] == [f"{PROJECTS[0]}.json", f"{PROJECTS[1]}.json"]
    for project in PROJECTS:
        assert (tmp_path / f"{project}.json").read_text() == (
            GOLDEN / f"{project}.json"
        ).read_text()
